/**
 * Batch checks in the worker (issue 17 section 1): interactive checks are claimed first and both classes
 * round-robin across organizations (issue 26 for interactive checks); a batch check retries within the batch retry window where a
 * real-time check fails; several workers finishing a batch's last items write one `batch.completed`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { type PayerConnector, type PayerEntry, TransientPayerError } from '../../src/payers/connector.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { claimDueChecks } from '../../src/store/queue/claim.ts';
import { createApiKey } from '../../src/tenancy/api-keys.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { setWebhookUrl } from '../../src/webhooks/settings.ts';
import { backgroundSlots, CheckWorker, CLAIMED_CHECK } from '../../src/workers/check-worker.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

const JANE = member('SBX1000001');
const sandbox = createSandboxConnector({ latencyMs: 0 });

/** Fails every call transiently while `down`. */
class SwitchableConnector implements PayerConnector {
  readonly name = 'switchable';
  down = true;
  calls = 0;
  async send(x12: string, options: { signal: AbortSignal }): Promise<string> {
    this.calls++;
    if (this.down) throw new TransientPayerError('simulated outage');
    return sandbox.send(x12, options);
  }
}
const switchable = new SwitchableConnector();
const payers: PayerEntry[] = [
  {
    tradingPartnerServiceId: 'SANDBOX',
    payerName: 'Sandbox Health Plan',
    payerId: 'SANDBOX',
    connector: sandbox,
  },
  { tradingPartnerServiceId: 'DOWN', payerName: 'Down Payer', payerId: 'DOWN', connector: switchable },
];

let svc: TestService;
let otherKey: string;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false }, payers });
  const other = await createOrganization(svc.service.store.db, 'Other Clinic');
  otherKey = (
    await createApiKey(svc.service.store.db, svc.service.keys.apiKeyPepper, {
      organizationId: other.id,
      name: 'other',
      scopes: ['eligibility:read', 'eligibility:write'],
      mode: 'test',
    })
  ).key;
});
after(() => svc.stop());

function worker(id: string, overrides: Partial<ConstructorParameters<typeof CheckWorker>[0]> = {}) {
  return new CheckWorker({
    db: svc.service.store.db,
    log: createLogger('silent'),
    workerId: id,
    resolvePayer: (tp) => payers.find((p) => p.tradingPartnerServiceId === tp),
    concurrency: 8,
    pollMs: 50,
    leaseMs: 5000,
    payerTimeoutMs: 2000,
    maxAttempts: 2,
    retryBaseMs: 10,
    senderId: 'TEST',
    ...overrides,
  });
}

async function batch(key: string, n: number, tp = 'SANDBOX'): Promise<{ id: string; ids: string[] }> {
  const checks = Array.from({ length: n }, () => ({ ...sandboxRequest(JANE), tradingPartnerServiceId: tp }));
  const res = await client(svc.url, key).post('/api/eligibility/batch', { checks });
  assert.equal(res.status, 202);
  return { id: res.body.id, ids: res.body.items.map((i: { id: string }) => i.id) };
}

async function single(key: string, tp = 'SANDBOX'): Promise<string> {
  const res = await client(svc.url, key).post('/api/eligibility', {
    ...sandboxRequest(JANE),
    tradingPartnerServiceId: tp,
  });
  assert.equal(res.status, 202);
  return res.body.id;
}

/** Every check still in progress is taken out of the queue (the next test starts from an empty one). */
async function drain(): Promise<void> {
  await svc.service.store.db.query(
    `UPDATE checks SET status = 'FAILED', result = '{}' WHERE status = 'IN_PROGRESS'`,
  );
}

test('interactive checks first, then background checks shared round-robin across organizations', async () => {
  const big = await batch(svc.apiKey, 30);
  const small = await batch(otherKey, 5);
  const mine = await single(svc.apiKey);
  const claimed = await claimDueChecks(svc.service.store.db, CLAIMED_CHECK, {
    workerId: 'w1',
    limit: 7,
    backgroundLimit: 6,
    leaseMs: 60_000,
  });
  assert.equal(claimed[0]!.id, mine, 'the single check first, though submitted last');
  const rest = claimed
    .slice(1)
    .map((c) => (big.ids.includes(c.id) ? 'big' : small.ids.includes(c.id) ? 'small' : '?'));
  assert.deepEqual(rest.sort(), ['big', 'big', 'big', 'small', 'small', 'small'], 'an equal share each');
  const capped = await claimDueChecks(svc.service.store.db, CLAIMED_CHECK, {
    workerId: 'w2',
    limit: 10,
    backgroundLimit: 1,
    leaseMs: 60_000,
  });
  assert.equal(capped.length, 1, 'no more background checks than the worker has slots for');
  await drain();
});

test('interactive checks are shared round-robin across organizations too (issue 26)', async () => {
  const flood = [];
  for (let i = 0; i < 6; i++) flood.push(await single(svc.apiKey));
  const walkIn = await single(otherKey);
  const claimed = await claimDueChecks(svc.service.store.db, CLAIMED_CHECK, {
    workerId: 'w3',
    limit: 2,
    backgroundLimit: 2,
    leaseMs: 60_000,
  });
  const ids = claimed.map((c) => c.id);
  assert.equal(ids.length, 2);
  assert.ok(ids.includes(walkIn), 'the other organization gets its share though it submitted last');
  assert.ok(ids.includes(flood[0]!), "the flooding organization's oldest check is its share");
  // A one-row claim is drawn between the organizations with work: over a few claims both get one.
  await drain();
  const winners = new Set<string>();
  for (let round = 0; round < 20 && winners.size < 2; round++) {
    const a = await single(svc.apiKey);
    await single(svc.apiKey);
    const b = await single(otherKey);
    const [one] = await claimDueChecks(svc.service.store.db, CLAIMED_CHECK, {
      workerId: 'w4',
      limit: 1,
      backgroundLimit: 1,
      leaseMs: 60_000,
    });
    if (one?.id === a) winners.add('flood');
    if (one?.id === b) winners.add('walk-in');
    await drain();
  }
  assert.deepEqual([...winners].sort(), ['flood', 'walk-in']);
  await drain();
});

