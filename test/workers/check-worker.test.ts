/**
 * Crash safety, tested rather than argued: abandoned leases are taken over, a worker that lost its lease
 * cannot record a result, racing workers complete each check exactly once, and shutdown releases work.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { finishCheck } from '../../src/checks/finish.ts';
import { createLogger } from '../../src/log.ts';
import { type PayerConnector, type PayerEntry, TransientPayerError } from '../../src/payers/connector.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { claimDue, QUEUES } from '../../src/store/queue/claim.ts';
import { CheckWorker, CLAIMED_CHECK } from '../../src/workers/check-worker.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import {
  client,
  LogCapture,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

const JANE = member('SBX1000001');
const sandbox = createSandboxConnector({ latencyMs: 0 });

/** Wraps the sandbox: fails the first `failures` calls transiently, or hangs until aborted when `hang` is set. */
class ControlledConnector implements PayerConnector {
  readonly name = 'controlled';
  calls = 0;
  failures = 0;
  hang = false;
  async send(x12: string, options: { signal: AbortSignal }): Promise<string> {
    this.calls++;
    if (this.hang) {
      await new Promise((_, reject) =>
        options.signal.addEventListener('abort', () => reject(new TransientPayerError('aborted')), {
          once: true,
        }),
      );
    }
    if (this.failures > 0) {
      this.failures--;
      throw new TransientPayerError('simulated outage');
    }
    return sandbox.send(x12, options);
  }
}

const controlled = new ControlledConnector();
const payers: PayerEntry[] = [
  {
    tradingPartnerServiceId: 'SANDBOX',
    payerName: 'Sandbox Health Plan',
    payerId: 'SANDBOX',
    connector: sandbox,
  },
  {
    tradingPartnerServiceId: 'CONTROLLED',
    payerName: 'Controlled Payer',
    payerId: 'CONTROLLED',
    connector: controlled,
  },
];

let svc: TestService;
before(async () => {
  // API only: each test runs the workers it needs.
  svc = await startTestService({ roles: { api: true, worker: false }, payers });
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
    maxAttempts: 4,
    retryBaseMs: 10,
    senderId: 'TEST',
    ...overrides,
  });
}

async function submit(tp = 'SANDBOX') {
  const res = await client(svc.url, svc.apiKey).post('/api/eligibility', {
    ...sandboxRequest(JANE),
    tradingPartnerServiceId: tp,
  });
  assert.equal(res.status, 202);
  return res.body.id as string;
}

/** Claims due checks the way a worker does, as `workerId`, without running them. */
const claimAs = (workerId: string) =>
  claimDue(svc.service.store.db, QUEUES.checks, CLAIMED_CHECK, { workerId, limit: 10, leaseMs: 60_000 });

test('an abandoned lease (crashed worker) is taken over and the check finishes once', async () => {
  const id = await submit();
  const claimed = await claimAs('crashed-worker');
  assert.deepEqual(
    claimed.map((c) => c.id),
    [id],
  );
  // The crashed worker never comes back; its lease runs out.
  await svc.service.store.db.query(
    "UPDATE checks SET locked_until = now() - interval '1 second' WHERE id = $1",
    [id],
  );
  const w = worker('rescuer');
  await w.start();
  try {
    const result = await waitForResult(client(svc.url, svc.apiKey), id);
    assert.equal(result.status, 'COMPLETED');
  } finally {
    await w.stop();
  }
  const late = await finishCheck(svc.service.store.db, {
    id,
    organizationId: svc.organizationId,
    workerId: 'crashed-worker',
    status: 'FAILED',
    body: '{}',
    outcomeCode: 'X',
  });
  assert.equal(late, false, 'a worker without the lease cannot overwrite the result');
  const { rows } = await svc.service.store.db.query<{ status: string; attempts: number }>(
    'SELECT status, attempts FROM checks WHERE id = $1',
    [id],
  );
  assert.deepEqual(rows[0], { status: 'COMPLETED', attempts: 2 });
});

