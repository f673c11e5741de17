/**
 * The results CSV's guard against spreadsheet formulas (issue 26 item 6): a payer's text that a
 * spreadsheet would run as a formula is written with a leading `'`; a plain number is left as it is.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESULT_COLUMNS, resultsCsvLines } from '../../src/batches/csv.ts';
import type { EligibilityCheckResponse } from '../../src/contract/check-response.ts';

/** The verdict summary cell of one result row whose payer text is `summary`. */
function summaryCell(summary: string): string {
  const body = { status: 'COMPLETED', verdict: { status: 'ACTIVE', summary } } as EligibilityCheckResponse;
  const line = resultsCsvLines([{ index: 0, id: 'c1', body }]);
  const cells = line.replace(/\r\n$/, '').split(',');
  assert.equal(cells.length, RESULT_COLUMNS.length);
  return cells[RESULT_COLUMNS.indexOf('verdict_summary')]!;
}

test('a cell starting with = + - @ TAB or CR is prefixed with a quote, even when it starts like a number', () => {
  for (const text of [
    "-1+cmd|' /C calc'!A0",
    '-2+3',
    '+1',
    '=SUM(A1:A2)',
    '@SUM(A1)',
    '\t=1+1',
    '\tplain',
    '-',
    '-1.5e3',
  ]) {
    assert.equal(summaryCell(text), `'${text}`, JSON.stringify(text));
  }
  // A leading CR makes the cell quoted as well (it holds a line break).
  assert.equal(summaryCell('\r=1+1'), `"'\r=1+1"`);
});

test('a plain number, negative or decimal, is written as it is', () => {
  for (const text of ['-1', '-12.50', '0', '30', '12.5', 'Active coverage']) {
    assert.equal(summaryCell(text), text, text);
  }
});
