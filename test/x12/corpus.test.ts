/**
 * The public corpus (test/fixtures/x12-corpus): every 271 parses with no error-severity issue, and the
 * features PROVENANCE.tsv lists for each file are found by the parser (EB counts and codes, AAA codes by
 * level, dependents, HSD/MSG/LS, EB06/EB09/EB11/EB12 values, EB13, service type codes, delimiters,
 * SE01 mismatches as warnings, transaction counts). 270s tokenize; 999s come back as `rejected`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { BenefitsInformation } from '../../src/contract/check-response.ts';
import { parse271, parse271All, parse271Tree, type RawLoop } from '../../src/x12/parse271.ts';
import { tokenize } from '../../src/x12/tokenizer.ts';
import { type Eligibility271, X12Error } from '../../src/x12/types.ts';
import { CORPUS } from '../helpers/x12-corpus.ts';

const read = (path: string) => readFileSync(new URL(path, CORPUS), 'utf8');

interface Row {
  path: string;
  version: string;
  transaction: string;
  features: string[];
}

/** Splits the feature list on commas outside parentheses and brackets (`SE01-mismatch(says79,actual81)`). */
function splitFeatures(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const c of list) {
    if (c === '(' || c === '[') depth++;
    if (c === ')' || c === ']') depth--;
    if (c === ',' && depth === 0) {
      out.push(current);
      current = '';
    } else current += c;
  }
  if (current) out.push(current);
  return out;
}

const rows: Row[] = read('PROVENANCE.tsv')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const cells = line.split('\t');
    return {
      path: cells[0]!,
      version: cells[5]!,
      transaction: cells[6]!,
      features: splitFeatures(cells[7]!),
    };
  });

const LEVELS: Record<string, string> = { A: 'src', B: 'rcv', C: 'sub', D: 'dep' };

/** Every AAA of the file as `AAA<code>-<level>[-2110]`, from the loop trees (all subscribers). */
function aaaFeatures(loops: RawLoop[], out = new Set<string>()): Set<string> {
  for (const loop of loops) {
    const match = /^2(000|100|110)([A-D])$/.exec(loop.loop);
    for (const s of loop.segments) {
      if (s.id !== 'AAA') continue;
      const level = match ? LEVELS[match[2]!] : 'header';
      out.add(`AAA${s.elements[2]}-${level}${match?.[1] === '110' ? '-2110' : ''}`);
    }
    aaaFeatures(loop.children, out);
  }
  return out;
}

function countLoops(loops: RawLoop[], prefix: string): number {
  return loops.reduce((n, l) => n + (l.loop.startsWith(prefix) ? 1 : 0) + countLoops(l.children, prefix), 0);
}

/** Every EB of every person in the file, read through the parser's output. */
function allBenefits(text: string): BenefitsInformation[] {
  const out: BenefitsInformation[] = [];
  for (const outcome of parse271All(text)) {
    if (outcome.kind !== '271') continue;
    out.push(...outcome.result.benefitsInformation);
  }
  return out;
}

const DELIMITER_NAMES: Record<string, string | null> = { NL: '\n', '0x1D': '\x1d', U: null };

interface Context {
  text: string;
  result: Eligibility271;
  loops: RawLoop[];
  benefits: BenefitsInformation[];
  tokens: ReturnType<typeof tokenize>;
  transactions: number;
}

const FIELDS: Record<string, keyof BenefitsInformation> = {
  '06': 'timeQualifierCode',
  '09': 'quantityQualifierCode',
  '11': 'authOrCertIndicator',
  '12': 'inPlanNetworkIndicatorCode',
};

