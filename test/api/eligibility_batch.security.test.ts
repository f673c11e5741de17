/** The batch endpoints: no key or a bad key is 401, a key without the scope 403, another tenant's batch 404. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const BODY = { checks: [sandboxRequest(member('SBX1000001'))] };
let svc: TestService;
let batchId: string;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  batchId = (await client(svc.url, svc.apiKey).post('/api/eligibility/batch', BODY)).body.id;
});
after(() => svc.stop());

async function key(scopes: ('eligibility:read' | 'eligibility:write')[], orgId = svc.organizationId) {
  return (
    await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
      organizationId: orgId,
      name: 't',
      scopes,
      mode: 'test',
    })
  ).key;
}

test('no key or an unknown key answers 401 on both endpoints, before the body or query is looked at', async () => {
  for (const k of [undefined, 'elig_test_nope']) {
    const c = client(svc.url, k);
    const submit = await c.post('/api/eligibility/batch', { not: 'even valid' });
    assert.equal(submit.status, 401);
    assert.equal(submit.body.code, 'UnauthorizedException');
    const read = await c.get(`/api/eligibility/batch/${batchId}?status=BOGUS`);
    assert.equal(read.status, 401);
  }
});

test('a read-only key cannot submit a batch; a write-only key cannot read one', async () => {
  const readOnly = client(svc.url, await key(['eligibility:read']));
  assert.equal((await readOnly.post('/api/eligibility/batch', BODY)).status, 403);
  assert.equal((await readOnly.get(`/api/eligibility/batch/${batchId}`)).status, 200);
  const writeOnly = client(svc.url, await key(['eligibility:write']));
  assert.equal((await writeOnly.get(`/api/eligibility/batch/${batchId}`)).status, 403);
});

test("another organization's key: the batch is a 404, and its checks too", async () => {
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  const c = client(svc.url, await key(['eligibility:read', 'eligibility:write'], other.id));
  const theirs = await c.get(`/api/eligibility/batch/${batchId}`);
  const missing = await c.get('/api/eligibility/batch/01900000-0000-7000-8000-000000000000');
  assert.equal(theirs.status, 404);
  assert.deepEqual(theirs.body, missing.body);
  const { rows } = await svc.service.store.db.query<{ id: string }>(
    'SELECT id FROM checks WHERE batch_id = $1',
    [batchId],
  );
  assert.equal((await c.get(`/api/eligibility/${rows[0]!.id}/status`)).status, 404);
});
