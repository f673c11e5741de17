/**
 * The code tables against docs/x12-codes.md, the project's reference for them: every code the page lists is
 * in the table with the same meaning (compared without case, punctuation and parenthetical notes; service
 * types and reject reasons exactly), and the tables hold no code the page does not list.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  AAA03_BY_LOOP,
  AAA03_REJECT_REASONS,
  AAA04_FOLLOW_UP_ACTIONS,
  EB01_BENEFIT_CODES,
  EB02_COVERAGE_LEVELS,
  EB09_QUANTITY_QUALIFIERS,
  EB11_AUTHORIZATION_INDICATORS,
  EB12_NETWORK_INDICATORS,
  HSD01_QUANTITY_QUALIFIERS,
  HSD03_UNITS,
  HSD07_DELIVERY_FREQUENCIES,
  HSD08_DELIVERY_TIMES,
  isKnownServiceTypeCode,
  SERVICE_TYPE_CODES,
  SPEC_AAA_ERRORS,
  serviceTypeName,
  TIME_PERIOD_QUALIFIERS,
} from '../../src/x12/codes.ts';

const page = readFileSync(new URL('../../docs/x12-codes.md', import.meta.url), 'utf8');

/** The body of the section whose heading line starts with `heading`, up to the next heading of any level. */
function section(text: string, heading: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#{2,3} /.test(l) && l.replace(/^#+ /, '').startsWith(heading));
  assert.ok(start >= 0, `no section "${heading}"`);
  const end = lines.findIndex((l, i) => i > start && /^#{1,3} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The rows of a section's first Markdown table, without its header and rule; codes lose their backticks. */
function rows(text: string): string[][] {
  const table = text.split('\n').filter((l) => l.startsWith('|'));
  assert.ok(table.length >= 2, 'a table');
  return table.slice(2).map((l) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim().replace(/^`(.*)`$/, '$1')),
  );
}

/** `| code | meaning | code | meaning |` rows (any number of pairs) → code → meaning. */
function pairs(heading: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const cells of rows(section(page, heading)))
    for (let k = 0; k + 1 < cells.length; k += 2) if (cells[k]) out.set(cells[k]!, cells[k + 1]!);
  return out;
}

/** `| code | meaning | <column> |` rows → code → [meaning, column]. */
function withColumn(heading: string): Map<string, [string, string]> {
  return new Map(rows(section(page, heading)).map(([code, meaning, column]) => [code!, [meaning!, column!]]));
}

const only = (table: Map<string, [string, string]>, column: string) =>
  new Map([...table].filter(([, [, c]]) => c === column).map(([code, [meaning]]) => [code, meaning]));
const meanings = (table: Map<string, [string, string]>) =>
  new Map([...table].map(([code, [meaning]]) => [code, meaning]));

const normalize = (s: string) =>
  s
    .toLowerCase()
    .replace(/\([^)]*\)/g, '')
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]/g, '');

/** Every code of `expected` is in `table` with the same meaning, and `table` has no other code. */
function sameTable(table: Readonly<Record<string, string>>, expected: Map<string, string>, exact = false) {
  for (const [code, meaning] of expected) {
    assert.ok(Object.hasOwn(table, code), `code ${code} missing`);
    if (exact) assert.equal(table[code], meaning, code);
    else
      assert.equal(normalize(table[code]!), normalize(meaning), `${code}: "${table[code]}" vs "${meaning}"`);
  }
  assert.deepEqual(Object.keys(table).sort(), [...expected.keys()].sort(), 'the same codes');
}

