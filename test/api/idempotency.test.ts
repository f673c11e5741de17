import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
before(async () => {
  svc = await startTestService({
    roles: { api: true, worker: false },
    config: { rateLimitSubmit: 50, rateLimitStatus: 1000 },
  });
});
after(() => svc.stop());

test('same Idempotency-Key and body: the same check, same status code; another body: 422', async () => {
  const c = client(svc.url, svc.apiKey);
  const key = `idem-${Date.now()}`;
  const first = await c.post('/api/eligibility', sandboxRequest(JANE), { 'idempotency-key': key });
  // Same content, different key order and spacing.
  const reordered = JSON.stringify(
    { subscriber: JANE, provider: sandboxRequest(JANE).provider, tradingPartnerServiceId: 'SANDBOX' },
    null,
    2,
  );
  const again = await c.post('/api/eligibility', reordered, { 'idempotency-key': key });
  assert.equal(first.status, 202);
  assert.equal(again.status, 202);
  assert.equal(again.body.id, first.body.id);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  const conflict = await c.post('/api/eligibility', sandboxRequest({ ...JANE, memberId: 'SBX1000002' }), {
    'idempotency-key': key,
  });
  assert.equal(conflict.status, 422);
  assert.equal(conflict.body.code, 'ValidationException');
  assert.match(conflict.body.message, /Idempotency-Key/);
  const { rows } = await svc.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM checks WHERE idempotency_key = $1',
    [key],
  );
  assert.equal(rows[0]!.n, 1);
});

test('concurrent submits with one Idempotency-Key create one check', async () => {
  const c = client(svc.url, svc.apiKey);
  const key = `race-${Date.now()}`;
  const results = await Promise.all(
    Array.from({ length: 5 }, () =>
      c.post('/api/eligibility', sandboxRequest(JANE), { 'idempotency-key': key }),
    ),
  );
  const accepted = results.filter((r) => r.status === 202);
  assert.ok(accepted.length >= 1);
  assert.equal(new Set(accepted.map((r) => r.body.id)).size, 1);
});

test('an invalid Idempotency-Key is a 400', async () => {
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility', sandboxRequest(JANE), {
    'idempotency-key': 'x'.repeat(300),
  });
  assert.equal(res.status, 400);
});