test('a worker keeps a quarter of its slots for interactive checks', () => {
  assert.equal(backgroundSlots(32), 24);
  assert.equal(backgroundSlots(8), 6);
  assert.equal(backgroundSlots(1), 1, 'a one-slot worker still runs batches');
});

test("another organization's single check completes promptly while a big batch runs", async () => {
  const slow = createSandboxConnector({ latencyMs: 40 });
  const slowPayers = payers.map((p) =>
    p.tradingPartnerServiceId === 'SANDBOX' ? { ...p, connector: slow } : p,
  );
  const w = worker('fair', {
    resolvePayer: (tp) => slowPayers.find((p) => p.tradingPartnerServiceId === tp),
  });
  const big = await batch(svc.apiKey, 2000);
  await w.start();
  try {
    const c = client(svc.url, svc.apiKey);
    await eventually(
      async () => (await c.get(`/api/eligibility/batch/${big.id}?limit=1`)).body.counts.COMPLETED > 20,
      {
        what: 'the batch running',
      },
    );
    const started = Date.now();
    const theirs = await single(otherKey);
    const result = await waitForResult(client(svc.url, otherKey), theirs, 5000);
    assert.equal(result.status, 'COMPLETED');
    const tookMs = Date.now() - started;
    const smallBatch = await batch(otherKey, 10);
    await eventually(
      async () =>
        (await client(svc.url, otherKey).get(`/api/eligibility/batch/${smallBatch.id}`)).body.status ===
        'COMPLETED',
      { timeoutMs: 15_000, what: "the other organization's small batch" },
    );
    const bigNow = (await c.get(`/api/eligibility/batch/${big.id}?limit=1`)).body;
    assert.equal(bigNow.status, 'IN_PROGRESS', 'both finished while the big batch was still running');
    assert.ok(tookMs < 5000, `single check took ${tookMs} ms`);
  } finally {
    await w.stop();
    await drain();
  }
});

test('a batch check whose payer is down retries within the window, then fails SH02; a real-time one fails at once', async () => {
  switchable.down = true;
  const c = client(svc.url, svc.apiKey);
  const realTime = await single(svc.apiKey, 'DOWN');
  const { ids } = await batch(svc.apiKey, 1, 'DOWN');
  const w = worker('window', { batchRetryMs: 1500 });
  await w.start();
  try {
    const failed = await waitForResult(c, realTime, 5000);
    assert.equal(failed.errors[0].code, 'SH02', 'real-time: the attempt budget (2) is spent');
    const callsThen = switchable.calls;
    const batchFailed = await waitForResult(c, ids[0]!, 10_000);
    assert.equal(batchFailed.status, 'FAILED');
    assert.equal(batchFailed.errors[0].code, 'SH02');
    assert.match(JSON.stringify(batchFailed), /batch retry window/);
    assert.ok(switchable.calls > callsThen, 'the batch check kept trying after the real-time budget');
    const { rows } = await svc.service.store.db.query<{ waited: number }>(
      'SELECT extract(epoch FROM completed_at - created_at) * 1000 AS waited FROM checks WHERE id = $1',
      [ids[0]],
    );
    assert.ok(Number(rows[0]!.waited) >= 1500, 'failed no earlier than the window');
  } finally {
    await w.stop();
  }
});

test('a batch check whose payer comes back within the window completes', async () => {
  switchable.down = true;
  const { ids } = await batch(svc.apiKey, 1, 'DOWN');
  const w = worker('recover', { batchRetryMs: 60_000 });
  await w.start();
  try {
    const before = switchable.calls;
    await eventually(() => switchable.calls >= before + 3, { what: 'three failed tries' });
    switchable.down = false;
    const result = await waitForResult(client(svc.url, svc.apiKey), ids[0]!, 15_000);
    assert.equal(result.status, 'COMPLETED');
  } finally {
    await w.stop();
  }
});

test('several workers finishing the last items at once write exactly one batch.completed', async () => {
  const db = svc.service.store.db;
  assert.ok(
    (await setWebhookUrl(db, svc.organizationId, 'http://127.0.0.1:9/hook', { allowPrivate: true })).ok,
  );
  const { id } = await batch(svc.apiKey, 60);
  const workers = ['a', 'b', 'c', 'd'].map((n) => worker(`race-${n}`));
  await Promise.all(workers.map((w) => w.start()));
  try {
    await eventually(
      async () =>
        (await client(svc.url, svc.apiKey).get(`/api/eligibility/batch/${id}`)).body.status === 'COMPLETED',
      { timeoutMs: 20_000, what: 'the batch completing' },
    );
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
  const { rows } = await db.query<{ kind: string; n: number }>(
    `SELECT kind, count(*)::int AS n FROM webhook_events
      WHERE batch_id = $1 OR check_id IN (SELECT id FROM checks WHERE batch_id = $1) GROUP BY kind ORDER BY kind`,
    [id],
  );
  assert.deepEqual(rows, [
    { kind: 'batch.completed', n: 1 },
    { kind: 'eligibility.completed', n: 60 },
  ]);
  const b = await db.query<{ pending: number; completed: number }>(
    'SELECT pending, completed FROM batches WHERE id = $1',
    [id],
  );
  assert.deepEqual(b.rows[0], { pending: 0, completed: 60 });
});