describe('code tables match docs/x12-codes.md', () => {
  test('EB01: all 35 benefit codes', () => {
    const expected = pairs('EB01');
    assert.equal(expected.size, 35);
    sameTable(EB01_BENEFIT_CODES, expected);
  });

  test('EB02: the 9 coverage levels of the 271, and the other 9 of the element', () => {
    const table = withColumn('EB02');
    assert.equal(only(table, 'yes').size, 9);
    for (const code of ['CHD', 'DEP', 'ECH', 'EMP', 'ESP', 'FAM', 'IND', 'SPC', 'SPO'])
      assert.equal(table.get(code)?.[1], 'yes', code);
    for (const code of ['E1D', 'E2D', 'E3D', 'E5D', 'E6D', 'E7D', 'E8D', 'E9D', 'TWO'])
      assert.equal(table.get(code)?.[1], 'no', code);
    assert.equal(table.size, 18);
    sameTable(EB02_COVERAGE_LEVELS, meanings(table));
  });

  test('EB03: all 187 service type codes with their exact names', () => {
    const expected = pairs('Service type codes');
    assert.equal(expected.size, 187);
    sameTable(SERVICE_TYPE_CODES, expected, true);
    assert.equal(serviceTypeName('PT'), 'Physical Therapy');
    assert.equal(serviceTypeName('ZZ'), undefined);
  });

  test('isKnownServiceTypeCode accepts the 187 and nothing else', () => {
    for (const code of Object.keys(SERVICE_TYPE_CODES)) assert.ok(isKnownServiceTypeCode(code), code);
    for (const code of ['', '29', '31', 'pt', 'ZZ', 'toString', '__proto__', 'constructor', '30 ']) {
      assert.equal(isKnownServiceTypeCode(code), false, JSON.stringify(code));
    }
  });

  test('EB06 / HSD05: 19 time period qualifiers, all but 13 and 36 allowed in HSD05', () => {
    const table = withColumn('EB06');
    assert.equal(table.size, 19);
    sameTable(TIME_PERIOD_QUALIFIERS, meanings(table));
    assert.deepEqual([...only(table, 'no').keys()], ['13', '36']);
  });

  test('EB09: the 16 quantity qualifiers of X279A1, plus VS and YY', () => {
    const table = withColumn('EB09');
    assert.equal(only(table, 'X279A1').size, 16);
    assert.deepEqual(
      [...table.keys()].filter((c) => table.get(c)![1] !== 'X279A1'),
      ['VS', 'YY'],
    );
    sameTable(EB09_QUANTITY_QUALIFIERS, meanings(table));
    assert.equal(EB09_QUANTITY_QUALIFIERS.VS, 'Visits');
    assert.equal(EB09_QUANTITY_QUALIFIERS.YY, 'Years');
    assert.equal(Object.keys(EB09_QUANTITY_QUALIFIERS).length, 18);
  });

  test('EB11 and EB12 indicators, in the same order', () => {
    const auth = pairs('EB11');
    assert.deepEqual([...auth.keys()], Object.keys(EB11_AUTHORIZATION_INDICATORS));
    sameTable(EB11_AUTHORIZATION_INDICATORS, auth);
    const network = pairs('EB12');
    assert.deepEqual([...network.keys()], Object.keys(EB12_NETWORK_INDICATORS));
    sameTable(EB12_NETWORK_INDICATORS, network);
  });

  test('HSD01, HSD03, HSD07 and HSD08', () => {
    sameTable(HSD01_QUANTITY_QUALIFIERS, pairs('HSD01'));
    assert.equal(Object.keys(HSD01_QUANTITY_QUALIFIERS).length, 5);
    sameTable(HSD03_UNITS, pairs('HSD03'));
    assert.equal(Object.keys(HSD03_UNITS).length, 5);
    sameTable(HSD07_DELIVERY_FREQUENCIES, pairs('HSD07'));
    assert.equal(Object.keys(HSD07_DELIVERY_FREQUENCIES).length, 39);
    sameTable(HSD08_DELIVERY_TIMES, pairs('HSD08'));
    assert.equal(Object.keys(HSD08_DELIVERY_TIMES).length, 8);
  });

  test('AAA03 reject reasons verbatim, the loops each may appear in, AAA04 follow-up actions', () => {
    const reasons = pairs('AAA03');
    assert.equal(reasons.size, 55);
    sameTable(AAA03_REJECT_REASONS, reasons, true);
    const loops = new Map(
      rows(section(page, 'Where each reason may appear')).map(([loop, codes]) => [loop!, codes!.split(', ')]),
    );
    assert.deepEqual(Object.fromEntries(loops), AAA03_BY_LOOP);
    const actions = pairs('AAA01 and AAA04');
    assert.equal(actions.size, 8);
    sameTable(AAA04_FOLLOW_UP_ACTIONS, actions);
  });

  test('the API’s own AAA wording (docs/contract.md, outcome errors) names the same reasons', () => {
    for (const [code, { description, followupAction }] of Object.entries(SPEC_AAA_ERRORS)) {
      assert.equal(normalize(description), normalize(AAA03_REJECT_REASONS[code]!), code);
      assert.equal(followupAction, AAA04_FOLLOW_UP_ACTIONS.C);
    }
    assert.deepEqual(Object.keys(SPEC_AAA_ERRORS).sort(), ['67', '71', '72', '73', '75', '77']);
    const contract = readFileSync(new URL('../../docs/contract.md', import.meta.url), 'utf8');
    const table = new Map(
      rows(section(contract, 'Check outcome errors'))
        .filter(([code]) => /^\d\d$/.test(code!))
        .map(([code, description, followupAction]) => [code!, { description, followupAction }]),
    );
    assert.deepEqual(Object.fromEntries(table), SPEC_AAA_ERRORS);
  });
});

describe('docs/x12.md lists every issue code', () => {
  test('each code of src/x12/issues.ts has a row, and no row names an unknown code', async () => {
    const { CLIENT_WARNING_CODES, X12_ISSUE_CODES } = await import('../../src/x12/issues.ts');
    const doc = readFileSync(new URL('../../docs/x12.md', import.meta.url), 'utf8');
    const rows = new Set([...doc.matchAll(/^\| `(X12_[A-Z0-9_]+)` \|/gm)].map((m) => m[1]));
    assert.deepEqual([...rows].sort(), Object.keys(X12_ISSUE_CODES).sort());
    const marked = [...doc.matchAll(/^\| `(X12_[A-Z0-9_]+)` \| [^|]+ \| ● \|/gm)].map((m) => m[1]);
    assert.deepEqual(
      marked.sort(),
      [...CLIENT_WARNING_CODES].sort(),
      'the ● column matches CLIENT_WARNING_CODES',
    );
  });
});
