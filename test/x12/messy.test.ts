/**
 * What real payer files do beyond the corpus (test/fixtures/x12-corpus/README.md, "Beyond the corpus"): each
 * is recovered without attaching anything to the wrong person, and each problem is reported with its segment
 * position.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse271, parse271All, parse271Tree } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { build271, interchange, simple271, transaction } from './build.ts';

function result(text: string, traceNumber?: string): Eligibility271 {
  const outcome = parse271(text, { traceNumber });
  assert.equal(outcome.kind, '271');
  return (outcome as { result: Eligibility271 }).result;
}
const codes = (r: Eligibility271) => r.issues.map((i) => `${i.code}@${i.position}`);

describe('messy real files', () => {
  test('an ISA that is not 106 wide: delimiters still read, the width reported', () => {
    const text = build271(simple271()).replace(
      /^ISA\*00\*\s+\*00\*\s+\*ZZ\*PAYER\s+\*ZZ\*CLINIC\s+\*/,
      'ISA*00**00**ZZ*PAYER*ZZ*CLINIC*',
    );
    const r = result(text);
    assert.equal(r.subscriber.memberId, 'M100');
    assert.deepEqual(codes(r), ['X12_ISA_WIDTH@1']);
  });

  test('a missing terminator at a line break: both segments read, position reported', () => {
    const text = build271(simple271(['EB*1*IND*30*PR*GOLD PLAN', 'EB*B*IND*98***27*25'])).replace(
      'GOLD PLAN~',
      'GOLD PLAN',
    );
    const r = result(text);
    assert.deepEqual(
      r.benefitsInformation.map((b) => b.code),
      ['1', 'B'],
    );
    assert.equal(r.benefitsInformation[0]!.planCoverage, 'GOLD PLAN');
    // ISA=1 GS=2 ST=3 BHT=4 ... EB*1 is the 13th segment.
    assert.deepEqual(codes(r), ['X12_MISSING_TERMINATOR@13']);
    assert.ok(r.warnings.some((w) => w.code === 'X12_MISSING_TERMINATOR'));
  });

  test('stray N2 and GK segments are set aside and reported; the person keeps their own fields', () => {
    const body = simple271(['EB*1*IND*30*PR*GOLD PLAN', 'GK*1*2', 'MSG*NOTE']);
    body.splice(8, 0, 'N2*EXTRA NAME');
    const r = result(build271(body));
    assert.equal(r.subscriber.lastName, 'DOE');
    assert.deepEqual(codes(r), ['X12_UNEXPECTED_SEGMENT@12', 'X12_UNEXPECTED_SEGMENT@15']);
    assert.deepEqual(r.benefitsInformation[0]!.additionalInformation, [{ description: 'NOTE' }]);
    const raw = JSON.stringify(parse271Tree(build271(body)));
    assert.ok(raw.includes('"ignored"'));
  });

  test('a segment with a garbage id is set aside without echoing it', () => {
    const r = result(build271(simple271(['EB*1*IND*30*PR*GOLD PLAN', '#!?*DOE*19800101', 'MSG*NOTE'])));
    assert.deepEqual(codes(r), ['X12_BAD_SEGMENT_ID@14']);
    assert.ok(!JSON.stringify(r.issues).includes('DOE'));
    assert.deepEqual(r.benefitsInformation[0]!.additionalInformation, [{ description: 'NOTE' }]);
  });

  test('EB elements shifted by one: EB02 missing, or an extra element before EB03', () => {
    const r = result(build271(simple271(['EB*1*30*PR*GOLD PLAN', 'EB*B**IND*98*HM**27*25'])));
    const [left, right] = r.benefitsInformation;
    assert.deepEqual(
      [left!.coverageLevelCode, left!.serviceTypeCodes, left!.insuranceTypeCode, left!.planCoverage],
      [undefined, ['30'], 'PR', 'GOLD PLAN'],
    );
    assert.deepEqual(
      [
        right!.coverageLevelCode,
        right!.serviceTypeCodes,
        right!.insuranceTypeCode,
        right!.timeQualifierCode,
        right!.benefitAmount,
      ],
      ['IND', ['98'], 'HM', '27', '25'],
    );
    assert.deepEqual(codes(r), ['X12_EB_SHIFTED@13', 'X12_EB_SHIFTED@14']);
    assert.equal(r.planActive, true);
  });

  test('AAA before the first HL is a transaction-level rejection', () => {
    const body = simple271([]);
    body.splice(1, 0, 'AAA*N**42*R');
    const r = result(build271(body));
    assert.deepEqual(r.errors, [
      {
        code: '42',
        description: 'Unable to respond at current time',
        field: 'AAA',
        followupAction: 'Resubmission Allowed',
        location: 'Header',
      },
    ]);
    assert.deepEqual(
      r.rejections.map((x) => [x.loop, x.code, x.position]),
      [['header', '42', 5]],
    );
    assert.deepEqual(codes(r), ['X12_AAA_OUTSIDE_LOOP@5']);
  });

  test('HL with an empty HL01 (and so dangling HL02s) is placed by its level', () => {
    const body = simple271([
      'EB*1*IND*30*PR*GOLD PLAN',
      'HL*4*3*23*0',
      'NM1*03*1*DOE*JIM',
      'AAA*N**67*C',
    ]).map((s) => (s.startsWith('HL*3') ? 'HL**2*22*1' : s));
    const r = result(build271(body));
    assert.equal(r.subscriber.firstName, 'JANE');
    assert.equal(r.benefitsInformation.length, 1);
    assert.equal(r.dependents[0]!.firstName, 'JIM');
    assert.deepEqual(
      r.dependents[0]!.aaaErrors?.map((e) => e.code),
      ['67'],
    );
    assert.deepEqual(codes(r), ['X12_HL_EMPTY_ID@9', 'X12_HL_PARENT@14']);
  });

  test('an HL without HL03 takes its level from the NM1 that follows', () => {
    const body = simple271().map((s) => (s === 'HL*3*2*22*0' ? 'HL*3*2**0' : s));
    const r = result(build271(body));
    assert.equal(r.subscriber.memberId, 'M100');
    assert.equal(r.planActive, true);
    assert.deepEqual(codes(r), ['X12_HL_LEVEL_INFERRED@9']);
  });

  test('no HL hierarchy: loops come from the NM1 entity codes; the dependent’s rows stay the dependent’s', () => {
    const body = [
      'BHT*0022*11*REF1*20260101*1200',
      'NM1*PR*2*ACME HEALTH*****PI*ACME1',
      'NM1*1P*2*CLINIC*****XX*1234567893',
      'TRN*2*TRACE1*9CLINIC',
      'NM1*IL*1*DOE*JANE****MI*M100',
      'EB*1*IND*30*PR*GOLD PLAN',
      'NM1*03*1*DOE*JIM',
      'EB*6*IND*30',
    ];
    const r = result(build271(body));
    assert.equal(r.payer.payerName, 'ACME HEALTH');
    assert.equal(r.provider?.organizationName, 'CLINIC');
    assert.equal(r.subscriber.memberId, 'M100');
    assert.equal(r.subscriberTraceNumbers[0]!.referenceIdentification, 'TRACE1');
    assert.deepEqual(
      r.benefitsInformation.map((b) => b.code),
      ['1'],
    );
    assert.equal(r.planActive, true);
    assert.equal(r.dependents[0]!.firstName, 'JIM');
    assert.deepEqual(codes(r), ['X12_NO_HL@3']);
  });

  test('two subscribers under one receiver: the inquiry’s trace picks one; nothing crosses over', () => {
    const body = [
      ...simple271(['EB*1*IND*30*PR*GOLD PLAN']),
      'HL*4*2*22*1',
      'TRN*2*TRACE2*9CLINIC',
      'NM1*IL*1*ROE*RICK****MI*M200',
      'EB*6*IND*30',
      'HL*5*4*23*0',
      'NM1*03*1*ROE*RITA',
    ];
    const first = result(build271(body));
    assert.deepEqual(
      [first.subscriber.lastName, first.planActive, first.dependents.length],
      ['DOE', true, 0],
    );
    const second = result(build271(body), 'TRACE2');
    assert.deepEqual([second.subscriber.lastName, second.planActive], ['ROE', false]);
    assert.deepEqual(
      second.dependents.map((d) => d.firstName),
      ['RITA'],
    );
    assert.ok(second.warnings.some((w) => w.code === 'X12_MULTIPLE_SUBSCRIBERS'));
  });

  test('multi-ST batch: the transaction whose TRN matches is chosen; parse271All reads them all', () => {
    const answer = (trace: string, name: string) =>
      simple271(['EB*1*IND*30*PR*GOLD PLAN']).map((s) =>
        s.replace('TRACE1', trace).replace('DOE*JANE', name),
      );
    const text = interchange([
      transaction(answer('T-A', 'ONE*ANN'), '0001'),
      transaction(answer('T-B', 'TWO*BEA'), '0002'),
    ]);
    assert.equal(result(text, 'T-B').subscriber.lastName, 'TWO');
    assert.equal(result(text).subscriber.lastName, 'ONE');
    assert.deepEqual(
      parse271All(text).map((o) => (o.kind === '271' ? o.result.subscriber.firstName : o.kind)),
      ['ANN', 'BEA'],
    );
  });

  test('coverage level EMP passes through as sent', () => {
    const r = result(build271(simple271(['EB*1*EMP*30*PR*GOLD PLAN', 'EB*B*EMP*98***27*25'])));
    assert.deepEqual(
      r.benefitsInformation.map((b) => [b.coverageLevelCode, b.coverageLevel]),
      [
        ['EMP', 'Employee Only'],
        ['EMP', 'Employee Only'],
      ],
    );
    assert.equal(r.planActive, true);
  });

  test('EB*1 and EB*6 at plan level: dates decide, and the contradiction is a warning', () => {
    const rows = [
      'EB*6*IND*30',
      'DTP*307*RD8*20200101-20201231',
      'EB*1*IND*30*PR*GOLD PLAN',
      'DTP*307*D8*20250101',
    ];
    const active = result(build271(simple271(rows)));
    assert.equal(active.planActive, true);
    assert.deepEqual(
      active.warnings.map((w) => w.code),
      ['X12_CONFLICTING_PLAN_STATUS'],
    );
    assert.match(active.warnings[0]!.description, /active.*dated/);
    const laterInactive = [
      'EB*1*IND*30*PR*GOLD PLAN',
      'DTP*307*RD8*20200101-20201231',
      'EB*6*IND*30',
      'DTP*307*D8*20250101',
    ];
    assert.equal(result(build271(simple271(laterInactive))).planActive, false);
  });

  test('planActive: undefined when the 271 does not say; true from active service rows alone', () => {
    assert.equal(result(build271(simple271(['EB*B*IND*98***27*25']))).planActive, undefined);
    assert.equal(result(build271(simple271(['EB*1*IND*98']))).planActive, true);
    assert.equal(result(build271(simple271(['EB*6*IND*88']))).planActive, undefined);
    assert.equal(result(build271(simple271(['EB*7']))).planActive, false);
  });

  test('EB outside a patient loop and an LE without LS are reported, not attached', () => {
    const body = simple271(['EB*1*IND*30*PR*GOLD PLAN', 'LE*2120']);
    body.splice(3, 0, 'EB*1*IND*30*PR*SOURCE LEVEL', 'MSG*NOT MINE');
    const r = result(build271(body));
    assert.deepEqual(
      r.benefitsInformation.map((b) => b.planCoverage),
      ['GOLD PLAN'],
    );
    assert.ok(!JSON.stringify(r.benefitsInformation).includes('NOT MINE'));
    assert.deepEqual(codes(r), ['X12_EB_OUTSIDE_PATIENT@7', 'X12_LE_WITHOUT_LS@16']);
  });
});
