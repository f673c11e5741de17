import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

test('submit answers 202 with a UUIDv7 id and IN_PROGRESS only', async () => {
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility', sandboxRequest(JANE));
  assert.equal(res.status, 202);
  assert.deepEqual(Object.keys(res.body).sort(), ['id', 'status']);
  assert.equal(res.body.status, 'IN_PROGRESS');
  assert.match(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test('submitted check is stored for the key organization and readable as IN_PROGRESS', async () => {
  const c = client(svc.url, svc.apiKey);
  const { body } = await c.post(
    '/api/eligibility',
    sandboxRequest(JANE, { encounter: { serviceTypeCodes: ['PT', '98'], dateOfService: '20260301' } }),
  );
  const { rows } = await svc.service.store.db.query<{
    organization_id: string;
    status: string;
    request: any;
  }>('SELECT organization_id, status, request FROM checks WHERE id = $1', [body.id]);
  assert.equal(rows[0]?.organization_id, svc.organizationId);
  assert.equal(rows[0]?.status, 'IN_PROGRESS');
  assert.deepEqual(rows[0]?.request.encounter.serviceTypeCodes, ['PT', '98']);
  const status = await c.get(`/api/eligibility/${body.id}/status`);
  assert.equal(status.status, 200);
  assert.deepEqual(status.body, { id: body.id, status: 'IN_PROGRESS' });
  assert.equal(status.headers.get('retry-after'), '1', 'an IN_PROGRESS answer says when to ask again');
});

test('ids are unique across many submissions', async () => {
  const c = client(svc.url, svc.apiKey);
  const ids = await Promise.all(
    Array.from({ length: 50 }, () => c.post('/api/eligibility', sandboxRequest(JANE)).then((r) => r.body.id)),
  );
  assert.equal(new Set(ids).size, 50);
});

test('provider given as a person (first + last name) is accepted', async () => {
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility', {
    ...sandboxRequest(JANE),
    provider: { firstName: 'Ann', lastName: "O'Neil-Smith", npi: '1234567893', providerType: 'provider' },
  });
  assert.equal(res.status, 202);
});
