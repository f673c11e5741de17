/**
 * 271s that break the guide's rules in ways the reader used to pass over in silence: each is still read,
 * and each now carries the structural warning a reader of the result deserves.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse271 } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { build271, simple271 } from './build.ts';

function result(text: string): Eligibility271 {
  const outcome = parse271(text);
  assert.equal(outcome.kind, '271');
  return (outcome as { result: Eligibility271 }).result;
}
const NEW_CODES = new Set([
  'X12_CONTROL_CHARACTER',
  'X12_REPLACEMENT_CHARACTER',
  'X12_SUBSCRIBER_WITHOUT_NAME',
  'X12_DEPENDENT_ENTITY',
  'X12_SUBSCRIBER_EMPTY',
]);
/** The new codes among the result's issues, as `CODE@position`, each also among the client's warnings. */
function flagged(r: Eligibility271): string[] {
  const found = r.issues.filter((i) => NEW_CODES.has(i.code));
  for (const i of found)
    assert.ok(
      r.warnings.some((w) => w.code === i.code),
      `${i.code} reaches warnings`,
    );
  return found.map((i) => `${i.code}@${i.position ?? '-'}`);
}

describe('X12 answers that break the rules are read and said out loud', () => {
  test('a plain 271 raises none of these warnings', () => {
    assert.deepEqual(flagged(result(build271(simple271()))), []);
  });

  test('a service-type list continued on the next line: a line feed inside EB03', () => {
    const text = build271(simple271(['EB*1*IND*30^1\n^33^35*PR*GOLD PLAN']));
    const r = result(text);
    assert.equal(r.benefitsInformation.length, 1);
    // ISA=1 GS=2 ST=3 BHT=4 HL NM1 HL NM1 HL TRN NM1 DMG: the EB is the 13th segment.
    assert.deepEqual(flagged(r), ['X12_CONTROL_CHARACTER@13']);
    assert.match(r.issues.find((i) => i.code === 'X12_CONTROL_CHARACTER')!.message, /a line feed/);
  });

  test('a line feed inside an ISA element', () => {
    const text = build271(simple271()).replace('PAYER          *', 'PAYER\n         *');
    assert.deepEqual(flagged(result(text)), ['X12_CONTROL_CHARACTER@1']);
  });

  test('a control character inside an ISA element', () => {
    const text = build271(simple271()).replace('PAYER          *', 'PAYER\u0001         *');
    const r = result(text);
    assert.deepEqual(flagged(r), ['X12_CONTROL_CHARACTER@1']);
    assert.match(r.issues.find((i) => i.code === 'X12_CONTROL_CHARACTER')!.message, /U\+0001/);
  });

  test('a control character inside an element of any segment, named without the value', () => {
    const r = result(build271(simple271(['EB*1*IND*30*PR*GOLD\u0007PLAN'])));
    assert.deepEqual(flagged(r), ['X12_CONTROL_CHARACTER@13']);
    assert.doesNotMatch(r.issues.find((i) => i.code === 'X12_CONTROL_CHARACTER')!.message, /GOLD/);
  });

  test('CRLF between segments and a CR before a line-feed terminator are not control characters in elements', () => {
    assert.deepEqual(flagged(result(build271(simple271()).replaceAll('\n', '\r\n'))), []);
    const lfTerminated = build271(simple271()).replaceAll('~\n', '\r\n').replace(':\r\n', ':\n');
    assert.deepEqual(flagged(result(lfTerminated)), []);
  });

  test('a replacement character (bytes lost in decoding) is reported, not stored silently', () => {
    const r = result(build271(simple271()).replace('ACME HEALTH', 'SE\uFFFDOR SALUD'));
    assert.deepEqual(flagged(r), ['X12_REPLACEMENT_CHARACTER@-']);
  });

  test('a 2100D NM1 whose entity code is not 03', () => {
    const rows = ['EB*1*IND*30*PR*GOLD PLAN', 'HL*4*3*23*0', 'NM1*IL*1*DOE*JIM', 'DMG*D8*20100101*M'];
    const text = build271(simple271(rows)).replace('HL*3*2*22*0', 'HL*3*2*22*1');
    const r = result(text);
    assert.deepEqual(flagged(r), ['X12_DEPENDENT_ENTITY@15']);
    assert.match(r.issues.find((i) => i.code === 'X12_DEPENDENT_ENTITY')!.message, /NM101 is IL\./);
  });

  test('a 2000C subscriber loop with no 2100C NM1', () => {
    const body = simple271().filter((s) => !s.startsWith('NM1*IL'));
    assert.deepEqual(flagged(result(build271(body))), ['X12_SUBSCRIBER_WITHOUT_NAME@9']);
  });

  test('a subscriber with neither benefit rows nor an AAA', () => {
    assert.deepEqual(flagged(result(build271(simple271([])))), ['X12_SUBSCRIBER_EMPTY@9']);
  });

  test('a subscriber with only an AAA is a rejection, not an empty answer', () => {
    assert.deepEqual(flagged(result(build271(simple271(['AAA*N**72*C'])))), []);
  });
});

describe('the plan name comes from the plan-level active row only', () => {
  test("a dental row's plan description is not the plan's name", () => {
    const r = result(build271(simple271(['EB*1*IND*30', 'EB*1*IND*35**DENTAL PLUS'])));
    assert.equal(r.planActive, true);
    assert.equal(r.planInformation?.planName, undefined);
    assert.equal(r.planCoverage, undefined);
  });

  test('the plan-level row names the plan when it has a description', () => {
    const r = result(build271(simple271(['EB*1*IND*35**DENTAL PLUS', 'EB*1*IND*30**GOLD PLAN'])));
    assert.equal(r.planInformation?.planName, 'GOLD PLAN');
  });
});
