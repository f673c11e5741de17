/**
 * Idempotency-Key on POST /api/eligibility/monitors, the rule of a submit and a batch: the same key and body
 * within 24 hours answer the same monitor (201, `Idempotent-Replayed: true`), another body 422, a malformed
 * key 400; racing creates make one monitor; an expired key makes a new one; keys are per organization.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { monitorBody } from '../helpers/monitors.ts';
import { client, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { rateLimitSubmit: 50, rateLimitStatus: 1000 },
  });
});
after(() => svc.stop());

const post = (body: unknown, key: string, apiKey = svc.apiKey) =>
  client(svc.url, apiKey).post('/api/eligibility/monitors', body, { 'idempotency-key': key });

async function monitorsWithKey(key: string): Promise<number> {
  const { rows } = await svc.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM monitors WHERE idempotency_key = $1',
    [key],
  );
  return rows[0]!.n;
}

test('same key and body: the same monitor again with Idempotent-Replayed; another body: 422', async () => {
  const key = 'mon-idem-1';
  const body = monitorBody({ every: 30 });
  const first = await post(body, key);
  assert.equal(first.status, 201, JSON.stringify(first.body));
  assert.equal(first.headers.get('idempotent-replayed'), null);
  // Same content in another key order and spacing.
  const { subscriber, provider, tradingPartnerServiceId } = body;
  const reordered = { every: 30, subscriber, provider, tradingPartnerServiceId };
  const again = await post(JSON.stringify(reordered, null, 2), key);
  assert.equal(again.status, 201);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body.id, first.body.id);
  assert.deepEqual(again.body, first.body);

  // The replay shows the monitor as it is now.
  await svc.service.store.db.query("UPDATE monitors SET status = 'paused' WHERE id = $1", [first.body.id]);
  const later = await post(body, key);
  assert.equal(later.body.id, first.body.id);
  assert.equal(later.body.status, 'paused');

  const conflict = await post(monitorBody({ every: 7 }), key);
  assert.equal(conflict.status, 422);
  assert.deepEqual(Object.keys(conflict.body).sort(), ['code', 'message']);
  assert.equal(conflict.body.code, 'ValidationException');
  assert.match(conflict.body.message, /Idempotency-Key was already used with a different request body/);
  assert.equal(await monitorsWithKey(key), 1);

  // Without a key, the same body makes a second monitor.
  const unkeyed = await client(svc.url, svc.apiKey).post('/api/eligibility/monitors', body);
  assert.equal(unkeyed.status, 201);
  assert.notEqual(unkeyed.body.id, first.body.id);
});

test('a malformed Idempotency-Key is 400 and creates nothing', async () => {
  const before = await svc.service.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitors');
  for (const key of ['x'.repeat(256), 'has space']) {
    const res = await post(monitorBody({ every: 30 }), key);
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'ValidationException');
    assert.match(res.body.message, /Idempotency-Key must be 1-255 printable ASCII characters/);
  }
  const after = await svc.service.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitors');
  assert.equal(after.rows[0]!.n, before.rows[0]!.n);
});

test('racing creates with one key make one monitor', async () => {
  const key = 'mon-idem-race';
  const results = await Promise.all(Array.from({ length: 5 }, () => post(monitorBody({ every: 14 }), key)));
  for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
  assert.equal(results.filter((r) => r.headers.get('idempotent-replayed') === null).length, 1);
  assert.equal(await monitorsWithKey(key), 1);
});

test('a key older than 24 hours is free again: a new monitor, even with another body', async () => {
  const key = 'mon-idem-expired';
  const first = await post(monitorBody({ every: 30 }), key);
  await svc.service.store.db.query(
    "UPDATE monitors SET created_at = now() - interval '25 hours' WHERE id = $1",
    [first.body.id],
  );
  const second = await post(monitorBody({ every: 7 }), key);
  assert.equal(second.status, 201);
  assert.notEqual(second.body.id, first.body.id);
  assert.equal(second.headers.get('idempotent-replayed'), null);
  assert.equal(await monitorsWithKey(key), 1, 'the expired monitor gave its key up');
});

test("keys are per organization: another organization's key never replays or conflicts", async () => {
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  const otherKey = (
    await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
      organizationId: other.id,
      name: 't',
      scopes: ['eligibility:read', 'eligibility:write'],
      mode: 'test',
    })
  ).key;
  const key = 'mon-idem-shared';
  const mine = await post(monitorBody({ every: 30 }), key);
  const theirs = await post(monitorBody({ every: 7 }), key, otherKey);
  assert.equal(theirs.status, 201);
  assert.equal(theirs.headers.get('idempotent-replayed'), null);
  assert.notEqual(theirs.body.id, mine.body.id);
  assert.equal(theirs.body.every, 7);
});
