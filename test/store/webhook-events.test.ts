/** src/store/webhook-events.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import { updateWebhookUrl } from '../../src/store/organizations.ts';
import { claimDue, QUEUES } from '../../src/store/queue/claim.ts';
import { recordDeliveryAttempt } from '../../src/store/queue/finish-delivery.ts';
import { insertOutboxEvent } from '../../src/store/queue/outbox-event.ts';
import {
  eventBelongsTo,
  findEvent,
  insertTestEvent,
  makeEventDueNow,
  purgeEventBodies,
  selectEventPage,
} from '../../src/store/webhook-events.ts';
import { newCheck, newOrganization, openTestStore, orderedId, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const URL_1 = 'https://hooks.example.test/one';

test('a test event is found by its organization only; the delivery log pages newest first with the last attempt', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const first = orderedId();
  const second = orderedId();
  await insertTestEvent(db, { id: first, organizationId: org, body: '{"type":"test"}', url: URL_1 });
  await insertTestEvent(db, { id: second, organizationId: org, body: '{"type":"test"}', url: URL_1 });
  const detail = await findEvent(db, org, first);
  assert.deepEqual(
    { ...detail, createdAt: undefined },
    {
      id: first,
      kind: 'test',
      checkId: null,
      state: 'pending',
      url: URL_1,
      createdAt: undefined,
      deliveredAt: null,
    },
  );
  const other = await newOrganization(db);
  assert.equal(await findEvent(db, other, first), undefined);
  assert.equal(await eventBelongsTo(db, org, first), true);
  assert.equal(await eventBelongsTo(db, other, first), false);
  // One attempt on the first event: it shows on the page as the last one.
  const dispatcherId = 'dispatcher-1';
  const claimed = await claimDue(db, QUEUES.webhookEvents, ['id'], {
    workerId: dispatcherId,
    limit: 10,
    leaseMs: 60_000,
  });
  assert.ok(claimed.some((e) => e.id === first));
  const attempt = {
    id: uuidv7(),
    eventId: first,
    attemptNumber: 1,
    outcome: 'http_error',
    responseStatus: 500,
    latencyMs: 12,
    error: 'HTTP 500',
    responseSnippet: 'oops',
  };
  assert.equal(
    await recordDeliveryAttempt(db, { eventId: first, dispatcherId }, 'failed', null, attempt),
    true,
  );
  const page = await selectEventPage(db, org, { before: null, limit: 10 });
  assert.deepEqual(
    page.map((e) => [e.id, e.state, e.lastStatus, e.lastError, e.lastLatencyMs]),
    [
      [second, 'pending', null, null, null],
      [first, 'failed', 500, 'HTTP 500', 12],
    ],
  );
  assert.deepEqual(
    (await selectEventPage(db, org, { before: second, limit: 10 })).map((e) => e.id),
    [first],
  );
  assert.deepEqual(await selectEventPage(db, other, { before: null, limit: 10 }), []);
});

test("a resend makes the same event due now, to the organization's current URL", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const id = uuidv7();
  await insertTestEvent(db, { id, organizationId: org, body: '{}', url: URL_1 });
  await db.query(
    "UPDATE webhook_events SET state = 'failed', next_attempt_at = now() + interval '1 day' WHERE id = $1",
    [id],
  );
  await updateWebhookUrl(db, org, 'https://hooks.example.test/two');
  assert.equal(await makeEventDueNow(db, await newOrganization(db), id), false);
  assert.equal(await makeEventDueNow(db, org, id), true);
  const { rows } = await db.query<{ state: string; url: string; due: boolean; locked_by: string | null }>(
    'SELECT state, url, next_attempt_at <= now() AS due, locked_by FROM webhook_events WHERE id = $1',
    [id],
  );
  assert.deepEqual(rows[0], {
    state: 'pending',
    url: 'https://hooks.example.test/two',
    due: true,
    locked_by: null,
  });
});

test("purging blanks the bodies of the checks' events, except those still to be sent", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await updateWebhookUrl(db, org, URL_1);
  const sent = await newCheck(db, org);
  const pending = await newCheck(db, org);
  const events = { sent: uuidv7(), pending: uuidv7() };
  for (const [checkId, id] of [
    [sent, events.sent],
    [pending, events.pending],
  ] as const) {
    await insertOutboxEvent(db, {
      id,
      organizationId: org,
      kind: 'eligibility.completed',
      subject: 'check_id',
      subjectId: checkId,
      body: '{"phi":"here"}',
    });
  }
  await db.query("UPDATE webhook_events SET state = 'delivered' WHERE id = $1", [events.sent]);
  await db.transaction((tx) => purgeEventBodies(tx, [sent, pending]));
  const { rows } = await db.query<{ id: string; body: string }>(
    'SELECT id, body FROM webhook_events WHERE id = ANY($1) ORDER BY id',
    [[events.sent, events.pending]],
  );
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.id, r.body])), {
    [events.sent]: '{}',
    [events.pending]: '{"phi":"here"}',
  });
});
