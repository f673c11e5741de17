/**
 * Completion webhooks end to end with a real local receiver: the signature verifies over the raw bytes,
 * one event per check, retries with the same event id, resumption after the receiver comes back.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { EVENT_TYPE_NAMES } from '../../src/contract/webhook-events.ts';
import { setWebhookEventTypes, setWebhookSecret, setWebhookUrl } from '../../src/webhooks/settings.ts';
import { verifyWebhook } from '../../src/webhooks/verify.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { Receiver } from '../helpers/receiver.ts';
import {
  client,
  sandboxRequest,
  startTestService,
  type TestService,
  waitForResult,
} from '../helpers/service.ts';

const JANE = member('SBX1000001');
let svc: TestService;
let receiver: Receiver;
let secret: string;

before(async () => {
  svc = await startTestService({ webhookScheduleScale: 0.0005 });
  receiver = await new Receiver().start();
  const db = svc.service.store.db;
  assert.ok((await setWebhookUrl(db, svc.organizationId, receiver.url, { allowPrivate: true })).ok);
  const set = await setWebhookSecret(db, svc.service.box, svc.organizationId, { generate: true });
  assert.ok(set.ok);
  secret = set.value!;
});
after(async () => {
  await svc.stop();
  await receiver.stop();
});

async function submitAndWait(member = JANE) {
  const c = client(svc.url, svc.apiKey);
  const { body } = await c.post('/api/eligibility', sandboxRequest(member));
  return waitForResult(c, body.id);
}

/**
 * An event once the dispatcher has recorded its last attempt. The receiver sees a request before the
 * dispatcher records the answer, and an event that is no longer pending is never claimed (so sent) again:
 * from then on the receiver's count for it is final.
 */
async function settledEvent(eventId: string): Promise<{ state: string; attempts: number }> {
  return eventually(
    async () => {
      const { rows } = await svc.service.store.db.query<{ state: string; attempts: number }>(
        'SELECT state, attempts FROM webhook_events WHERE id = $1',
        [eventId],
      );
      if (rows[0]?.state === 'pending') throw new Error(`still pending after ${rows[0].attempts} claims`);
      return rows[0];
    },
    { what: `event ${eventId} settling` },
  );
}

test('a completed check is delivered once, signed over the exact bytes, equal to the status body', async () => {
  receiver.received.length = 0;
  const result = await submitAndWait();
  const [delivery] = await receiver.waitFor(1);
  const h = delivery!.headers;
  assert.equal(h['content-type'], 'application/json');
  assert.match(String(h['user-agent']), /EligibilityService/);
  assert.match(String(h['x-webhook-id']), /^[0-9a-f-]{36}$/);
  const ts = String(h['x-webhook-timestamp']);
  assert.ok(Math.abs(Number(ts) - Date.now() / 1000) < 30);
  const expected = createHmac('sha256', secret).update(`${ts}.${delivery!.body}`).digest('hex');
  assert.equal(h['x-webhook-signature'], expected);
  assert.deepEqual(
    verifyWebhook({
      secret,
      timestamp: ts,
      signature: String(h['x-webhook-signature']),
      body: delivery!.body,
    }),
    { ok: true },
  );
  const statusText = await fetch(`${svc.url}/api/eligibility/${result.id}/status`, {
    headers: { authorization: `Key ${svc.apiKey}` },
  }).then((r) => r.text());
  assert.equal(delivery!.body, statusText, 'the webhook body is the status body, byte for byte');
  const event = await settledEvent(String(h['x-webhook-id']));
  assert.deepEqual(event, { state: 'delivered', attempts: 1 }, 'claimed and sent once');
  assert.equal(receiver.received.length, 1, 'exactly one delivery');
  assert.equal(h['x-webhook-event'], 'eligibility.completed', 'the type travels in a header');
  const { rows } = await svc.service.store.db.query<{ kind: string }>(
    'SELECT kind FROM webhook_events WHERE id = $1',
    [String(h['x-webhook-id'])],
  );
  assert.equal(rows[0]?.kind, 'eligibility.completed', 'and is stored');
});

test('an endpoint that does not take eligibility.completed gets no event for a finished check', async () => {
  const db = svc.service.store.db;
  assert.ok((await setWebhookEventTypes(db, svc.organizationId, ['batch.completed'])).ok);
  try {
    const result = await submitAndWait();
    const { rows } = await db.query('SELECT 1 FROM webhook_events WHERE check_id = $1', [result.id]);
    assert.equal(rows.length, 0, 'no event was written in the finishing transaction');
  } finally {
    const all = await setWebhookEventTypes(db, svc.organizationId, [...EVENT_TYPE_NAMES]);
    assert.ok(all.ok);
  }
  const { rows } = await db.query<{ t: string[] | null }>(
    'SELECT webhook_event_types AS t FROM organizations WHERE id = $1',
    [svc.organizationId],
  );
  assert.equal(rows[0]?.t, null, 'choosing every type stores "all", so later types are received too');
  assert.deepEqual(await setWebhookEventTypes(db, svc.organizationId, ['nope']), {
    ok: false,
    reason: 'Unknown event type: nope.',
  });
});

