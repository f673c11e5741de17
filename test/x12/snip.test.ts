/**
 * Issue 15 item 6: SNIP level 1 and 2 findings are warnings with the segment position, never errors, and
 * quote codes only. One minimal 271 per rule; then the public corpus, whose counts per code are pinned (a
 * flood there would mean a rule is wrong).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse271, parse271Each } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { CORPUS } from '../helpers/x12-corpus.ts';
import { build271, interchange, simple271, transaction } from './build.ts';

function result(text: string): Eligibility271 {
  const outcome = parse271(text);
  assert.equal(outcome.kind, '271');
  return (outcome as { result: Eligibility271 }).result;
}

const STRUCTURAL = new Set([
  'X12_INVALID_CODE',
  'X12_MISSING_ELEMENT',
  'X12_EXTRA_ELEMENT',
  'X12_HL04_MISMATCH',
  'X12_GS01_NOT_HB',
  'X12_ISA11_DELIMITER',
  'X12_ISA_WIDTH',
]);
/** The structural warnings in segment order as `CODE@position: detail` (without the code's fixed text). */
function findings(r: Eligibility271): string[] {
  for (const i of r.issues) if (STRUCTURAL.has(i.code)) assert.equal(i.severity, 'warning');
  return r.issues
    .filter((i) => STRUCTURAL.has(i.code))
    .sort((a, b) => (a.position ?? 0) - (b.position ?? 0))
    .map((i) => `${i.code}@${i.position}: ${i.message.replace(/^[^:]*: /, '')}`);
}
const rows = (...eb: string[]) => build271(simple271(['EB*1*IND*30*PR*GOLD PLAN', ...eb]));
// ISA, GS, ST, then simple271's nine fixed segments and its EB*1: the first added row is segment 14.
const FIRST_ADDED = 14;

