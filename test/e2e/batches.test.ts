/**
 * Batches end to end on the sandbox (issue 17 section 1): a 1,000-check batch with mixed members and some
 * bad rows completes with the right counts, one webhook per check and exactly one `batch.completed`;
 * item validation says what a single submit says; idempotency; atomic; 404 across organizations.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { setWebhookUrl } from '../../src/webhooks/settings.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { Receiver } from '../helpers/receiver.ts';
import { client, sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

const PEOPLE = ['SBX1000001', 'SBX1000002', 'SBX1000003', 'SBX1000004', 'SBX1000067'].map(member);
const UNKNOWN = { ...member('SBX1000001'), memberId: 'SBX1999999' };
let svc: TestService;
let receiver: Receiver;

before(async () => {
  svc = await startTestService({ webhookScheduleScale: 0.0005, config: { workerConcurrency: 16 } });
  receiver = await new Receiver().start();
  const set = await setWebhookUrl(svc.service.store.db, svc.organizationId, receiver.url, {
    allowPrivate: true,
  });
  assert.ok(set.ok);
});
after(async () => {
  await svc.stop();
  await receiver.stop();
});

/** Item i of the big batch: a bad row every 100 (i % 100 === 7), else one of the people or an unknown member. */
function item(i: number): unknown {
  if (i % 100 === 7)
    return { ...sandboxRequest(PEOPLE[0]!), provider: { organizationName: 'X', npi: '1234567890' } };
  if (i % 50 === 3) return sandboxRequest(UNKNOWN);
  return sandboxRequest(PEOPLE[i % PEOPLE.length]!);
}

test('a 1,000-check batch: right counts, one webhook per check, one batch.completed', async () => {
  const c = client(svc.url, svc.apiKey);
  const checks = Array.from({ length: 1000 }, (_, i) => item(i));
  const res = await c.post('/api/eligibility/batch', { name: 'Tomorrow', checks });
  assert.equal(res.status, 202, JSON.stringify(res.body).slice(0, 300));
  const accepted = res.body;
  assert.equal(accepted.status, 'IN_PROGRESS');
  assert.equal(accepted.items.length, 1000, 'one entry per item, in request order');
  assert.deepEqual(
    accepted.problems.map((p: { index: number }) => p.index),
    Array.from({ length: 10 }, (_, k) => k * 100 + 7),
  );
  const single = await c.post('/api/eligibility', checks[7]);
  assert.equal(single.status, 400);
  assert.equal(accepted.problems[0].message, single.body.message, 'the same message as a single submit');
  assert.deepEqual(accepted.counts, { total: 990, rejected: 10, IN_PROGRESS: 990, COMPLETED: 0, FAILED: 0 });
  const ids: string[] = accepted.items.filter((x: { id?: string }) => x.id).map((x: { id: string }) => x.id);
  assert.equal(new Set(ids).size, 990);

  const started = Date.now();
  const done = await eventually(
    async () => {
      const b = await c.get(`/api/eligibility/batch/${accepted.id}?limit=1000`);
      assert.equal(b.status, 200);
      if (b.body.status !== 'COMPLETED') throw new Error(`progress ${b.body.progress}`);
      return b.body;
    },
    { timeoutMs: 180_000, intervalMs: 250, what: 'the batch completing' },
  );
  console.log(`# 990 batch checks finished in ${Date.now() - started} ms`);
  assert.equal(done.progress, 1);
  assert.equal(done.counts.IN_PROGRESS, 0);
  assert.equal(done.counts.COMPLETED + done.counts.FAILED, 990);
  // The counts kept by the finishing transactions agree with the checks themselves.
  const tally: Record<string, number> = {};
  for (const it of done.items) tally[it.verdict] = (tally[it.verdict] ?? 0) + 1;
  assert.deepEqual(done.verdicts, {
    ACTIVE: tally.ACTIVE ?? 0,
    INACTIVE: tally.INACTIVE ?? 0,
    UNDETERMINED: tally.UNDETERMINED ?? 0,
    FAILED: tally.FAILED ?? 0,
  });
  assert.ok(done.verdicts.ACTIVE > 0 && done.verdicts.INACTIVE > 0 && done.verdicts.FAILED > 0, 'mixed');
  assert.equal(done.counts.FAILED, done.verdicts.FAILED);
  assert.deepEqual(
    done.items.map((it: { id: string }) => it.id),
    ids,
    'items in request order',
  );
  const one = await c.get(`/api/eligibility/${ids[0]}/status`);
  assert.equal(one.status, 200, 'each check is readable alone');

  const deliveries = await receiver.waitFor(991, 120_000);
  console.log(`# and delivered in ${Date.now() - started} ms`);
  const byType = (t: string) => deliveries.filter((d) => d.headers['x-webhook-event'] === t);
  await eventually(() => byType('batch.completed').length === 1, { what: 'batch.completed' });
  const checkIds = new Set(byType('eligibility.completed').map((d) => JSON.parse(d.body).id));
  for (const id of ids) assert.ok(checkIds.has(id), `a webhook for ${id}`);
  const completed = JSON.parse(byType('batch.completed')[0]!.body);
  assert.equal(completed.type, 'batch.completed');
  assert.equal(completed.batch.id, accepted.id);
  assert.deepEqual(completed.batch.counts, done.counts);
  assert.deepEqual(completed.batch.verdicts, done.verdicts);
  const { rows } = await svc.service.store.db.query<{ kind: string; n: number }>(
    `SELECT kind, count(*)::int AS n FROM webhook_events
      WHERE batch_id = $1 OR check_id IN (SELECT id FROM checks WHERE batch_id = $1) GROUP BY kind ORDER BY kind`,
    [accepted.id],
  );
  assert.deepEqual(rows, [
    { kind: 'batch.completed', n: 1 },
    { kind: 'eligibility.completed', n: 990 },
  ]);

  const failedOnly = await c.get(`/api/eligibility/batch/${accepted.id}?status=FAILED&limit=5`);
  assert.equal(failedOnly.body.items.length, 5);
  assert.ok(failedOnly.body.items.every((it: { status: string }) => it.status === 'FAILED'));
  const next = await c.get(
    `/api/eligibility/batch/${accepted.id}?status=FAILED&limit=5&after=${failedOnly.body.next}`,
  );
  assert.ok(next.body.items[0].index > failedOnly.body.items[4].index, 'the cursor pages on');
});

