/**
 * A monitor run is background work: no one waits for it, so when its payer is down it keeps retrying past
 * the real-time attempt budget (within BATCH_RETRY_HOURS), like a batch check, and completes when the payer
 * comes back.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { createMonitor } from '../../src/monitors/monitors.ts';
import { runDueMonitors } from '../../src/monitors/runs.ts';
import { type PayerConnector, type PayerEntry, TransientPayerError } from '../../src/payers/connector.ts';
import { createSandboxConnector } from '../../src/payers/sandbox/index.ts';
import { CheckWorker } from '../../src/workers/check-worker.ts';
import { eventually } from '../helpers/eventually.ts';
import { monitorBody } from '../helpers/monitors.ts';
import { client, startTestService, type TestService, waitForResult } from '../helpers/service.ts';

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
  { tradingPartnerServiceId: 'DOWN', payerName: 'Down Payer', payerId: 'DOWN', connector: switchable },
];

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false }, payers });
});
after(() => svc.stop());

test('a run whose payer is down retries past the attempt budget and completes when the payer is back', async () => {
  const db = svc.service.store.db;
  const created = await createMonitor(
    db,
    svc.organizationId,
    { ...monitorBody({ every: 7 }), tradingPartnerServiceId: 'DOWN' },
    { maxPerOrganization: 10 },
  );
  assert.ok(created.ok);
  assert.equal((await runDueMonitors(db)).runs, 1);
  const { rows } = await db.query<{ id: string }>('SELECT id FROM checks WHERE monitor_id = $1', [
    created.monitor.id,
  ]);
  const worker = new CheckWorker({
    db,
    log: createLogger('silent'),
    workerId: 'monitor-runs',
    resolvePayer: (tp) => payers.find((p) => p.tradingPartnerServiceId === tp),
    concurrency: 4,
    pollMs: 50,
    leaseMs: 5000,
    payerTimeoutMs: 2000,
    maxAttempts: 2,
    retryBaseMs: 10,
    batchRetryMs: 60_000,
    senderId: 'TEST',
  });
  await worker.start();
  try {
    // Twice the real-time budget of 2 attempts, and the check is still waiting rather than FAILED.
    await eventually(() => switchable.calls >= 4, { what: 'four failed tries' });
    const { rows: now } = await db.query<{ status: string }>('SELECT status FROM checks WHERE id = $1', [
      rows[0]!.id,
    ]);
    assert.equal(now[0]!.status, 'IN_PROGRESS');
    switchable.down = false;
    const result = await waitForResult(client(svc.url, svc.apiKey), rows[0]!.id, 15_000);
    assert.equal(result.status, 'COMPLETED');
  } finally {
    await worker.stop();
  }
});
