import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { test } from 'node:test';
import { buildWebhookHeaders, signWebhook, WEBHOOK_HEADERS } from '../../src/webhooks/sign.ts';

const secret = 'whsec_test_secret_value_0123456789';
const body = '{"id":"chk_1","status":"COMPLETED","benefits":[]}';
const timestamp = 1_790_000_000;

test('the signature matches an HMAC-SHA256 computed independently (openssl dgst -hmac)', () => {
  // printf '%s' '1790000000.{"id":"chk_1",...}' | openssl dgst -sha256 -hmac 'whsec_test_secret_value_0123456789'
  assert.equal(
    signWebhook({ secret, timestamp, body }),
    '94dadcf0ad553e148dba0be6f27ef8416cc69afa591989c9981f77da00a49dd8',
  );
  // Non-ASCII bodies are signed as their UTF-8 bytes, whether given as a string or as bytes.
  const unicode = '{"note":"café ☕"}';
  const expected = '4b1fadbe3fc3f981bab0f6e402f9712a90db83cdc4846f8515bb4ddff1856d8f';
  assert.equal(signWebhook({ secret, timestamp, body: unicode }), expected);
  assert.equal(signWebhook({ secret, timestamp, body: Buffer.from(unicode, 'utf8') }), expected);
  assert.equal(signWebhook({ secret, timestamp, body: new Uint8Array(Buffer.from(unicode)) }), expected);
});

test('the signed string is timestamp, a period, body (docs/contract.md)', () => {
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  assert.equal(signWebhook({ secret, timestamp, body }), expected);
  assert.equal(signWebhook({ secret, timestamp: String(timestamp), body }), expected);
  assert.match(expected, /^[0-9a-f]{64}$/, 'lowercase hex');
});

test('any change to secret, timestamp or one body byte changes the signature', () => {
  const base = signWebhook({ secret, timestamp, body });
  assert.notEqual(signWebhook({ secret: `${secret}x`, timestamp, body }), base);
  assert.notEqual(signWebhook({ secret, timestamp: timestamp + 1, body }), base);
  assert.notEqual(signWebhook({ secret, timestamp, body: body.replace('chk_1', 'chk_2') }), base);
  assert.notEqual(signWebhook({ secret, timestamp, body: `${body} ` }), base, 'trailing space');
});

test('fractional timestamps are refused rather than signed as "1.5"', () => {
  assert.throws(() => signWebhook({ secret, timestamp: 1.5, body }), RangeError);
  assert.throws(() => signWebhook({ secret, timestamp: Number.NaN, body }), RangeError);
});

test('headers without a signing secret: no signature headers at all', () => {
  const headers = buildWebhookHeaders({
    eventType: 'eligibility.completed',
    eventId: 'evt_1',
    timestamp,
    body,
    userAgent: 'Elig/1',
  });
  assert.deepEqual(headers, {
    'Content-Type': 'application/json',
    'User-Agent': 'Elig/1',
    'X-Webhook-Id': 'evt_1',
    'X-Webhook-Event': 'eligibility.completed',
    'X-Webhook-Timestamp': '1790000000',
  });
  for (const blank of ['', null, undefined]) {
    const h = buildWebhookHeaders({
      eventType: 'eligibility.completed',
      eventId: 'e',
      timestamp,
      body,
      secret: blank,
      userAgent: 'u',
    });
    assert.equal(h[WEBHOOK_HEADERS.signature], undefined, String(blank));
  }
});

test('headers with a secret carry its signature; during a roll also the previous one', () => {
  const old = 'whsec_old_secret_value_0123456789';
  const signed = buildWebhookHeaders({
    eventType: 'eligibility.completed',
    eventId: 'e',
    timestamp,
    body,
    secret,
    userAgent: 'u',
  });
  assert.equal(
    signed['X-Webhook-Signature'],
    createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex'),
  );
  assert.equal(signed['X-Webhook-Signature-Previous'], undefined);

  const rolling = buildWebhookHeaders({
    eventType: 'eligibility.completed',
    eventId: 'e',
    timestamp,
    body,
    secret,
    previousSecret: old,
    userAgent: 'u',
  });
  assert.equal(rolling['X-Webhook-Signature'], signed['X-Webhook-Signature']);
  assert.equal(
    rolling['X-Webhook-Signature-Previous'],
    createHmac('sha256', old).update(`${timestamp}.${body}`).digest('hex'),
  );
  // A previous secret without a current one signs nothing (the secret was removed, not rolled).
  const removed = buildWebhookHeaders({
    eventType: 'eligibility.completed',
    eventId: 'e',
    timestamp,
    body,
    previousSecret: old,
    userAgent: 'u',
  });
  assert.equal(removed['X-Webhook-Signature-Previous'], undefined);
});

test('a retry keeps the event id and signs the same bytes with its own timestamp', () => {
  const first = buildWebhookHeaders({
    eventType: 'eligibility.completed',
    eventId: 'evt_7',
    timestamp,
    body,
    secret,
    userAgent: 'u',
  });
  const retry = buildWebhookHeaders({
    eventType: 'eligibility.completed',
    eventId: 'evt_7',
    timestamp: timestamp + 30,
    body,
    secret,
    userAgent: 'u',
  });
  assert.equal(retry['X-Webhook-Id'], first['X-Webhook-Id']);
  assert.equal(retry['X-Webhook-Timestamp'], String(timestamp + 30));
  assert.notEqual(retry['X-Webhook-Signature'], first['X-Webhook-Signature']);
  assert.equal(retry['X-Webhook-Signature'], signWebhook({ secret, timestamp: timestamp + 30, body }));
});

test('header timestamps must be whole, non-negative seconds (not milliseconds mistaken for a float)', () => {
  for (const bad of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () =>
        buildWebhookHeaders({
          eventType: 'eligibility.completed',
          eventId: 'e',
          timestamp: bad,
          body,
          secret,
          userAgent: 'u',
        }),
      RangeError,
      String(bad),
    );
  }
});