describe('structural validation (SNIP 1 and 2)', () => {
  test('a clean 271 raises nothing', () => {
    assert.deepEqual(findings(result(rows('EB*C*IND*30***23*500', 'EB*A*IND*98***27**.2'))), []);
  });

  test('element values outside their code lists, each named with its element and position', () => {
    const r = result(
      rows(
        'EB*Z9*IND*30',
        'EB*1*XYZ*30',
        'EB*1*IND*30^Q9',
        'EB*1*IND*30*Q1',
        'EB*B*IND*98***99*25',
        'EB*F*IND*98******QQ*3',
        'EB*1*IND*30*********Q',
        'EB*1*IND*30**********QQ:99213',
        'AAA*X**ZZ*Q',
      ),
    );
    assert.deepEqual(findings(r), [
      `X12_INVALID_CODE@${FIRST_ADDED}: EB01 is Z9.`,
      'X12_INVALID_CODE@15: EB02 is XYZ.',
      'X12_INVALID_CODE@16: EB03 is Q9.',
      'X12_INVALID_CODE@17: EB04 is Q1.',
      'X12_INVALID_CODE@18: EB06 is 99.',
      'X12_INVALID_CODE@19: EB09 is QQ.',
      'X12_INVALID_CODE@20: EB12 is Q.',
      'X12_INVALID_CODE@21: EB13 is QQ.',
      'X12_INVALID_CODE@22: AAA01 is X.',
      'X12_INVALID_CODE@22: AAA03 is ZZ.',
      'X12_INVALID_CODE@22: AAA04 is Q.',
    ]);
    // The client sees them, position at the end of the description.
    assert.ok(
      r.warnings.some(
        (w) => w.description === "An element's value is not in its code list: EB01 is Z9. (segment 14)",
      ),
    );
  });

  test('a value that is not code-shaped is never quoted (it could be a name or an id)', () => {
    const text = build271(
      simple271()
        .map((s) => (s === 'DMG*D8*19800101*F' ? 'DMG*D8*19800101*JANEDOE' : s))
        .concat('INS*Y*M100'),
    );
    const r = result(text);
    const all = JSON.stringify(r.warnings);
    assert.ok(!all.includes('JANEDOE') && !all.includes('M100'), all);
    assert.ok(r.warnings.some((w) => w.description.includes('DMG03 is (not a code)')));
  });

  test('required elements missing: amount of EB*B/C/G, percent of EB*A, EB09/EB10 apart, AAA03/AAA04', () => {
    const r = result(
      rows(
        'EB*C*IND*30***23',
        'EB*C*IND*10***29***DB*3',
        'EB*A*IND*98',
        'EB*F*IND*98******VS',
        'AAA*N**72',
        'EB*1',
      ),
    );
    assert.deepEqual(findings(r), [
      'X12_MISSING_ELEMENT@14: EB07 is empty on an EB*C row without a quantity.',
      // EB*C with a blood-pint quantity (Medicare Part A) needs no amount: nothing at 15.
      'X12_MISSING_ELEMENT@16: EB08 is empty on an EB*A row without a quantity.',
      'X12_MISSING_ELEMENT@17: EB10 is empty while EB09 is sent.',
      'X12_MISSING_ELEMENT@18: AAA04 is empty.',
    ]);
  });

  test('a missing ST03 in 5010 (not in 4010)', () => {
    const text = interchange([transaction(simple271())]).replace('ST*271*0001*005010X279A1', 'ST*271*0001');
    assert.deepEqual(findings(result(text)), ['X12_MISSING_ELEMENT@3: ST03 is empty.']);
    const v4010 = text.replace('*00501*', '*00401*').replaceAll('005010X279A1', '004010X092A1');
    assert.deepEqual(findings(result(v4010)), []);
  });

  test('extra elements: past the segment’s last one, or AAA02 which the 271 does not use', () => {
    const r = result(
      rows('AAA*N*XX*72*C', 'AAA*N**72*C*EXTRA', 'EB*1*IND*30***************', 'DTP*291*D8*20260101*X'),
    );
    assert.deepEqual(findings(r), [
      'X12_EXTRA_ELEMENT@14: AAA02 is not used.',
      'X12_EXTRA_ELEMENT@15: AAA has 5 elements; it has at most 4.',
      // Trailing empty elements are not counted (EB at 16).
      'X12_EXTRA_ELEMENT@17: DTP has 4 elements; it has at most 3.',
    ]);
  });

  test('HL04 announcing children that never come, and the reverse', () => {
    const announcing = build271(simple271().map((s) => (s === 'HL*3*2*22*0' ? 'HL*3*2*22*1' : s)));
    assert.deepEqual(findings(result(announcing)), ['X12_HL04_MISMATCH@9: HL04 is 1; no child HL follows.']);
    // simple271's subscriber says HL*3*2*22*0, and a dependent follows.
    const denying = build271(simple271(['EB*1*IND*30*PR*GOLD PLAN', 'HL*4*3*23*0', 'NM1*03*1*DOE*KID']));
    assert.deepEqual(findings(result(denying)), ['X12_HL04_MISMATCH@9: HL04 is 0; 1 child HL follows.']);
  });

  test('envelope: GS01 not HB, ISA11 equal to ISA16 (still split both ways), a padded ISA', () => {
    const hs = rows().replace('GS*HB*', 'GS*HS*');
    assert.deepEqual(findings(result(hs)), ['X12_GS01_NOT_HB@2: GS01 is HS.']);

    const sameSeparator = rows('EB*1*IND*30:98**********HC:99213').replace('*^*00501*', '*:*00501*');
    const same = result(sameSeparator);
    assert.deepEqual(findings(same), [
      'X12_ISA11_DELIMITER@1: ISA16, the component separator; EB03 and EB13 both split on it.',
    ]);
    assert.deepEqual(same.benefitsInformation[1]!.serviceTypeCodes, ['30', '98']);

    const padded = rows().replace('*ZZ*PAYER          *', '*ZZ*PAYER            *');
    assert.deepEqual(findings(result(padded)), [
      'X12_ISA_WIDTH@1: The ISA is not 106 characters wide (fixed-width fields collapsed or padded). It is 108 characters wide (padded).',
    ]);
  });

  test('a structurally faulty answer is still read in full: warnings only', () => {
    const text = rows('EB*C*IND*30***99', 'AAA*N*XX*72').replace('GS*HB*', 'GS*HS*');
    const r = result(text);
    assert.equal(r.subscriber.memberId, 'M100');
    assert.equal(r.planActive, true);
    assert.ok(r.issues.every((i) => i.severity === 'warning'));
    assert.ok(r.warnings.length >= 4);
  });
});

describe('the public corpus', () => {
  test('every 271 parses; structural warnings per code are the ones reviewed in docs/x12.md', () => {
    const root = CORPUS;
    const counts: Record<string, number> = {};
    let transactions = 0;
    for (const dir of readdirSync(root, { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      for (const file of readdirSync(new URL(`${dir.name}/`, root))) {
        if (!file.startsWith('271')) continue;
        for (const outcome of parse271Each(readFileSync(new URL(`${dir.name}/${file}`, root), 'utf8'))) {
          assert.equal(outcome.kind, '271');
          transactions++;
          for (const w of (outcome as { result: Eligibility271 }).result.warnings)
            if (STRUCTURAL.has(w.code)) counts[w.code] = (counts[w.code] ?? 0) + 1;
        }
      }
    }
    assert.equal(transactions, 181);
    assert.deepEqual(counts, {
      X12_GS01_NOT_HB: 163,
      X12_INVALID_CODE: 23,
      X12_ISA11_DELIMITER: 9,
      X12_HL04_MISMATCH: 6,
    });
  });
});
