/**
 * Estimates end to end on the sandbox (docs/estimates.md): charges on the submit come back in the finished
 * check (and its webhook body, which is the same JSON); POST /api/eligibility/{id}/estimate answers from a
 * COMPLETED check with no payer call. The worked examples of issue 29 on Table A (SBX1000001).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { replaceFees } from '../../src/store/fee-schedule.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  submitAndWait,
  type TestService,
} from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(() => svc.stop());

const WORKED = [
  { serviceType: 'Mental Health', amount: 120 },
  { serviceTypeCode: 'AD', amount: 800 },
  { serviceTypeCode: '33', amount: 60 },
];

test('charges on the submit: the COMPLETED check carries the worked examples, in their order', async () => {
  const c = client(svc.url, svc.apiKey);
  const body = sandboxRequest(member('SBX1000001'), { encounter: { charges: WORKED } });
  const { result } = await submitAndWait(c, body);
  assert.equal(result.status, 'COMPLETED');
  assert.deepEqual(
    result.estimates.map((e: { serviceType: string; patientPays: number; planPays: number }) => [
      e.serviceType,
      e.patientPays,
      e.planPays,
    ]),
    [
      ['Mental Health', 25, 95],
      ['Occupational Therapy', 560, 240],
      ['Chiropractic', 15, 45],
    ],
  );
  assert.deepEqual(result.estimateTotal, { patientPays: 600, planPays: 380, notComputed: 0 });
  const ot = result.estimates[1];
  assert.deepEqual(
    ot.steps.map((s: { kind: string; amount: number }) => [s.kind, s.amount]),
    [
      ['deductible', 500],
      ['coinsurance', 60],
    ],
  );
  assert.equal(ot.serviceTypeCode, 'AD');
  assert.equal(ot.amountSource, 'request');
  assert.deepEqual(ot.assumptions, []);
});

test('POST estimate on a COMPLETED check: the same answer, again and again, with no payer call', async () => {
  const c = client(svc.url, svc.apiKey);
  const { accepted } = await submitAndWait(c, sandboxRequest(member('SBX1000001')));
  const first = await c.post(`/api/eligibility/${accepted.id}/estimate`, { charges: WORKED });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.deepEqual(
    first.body.estimates.map((e: { patientPays: number }) => e.patientPays),
    [25, 560, 15],
  );
  const x12Before = (await c.get(`/api/eligibility/${accepted.id}/status`)).body.x12;
  const second = await c.post(`/api/eligibility/${accepted.id}/estimate`, { charges: WORKED });
  assert.deepEqual(second.body, first.body);
  const status = await c.get(`/api/eligibility/${accepted.id}/status`);
  assert.equal(status.body.x12, x12Before, 'the stored result is unchanged');
  assert.equal(status.body.estimates, undefined, 'an estimate asked afterwards is not stored');
});

test('a charge without an amount is priced from the fee schedule: the payer row before the default', async () => {
  const db = svc.service.store.db;
  await replaceFees(db, svc.organizationId, [
    { procedureCode: '97165', payerId: '', amountCents: 10000 },
    { procedureCode: '97165', payerId: 'SANDBOX', amountCents: 80000 },
    { procedureCode: '90837', payerId: '', amountCents: 12000 },
  ]);
  const c = client(svc.url, svc.apiKey);
  const charges = [
    { serviceType: 'Occupational Therapy', procedureCode: '97165' },
    { serviceTypeCode: 'MH', procedureCode: '90837' },
  ];
  const { result } = await submitAndWait(c, sandboxRequest(member('SBX1000001'), { encounter: { charges } }));
  assert.deepEqual(
    result.estimates.map((e: { amount: number; amountSource: string; patientPays: number }) => [
      e.amount,
      e.amountSource,
      e.patientPays,
    ]),
    [
      [800, 'feeSchedule', 560],
      [120, 'feeSchedule', 25],
    ],
  );
  assert.match(result.estimates[0].assumptions[0], /fee schedule for procedure 97165/);
  const later = await c.post(`/api/eligibility/${result.id}/estimate`, { charges });
  assert.deepEqual(later.body.estimates, result.estimates);
});

test('Table B (SBX1000002): Chiropractic is not covered, the patient pays all, with a step saying so', async () => {
  const c = client(svc.url, svc.apiKey);
  const charges = [
    { serviceType: 'Chiropractic', amount: 60 },
    { serviceTypeCode: 'PT', amount: 150 },
  ];
  const { result } = await submitAndWait(c, sandboxRequest(member('SBX1000002'), { encounter: { charges } }));
  const [chiro, pt] = result.estimates;
  assert.equal(chiro.patientPays, 60);
  assert.deepEqual(
    chiro.steps.map((s: { kind: string }) => s.kind),
    ['notCovered'],
  );
  assert.equal(pt.patientPays, 20, 'copay 20, no deductible');
});

test('an inactive plan (SBX1000003): each estimate says it cannot be computed, and why', async () => {
  const c = client(svc.url, svc.apiKey);
  const charges = [{ serviceType: 'Mental Health', amount: 120 }];
  const { result } = await submitAndWait(c, sandboxRequest(member('SBX1000003'), { encounter: { charges } }));
  assert.equal(result.estimates[0].patientPays, null);
  assert.match(result.estimates[0].reason, /no benefits/);
  assert.deepEqual(result.estimateTotal, { patientPays: 0, planPays: 0, notComputed: 1 });
});

test('a reused check works the estimates out for its own charges', async () => {
  const c = client(svc.url, svc.apiKey);
  const who = member('SBX1000001');
  await submitAndWait(c, sandboxRequest(who, { encounter: { serviceTypeCodes: ['AD'] } }));
  const { result } = await submitAndWait(
    c,
    sandboxRequest(who, {
      reuseWithinHours: 24,
      encounter: { serviceTypeCodes: ['AD'], charges: [{ serviceTypeCode: 'AD', amount: 300 }] },
    }),
  );
  assert.ok(result.meta.reusedFrom, 'answered from the earlier check');
  assert.deepEqual(
    result.estimates.map((e: { patientPays: number }) => e.patientPays),
    [300],
  );
});
