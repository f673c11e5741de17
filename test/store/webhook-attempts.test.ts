/** src/store/webhook-attempts.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import { updateWebhookUrl } from '../../src/store/organizations.ts';
import { claimDue, QUEUES } from '../../src/store/queue/claim.ts';
import { recordDeliveryAttempt } from '../../src/store/queue/finish-delivery.ts';
import { insertOutboxEvent } from '../../src/store/queue/outbox-event.ts';
import { clearResponseSnippets, selectAttempts } from '../../src/store/webhook-attempts.ts';
import { newCheck, newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

test("an event's attempts are listed first first; purging forgets what the receiver answered", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await updateWebhookUrl(db, org, 'https://hooks.example.test/one');
  const checkId = await newCheck(db, org);
  const eventId = uuidv7();
  await insertOutboxEvent(db, {
    id: eventId,
    organizationId: org,
    kind: 'eligibility.completed',
    subject: 'check_id',
    subjectId: checkId,
    body: '{}',
  });
  const dispatcherId = 'dispatcher-1';
  const lease = { workerId: dispatcherId, limit: 10, leaseMs: 60_000 };
  const attempt = (attemptNumber: number) => ({
    id: uuidv7(),
    eventId,
    attemptNumber,
    outcome: attemptNumber === 1 ? 'http_error' : 'delivered',
    responseStatus: attemptNumber === 1 ? 503 : 200,
    latencyMs: 10 * attemptNumber,
    error: attemptNumber === 1 ? 'HTTP 503' : null,
    responseSnippet: `answer ${attemptNumber}`,
  });
  await claimDue(db, QUEUES.webhookEvents, ['id'], lease);
  assert.equal(await recordDeliveryAttempt(db, { eventId, dispatcherId }, 'pending', 0, attempt(1)), true);
  await claimDue(db, QUEUES.webhookEvents, ['id'], lease);
  assert.equal(
    await recordDeliveryAttempt(db, { eventId, dispatcherId }, 'delivered', null, attempt(2)),
    true,
  );
  const log = await selectAttempts(db, eventId);
  assert.deepEqual(
    log.map((a) => [a.attemptNumber, a.outcome, a.responseStatus, a.latencyMs, a.error, a.responseSnippet]),
    [
      [1, 'http_error', 503, 10, 'HTTP 503', 'answer 1'],
      [2, 'delivered', 200, 20, null, 'answer 2'],
    ],
  );
  assert.ok(log[0]!.startedAt instanceof Date);
  assert.ok(log[0]!.nextAttemptAt instanceof Date, 'the first was to be retried');
  assert.equal(log[1]!.nextAttemptAt, null, 'the second ended it');
  assert.deepEqual(await selectAttempts(db, uuidv7()), []);
  await db.transaction((tx) => clearResponseSnippets(tx, [checkId]));
  assert.deepEqual(
    (await selectAttempts(db, eventId)).map((a) => a.responseSnippet),
    [null, null],
  );
});
