/**
 * Every 4xx of estimates, on the submit (`encounter.charges`) and on POST /api/eligibility/{id}/estimate:
 * each a `{code, message}` naming the field, never a value of the patient. Tenancy: another organization's
 * COMPLETED check is a 404, exactly like a missing one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  submitAndWait,
  type TestService,
} from '../helpers/service.ts';

let svc: TestService;
let completedId: string;
before(async () => {
  svc = await startTestService();
  const c = client(svc.url, svc.apiKey);
  completedId = (await submitAndWait(c, sandboxRequest(JANE))).accepted.id;
});
after(() => svc.stop());

const JANE = member('SBX1000001');
const PHI = [JANE.memberId, JANE.firstName, JANE.lastName, JANE.dateOfBirth];

function assertEnvelope(res: { status: number; body: any }, status: number, pattern: RegExp) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'message']);
  assert.equal(res.body.code, 'ValidationException');
  assert.match(res.body.message, pattern);
  for (const value of PHI) assert.ok(!res.body.message.includes(value), 'no patient data in the message');
}

const BAD_CHARGES: [string, unknown, RegExp][] = [
  ['no charges', [], /charges/],
  [
    'a code two product types share',
    [{ serviceTypeCode: '98', amount: 50 }],
    /shared by Preventive Nutrition and Medical Nutrition: name the serviceType/,
  ],
  [
    'a code no product type has',
    [{ serviceTypeCode: '30', amount: 50 }],
    /serviceTypeCode 30 is not one of the product's service types/,
  ],
  [
    'a name and a code that disagree',
    [{ serviceType: 'Chiropractic', serviceTypeCode: 'MH', amount: 50 }],
    /not the code of Chiropractic \(33\)/,
  ],
  ['neither a name nor a code', [{ amount: 50 }], /needs serviceType or serviceTypeCode/],
  ['an unknown service type', [{ serviceType: 'Dental', amount: 50 }], /serviceType/],
  [
    'neither an amount nor a procedure code',
    [{ serviceTypeCode: 'MH' }],
    /needs an amount, or a procedureCode/,
  ],
  ['an amount with three decimals', [{ serviceTypeCode: 'MH', amount: 12.345 }], /at most two decimals/],
  ['a negative amount', [{ serviceTypeCode: 'MH', amount: -1 }], /amount/],
  ['an unknown field', [{ serviceTypeCode: 'MH', amount: 1, price: 1 }], /price/],
  [
    'a procedure code not in the fee schedule',
    [{ serviceTypeCode: 'MH', procedureCode: '90837' }],
    /procedure code 90837 is not in the organization's fee schedule/,
  ],
];

for (const [name, charges, pattern] of BAD_CHARGES) {
  test(`submit with ${name}: 400 naming the field`, async () => {
    const c = client(svc.url, svc.apiKey);
    const res = await c.post('/api/eligibility', sandboxRequest(JANE, { encounter: { charges } }));
    assertEnvelope(res, 400, pattern);
    assert.match(res.body.message, /encounter\.charges/);
  });
  test(`estimate with ${name}: 400 naming the field`, async () => {
    const c = client(svc.url, svc.apiKey);
    const res = await c.post(`/api/eligibility/${completedId}/estimate`, { charges });
    assertEnvelope(res, 400, pattern);
  });
}

test('a batch item with a bad charge is refused as a submit would be, the others accepted', async () => {
  const c = client(svc.url, svc.apiKey);
  const res = await c.post('/api/eligibility/batch', {
    checks: [
      sandboxRequest(JANE, { encounter: { charges: [{ serviceTypeCode: 'MH', procedureCode: 'NOFEE' }] } }),
      sandboxRequest(JANE, { encounter: { charges: [{ serviceTypeCode: 'MH', amount: 120 }] } }),
    ],
  });
  assert.equal(res.status, 202, JSON.stringify(res.body));
  assert.match(res.body.items[0].error, /procedure code NOFEE is not in the organization's fee schedule/);
  assert.ok(res.body.items[1].id);
});

test('a monitor refuses charges, saying where to ask for an estimate', async () => {
  const c = client(svc.url, svc.apiKey);
  const res = await c.post('/api/eligibility/monitors', {
    ...sandboxRequest(JANE, { encounter: { charges: [{ serviceTypeCode: 'MH', amount: 120 }] } }),
    every: 30,
  });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.match(res.body.message, /encounter\.charges is not taken by a monitor/);
});

test('estimate body that is not an object, or not JSON: 400', async () => {
  const c = client(svc.url, svc.apiKey);
  assertEnvelope(await c.post(`/api/eligibility/${completedId}/estimate`, [1]), 400, /JSON object/);
  const res = await c.post(`/api/eligibility/${completedId}/estimate`, '{"charges":');
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'ValidationException');
});

test('estimate on an IN_PROGRESS check: 409, ask again once it has COMPLETED', async () => {
  const slow = createCheckThatStaysInProgress();
  const c = client(svc.url, svc.apiKey);
  const id = await slow(c);
  const res = await c.post(`/api/eligibility/${id}/estimate`, {
    charges: [{ serviceTypeCode: 'MH', amount: 1 }],
  });
  assert.equal(res.status, 409);
  assert.match(res.body.message, /still IN_PROGRESS/);
});

test('estimate on a FAILED check: 409, nothing to estimate from', async () => {
  const c = client(svc.url, svc.apiKey);
  const { accepted, result } = await submitAndWait(c, sandboxRequest(member('SBX1000067')));
  assert.equal(result.status, 'FAILED');
  const res = await c.post(`/api/eligibility/${accepted.id}/estimate`, {
    charges: [{ serviceTypeCode: 'MH', amount: 1 }],
  });
  assert.equal(res.status, 409);
  assert.match(res.body.message, /FAILED: only a COMPLETED check/);
});

test("another organization's COMPLETED check is a 404, exactly like a missing one", async () => {
  const db = svc.service.store.db;
  const org = await createOrganization(db, 'Other Clinic');
  const other = (
    await createApiKey(db, svc.service.keys.apiKeyPepper, {
      organizationId: org.id,
      name: 'other',
      scopes: ['eligibility:read'],
      mode: 'test',
    })
  ).key;
  const c = client(svc.url, other);
  const body = { charges: [{ serviceTypeCode: 'MH', amount: 120 }] };
  const theirs = await c.post(`/api/eligibility/${completedId}/estimate`, body);
  const missing = await c.post(`/api/eligibility/0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b/estimate`, body);
  assert.equal(theirs.status, 404);
  assert.deepEqual(theirs.body, missing.body);
  assert.equal(theirs.body.code, 'ResourceNotFoundException');
});

test('estimate body sent as another media type: 415', async () => {
  const res = await fetch(`${svc.url}/api/eligibility/${completedId}/estimate`, {
    method: 'POST',
    headers: { authorization: `Key ${svc.apiKey}`, 'content-type': 'text/plain' },
    body: 'charges',
  });
  assert.equal(res.status, 415);
  assert.equal((await res.json()).code, 'ValidationException');
});

/** SBX1000009 never answers: its check stays IN_PROGRESS for as long as this test needs. */
function createCheckThatStaysInProgress() {
  return async (c: ReturnType<typeof client>) =>
    (await c.post('/api/eligibility', sandboxRequest(member('SBX1000009')))).body.id as string;
}
