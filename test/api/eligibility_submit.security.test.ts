/**
 * Submitting beyond the generated security cases (security.generated.test.ts: no key, wrong scheme, bad,
 * tampered and revoked keys, authentication before validation, the write scope): disabling an organization
 * reaches a key already cached, keys are stored only as hashes, and no error carries a stack trace.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization, setEligibilityEnabled } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
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

test('an organization not enabled for eligibility gets 403 with the spec message', async () => {
  const org = await createOrganization(svc.service.store.db, 'Disabled Clinic');
  const k = await key(['eligibility:read', 'eligibility:write'], org.id);
  const c = client(svc.url, k);
  // Used (and cached) while enabled; disabling must reach the cache without a manual invalidation.
  assert.equal((await c.post('/api/eligibility', sandboxRequest(JANE))).status, 202);
  const changed = await nextAccessChange();
  await setEligibilityEnabled(svc.service.store.db, org.id, false);
  await changed();
  const res = await c.post('/api/eligibility', sandboxRequest(JANE));
  assert.equal(res.status, 403);
  assert.match(res.body.message, /not configured for eligibility/);
});

/**
 * Resolves once the next access-change notification has reached this process. The API's own listener,
 * registered at start, clears the key cache synchronously; one registered now runs after it for the same
 * notification. The notification must come from the change itself: nothing here sends one.
 */
async function nextAccessChange(): Promise<() => Promise<void>> {
  let heard!: () => void;
  const arrived = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const unlisten = await svc.service.store.db.listen('elig_keys', () => heard());
  return async () => {
    await arrived;
    await unlisten();
  };
}

test('keys are stored only as hashes', async () => {
  const { rows } = await svc.service.store.db.query<{ hash: string; prefix: string }>(
    'SELECT hash, prefix FROM api_keys',
  );
  for (const r of rows) {
    assert.match(r.hash, /^[0-9a-f]{64}$/);
    assert.notEqual(r.hash, svc.apiKey);
  }
  const dump = JSON.stringify((await svc.service.store.db.query('SELECT * FROM api_keys')).rows);
  assert.ok(!dump.includes(svc.apiKey));
});

test('error responses never carry a stack trace', async () => {
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility', '{bad json');
  assert.ok(!JSON.stringify(res.body).includes('at '));
});
