/**
 * The sandbox's 271s through the service's own 271 parser and benefit interpreter: every answer parses with
 * no error-severity issue, and the spec's payer, subscriber, dependents, plan and Table A/B values come out.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { interpretBenefits } from '../../src/benefits/interpret.ts';
import type { BenefitEntry } from '../../src/contract/check-response.ts';
import { parse271 } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { member } from '../helpers/members.ts';
import { ask, type Person } from './helpers.ts';

const JANE = member('SBX1000001');
const JOHN = member('SBX1000002');
const EMMA = member('SBX1000010');
const ALL: Person[] = [
  JANE,
  JOHN,
  ...['SBX1000003', 'SBX1000004', 'SBX1000005', 'SBX1000006', 'SBX1000007', 'SBX1000008'].map(member),
  EMMA,
  member('SBX1000067'),
  member('SBX1000077'),
  { ...JANE, memberId: 'BAD' },
  { ...JANE, memberId: 'SBX1999999' },
  { ...JANE, lastName: 'ROE' },
  { ...JANE, dateOfBirth: '19800116' },
];

async function parsed(person: Person, trace = 'TRACE0001'): Promise<Eligibility271> {
  const { text } = await ask(person, { latencyMs: 0 }, trace);
  const outcome = parse271(text, { traceNumber: trace });
  assert.equal(outcome.kind, '271');
  if (outcome.kind !== '271') throw new Error('not a 271');
  const errors = outcome.result.issues.filter((i) => i.severity === 'error');
  assert.deepEqual(errors, [], `${person.memberId}: error-severity issues`);
  return outcome.result;
}

const byType = (benefits: BenefitEntry[]) => Object.fromEntries(benefits.map((b) => [b.serviceType, b]));

describe('sandbox 271s through parse271', () => {
  test('every member’s 271 parses with no error-severity issue and echoes our trace', async () => {
    for (const person of ALL) {
      const r = await parsed(person, `T-${person.memberId}`);
      assert.ok(
        r.subscriberTraceNumbers.some((t) => JSON.stringify(t).includes(`T-${person.memberId}`)),
        `${person.memberId}: our trace number is echoed`,
      );
    }
  });

  test('SBX1000001: payer, subscriber, dependent, plan information and dates', async () => {
    const r = await parsed(JANE);
    assert.equal(r.payer.payerName, 'Sandbox Health Plan');
    assert.equal(r.payer.payerId, 'SANDBOX');
    assert.equal(r.subscriber.memberId, 'SBX1000001');
    assert.equal(r.subscriber.firstName, 'JANE');
    assert.equal(r.subscriber.lastName, 'DOE');
    assert.equal(r.subscriber.dateOfBirth, '19800115');
    assert.equal(r.subscriber.gender, 'F');
    assert.equal(r.subscriber.groupNumber ?? r.planInformation?.groupNumber, 'G-12345');
    assert.equal(r.dependents.length, 1);
    assert.equal(r.dependents[0]!.firstName, 'JOHNNY');
    assert.equal(r.dependents[0]!.lastName, 'DOE');
    assert.equal(r.dependents[0]!.dateOfBirth, '20150302');
    assert.ok(!r.dependents[0]!.aaaErrors?.length);
    assert.equal(r.planInformation?.planName, 'Sandbox PPO Gold');
    assert.equal(r.planInformation?.insuranceTypeCode, 'PR');
    assert.equal(r.planDateInformation?.eligibility, '20260101');
    assert.equal(r.planDateInformation?.plan, '20260101-20261231');
    assert.equal(r.planActive, true);
    assert.deepEqual(r.errors, []);
  });

  test('SBX1000001 through the interpreter gives Table A', async () => {
    const r = await parsed(JANE);
    const { benefits } = interpretBenefits({
      benefitsInformation: r.benefitsInformation,
      planActive: r.planActive,
      requestedServiceTypeCodes: [],
    });
    const entries = byType(benefits);
    // serviceType: [copay, coinsurance, deductibleApplies, visitLimit, visitsUsed, authorizationRequired]
    const TABLE_A: Record<
      string,
      [number | null, number | null, boolean, number | null, number | null, boolean]
    > = {
      'Preventive Nutrition': [0, null, false, 6, 1, false],
      'Medical Nutrition': [20, null, false, 12, 0, false],
      'Outpatient Physical Therapy': [30, null, true, 20, 4, false],
      'Mental Health': [25, null, false, null, null, true],
      'Occupational Therapy': [null, 0.2, true, 20, 2, false],
      'Speech Therapy': [null, 0.2, true, 20, 0, true],
      Chiropractic: [15, null, false, 12, 5, false],
    };
    assert.equal(benefits.length, 7);
    for (const [
      type,
      [copay, coinsurance, deductibleApplies, visitLimit, visitsUsed, auth],
    ] of Object.entries(TABLE_A)) {
      const e = entries[type]!;
      assert.deepEqual(
        [
          e.coverageStatus,
          e.inNetwork,
          e.copay,
          e.coinsurance,
          e.deductibleApplies,
          e.visitLimit,
          e.visitsUsed,
          e.authorizationRequired,
        ],
        ['Active Coverage', true, copay, coinsurance, deductibleApplies, visitLimit, visitsUsed, auth],
        type,
      );
      assert.deepEqual(
        [e.deductible, e.deductibleRemaining, e.familyDeductible, e.familyDeductibleRemaining],
        [1500, 500, 3000, 2000],
        type,
      );
      assert.deepEqual(
        [e.outOfPocketMax, e.outOfPocketRemaining, e.familyOutOfPocketMax, e.familyOutOfPocketRemaining],
        [5000, 3200, 10000, 8000],
        type,
      );
    }
  });

  test('SBX1000002 through the interpreter gives Table B', async () => {
    const r = await parsed(JOHN);
    assert.equal(r.planInformation?.planName, 'Sandbox HMO Silver');
    assert.equal(r.subscriber.groupNumber ?? r.planInformation?.groupNumber, 'G-67890');
    assert.deepEqual(r.dependents, []);
    const entries = byType(
      interpretBenefits({
        benefitsInformation: r.benefitsInformation,
        planActive: r.planActive,
        requestedServiceTypeCodes: [],
      }).benefits,
    );
    const TABLE_B: Record<string, [number, boolean]> = {
      'Preventive Nutrition': [0, false],
      'Medical Nutrition': [10, false],
      'Outpatient Physical Therapy': [20, true],
      'Mental Health': [20, true],
      'Occupational Therapy': [20, true],
      'Speech Therapy': [20, true],
    };
    for (const [type, [copay, auth]] of Object.entries(TABLE_B)) {
      const e = entries[type]!;
      assert.deepEqual(
        [
          e.coverageStatus,
          e.inNetwork,
          e.copay,
          e.authorizationRequired,
          e.deductible ?? null,
          e.deductibleApplies,
        ],
        ['Active Coverage', true, copay, auth, null, false],
        type,
      );
      assert.deepEqual(
        [e.outOfPocketMax, e.outOfPocketRemaining, e.familyOutOfPocketMax, e.familyOutOfPocketRemaining],
        [3000, 2500, 6000, 5500],
        type,
      );
    }
    assert.equal(entries.Chiropractic?.coverageStatus, 'Not Covered');
  });

  test('SBX1000010: two dependents, NOAH with aaaErrors 73; the subscriber has no errors', async () => {
    const r = await parsed(EMMA);
    assert.deepEqual(r.errors, []);
    assert.equal(r.dependents.length, 2);
    const noah = r.dependents.find((d) => d.firstName === 'NOAH')!;
    assert.equal(noah.dateOfBirth, '20120101');
    assert.deepEqual(
      noah.aaaErrors?.map((e) => e.code),
      ['73'],
    );
    const olivia = r.dependents.find((d) => d.firstName === 'OLIVIA')!;
    assert.ok(!olivia.aaaErrors?.length);
    assert.ok(r.rejections.some((x) => x.loop === '2100D' && x.code === '73'));
  });

  test('SBX1000003 is inactive', async () => {
    const r = await parsed(ALL[2]!);
    assert.equal(r.planActive, false);
  });

  test('rejections come out with their code and Loop 2100C', async () => {
    const cases: [Person, string][] = [
      [{ ...JANE, memberId: 'BAD' }, '72'],
      [{ ...JANE, memberId: 'SBX1999999' }, '75'],
      [{ ...JANE, lastName: 'ROE' }, '73'],
      [{ ...JANE, dateOfBirth: '19800116' }, '71'],
      [ALL[9]!, '67'],
      [ALL[10]!, '77'],
    ];
    for (const [person, code] of cases) {
      const r = await parsed(person);
      assert.deepEqual(
        r.errors.map((e) => [e.code, e.field, e.location]),
        [[code, 'AAA', 'Loop 2100C']],
        code,
      );
      assert.deepEqual(
        r.rejections.map((x) => [x.loop, x.code, x.followUpCode]),
        [['2100C', code, 'C']],
        code,
      );
    }
  });

  test('the flaky member’s transient answer is AAA 42 in loop 2100A', async () => {
    const r = await parsed(ALL[7]!, 'FLAKY-1');
    assert.deepEqual(
      r.rejections.map((x) => [x.loop, x.code, x.followUpCode]),
      [['2100A', '42', 'R']],
    );
  });
});
