/**
 * The code tables against ../shared/x12-samples/code-tables.md: every code the sheet lists is in the
 * table with the same meaning (compared without case, punctuation and parenthetical notes), and the
 * tables hold no code the sheet does not list.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
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

const sheet = readFileSync(new URL('../../../shared/x12-samples/code-tables.md', import.meta.url), 'utf8');

function section(heading: string, until: string): string {
  const start = sheet.indexOf(heading);
  assert.ok(start >= 0, heading);
  return sheet.slice(start, sheet.indexOf(until, start + heading.length));
}

/** `| code | meaning | code | meaning |` rows → code → meaning. */
function pairTable(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('| ') || line.startsWith('| code')) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    for (let k = 0; k + 1 < cells.length; k += 2) if (cells[k]) out.set(cells[k]!, cells[k + 1]!);
  }
  return out;
}

/** `CODE meaning · CODE meaning` → code → meaning. */
function dotList(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const item of text.split('·')) {
    const m = /^\s*(\S+)\s+(.*?)\s*$/.exec(item);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

const normalize = (s: string) =>
  s
    .toLowerCase()
    .replace(/\([^)]*\)/g, '')
    .replace(/&/g, 'and')
    .replace(/[^a-z0-9]/g, '');

function sameMeanings(table: Readonly<Record<string, string>>, expected: Map<string, string>, exact = false) {
  for (const [code, meaning] of expected) {
    assert.ok(Object.hasOwn(table, code), `code ${code} missing`);
    if (exact) assert.equal(table[code], meaning, code);
    else
      assert.equal(normalize(table[code]!), normalize(meaning), `${code}: "${table[code]}" vs "${meaning}"`);
  }
}

