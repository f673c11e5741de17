/** src/store/queue/finish-delivery.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { claimDue, QUEUES } from '../../../src/store/queue/claim.ts';
import { recordDeliveryAttempt } from '../../../src/store/queue/finish-delivery.ts';
import { insertTestEvent } from '../../../src/store/webhook-events.ts';
import { newOrganization, openTestStore, type TestStore } from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const attempt = (eventId: string, attemptNumber: number) => ({
  id: uuidv7(),
  eventId,
  attemptNumber,
  outcome: 'http_error',
  responseStatus: 502,
  latencyMs: 40,
  error: 'HTTP 502',
  responseSnippet: null,
});
const stored = async (id: string) =>
  (
    await store.db.query<{ state: string; locked_by: string | null; delivered: boolean; due_in_s: number }>(
      `SELECT state, locked_by, delivered_at IS NOT NULL AS delivered,
              extract(epoch FROM next_attempt_at - now())::float8 AS due_in_s
         FROM webhook_events WHERE id = $1`,
      [id],
    )
  ).rows[0]!;
const attempts = async (id: string) =>
  (
    await store.db.query<{ attempt_number: number; next_attempt_at: Date | null; started_before: boolean }>(
      `SELECT attempt_number, next_attempt_at, started_at <= now() - interval '30 milliseconds' AS started_before
         FROM webhook_attempts WHERE event_id = $1 ORDER BY attempt_number`,
      [id],
    )
  ).rows;

test('the lease holder records an attempt: the event due again later, and the log line with its next time', async () => {
  const { db } = store;
  const id = uuidv7();
  await insertTestEvent(db, {
    id,
    organizationId: await newOrganization(db),
    body: '{}',
    url: 'https://h.example.test',
  });
  const lease = { workerId: 'dispatcher-a', limit: 10, leaseMs: 60_000 };
  await claimDue(db, QUEUES.webhookEvents, ['id'], lease);
  assert.equal(
    await db.transaction((tx) =>
      recordDeliveryAttempt(
        tx,
        { eventId: id, dispatcherId: 'dispatcher-b' },
        'pending',
        60_000,
        attempt(id, 1),
      ),
    ),
    false,
    'another dispatcher records nothing',
  );
  assert.deepEqual(await attempts(id), []);
  assert.equal(
    await db.transaction((tx) =>
      recordDeliveryAttempt(
        tx,
        { eventId: id, dispatcherId: 'dispatcher-a' },
        'pending',
        60_000,
        attempt(id, 1),
      ),
    ),
    true,
  );
  const state = await stored(id);
  assert.equal(state.state, 'pending');
  assert.equal(state.locked_by, null);
  assert.ok(state.due_in_s > 50 && state.due_in_s <= 60);
  const [line] = await attempts(id);
  assert.equal(line?.attempt_number, 1);
  assert.ok(line?.next_attempt_at instanceof Date);
  assert.equal(line?.started_before, true, 'started its latency before it was recorded');
  // Recorded once: the lease is gone.
  assert.equal(
    await recordDeliveryAttempt(
      db,
      { eventId: id, dispatcherId: 'dispatcher-a' },
      'pending',
      0,
      attempt(id, 2),
    ),
    false,
  );
});

test('a delivered attempt stamps the delivery; its log line has no next time', async () => {
  const { db } = store;
  const id = uuidv7();
  await insertTestEvent(db, {
    id,
    organizationId: await newOrganization(db),
    body: '{}',
    url: 'https://h.example.test',
  });
  await claimDue(db, QUEUES.webhookEvents, ['id'], { workerId: 'dispatcher-a', limit: 10, leaseMs: 60_000 });
  const ok = { ...attempt(id, 1), outcome: 'delivered', responseStatus: 200, error: null };
  assert.equal(
    await recordDeliveryAttempt(db, { eventId: id, dispatcherId: 'dispatcher-a' }, 'delivered', null, ok),
    true,
  );
  const state = await stored(id);
  assert.deepEqual([state.state, state.delivered], ['delivered', true]);
  assert.equal((await attempts(id))[0]?.next_attempt_at, null);
});
