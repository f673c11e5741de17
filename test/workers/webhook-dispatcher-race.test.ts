/**
 * Two dispatchers racing over the same outbox never send the same attempt twice: with a receiver that
 * always answers 200, every event arrives exactly once. And a dispatcher that lost its lease cannot
 * record over the one that took over.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import { createLogger } from '../../src/log.ts';
import { createSchedule } from '../../src/webhooks/schedule.ts';
import { setWebhookUrl } from '../../src/webhooks/settings.ts';
import { WebhookDispatcher } from '../../src/workers/webhook-dispatcher.ts';
import { eventually } from '../helpers/eventually.ts';
import { Receiver } from '../helpers/receiver.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let receiver: Receiver;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
  receiver = await new Receiver().start();
  await setWebhookUrl(svc.service.store.db, svc.organizationId, receiver.url, { allowPrivate: true });
});
after(async () => {
  await svc.stop();
  await receiver.stop();
});

function dispatcher(id: string) {
  const schedule = createSchedule({ scale: 0.001 });
  return new WebhookDispatcher({
    db: svc.service.store.db,
    log: createLogger('silent'),
    box: svc.service.box,
    dispatcherId: id,
    allowPrivate: true,
    nextDelayMs: (n) => schedule.nextAttemptDelayMs(n),
    concurrency: 8,
    pollMs: 50,
    userAgent: 'test',
  });
}

async function insertEvents(n: number): Promise<string[]> {
  const ids = Array.from({ length: n }, () => uuidv7());
  for (const id of ids) {
    await svc.service.store.db.query(
      `INSERT INTO webhook_events (id, organization_id, check_id, kind, body, url) VALUES ($1, $2, NULL, 'test', $3, $4)`,
      [id, svc.organizationId, JSON.stringify({ id, status: 'COMPLETED' }), receiver.url],
    );
  }
  return ids;
}

test('two dispatchers racing: every event is sent exactly once', async () => {
  receiver.received.length = 0;
  const ids = await insertEvents(150);
  const a = dispatcher('dispatcher-a');
  const b = dispatcher('dispatcher-b');
  await Promise.all([a.start(), b.start()]);
  try {
    await receiver.waitFor(150, 30_000);
    // A settled event is never claimed again, and stopping waits for the sends in flight: after both,
    // nothing more can reach the receiver.
    await eventually(
      async () => {
        const { rows } = await svc.service.store.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1) AND state <> 'pending'",
          [ids],
        );
        return rows[0]!.n === ids.length;
      },
      { timeoutMs: 30_000, what: 'all 150 events settled' },
    );
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
  const seen = receiver.received.map((r) => String(r.headers['x-webhook-id']));
  assert.equal(seen.length, 150, 'no event was sent twice');
  assert.deepEqual(new Set(seen), new Set(ids));
  const { rows } = await svc.service.store.db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM webhook_events WHERE id = ANY($1) AND (state <> 'delivered' OR attempts <> 1)",
    [ids],
  );
  assert.equal(rows[0]!.n, 0);
});

test('an expired lease is taken over; the first holder cannot record afterwards', async () => {
  receiver.received.length = 0;
  const [id] = await insertEvents(1);
  const db = svc.service.store.db;
  // A dispatcher claimed it and crashed mid-send.
  await db.query(
    "UPDATE webhook_events SET locked_by = 'crashed', locked_until = now() - interval '1 second', attempts = 1 WHERE id = $1",
    [id],
  );
  const d = dispatcher('rescuer');
  await d.start();
  try {
    await receiver.waitFor(1, 10_000);
  } finally {
    await d.stop();
  }
  const { rows } = await db.query<{ state: string; attempts: number; locked_by: string | null }>(
    'SELECT state, attempts, locked_by FROM webhook_events WHERE id = $1',
    [id],
  );
  assert.deepEqual(rows[0], { state: 'delivered', attempts: 2, locked_by: null });
  assert.equal(receiver.received[0]!.headers['x-webhook-id'], id, 'the repeat carries the same event id');
});