describe('code tables match code-tables.md', () => {
  test('EB01: all 35 benefit codes', () => {
    const expected = pairTable(section('## EB01', '## EB02'));
    assert.equal(expected.size, 35);
    sameMeanings(EB01_BENEFIT_CODES, expected);
    assert.equal(Object.keys(EB01_BENEFIT_CODES).length, 35);
  });

  test('EB02: the 271 coverage levels by name, the rest of the element list by code', () => {
    const text = section('## EB02', '## EB06');
    const allowed = dotList(text.slice(text.indexOf('271:') + 4, text.indexOf('. [')));
    assert.equal(allowed.size, 9);
    sameMeanings(EB02_COVERAGE_LEVELS, allowed);
    for (const code of ['E1D', 'E2D', 'E3D', 'E5D', 'E6D', 'E7D', 'E8D', 'E9D', 'TWO'])
      assert.ok(EB02_COVERAGE_LEVELS[code], code);
    assert.equal(Object.keys(EB02_COVERAGE_LEVELS).length, 18);
  });

  test('EB03: all 187 service type codes with their exact names', () => {
    const expected = pairTable(section('## Service type codes', 'Codes to look for'));
    assert.equal(expected.size, 187);
    sameMeanings(SERVICE_TYPE_CODES, expected, true);
    assert.equal(Object.keys(SERVICE_TYPE_CODES).length, 187);
    assert.equal(serviceTypeName('PT'), 'Physical Therapy');
    assert.equal(serviceTypeName('ZZ'), undefined);
  });

  test('isKnownServiceTypeCode accepts the 187 and nothing else', () => {
    for (const code of Object.keys(SERVICE_TYPE_CODES)) assert.ok(isKnownServiceTypeCode(code), code);
    for (const code of ['', '29', '31', 'pt', 'ZZ', 'toString', '__proto__', 'constructor', '30 ']) {
      assert.equal(isKnownServiceTypeCode(code), false, JSON.stringify(code));
    }
  });

  test('EB06 / HSD05: time period qualifiers', () => {
    const text = section('## EB06', 'In practice');
    const list = text.slice(text.indexOf('\n') + 1, text.indexOf('. (HSD05'));
    const expected = dotList(list);
    assert.equal(expected.size, 19);
    sameMeanings(TIME_PERIOD_QUALIFIERS, expected);
    assert.equal(Object.keys(TIME_PERIOD_QUALIFIERS).length, 19);
  });

  test('EB09: quantity qualifiers, plus VS and YY', () => {
    const text = section('## EB09', '## EB11');
    const expected = dotList(text.slice(text.indexOf('list:') + 5, text.indexOf('. [')));
    assert.equal(expected.size, 16);
    sameMeanings(EB09_QUANTITY_QUALIFIERS, expected);
    assert.equal(EB09_QUANTITY_QUALIFIERS.VS, 'Visits');
    assert.equal(EB09_QUANTITY_QUALIFIERS.YY, 'Years');
    assert.equal(Object.keys(EB09_QUANTITY_QUALIFIERS).length, 18);
  });

  test('EB11 and EB12 indicators', () => {
    const eb11 = section('## EB11', '## EB12');
    const auth = dotList(eb11.slice(eb11.indexOf(']\n') + 2, eb11.lastIndexOf('.')));
    assert.deepEqual([...auth.keys()], Object.keys(EB11_AUTHORIZATION_INDICATORS));
    for (const [code, meaning] of auth)
      assert.equal(normalize(EB11_AUTHORIZATION_INDICATORS[code]!), normalize(meaning.split(',')[0]!));
    const eb12 = section('## EB12', 'Payers often');
    const network = dotList(eb12.slice(eb12.indexOf(']\n') + 2, eb12.lastIndexOf('.')));
    assert.deepEqual([...network.keys()], Object.keys(EB12_NETWORK_INDICATORS));
    sameMeanings(EB12_NETWORK_INDICATORS, network);
  });

  test('HSD01, HSD03 by name; HSD07 and HSD08 by code', () => {
    const rows = new Map(
      section('## HSD', '## AAA03')
        .split('\n')
        .filter((l) => l.startsWith('| HSD'))
        .map((l) => {
          const [name, codes] = l
            .split('|')
            .slice(1, -1)
            .map((c) => c.trim());
          return [name!.split(' ')[0]!, codes!] as const;
        }),
    );
    sameMeanings(HSD01_QUANTITY_QUALIFIERS, dotList(rows.get('HSD01')!));
    assert.equal(Object.keys(HSD01_QUANTITY_QUALIFIERS).length, 5);
    sameMeanings(HSD03_UNITS, dotList(rows.get('HSD03')!));
    assert.equal(Object.keys(HSD03_UNITS).length, 5);
    const frequencies = new Set<string>();
    for (const code of dotList(rows.get('HSD07')!).keys()) {
      // `1–5` and `P–V` are ranges in the sheet.
      const range = /^(\w)–(\w)$/.exec(code);
      if (!range) frequencies.add(code);
      else
        for (let c = range[1]!.charCodeAt(0); c <= range[2]!.charCodeAt(0); c++)
          frequencies.add(String.fromCharCode(c));
    }
    assert.deepEqual(new Set(Object.keys(HSD07_DELIVERY_FREQUENCIES)), frequencies);
    assert.deepEqual(new Set(Object.keys(HSD08_DELIVERY_TIMES)), new Set(dotList(rows.get('HSD08')!).keys()));
  });

  test('AAA03 reject reasons verbatim, AAA04 follow-up actions', () => {
    const reasons = pairTable(section('## AAA03', 'Where each code'));
    assert.equal(reasons.size, 55);
    sameMeanings(AAA03_REJECT_REASONS, reasons, true);
    assert.equal(Object.keys(AAA03_REJECT_REASONS).length, 55);
    const text = section('## AAA01 / AAA04', '## Service type codes');
    const actions = dotList(text.slice(text.indexOf('[SE-ED]:') + 8, text.lastIndexOf('.')));
    assert.equal(actions.size, 8);
    sameMeanings(AAA04_FOLLOW_UP_ACTIONS, actions);
  });

  test('the spec’s own AAA wording (eligibility-api.md 2.2) names the same reasons', () => {
    for (const [code, { description, followupAction }] of Object.entries(SPEC_AAA_ERRORS)) {
      assert.equal(normalize(description), normalize(AAA03_REJECT_REASONS[code]!), code);
      assert.equal(followupAction, AAA04_FOLLOW_UP_ACTIONS.C);
    }
    assert.deepEqual(Object.keys(SPEC_AAA_ERRORS).sort(), ['67', '71', '72', '73', '75', '77']);
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
