/**
 * Hand-labelled golden tests: real 271s of the public corpus in test/fixtures/x12-corpus (and the Medicare
 * 271s of test/fixtures/x12, `source` starting with `fixtures/x12/`), parsed by the X12 parser and interpreted,
 * compared field by field with entries written by hand from docs/benefit-rules.md
 * (test/fixtures/golden/*.json; each file's `notes` says which segments justify the tricky values, and
 * `evidence`, where present, names the EB segments each value rests on: every one must be in the file).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test as nodeTest } from 'node:test';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import type { BenefitEntry } from '../../src/contract/check-response.ts';
import { parse271 } from '../../src/x12/parse271.ts';
import { CORPUS } from '../helpers/x12-corpus.ts';

const GOLDEN_DIR = new URL('../fixtures/golden/', import.meta.url);
const FIXTURES = new URL('../', import.meta.url);

interface ScoreRange {
  min?: number;
  max?: number;
  score?: null;
}
interface GoldenEntry extends Omit<BenefitEntry, 'confidence'> {
  confidence: ScoreRange & { criteria: string[] };
}
interface Golden {
  source: string;
  patient: 'subscriber' | 'dependent';
  planActive: boolean | undefined;
  notes: string;
  warnings: string[];
  confidence: ScoreRange & { criteria: Record<string, boolean> };
  benefits: GoldenEntry[];
  /** The date of service the 271 is read for (benefit periods); absent: none given. */
  asOf?: string;
  /** Field → the segments (as in the file, without terminator) its expected values rest on. */
  evidence?: Record<string, string[]>;
  /** A known defect outside the interpreter that keeps this golden from passing yet: the tests run as todo. */
  todo?: string;
}

const FIELDS = [
  'coverageStatus',
  'inNetwork',
  'copay',
  'coinsurance',
  'deductible',
  'deductibleRemaining',
  'familyDeductible',
  'familyDeductibleRemaining',
  'deductibleApplies',
  'outOfPocketMax',
  'outOfPocketRemaining',
  'familyOutOfPocketMax',
  'familyOutOfPocketRemaining',
  'visitLimit',
  'visitsUsed',
  'authorizationRequired',
] as const;

function assertScore(actual: number | null | undefined, expected: ScoreRange, what: string) {
  if (expected.score === null) {
    assert.equal(actual, null, `${what}: score`);
    return;
  }
  assert.equal(typeof actual, 'number', `${what}: score is a number`);
  assert.ok(
    actual! >= expected.min! && actual! <= expected.max!,
    `${what}: score ${actual} not in [${expected.min}, ${expected.max}]`,
  );
}

const goldens = readdirSync(GOLDEN_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({ name: f, golden: JSON.parse(readFileSync(new URL(f, GOLDEN_DIR), 'utf8')) as Golden }));

nodeTest('at least 8 hand-labelled golden files', () => {
  assert.ok(goldens.length >= 8, `${goldens.length} golden files`);
});

for (const { name, golden } of goldens) {
  describe(`golden ${name} (${golden.source})`, () => {
    // A golden with a known defect outside the interpreter runs its tests as todo (reported, not failing).
    const test = (title: string, fn: () => void) => nodeTest(title, { todo: golden.todo }, fn);
    const local = golden.source.startsWith('fixtures/x12/');
    const text = readFileSync(new URL(golden.source, local ? FIXTURES : CORPUS), 'utf8');
    const outcome = parse271(text);
    const parsed = outcome.kind === '271' ? outcome.result : undefined;

    test('parses as a 271', () => {
      assert.equal(outcome.kind, '271');
    });
    const result = interpretBenefits({
      benefitsInformation: parsed?.benefitsInformation ?? [],
      planActive: parsed?.planActive,
      requestedServiceTypeCodes: [],
      ...(golden.asOf ? { asOf: golden.asOf } : {}),
    });

    test('notes explain the tricky values', () => {
      assert.ok(golden.notes.length > 40);
    });

    if (golden.evidence) {
      test('every evidence segment is in the file', () => {
        const segments = new Set(text.split(/~\s*/).map((seg) => seg.trim()));
        for (const [field, list] of Object.entries(golden.evidence!)) {
          for (const segment of list)
            assert.ok(segments.has(segment), `${field}: ${segment} not in ${golden.source}`);
        }
      });
    }

    test('planActive from the parser', () => {
      assert.equal(parsed?.planActive, golden.planActive);
    });

    test('one entry per product service type, in order', () => {
      assert.deepEqual(
        result.benefits.map((b) => b.serviceType),
        golden.benefits.map((b) => b.serviceType),
      );
    });

    for (const expected of golden.benefits) {
      test(`${expected.serviceType}: every field, score range and criteria`, () => {
        const actual = result.benefits.find((b) => b.serviceType === expected.serviceType);
        assert.ok(actual, 'entry present');
        for (const field of FIELDS) {
          assert.deepEqual(actual[field], expected[field], `${expected.serviceType}.${field}`);
        }
        assertScore(actual.confidence?.score, expected.confidence, expected.serviceType);
        for (const criterion of expected.confidence.criteria) {
          assert.ok(
            actual.confidence?.criteria.includes(criterion),
            `${expected.serviceType}: missing criterion "${criterion}"; has ${JSON.stringify(actual.confidence?.criteria)}`,
          );
        }
      });
    }

    test('warnings and check-level confidence', () => {
      assert.deepEqual(result.warnings.map((w) => w.code).sort(), [...golden.warnings].sort());
      assertScore(result.confidence.score, golden.confidence, 'check');
      assert.deepEqual(result.confidence.criteria, golden.confidence.criteria);
    });
  });
}