/** One check per feature shape of PROVENANCE.tsv; features without a check (BOM, CRLF, notes) only need to parse. */
const FEATURE_CHECKS: [RegExp, (m: RegExpExecArray, c: Context, feature: string) => void][] = [
  [
    /^EBx(\d+)$/,
    (m, c, f) => {
      assert.equal(countLoops(c.loops, '2110'), Number(m[1]), f);
      assert.equal(c.benefits.length, Number(m[1]), `${f} through benefitsInformation`);
    },
  ],
  [
    /^EB-(\w+)$/,
    (m, c, f) =>
      assert.ok(
        c.benefits.some((b) => b.code === m[1]),
        f,
      ),
  ],
  [
    /^AAA(\w+)-(src|rcv|sub|dep)(-2110)?$/,
    (_m, c, f) => assert.ok(aaaFeatures(c.loops).has(f), `${f} in ${[...aaaFeatures(c.loops)]}`),
  ],
  [
    /^dependents$/,
    (_m, c, f) => {
      assert.ok(countLoops(c.loops, '2000D') > 0, f);
      assert.ok(c.result.dependents.length > 0, 'the subscriber has dependents');
    },
  ],
  [/^HSD$/, (_m, c) => assert.ok(c.benefits.some((b) => b.benefitsServiceDelivery?.length))],
  [
    /^MSG$/,
    (_m, c) => assert.ok(c.benefits.some((b) => b.additionalInformation?.some((a) => a.description))),
  ],
  [
    /^LS$/,
    (_m, c, f) => {
      assert.ok(countLoops(c.loops, '2120') > 0, f);
      assert.ok(c.benefits.some((b) => b.benefitsRelatedEntities?.length));
    },
  ],
  [
    /^EB(06|09|11|12)=(.+)$/,
    (m, c, f) => {
      const seen = new Set(c.benefits.map((b) => b[FIELDS[m[1]!]!]));
      for (const value of m[2]!.split('/')) assert.ok(seen.has(value), `${f}: ${value}`);
    },
  ],
  [
    /^EB13-proc$/,
    (_m, c) => assert.ok(c.benefits.some((b) => b.compositeMedicalProcedureIdentifier?.procedureCode)),
  ],
  [
    /^STC=(.+)$/,
    (m, c, f) => {
      const seen = new Set(c.benefits.flatMap((b) => b.serviceTypeCodes ?? []));
      for (const code of m[1]!.split('/')) assert.ok(seen.has(code), `${f}: ${code}`);
    },
  ],
  [
    /^delims\[el(.) comp(.) rep(\S+) term(\S+)\]$/,
    ([, el, comp, rep, term], c) =>
      assert.deepEqual(c.tokens.delimiters, {
        element: el,
        component: comp,
        repetition: rep! in DELIMITER_NAMES ? DELIMITER_NAMES[rep!] : rep,
        segment: term! in DELIMITER_NAMES ? DELIMITER_NAMES[term!] : term,
      }),
  ],
  [
    /^SE01-mismatch\(says(\d+),actual(\d+)\)$/,
    (m, c) => {
      const found = c.result.issues.find((i) => i.code === 'X12_SE01_MISMATCH');
      assert.equal(found?.severity, 'warning');
      assert.equal(found?.segmentId, 'SE');
      assert.match(found!.message, new RegExp(`says ${m[1]}; counted ${m[2]}`));
    },
  ],
  [
    /^ST-x(\d+)$/,
    (m, c) => {
      assert.equal(c.transactions, Number(m[1]));
      assert.equal(parse271All(c.text).length, Number(m[1]));
    },
  ],
];

const responses = rows.filter((r) => r.transaction === '271');

test('the corpus has 29 271s, 10 270s and 5 999s', () => {
  assert.equal(responses.length, 29);
  assert.equal(rows.filter((r) => r.transaction === '270').length, 10);
  assert.equal(rows.filter((r) => r.transaction === '999').length, 5);
});

describe('every 271 parses with no error-severity issue and shows its features', () => {
  for (const row of responses) {
    test(row.path, () => {
      const text = read(row.path);
      const outcome = parse271(text);
      assert.equal(outcome.kind, '271');
      const result = (outcome as { result: Eligibility271 }).result;
      assert.deepEqual(
        result.issues.filter((i) => i.severity === 'error'),
        [],
      );
      const tree = parse271Tree(text);
      const loops = tree.transactions.flatMap((tx) => tx.loops);
      const benefits = allBenefits(text);
      const tokens = tokenize(text);

      const context: Context = {
        text,
        result,
        loops,
        benefits,
        tokens,
        transactions: tree.transactions.length,
      };
      for (const feature of row.features) {
        for (const [pattern, check] of FEATURE_CHECKS) {
          const m = pattern.exec(feature);
          if (m) check(m, context, feature);
        }
      }
      if (!row.features.some((f) => f.startsWith('SE01-mismatch')))
        assert.ok(!result.issues.some((i) => i.code === 'X12_SE01_MISMATCH'), 'no false SE01 mismatch');
    });
  }
});

describe('270s tokenize; they are not 271s', () => {
  for (const row of rows.filter((r) => r.transaction === '270')) {
    test(row.path, () => {
      const text = read(row.path);
      const tokens = tokenize(text);
      const ids = Array.from({ length: tokens.segmentCount }, (_, i) => tokens.segmentId(i));
      assert.equal(ids[0], 'ISA');
      assert.equal(ids.at(-1), 'IEA');
      assert.ok(ids.includes('EQ'));
      assert.ok(ids.every((id) => /^[A-Z0-9]{2,3}$/.test(id)));
      assert.throws(
        () => parse271(text),
        (err: unknown) => err instanceof X12Error && err.issues.some((i) => i.code === 'X12_NO_271'),
      );
    });
  }
});

describe('999s come back as rejected inquiries', () => {
  for (const row of rows.filter((r) => r.transaction === '999')) {
    test(row.path, () => {
      const text = read(row.path);
      const outcome = parse271(text);
      assert.equal(outcome.kind, 'rejected');
      if (outcome.kind !== 'rejected') return;
      assert.equal(outcome.rejection.kind, '999');
      const ak9 = /AK9\*(\w)/.exec(text)?.[1];
      assert.equal(outcome.rejection.code, ak9);
      assert.ok(outcome.rejection.message.length > 10);
      const st = /^ST-x(\d+)$/.exec(row.features.find((f) => f.startsWith('ST-x')) ?? '');
      if (st) {
        const tokens = tokenize(text);
        const count = Array.from({ length: tokens.segmentCount }, (_, i) => tokens.segmentId(i)).filter(
          (id) => id === 'ST',
        );
        assert.equal(count.length, Number(st[1]));
      }
    });
  }
});
