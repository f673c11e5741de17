/**
 * Issue 15 items 4 and 5: a dependent patient's own 2100D facts win over the subscriber's, every dependent
 * says how it relates to the subscriber (INS02), and of several 2000C loops only the inquiry's is read
 * (trace echo, else member id and name), the others counted in a warning and absent from the result.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { processCheck } from '../../src/workers/process-check.ts';
import { type Parse271Options, parse271 } from '../../src/x12/parse271.ts';
import type { Eligibility271 } from '../../src/x12/types.ts';
import { build271 } from './build.ts';

function result(text: string, options: Parse271Options = {}): Eligibility271 {
  const outcome = parse271(text, options);
  assert.equal(outcome.kind, '271');
  return (outcome as { result: Eligibility271 }).result;
}

const HEAD = [
  'BHT*0022*11*REF1*20260101*1200',
  'HL*1**20*1',
  'NM1*PR*2*ACME HEALTH*****PI*ACME1',
  'HL*2*1*21*1',
  'NM1*1P*2*CLINIC*****XX*1234567893',
];

describe('the dependent’s own facts (2100D)', () => {
  const family = [
    ...HEAD,
    'HL*3*2*22*1',
    'NM1*IL*1*DOE*JOHN****MI*M100',
    'REF*6P*GRP-SUB',
    'REF*18*PLAN-SUB',
    'N3*1 SUBSCRIBER ST',
    'N4*SPRINGFIELD*IL*62701',
    'DMG*D8*19700101*M',
    'INS*Y*18',
    'DTP*346*D8*20250101',
    'DTP*356*D8*20250101',
    'HL*4*3*23*0',
    'TRN*2*DEPTRACE*9CLINIC',
    'NM1*03*1*DOE*MARY',
    'REF*6P*GRP-DEP',
    'REF*1L*POLICY-DEP',
    'N3*9 DEPENDENT AVE',
    'N4*CHAMPAIGN*IL*61820',
    'DMG*D8*20100101*F',
    'INS*N*19',
    'DTP*346*D8*20260101',
    'EB*1*IND*30*PR*GOLD PLAN',
  ];

  test('group number, dates and address are the dependent’s; the plan number falls back to 2100C', () => {
    const r = result(build271(family), { traceNumber: 'DEPTRACE' });
    // REF*6P*GRP-DEP (2100D) over REF*6P*GRP-SUB (2100C); no REF*18 in 2100D, so REF*18*PLAN-SUB.
    assert.equal(r.planInformation?.groupNumber, 'GRP-DEP');
    assert.equal(r.planInformation?.planNumber, 'PLAN-SUB');
    // DTP*346 of 2100D over 2100C's; DTP*356 only in 2100C.
    assert.deepEqual(r.planDateInformation, { eligibility: '20250101', plan: '20260101' });
    // The subscriber keeps its own group number and address.
    assert.equal(r.subscriber.groupNumber, 'GRP-SUB');
    assert.equal(r.subscriber.address?.city, 'SPRINGFIELD');
    assert.deepEqual(r.dependents, [
      {
        lastName: 'DOE',
        firstName: 'MARY',
        entityIdentifier: 'Dependent',
        entityType: 'Person',
        dateOfBirth: '20100101',
        gender: 'F',
        address: { address1: '9 DEPENDENT AVE', city: 'CHAMPAIGN', state: 'IL', postalCode: '61820' },
        relationToSubscriberCode: '19',
        relationToSubscriber: 'Child',
      },
    ]);
  });

  test('REF*1L stands in for a missing 6P in 2100D, before the subscriber’s 6P', () => {
    const text = build271(family.filter((s) => s !== 'REF*6P*GRP-DEP'));
    const r = result(text, { traceNumber: 'DEPTRACE' });
    assert.equal(r.planInformation?.groupNumber, 'POLICY-DEP');
  });

  test('when the subscriber is the patient, 2100D facts do not touch the plan', () => {
    const subscriberPatient = family.map((s) => (s === 'TRN*2*DEPTRACE*9CLINIC' ? 'TRN*2*OTHER*9' : s));
    subscriberPatient.splice(subscriberPatient.indexOf('INS*Y*18') + 1, 0, 'EB*1*IND*30*PR*GOLD PLAN');
    const r = result(build271(subscriberPatient.slice(0, -1)), { traceNumber: 'NOPE' });
    assert.equal(r.planInformation?.groupNumber, 'GRP-SUB');
    assert.equal(r.dependents[0]!.relationToSubscriber, 'Child');
  });

  test('every dependent carries its relationship; an unknown INS02 keeps its code only', () => {
    const text = build271([
      ...HEAD,
      'HL*3*2*22*1',
      'NM1*IL*1*DOE*JOHN****MI*M100',
      'EB*1*IND*30*PR*GOLD PLAN',
      'HL*4*3*23*0',
      'NM1*03*1*DOE*ANN',
      'INS*N*01',
      'HL*5*3*23*0',
      'NM1*03*1*DOE*LEE',
      'INS*N*g8',
      'HL*6*3*23*0',
      'NM1*03*1*DOE*KIM',
      'INS*N*99',
      'HL*7*3*23*0',
      'NM1*03*1*DOE*BO',
    ]);
    const r = result(text);
    assert.deepEqual(
      r.dependents.map((d) => [d.firstName, d.relationToSubscriberCode, d.relationToSubscriber]),
      [
        ['ANN', '01', 'Spouse'],
        ['LEE', 'G8', 'Other Relationship'],
        ['KIM', '99', undefined],
        ['BO', undefined, undefined],
      ],
    );
  });
});

describe('several subscribers (2000C loops)', () => {
  // Two other people's loops with their own dependents, ids and amounts, around the inquiry's.
  const other = (hl: number, last: string, id: string, amount: string, trace: string) => [
    `HL*${hl}*2*22*1`,
    `TRN*2*${trace}*9CLINIC`,
    `NM1*IL*1*${last}*OTTO****MI*${id}`,
    'DMG*D8*19510203*M',
    `EB*C*IND*30***23*${amount}`,
    `HL*${hl + 1}*${hl}*23*0`,
    `NM1*03*1*${last}*KID`,
  ];
  const body = [
    ...HEAD,
    ...other(3, 'ZEBRAFAM', 'ZZ999001', '7777.77', 'TRACEOTHER1'),
    'HL*5*2*22*0',
    'TRN*2*OURTRACE*9CLINIC',
    'NM1*IL*1*DOE*JANE****MI*M100',
    'DMG*D8*19800101*F',
    'EB*1*IND*30*PR*GOLD PLAN',
    'EB*C*IND*30***23*500',
    ...other(6, 'YAKFAMILY', 'YY888002', '8888.88', 'TRACEOTHER2'),
  ];
  const text = build271(body);
  const leaks = [
    'ZEBRAFAM',
    'ZZ999001',
    '7777.77',
    'TRACEOTHER1',
    'YAKFAMILY',
    'YY888002',
    '8888.88',
    '19510203',
  ];
  const leaked = (json: string) => leaks.filter((value) => json.includes(value));

  test('the loop that echoes the trace is read; the warning counts the two ignored', () => {
    const r = result(text, { traceNumber: 'OURTRACE' });
    assert.equal(r.subscriber.memberId, 'M100');
    assert.deepEqual(r.dependents, []);
    assert.deepEqual(
      r.benefitsInformation.map((b) => b.benefitAmount),
      [undefined, '500'],
    );
    const warning = r.warnings.find((w) => w.code === 'X12_MULTIPLE_SUBSCRIBERS');
    assert.match(warning?.description ?? '', /2 other subscriber loops were ignored/);
    assert.match(warning?.description ?? '', /echoes the trace number/);
  });

  test('without a trace echo, the loop matching the member id and name is read', () => {
    const untraced = build271(body.filter((s) => s !== 'TRN*2*OURTRACE*9CLINIC'));
    const r = result(untraced, {
      traceNumber: 'NOTECHOED',
      subscriber: { memberId: 'm100', firstName: 'Jane', lastName: 'Doe' },
    });
    assert.equal(r.subscriber.lastName, 'DOE');
    const warning = r.warnings.find((w) => w.code === 'X12_MULTIPLE_SUBSCRIBERS');
    assert.match(warning?.description ?? '', /2 other subscriber loops were ignored.*member id and name/);
    // A matching id with another name is not a match: the first loop, said so.
    const wrongName = result(untraced, { subscriber: { memberId: 'M100', lastName: 'ROE' } });
    assert.equal(wrongName.subscriber.lastName, 'ZEBRAFAM');
    assert.match(wrongName.warnings.map((w) => w.description).join(' '), /it is the first/);
  });

  test('no name, id, trace or amount of the other loops appears anywhere in the parsed result', () => {
    const r = result(text, { traceNumber: 'OURTRACE' });
    const { clientX12, ...rest } = r;
    assert.deepEqual(leaked(JSON.stringify(rest)), []);
    assert.ok(clientX12);
    assert.deepEqual(leaked(clientX12), []);
    // The cut text is still a well-formed 271 for the same person (SE01 recounted: no issue at all).
    const again = result(clientX12, { traceNumber: 'OURTRACE' });
    assert.equal(again.subscriber.memberId, 'M100');
    assert.deepEqual(
      again.issues.map((i) => i.code),
      [],
    );
  });

  test('the worker’s result JSON (x12 included) holds nothing of the other loops', async () => {
    const outcome = await processCheck(
      '7b0d7c1e-0000-4000-8000-000000000001',
      {
        tradingPartnerServiceId: 'ACME1',
        provider: { organizationName: 'CLINIC', npi: '1234567893' },
        subscriber: { memberId: 'M100', firstName: 'JANE', lastName: 'DOE', dateOfBirth: '19800101' },
      },
      {
        payer: {
          tradingPartnerServiceId: 'ACME1',
          payerName: 'ACME HEALTH',
          payerId: 'ACME1',
          // Answers with our trace in the inquiry's loop only.
          connector: {
            name: 'fake',
            send: async (x12: string) => text.replace('OURTRACE', /TRN\*1\*([^*~]+)/.exec(x12)![1]!),
          },
        },
        senderId: 'ELIGSVC',
        timeoutMs: 5000,
        signal: new AbortController().signal,
      },
    );
    assert.equal(outcome.kind, 'finished');
    const body = (outcome as { body: string }).body;
    assert.equal(JSON.parse(body).status, 'COMPLETED');
    assert.equal(JSON.parse(body).subscriber.memberId, 'M100');
    assert.deepEqual(leaked(body), []);
  });
});