test('Idempotency-Key: the same body replays the same batch; another body is 422', async () => {
  const c = client(svc.url, svc.apiKey);
  const body = { checks: [sandboxRequest(PEOPLE[0]!), sandboxRequest(PEOPLE[1]!)] };
  const first = await c.post('/api/eligibility/batch', body, { 'idempotency-key': 'batch-k1' });
  const again = await c.post('/api/eligibility/batch', body, { 'idempotency-key': 'batch-k1' });
  assert.equal(first.status, 202);
  assert.equal(again.status, 202);
  assert.equal(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body.id, first.body.id);
  assert.deepEqual(again.body.items, first.body.items);
  const other = await c.post(
    '/api/eligibility/batch',
    { checks: [sandboxRequest(PEOPLE[2]!)] },
    { 'idempotency-key': 'batch-k1' },
  );
  assert.equal(other.status, 422);
  const { rows } = await svc.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM checks WHERE batch_id = $1',
    [first.body.id],
  );
  assert.equal(rows[0]?.n, 2, 'no second set of checks');
});

test('atomic: one bad item refuses the whole batch and creates nothing', async () => {
  const c = client(svc.url, svc.apiKey);
  const before = await svc.service.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM checks');
  const res = await c.post('/api/eligibility/batch', {
    atomic: true,
    checks: [sandboxRequest(PEOPLE[0]!), { tradingPartnerServiceId: 'SANDBOX' }],
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.code, 'ValidationException');
  assert.match(res.body.message, /checks\[1\]/);
  const now = await svc.service.store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM checks');
  assert.equal(now.rows[0]?.n, before.rows[0]?.n);
});

test('a batch of another organization is a 404, like a missing one', async () => {
  const c = client(svc.url, svc.apiKey);
  const mine = await c.post('/api/eligibility/batch', { checks: [sandboxRequest(PEOPLE[0]!)] });
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  const { key } = await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
    organizationId: other.id,
    name: 'other',
    scopes: ['eligibility:read', 'eligibility:write'],
    mode: 'test',
  });
  const theirs = await client(svc.url, key).get(`/api/eligibility/batch/${mine.body.id}`);
  const missing = await client(svc.url, key).get(
    '/api/eligibility/batch/01900000-0000-7000-8000-000000000000',
  );
  assert.equal(theirs.status, 404);
  assert.deepEqual(theirs.body, missing.body);
  const noKey = await client(svc.url).get(`/api/eligibility/batch/${mine.body.id}`);
  assert.equal(noKey.status, 401);
});
