/**
 * 271s written by hand from the sandbox conventions (docs/sandbox-271.md), independently of the sandbox's
 * generator: each convention lands in the field the API and the benefit interpreter read. Rows use the
 * real X12 positions the conventions name (EB08 percent, EB09/EB10 visits, EB11 auth, EB12 network), as
 * the sandbox's generator writes them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse271 } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { build271 } from './build.ts';

function sandbox271(
  rows: string[],
  options: { sourceAaa?: string; subscriberAaa?: string } = {},
): Eligibility271 {
  const body = [
    'BHT*0022*11*REF1*20260115*1200',
    'HL*1**20*1',
    'NM1*PR*2*Sandbox Health Plan*****PI*SANDBOX',
    ...(options.sourceAaa ? [options.sourceAaa] : []),
    'HL*2*1*21*1',
    'NM1*1P*2*ANYTOWN CLINIC*****XX*1234567893',
    'HL*3*2*22*0',
    'TRN*2*OUR-TRACE*9OURID',
    'TRN*1*PAYER-TRACE*9SANDBOX',
    'NM1*IL*1*DOE*JANE****MI*SBX1000001',
    ...(options.subscriberAaa ? [options.subscriberAaa] : []),
    'REF*6P*G-12345',
    'N3*1 MAIN ST',
    'N4*SPRINGFIELD*IL*62701',
    'DMG*D8*19800115*F',
    'DTP*307*D8*20260101',
    'DTP*291*RD8*20260101-20261231',
    ...rows,
  ];
  const outcome = parse271(build271(body), { traceNumber: 'OUR-TRACE' });
  assert.equal(outcome.kind, '271');
  return (outcome as { result: Eligibility271 }).result;
}

describe('sandbox conventions (docs/sandbox-271.md)', () => {
  test('loop 2100C, 2000C trace numbers and the plan row', () => {
    const r = sandbox271(['EB*1*IND*30*PR*Sandbox PPO Gold']);
    assert.deepEqual(r.payer, {
      payerName: 'Sandbox Health Plan',
      payerId: 'SANDBOX',
      entityIdentifier: 'Payer',
      entityType: 'Non-Person Entity',
    });
    assert.equal(r.subscriber.memberId, 'SBX1000001');
    assert.equal(r.subscriber.groupNumber, 'G-12345');
    assert.deepEqual(r.subscriber.address, {
      address1: '1 MAIN ST',
      city: 'SPRINGFIELD',
      state: 'IL',
      postalCode: '62701',
    });
    assert.deepEqual(r.planInformation, {
      planName: 'Sandbox PPO Gold',
      insuranceTypeCode: 'PR',
      insuranceType: 'Preferred Provider Organization (PPO)',
      groupNumber: 'G-12345',
    });
    assert.deepEqual(r.planDateInformation, { eligibility: '20260101', plan: '20260101-20261231' });
    assert.equal(r.planActive, true);
    assert.equal(r.planCoverage, 'Sandbox PPO Gold');
    assert.deepEqual(
      r.subscriberTraceNumbers.map((t) => [
        t.traceTypeCode,
        t.originatingTransactionTraceNumber,
        t.payerTraceNumber,
      ]),
      [
        ['2', 'OUR-TRACE', undefined],
        ['1', undefined, 'PAYER-TRACE'],
      ],
    );
    assert.deepEqual(r.issues, []);
  });

  test('cost rows: element positions EB06–EB12 as the interpreter reads them', () => {
    const r = sandbox271([
      'EB*1*IND*30*PR*Sandbox PPO Gold',
      'EB*C*IND*30***23*1500*****Y',
      'EB*B*IND*PT***27*30****N*Y',
      'EB*A*IND*AD*****.2**Y*Y',
      'EB*F*IND*PT***23***VS*20**Y',
      'EB*F*IND*PT***29***VS*16**Y',
      'EB*B*IND*98***27*0****N*Y',
      'MSG*PREVENTIVE NUTRITION COUNSELING',
      'EB*I*IND*33',
    ]);
    const [, deductible, copay, coinsurance, limit, remaining, nutrition, notCovered] = r.benefitsInformation;
    assert.deepEqual(
      [deductible!.timeQualifierCode, deductible!.benefitAmount, deductible!.inPlanNetworkIndicatorCode],
      ['23', '1500', 'Y'],
    );
    assert.deepEqual(
      [
        copay!.serviceTypeCodes,
        copay!.timeQualifierCode,
        copay!.benefitAmount,
        copay!.authOrCertIndicator,
        copay!.inPlanNetworkIndicatorCode,
      ],
      [['PT'], '27', '30', 'N', 'Y'],
    );
    assert.deepEqual([coinsurance!.benefitPercent, coinsurance!.authOrCertIndicator], ['.2', 'Y']);
    assert.deepEqual(
      [limit!.quantityQualifierCode, limit!.benefitQuantity, limit!.timeQualifierCode],
      ['VS', '20', '23'],
    );
    assert.deepEqual([remaining!.benefitQuantity, remaining!.timeQualifierCode], ['16', '29']);
    assert.deepEqual(nutrition!.additionalInformation, [{ description: 'PREVENTIVE NUTRITION COUNSELING' }]);
    assert.deepEqual(
      [notCovered!.code, notCovered!.name, notCovered!.serviceTypes],
      ['I', 'Non-Covered', ['Chiropractic']],
    );
    assert.deepEqual(r.providerNetwork, { status: 'In Network' });
  });

  test('EB03 with repetitions (SBX1000005) and the inactive plan (SBX1000003)', () => {
    const basic = sandbox271(['EB*1*IND*30^98^PT^MH^AD^AF^33*PR*Sandbox Basic']);
    assert.deepEqual(basic.benefitsInformation[0]!.serviceTypeCodes, [
      '30',
      '98',
      'PT',
      'MH',
      'AD',
      'AF',
      '33',
    ]);
    assert.equal(basic.planInformation?.planName, 'Sandbox Basic');
    assert.equal(basic.planActive, true);
    const inactive = sandbox271(['EB*6*IND*30']);
    assert.equal(inactive.planActive, false);
    assert.equal(inactive.planInformation?.planName, undefined);
  });

  test('AAA in 2100C (rejection) and 2100A (try again)', () => {
    const rejected = sandbox271([], { subscriberAaa: 'AAA*N**72*C' });
    assert.deepEqual(rejected.errors, [
      {
        code: '72',
        description: 'Invalid/Missing subscriber/insured ID',
        field: 'AAA',
        followupAction: 'Please Correct and Resubmit',
        location: 'Loop 2100C',
      },
    ]);
    const busy = sandbox271([], { sourceAaa: 'AAA*Y**42*R' });
    assert.deepEqual(
      busy.rejections.map((x) => [x.loop, x.code, x.followUpCode, x.validRequest]),
      [['2100A', '42', 'R', 'Y']],
    );
    assert.equal(busy.errors[0]!.followupAction, 'Resubmission Allowed');
  });
});
