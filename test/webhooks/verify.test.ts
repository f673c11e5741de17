import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { verifyWebhook } from '../../src/webhooks/verify.ts';

const secret = 'whsec_test_secret_value_0123456789';
const body = '{"id":"chk_1","status":"COMPLETED","payer":{"payerId":"SANDBOX"},"benefits":[]}';
const now = 1_790_000_000;
// Signatures made independently of the code under test: HMAC-SHA256 hex of `${ts}.${body}`.
const sign = (s: string, ts: number | string, b: string = body) =>
  createHmac('sha256', s).update(`${ts}.${b}`).digest('hex');
const signature = sign(secret, now);
const OK = { ok: true };
const refused = (reason: string) => ({ ok: false, reason });

describe('verifyWebhook accepts', () => {
  test('a valid delivery, with the timestamp as string or number and the body as string or bytes', () => {
    assert.deepEqual(verifyWebhook({ secret, timestamp: String(now), signature, body, now }), OK);
    assert.deepEqual(verifyWebhook({ secret, timestamp: now, signature, body, now }), OK);
    assert.deepEqual(verifyWebhook({ secret, timestamp: now, signature, body: Buffer.from(body), now }), OK);
    const bytes = new TextEncoder().encode(body);
    assert.deepEqual(verifyWebhook({ secret, timestamp: now, signature, body: bytes, now }), OK);
  });

  test('uppercase and mixed-case hex as the same digest (documented choice)', () => {
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now, signature: signature.toUpperCase(), body, now }),
      OK,
    );
    const mixed = [...signature].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');
    assert.deepEqual(verifyWebhook({ secret, timestamp: now, signature: mixed, body, now }), OK);
  });

  test('timestamps exactly at the tolerance edge, in both directions, and a custom tolerance', () => {
    assert.deepEqual(verifyWebhook({ secret, timestamp: now, signature, body, now: now + 300 }), OK);
    assert.deepEqual(verifyWebhook({ secret, timestamp: now, signature, body, now: now - 300 }), OK);
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now, signature, body, now: now + 3600, toleranceSeconds: 3600 }),
      OK,
    );
  });

  test('the current clock when `now` is not given', () => {
    const ts = Math.floor(Date.now() / 1000);
    assert.deepEqual(verifyWebhook({ secret, timestamp: ts, signature: sign(secret, ts), body }), OK);
  });

  test('Node header arrays holding one value', () => {
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: [String(now)], signature: [signature], body, now }),
      OK,
    );
  });
});

describe('verifyWebhook refuses', () => {
  test('a wrong secret', () => {
    assert.deepEqual(
      verifyWebhook({ secret: 'whsec_other_secret_0123456789', timestamp: now, signature, body, now }),
      refused('bad_signature'),
    );
  });

  test('a tampered body, even by one byte or trailing whitespace', () => {
    for (const tampered of [
      body.replace('COMPLETED', 'FAILED'),
      body.replace('chk_1', 'chk_2'),
      `${body}\n`,
    ]) {
      assert.deepEqual(
        verifyWebhook({ secret, timestamp: now, signature, body: tampered, now }),
        refused('bad_signature'),
      );
    }
  });

  test('a re-serialized body: JSON.parse then JSON.stringify with other spacing or key order', () => {
    const parsed = JSON.parse(body);
    const pretty = JSON.stringify(parsed, null, 2);
    const { benefits, payer, status, id } = parsed;
    const reordered = JSON.stringify({ benefits, payer, status, id });
    assert.equal(JSON.stringify(parsed), body, 'compact re-serialization happens to match here');
    for (const reserialized of [pretty, reordered]) {
      assert.notEqual(reserialized, body);
      assert.deepEqual(JSON.parse(reserialized), parsed, 'same data');
      assert.deepEqual(
        verifyWebhook({ secret, timestamp: now, signature, body: reserialized, now }),
        refused('bad_signature'),
      );
    }
  });

  test('an old timestamp (replay) and a future one, beyond 300 s', () => {
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now, signature, body, now: now + 301 }),
      refused('timestamp_out_of_tolerance'),
    );
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now, signature, body, now: now - 301 }),
      refused('timestamp_out_of_tolerance'),
    );
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now, signature, body, now: now + 61, toleranceSeconds: 60 }),
      refused('timestamp_out_of_tolerance'),
    );
  });

  test('a valid signature replayed with a fresh timestamp', () => {
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now + 10, signature, body, now: now + 10 }),
      refused('bad_signature'),
    );
  });

  test('signatures of another length or not hex, without throwing', () => {
    for (const bad of [
      signature.slice(1),
      `${signature}0`,
      signature + signature,
      `sha256=${signature}`,
      `${signature.slice(0, 63)}g`,
      ` ${signature.slice(1)}`,
      'x',
    ]) {
      assert.deepEqual(
        verifyWebhook({ secret, timestamp: now, signature: bad, body, now }),
        refused('malformed_signature'),
        bad,
      );
    }
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now, signature: [signature, signature], body, now }),
      refused('malformed_signature'),
      'a header sent twice',
    );
  });

  test('a missing signature (absent, empty, empty array)', () => {
    for (const missing of [undefined, null, '', []]) {
      assert.deepEqual(
        verifyWebhook({ secret, timestamp: now, signature: missing, body, now }),
        refused('missing_signature'),
      );
    }
  });

  test('a missing or malformed timestamp: words, milliseconds, fractions, negatives', () => {
    for (const bad of [
      undefined,
      null,
      '',
      'yesterday',
      String(now * 1000),
      '1790000000.5',
      '-1',
      ' 1790000000',
    ]) {
      assert.deepEqual(
        verifyWebhook({ secret, timestamp: bad, signature, body, now }),
        refused('malformed_timestamp'),
        String(bad),
      );
    }
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: 1.5, signature, body, now }),
      refused('malformed_timestamp'),
    );
  });
});