test('a live lease is not stolen', async () => {
  const id = await submit();
  await claimAs('holder');
  const other = await claimAs('thief');
  assert.ok(!other.some((c) => c.id === id));
  await svc.service.store.db.query('UPDATE checks SET locked_until = NULL, locked_by = NULL WHERE id = $1', [
    id,
  ]);
  const w = worker('cleaner');
  await w.start();
  await waitForResult(client(svc.url, svc.apiKey), id);
  await w.stop();
});

test('transient payer failures are retried with backoff, then succeed', async () => {
  controlled.failures = 2;
  controlled.calls = 0;
  const id = await submit('CONTROLLED');
  const w = worker('retrier');
  await w.start();
  try {
    const result = await waitForResult(client(svc.url, svc.apiKey), id);
    assert.equal(result.status, 'COMPLETED');
  } finally {
    await w.stop();
  }
  assert.equal(controlled.calls, 3);
  const { rows } = await svc.service.store.db.query<{ attempts: number }>(
    'SELECT attempts FROM checks WHERE id = $1',
    [id],
  );
  assert.equal(rows[0]!.attempts, 3);
});

test('when the retry budget is spent the check FAILS with SH02', async () => {
  controlled.failures = 100;
  const id = await submit('CONTROLLED');
  const w = worker('budget', { maxAttempts: 3 });
  await w.start();
  try {
    const result = await waitForResult(client(svc.url, svc.apiKey), id);
    assert.equal(result.status, 'FAILED');
    assert.equal(result.errors[0].code, 'SH02');
    assert.match(result.errors[0].possibleResolutions, /3 attempts/);
  } finally {
    await w.stop();
    controlled.failures = 0;
  }
});

test('graceful shutdown releases a check whose payer call is still running', async () => {
  controlled.hang = true;
  const id = await submit('CONTROLLED');
  const w = worker('leaver');
  await w.start();
  await eventually(() => w.activeCount > 0, { timeoutMs: 5000, intervalMs: 10, what: 'the payer call' });
  assert.equal(w.activeCount, 1);
  await w.stop(50);
  controlled.hang = false;
  const { rows } = await svc.service.store.db.query<{
    status: string;
    locked_by: string | null;
    attempts: number;
  }>('SELECT status, locked_by, attempts FROM checks WHERE id = $1', [id]);
  assert.deepEqual(rows[0], { status: 'IN_PROGRESS', locked_by: null, attempts: 0 });
  const next = worker('finisher');
  await next.start();
  assert.equal((await waitForResult(client(svc.url, svc.apiKey), id)).status, 'COMPLETED');
  await next.stop();
});

test('two workers racing for the same checks complete each exactly once', async () => {
  const ids = await Promise.all(Array.from({ length: 120 }, () => submit()));
  const logsA = new LogCapture();
  const logsB = new LogCapture();
  const a = worker('racer-a', { log: createLogger('info', logsA), concurrency: 16 });
  const b = worker('racer-b', { log: createLogger('info', logsB), concurrency: 16 });
  await Promise.all([a.start(), b.start()]);
  try {
    const c = client(svc.url, svc.apiKey);
    for (const id of ids) assert.equal((await waitForResult(c, id)).status, 'COMPLETED');
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  const finished = [...logsA.lines, ...logsB.lines]
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg === 'check finished');
  const perId = new Map<string, number>();
  for (const l of finished) perId.set(l.checkId, (perId.get(l.checkId) ?? 0) + 1);
  for (const id of ids) assert.equal(perId.get(id), 1, `check ${id} finished ${perId.get(id) ?? 0} times`);
  const { rows } = await svc.service.store.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM checks WHERE id = ANY($1) AND attempts <> 1',
    [ids],
  );
  assert.equal(rows[0]!.n, 0, 'no check was processed twice');
});
