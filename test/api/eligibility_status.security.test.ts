import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
let checkId: string;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  checkId = (await client(svc.url, svc.apiKey).post('/api/eligibility', sandboxRequest(JANE))).body.id;
});
after(() => svc.stop());

test('a check of another organization is a 404, indistinguishable from a missing one', async () => {
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  const { key } = await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
    organizationId: other.id,
    name: 'other',
    scopes: ['eligibility:read', 'eligibility:write'],
    mode: 'test',
  });
  const c = client(svc.url, key);
  const theirs = await c.get(`/api/eligibility/${checkId}/status`);
  const missing = await c.get('/api/eligibility/01900000-0000-7000-8000-000000000000/status');
  assert.equal(theirs.status, 404);
  assert.deepEqual(theirs.body, missing.body);
  assert.equal(theirs.body.code, 'ResourceNotFoundException');
});

test('no key or a bad key is 401; a write-only key is 403', async () => {
  assert.equal((await client(svc.url).get(`/api/eligibility/${checkId}/status`)).status, 401);
  assert.equal(
    (
      await client(svc.url, 'elig_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA').get(
        `/api/eligibility/${checkId}/status`,
      )
    ).status,
    401,
  );
  const { key } = await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
    organizationId: svc.organizationId,
    name: 'w',
    scopes: ['eligibility:write'],
    mode: 'test',
  });
  const res = await client(svc.url, key).get(`/api/eligibility/${checkId}/status`);
  assert.equal(res.status, 403);
  assert.equal(res.body.code, 'AccessDeniedException');
});

test('malformed ids and path tricks are 404, never 500', async () => {
  const c = client(svc.url, svc.apiKey);
  for (const id of ['not-a-uuid', "1'%20OR%201=1", '..%2F..%2Fetc%2Fpasswd', 'x'.repeat(150), '%00']) {
    const res = await c.get(`/api/eligibility/${id}/status`);
    assert.equal(res.status, 404, id);
    assert.equal(res.body.code, 'ResourceNotFoundException');
  }
});
