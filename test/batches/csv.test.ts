/**
 * Reading a schedule CSV within bounds (issue 26 item 1): reading stops past the batch row limit, a row
 * longer than MAX_SCHEDULE_ROW_CHARS is refused by line without being kept or echoed, at most
 * MAX_SCHEDULE_PROBLEMS problems are kept (the rest counted), and the header's problem stays short.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  MAX_SCHEDULE_PROBLEMS,
  MAX_SCHEDULE_ROW_CHARS,
  parseCsvRows,
  parseScheduleCsv,
  readScheduleCsv,
} from '../../src/batches/csv.ts';
import { MAX_BATCH_CHECKS } from '../../src/contract/batch.ts';

const TEMPLATE = readFileSync(new URL('../../examples/batch.example.csv', import.meta.url), 'utf8');
const [HEADER, ROW] = TEMPLATE.trimEnd().split('\n') as [string, string];
const EMPTY_ROW = ','.repeat(8);

test('a row of 100,000 commas is refused by its line, and nothing of it is kept or echoed', async () => {
  const text = `${HEADER}\n${ROW}\n${','.repeat(100_000)}\n${ROW}\n`;
  const parsed = await readScheduleCsv(text);
  assert.equal(parsed.checks.length, 2);
  assert.deepEqual(parsed.lines, [2, 4]);
  assert.equal(parsed.problemCount, 1);
  assert.equal(parsed.problems[0]!.line, 3);
  assert.match(parsed.problems[0]!.message, /^line 3 is longer than 1,000 characters/);
  assert.ok(parsed.problems[0]!.message.length < 200);
});

test('a header of 100,000 commas is one short problem on line 1', async () => {
  const parsed = await readScheduleCsv(`${','.repeat(100_000)}\n${ROW}\n`);
  assert.equal(parsed.checks.length, 0);
  assert.equal(parsed.problemCount, 1);
  assert.equal(parsed.problems[0]!.line, 1);
  assert.ok(parsed.problems[0]!.message.length < 300, parsed.problems[0]!.message.slice(0, 300));
});

test('unknown header names: a few are named, shortened, and the rest counted', () => {
  const names = Array.from({ length: 12 }, (_, i) => `extra_${i}_${'x'.repeat(50)}`);
  const parsed = parseScheduleCsv(`${HEADER},${names.join(',')}\n`);
  const message = parsed.problems[0]!.message;
  assert.match(message, /unknown column extra_0_x+…, /);
  assert.match(message, /and 7 more/);
  assert.ok(message.length < 400);
});

test('at most MAX_SCHEDULE_PROBLEMS problems are kept, in line order; every one is counted', async () => {
  const text = `${HEADER}\n${`${EMPTY_ROW}\n`.repeat(5_000)}${ROW}\n`;
  const parsed = await readScheduleCsv(text);
  assert.equal(parsed.problemCount, 5_000);
  assert.equal(parsed.problems.length, MAX_SCHEDULE_PROBLEMS);
  assert.deepEqual(
    parsed.problems.slice(0, 2).map((p) => p.line),
    [2, 3],
  );
  assert.deepEqual(parsed.lines, [5_002]);
  assert.equal(parsed.tooManyRows, false);
});

test('reading stops past the batch row limit (rows after the header, valid or not)', async () => {
  const full = `${HEADER}\n${`${ROW}\n`.repeat(MAX_BATCH_CHECKS)}`;
  const atLimit = await readScheduleCsv(full);
  assert.equal(atLimit.tooManyRows, false);
  assert.equal(atLimit.checks.length, MAX_BATCH_CHECKS);
  const over = await readScheduleCsv(`${full}${EMPTY_ROW}\n${`${ROW}\n`.repeat(50_000)}`);
  assert.equal(over.tooManyRows, true);
  assert.ok(over.checks.length <= MAX_BATCH_CHECKS);
});

test('empty lines are skipped and do not count as rows; line numbers stay those of the file', () => {
  const parsed = parseScheduleCsv(`\uFEFF${HEADER}\r\n\r\n${'\n'.repeat(MAX_BATCH_CHECKS + 5)}${ROW}\r\n`);
  assert.equal(parsed.tooManyRows, false);
  assert.equal(parsed.problemCount, 0);
  assert.deepEqual(parsed.lines, [MAX_BATCH_CHECKS + 8]);
});

test('quoted fields: commas, doubled quotes and line breaks inside; the row keeps its first line', () => {
  const rows = parseCsvRows('a,"b,""c""\nd",e\r\nf\n\n"g"h,\n');
  assert.deepEqual(rows, [
    { line: 1, fields: ['a', 'b,"c"\nd', 'e'] },
    { line: 3, fields: ['f'] },
    { line: 5, fields: ['gh', ''] },
  ]);
});

test('a quoted field that runs past the row limit is skipped to its closing quote, then reading goes on', () => {
  const long = `"${'x,'.repeat(MAX_SCHEDULE_ROW_CHARS)}\n"`;
  const parsed = parseScheduleCsv(`${HEADER}\n${long},a\n${ROW}\n`);
  assert.equal(parsed.problemCount, 1);
  assert.equal(parsed.problems[0]!.line, 2);
  assert.deepEqual(parsed.lines, [4]);
});

test('the whole-text reader and the yielding reader agree', async () => {
  const text = `${HEADER}\n${`${ROW}\n${EMPTY_ROW}\n\n`.repeat(3_000)}`;
  assert.deepEqual(await readScheduleCsv(text), parseScheduleCsv(text));
});
