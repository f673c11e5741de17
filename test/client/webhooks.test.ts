/**
 * The client's verifyWebhook (WebCrypto) against real deliveries of the service, and against the service's
 * own signer: it accepts exactly what the service signs, and refuses tampered bodies, old or future
 * timestamps, other secrets and malformed headers, with the same reasons as the service's helper.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type EligibilityCheckRequest,
  EligibilityClient,
  verifyWebhook,
} from '../../packages/client/src/index.ts';
import { rollWebhookSecret, setWebhookSecret, setWebhookUrl } from '../../src/webhooks/settings.ts';
import { buildWebhookHeaders, signWebhook } from '../../src/webhooks/sign.ts';
import { verifyWebhook as serviceVerify } from '../../src/webhooks/verify.ts';
import { member } from '../helpers/members.ts';
import { type Received, Receiver } from '../helpers/receiver.ts';
import { sandboxRequest, startTestService, type TestService } from '../helpers/service.ts';

let svc: TestService;
let receiver: Receiver;
let secret: string;
let delivery: Received;

before(async () => {
  svc = await startTestService();
  receiver = await new Receiver().start();
  const db = svc.service.store.db;
  assert.ok((await setWebhookUrl(db, svc.organizationId, receiver.url, { allowPrivate: true })).ok);
  const set = await setWebhookSecret(db, svc.service.box, svc.organizationId, { generate: true });
  assert.ok(set.ok);
  secret = set.value!;
  const elig = new EligibilityClient({ baseUrl: svc.url, apiKey: svc.apiKey });
  const { id } = await elig.submitCheck(sandboxRequest(member('SBX1000001')) as EligibilityCheckRequest);
  await elig.waitForCheck(id, { timeoutMs: 20_000 });
  delivery = (await receiver.waitFor(1))[0]!;
});
after(async () => {
  await svc.stop();
  await receiver.stop();
});

test('a real delivery verifies, from Node headers, fetch Headers, a string or the bytes', async () => {
  const result = await verifyWebhook(delivery.body, delivery.headers, secret);
  assert.deepEqual(result, {
    ok: true,
    eventId: delivery.headers['x-webhook-id'],
    eventType: 'eligibility.completed',
    timestamp: Number(delivery.headers['x-webhook-timestamp']),
  });
  const fetchHeaders = new Headers(delivery.headers as Record<string, string>);
  assert.equal((await verifyWebhook(delivery.body, fetchHeaders, secret)).ok, true);
  const bytes = new TextEncoder().encode(delivery.body);
  assert.equal((await verifyWebhook(bytes, delivery.headers, secret)).ok, true);
  assert.equal((await verifyWebhook(bytes.buffer, delivery.headers, secret)).ok, true);
  assert.equal((await verifyWebhook(delivery.body, delivery.headers, ['whsec_old_one', secret])).ok, true);
});

test('a tampered body, another secret or a re-serialized body does not verify', async () => {
  const tampered = delivery.body.replace('"COMPLETED"', '"FAILED"');
  assert.notEqual(tampered, delivery.body);
  assert.deepEqual(await verifyWebhook(tampered, delivery.headers, secret), {
    ok: false,
    reason: 'bad_signature',
  });
  assert.deepEqual(await verifyWebhook(`${delivery.body} `, delivery.headers, secret), {
    ok: false,
    reason: 'bad_signature',
  });
  const reserialized = JSON.stringify(JSON.parse(delivery.body), null, 1);
  assert.equal((await verifyWebhook(reserialized, delivery.headers, secret)).ok, false);
  assert.deepEqual(await verifyWebhook(delivery.body, delivery.headers, `${secret}x`), {
    ok: false,
    reason: 'bad_signature',
  });
});

test('an old or future timestamp is refused even with a valid signature for it', async () => {
  const body = delivery.body;
  const now = Math.floor(Date.now() / 1000);
  const signedAt = (timestamp: number) => ({
    'x-webhook-timestamp': String(timestamp),
    'x-webhook-signature': signWebhook({ secret, timestamp, body }),
  });
  const outside = { ok: false, reason: 'timestamp_out_of_tolerance' };
  assert.deepEqual(await verifyWebhook(body, signedAt(now - 301), secret), outside);
  assert.deepEqual(await verifyWebhook(body, signedAt(now + 400), secret), outside);
  assert.equal((await verifyWebhook(body, signedAt(now - 250), secret)).ok, true);
  // A captured delivery replayed later: refused once outside the tolerance, which is configurable.
  const later = Number(delivery.headers['x-webhook-timestamp']) + 3600;
  assert.deepEqual(await verifyWebhook(body, delivery.headers, secret, { now: later }), outside);
  assert.equal(
    (await verifyWebhook(body, delivery.headers, secret, { now: later, toleranceSeconds: 7200 })).ok,
    true,
  );
  // The replayed timestamp cannot be moved forward without the secret: the signature covers it.
  const sentAt = Number(delivery.headers['x-webhook-timestamp']);
  const moved = { ...delivery.headers, 'x-webhook-timestamp': String(sentAt + 1) };
  assert.deepEqual(await verifyWebhook(body, moved, secret, { now: sentAt + 1 }), {
    ok: false,
    reason: 'bad_signature',
  });
});

test('missing and malformed headers: the reasons of the service helper', async () => {
  const h = delivery.headers;
  const ts = h['x-webhook-timestamp'];
  const sig = String(h['x-webhook-signature']);
  const body = delivery.body;
  const cases: [Record<string, string | string[] | undefined>, string][] = [
    [{ 'x-webhook-timestamp': ts }, 'missing_signature'],
    [{ 'x-webhook-timestamp': ts, 'x-webhook-signature': 'abc' }, 'malformed_signature'],
    [{ 'x-webhook-timestamp': ts, 'x-webhook-signature': [sig, sig] }, 'malformed_signature'],
    [{ 'x-webhook-signature': sig }, 'malformed_timestamp'],
    [{ 'x-webhook-signature': sig, 'x-webhook-timestamp': '17e8' }, 'malformed_timestamp'],
  ];
  for (const [headers, reason] of cases) {
    assert.deepEqual(await verifyWebhook(body, headers, secret), { ok: false, reason });
    const service = serviceVerify({
      secret,
      body,
      timestamp: headers['x-webhook-timestamp'],
      signature: headers['x-webhook-signature'],
    });
    assert.deepEqual(service, { ok: false, reason }, 'the service helper agrees');
  }
  // Header names are case-insensitive; uppercase hex is the same digest.
  const upper = { 'X-Webhook-Timestamp': String(ts), 'X-Webhook-Signature': sig.toUpperCase() };
  assert.equal((await verifyWebhook(body, upper, secret)).ok, true);
  await assert.rejects(verifyWebhook(body, h, ''), TypeError);
  await assert.rejects(verifyWebhook(JSON.parse(body), h, secret), TypeError);
});

test('matches the service signer on any bytes: Unicode, binary, empty; with the previous secret of a roll', async () => {
  const timestamp = Math.floor(Date.now() / 1000);
  const bodies: (string | Uint8Array)[] = [
    '',
    '{"name":"José Ñúñez","emoji":"🩺"}',
    new Uint8Array([0, 255, 128, 10, 13, 0xc3]),
    'x'.repeat(100_000),
  ];
  for (const body of bodies) {
    const headers = buildWebhookHeaders({
      eventId: 'e1',
      eventType: 'test',
      timestamp,
      body,
      secret: 'whsec_new',
      previousSecret: 'whsec_old',
      userAgent: 'test',
    });
    assert.equal((await verifyWebhook(body, headers, 'whsec_new')).ok, true);
    assert.equal((await verifyWebhook(body, headers, 'whsec_old')).ok, true, 'the previous secret verifies');
    assert.equal((await verifyWebhook(body, headers, 'whsec_other')).ok, false);
  }
});

test('after a real secret roll, a delivery verifies with the old secret and with the new one', async () => {
  const db = svc.service.store.db;
  const rolled = await rollWebhookSecret(db, svc.service.box, svc.organizationId);
  assert.ok(rolled.ok);
  const newSecret = rolled.value!;
  receiver.received.length = 0;
  const elig = new EligibilityClient({ baseUrl: svc.url, apiKey: svc.apiKey });
  const { id } = await elig.submitCheck(sandboxRequest(member('SBX1000002')) as EligibilityCheckRequest);
  await elig.waitForCheck(id, { timeoutMs: 20_000 });
  const [after] = await receiver.waitFor(1);
  assert.ok(after!.headers['x-webhook-signature-previous']);
  assert.equal((await verifyWebhook(after!.body, after!.headers, secret)).ok, true);
  assert.equal((await verifyWebhook(after!.body, after!.headers, newSecret)).ok, true);
});