test('failed checks are delivered too, with status FAILED', async () => {
  receiver.received.length = 0;
  const result = await submitAndWait({ ...JANE, memberId: 'SBX1999999' });
  const [delivery] = await receiver.waitFor(1);
  const body = JSON.parse(delivery!.body);
  assert.equal(body.status, 'FAILED');
  assert.equal(body.id, result.id);
});

test('receiver answering 500 twice then 200: delivered on the third attempt with the same event id', async () => {
  receiver.received.length = 0;
  receiver.script = [500, 500];
  await submitAndWait();
  const deliveries = await receiver.waitFor(3);
  const ids = new Set(deliveries.map((d) => d.headers['x-webhook-id']));
  assert.equal(ids.size, 1, 'the event id is stable across attempts');
  assert.equal(new Set(deliveries.map((d) => d.body)).size, 1, 'the same bytes on every attempt');
  const eventId = String(deliveries[0]!.headers['x-webhook-id']);
  // The receiver saw the third request before the dispatcher recorded its answer: wait for that write.
  const event = await settledEvent(eventId);
  assert.deepEqual(event, { state: 'delivered', attempts: 3 });
  const attempts = await svc.service.store.db.query<{ outcome: string; response_status: number }>(
    'SELECT outcome, response_status FROM webhook_attempts WHERE event_id = $1 ORDER BY attempt_number',
    [eventId],
  );
  assert.deepEqual(
    attempts.rows.map((a) => a.response_status),
    [500, 500, 200],
  );
});

test('receiver down: retries resume and deliver after it returns', async () => {
  const port = receiver.port;
  await receiver.stop();
  const result = await submitAndWait();
  // A recorded failed attempt, and the event still pending: it will be tried again.
  await eventually(
    async () =>
      (
        await svc.service.store.db.query(
          'SELECT 1 FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id WHERE e.check_id = $1',
          [result.id],
        )
      ).rows.length > 0,
    { what: 'a failed attempt recorded' },
  );
  const { rows } = await svc.service.store.db.query<{ attempts: number; state: string }>(
    'SELECT attempts, state FROM webhook_events WHERE check_id = $1',
    [result.id],
  );
  assert.equal(rows[0]!.state, 'pending');
  assert.ok(rows[0]!.attempts >= 1);
  receiver = await new Receiver().start(port);
  const deliveries = await receiver.waitFor(1, 30_000);
  assert.equal(JSON.parse(deliveries[0]!.body).id, result.id);
});

test('one event per check across many checks', async () => {
  receiver.received.length = 0;
  const c = client(svc.url, svc.apiKey);
  const ids = await Promise.all(
    Array.from({ length: 200 }, async () => (await c.post('/api/eligibility', sandboxRequest(JANE))).body.id),
  );
  await receiver.waitFor(200, 60_000);
  // Every event settled: none can be claimed, so sent, again, and every send has reached the receiver.
  await eventually(
    async () => {
      const { rows } = await svc.service.store.db.query<{ settled: number }>(
        "SELECT count(*)::int AS settled FROM webhook_events WHERE check_id = ANY($1) AND state <> 'pending'",
        [ids],
      );
      return rows[0]!.settled === ids.length;
    },
    { timeoutMs: 30_000, what: 'all 200 events settled' },
  );
  const byCheck = new Map<string, number>();
  for (const d of receiver.received) {
    const id = JSON.parse(d.body).id;
    byCheck.set(id, (byCheck.get(id) ?? 0) + 1);
  }
  for (const id of ids) assert.equal(byCheck.get(id), 1, `check ${id}`);
  assert.equal(new Set(receiver.received.map((d) => d.headers['x-webhook-id'])).size, 200);
});

test('no URL configured: no event is stored', async () => {
  await setWebhookUrl(svc.service.store.db, svc.organizationId, null, { allowPrivate: true });
  const result = await submitAndWait();
  const { rows } = await svc.service.store.db.query('SELECT 1 FROM webhook_events WHERE check_id = $1', [
    result.id,
  ]);
  assert.equal(rows.length, 0);
  await setWebhookUrl(svc.service.store.db, svc.organizationId, receiver.url, { allowPrivate: true });
});

test('the signing secret is encrypted at rest', async () => {
  const { rows } = await svc.service.store.db.query<{ webhook_secret: string }>(
    'SELECT webhook_secret FROM organizations WHERE id = $1',
    [svc.organizationId],
  );
  assert.ok(rows[0]!.webhook_secret);
  assert.ok(!rows[0]!.webhook_secret.includes(secret));
});
