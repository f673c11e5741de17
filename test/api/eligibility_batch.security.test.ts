/**
 * The batch endpoints beyond the generated security cases (security.generated.test.ts: no key, bad keys,
 * scopes, another organization's batch): the checks a batch made are another organization's 404 too.
 */
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

test("another organization's key: the checks of a batch are 404, as a missing check", async () => {
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  const { key } = await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
    organizationId: other.id,
    name: 't',
    scopes: ['eligibility:read', 'eligibility:write'],
    mode: 'test',
  });
  const c = client(svc.url, key);
  const { rows } = await svc.service.store.db.query<{ id: string }>(
    'SELECT id FROM checks WHERE batch_id = $1',
    [batchId],
  );
  assert.equal(rows.length, 1);
  const theirs = await c.get(`/api/eligibility/${rows[0]!.id}/status`);
  const missing = await c.get('/api/eligibility/01900000-0000-7000-8000-000000000000/status');
  assert.equal(theirs.status, 404);
  assert.deepEqual(theirs.body, missing.body);
  assert.equal((await client(svc.url, svc.apiKey).get(`/api/eligibility/${rows[0]!.id}/status`)).status, 200);
});