describe('verifyWebhook during a secret roll', () => {
  const oldSecret = 'whsec_old_secret_value_0123456789';
  const newSecret = secret;
  const headers = { signature: sign(newSecret, now), previousSignature: sign(oldSecret, now) };

  test('a receiver still on the old secret verifies through the previous-signature header', () => {
    assert.deepEqual(verifyWebhook({ secret: oldSecret, timestamp: now, ...headers, body, now }), OK);
    assert.deepEqual(
      verifyWebhook({ secret: oldSecret, timestamp: now, signature: headers.signature, body, now }),
      refused('bad_signature'),
      'without the previous header the old secret cannot verify',
    );
  });

  test('a receiver on the new secret, or holding both, verifies', () => {
    assert.deepEqual(verifyWebhook({ secret: newSecret, timestamp: now, ...headers, body, now }), OK);
    assert.deepEqual(
      verifyWebhook({ secret: [oldSecret, newSecret], timestamp: now, ...headers, body, now }),
      OK,
    );
    assert.deepEqual(
      verifyWebhook({
        secret: [oldSecret, newSecret],
        timestamp: now,
        signature: headers.signature,
        body,
        now,
      }),
      OK,
    );
  });

  test('an unrelated secret still fails, and a malformed previous header is refused', () => {
    assert.deepEqual(
      verifyWebhook({ secret: 'whsec_unrelated_secret_012345', timestamp: now, ...headers, body, now }),
      refused('bad_signature'),
    );
    assert.deepEqual(
      verifyWebhook({ secret, timestamp: now, signature, previousSignature: 'nothex', body, now }),
      refused('malformed_signature'),
    );
  });
});

test('programming mistakes throw instead of passing silently', () => {
  const base = { timestamp: now, signature, body, now };
  assert.throws(() => verifyWebhook({ ...base, secret: '' }), TypeError);
  assert.throws(() => verifyWebhook({ ...base, secret: [] }), TypeError);
  assert.throws(() => verifyWebhook({ ...base, secret: undefined as any }), TypeError);
  assert.throws(() => verifyWebhook({ ...base, secret, body: JSON.parse(body) }), /raw request body/);
  assert.throws(() => verifyWebhook({ ...base, secret, toleranceSeconds: Number.NaN }), RangeError);
  assert.throws(() => verifyWebhook({ ...base, secret, toleranceSeconds: -1 }), RangeError);
});

test('the package exports verifyWebhook as eligibility-service/webhooks', async () => {
  const pkg = await import('eligibility-service/webhooks');
  assert.equal(typeof pkg.verifyWebhook, 'function');
  assert.deepEqual(pkg.verifyWebhook({ secret, timestamp: now, signature, body, now }), OK);
});
