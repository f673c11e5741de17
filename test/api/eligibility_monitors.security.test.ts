/**
 * The monitor endpoints: no key or a bad key is 401, a key without the scope 403, another organization's
 * monitor 404 (exactly like a missing one) on read, pause and delete, and never in its list.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { runDueMonitors } from '../../src/monitors/runs.ts';
import { updateEligibilityEnabled } from '../../src/store/organizations.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { monitorBody, send } from '../helpers/monitors.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let monitorId: string;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  monitorId = (
    await client(svc.url, svc.apiKey).post('/api/eligibility/monitors', monitorBody({ every: 30 }))
  ).body.id;
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

const one = () => `${svc.url}/api/eligibility/monitors/${monitorId}`;

test('no key or an unknown key answers 401 on every endpoint, before the body or query is looked at', async () => {
  for (const k of [undefined, 'elig_test_nope']) {
    const c = client(svc.url, k);
    const create = await c.post('/api/eligibility/monitors', { not: 'valid' });
    assert.equal(create.status, 401);
    assert.equal(create.body.code, 'UnauthorizedException');
    assert.equal((await c.get('/api/eligibility/monitors?limit=0')).status, 401);
    assert.equal((await c.get(`/api/eligibility/monitors/${monitorId}`)).status, 401);
    assert.equal((await send(one(), k, 'PATCH', { status: 'bogus' })).status, 401);
    assert.equal((await send(one(), k, 'DELETE')).status, 401);
  }
  const { rows } = await svc.service.store.db.query<{ status: string }>(
    'SELECT status FROM monitors WHERE id = $1',
    [monitorId],
  );
  assert.equal(rows[0]?.status, 'active', 'nothing changed');
});

test('a read-only key cannot create, pause or delete; a write-only key cannot read', async () => {
  const readOnly = await key(['eligibility:read']);
  assert.equal(
    (await client(svc.url, readOnly).post('/api/eligibility/monitors', monitorBody({ every: 3 }))).status,
    403,
  );
  assert.equal((await send(one(), readOnly, 'PATCH', { status: 'paused' })).status, 403);
  assert.equal((await send(one(), readOnly, 'DELETE')).status, 403);
  assert.equal((await client(svc.url, readOnly).get(`/api/eligibility/monitors/${monitorId}`)).status, 200);
  const writeOnly = await key(['eligibility:write']);
  const denied = await client(svc.url, writeOnly).get('/api/eligibility/monitors');
  assert.equal(denied.status, 403);
  assert.equal(denied.body.code, 'AccessDeniedException');
  assert.equal((await client(svc.url, writeOnly).get(`/api/eligibility/monitors/${monitorId}`)).status, 403);
});

test("another organization's key: the monitor is a 404 like a missing one, absent from its list, untouched", async () => {
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  const theirKey = await key(['eligibility:read', 'eligibility:write'], other.id);
  const c = client(svc.url, theirKey);
  const theirs = await c.get(`/api/eligibility/monitors/${monitorId}`);
  const missing = await c.get('/api/eligibility/monitors/mon_0190f0c4-1e6a-7cde-8a4b-2d3c4e5f6a7b');
  assert.equal(theirs.status, 404);
  assert.deepEqual(theirs.body, missing.body);
  assert.equal((await send(one(), theirKey, 'PATCH', { status: 'paused' })).status, 404);
  assert.equal((await send(one(), theirKey, 'DELETE')).status, 404);
  assert.deepEqual((await c.get('/api/eligibility/monitors')).body, { monitors: [], next: null });
  const mine = await client(svc.url, svc.apiKey).get(`/api/eligibility/monitors/${monitorId}`);
  assert.equal(mine.body.status, 'active', 'still active after their attempts');
});

test('an organization with eligibility turned off: its due monitors do not run until it is on again', async () => {
  const db = svc.service.store.db;
  await db.query('UPDATE monitors SET next_run_at = now() WHERE id = $1', [monitorId]);
  await updateEligibilityEnabled(db, svc.organizationId, false);
  try {
    assert.equal((await runDueMonitors(db)).runs, 0);
  } finally {
    await updateEligibilityEnabled(db, svc.organizationId, true);
  }
  assert.equal((await runDueMonitors(db)).runs, 1, 'turned on again, the missed run happens once');
  assert.equal((await runDueMonitors(db)).runs, 0);
});
