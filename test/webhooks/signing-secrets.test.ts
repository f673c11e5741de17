import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  createSecretBox,
  generateWebhookSecret,
  parseKeyMaterial,
  SecretBoxError,
  validateWebhookSecret,
} from '../../src/webhooks/signing-secrets.ts';

describe('generated secrets', () => {
  test('whsec_ + 32 random bytes as unpadded base64url', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64url').length, 32);
  });

  test('are unique and pass the typed-in validation', () => {
    const many = new Set(Array.from({ length: 1000 }, generateWebhookSecret));
    assert.equal(many.size, 1000);
    for (const s of [...many].slice(0, 20)) assert.deepEqual(validateWebhookSecret(s), { ok: true });
  });
});

describe('typed-in secrets', () => {
  test('24 to 256 printable ASCII characters are accepted', () => {
    for (const ok of ['a'.repeat(24), 'x'.repeat(256), '!"#$%&\'()*+,-./0123456789:;<=>?@[\\]^_`{|}~']) {
      assert.deepEqual(validateWebhookSecret(ok), { ok: true }, ok);
    }
  });

  test('too short, too long, spaces, control and non-ASCII characters are refused with a reason', () => {
    const cases: [string, RegExp][] = [
      ['', /at least 24/],
      ['a'.repeat(23), /at least 24/],
      ['a'.repeat(257), /at most 256/],
      [`${'a'.repeat(24)} `, /printable ASCII/],
      [`${'a'.repeat(12)} ${'a'.repeat(12)}`, /no spaces/],
      [`${'a'.repeat(24)}\t`, /printable ASCII/],
      [`${'a'.repeat(24)}\n`, /printable ASCII/],
      [`${'a'.repeat(24)}\u0000`, /printable ASCII/],
      [`${'a'.repeat(24)}é`, /printable ASCII/],
      ['ｗｈｓｅｃ＿ｆｕｌｌｗｉｄｔｈ＿ｃｈａｒａｃｔｅｒｓ', /printable ASCII/],
    ];
    for (const [secret, reason] of cases) {
      const r = validateWebhookSecret(secret);
      assert.equal(r.ok, false, JSON.stringify(secret));
      if (!r.ok) assert.match(r.reason, reason);
    }
  });
});

describe('secret box (AES-256-GCM at rest)', () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);

  test('round trip, including empty and non-ASCII plaintext; sealed text hides the plaintext', () => {
    for (const plaintext of [generateWebhookSecret(), '', 'ünïcødé ☕ secret', 'x'.repeat(5000)]) {
      const sealed = box.seal(plaintext);
      assert.match(sealed, /^v1:[A-Za-z0-9_-]+$/);
      if (plaintext.length > 3) assert.ok(!sealed.includes(plaintext));
      assert.equal(box.open(sealed), plaintext);
    }
  });

  test('a fresh random IV per seal: sealing twice gives different text', () => {
    const secret = generateWebhookSecret();
    const a = box.seal(secret);
    const b = box.seal(secret);
    assert.notEqual(a, b);
    assert.notDeepEqual(
      Buffer.from(a.slice(3), 'base64url').subarray(0, 12),
      Buffer.from(b.slice(3), 'base64url').subarray(0, 12),
    );
  });

  test('the format is v1: + base64url(iv[12] | tag[16] | ciphertext), readable with plain node:crypto', () => {
    const sealed = box.seal('whsec_format_check_0123456789');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    assert.equal(
      Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString(),
      'whsec_format_check_0123456789',
    );
    // And the other way: a value sealed outside the box opens inside it.
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([cipher.update('made elsewhere', 'utf8'), cipher.final()]);
    assert.equal(
      box.open(`v1:${Buffer.concat([iv, cipher.getAuthTag(), ct]).toString('base64url')}`),
      'made elsewhere',
    );
  });

  test('tampering with any part (IV, tag, ciphertext) is detected', () => {
    const sealed = box.seal('whsec_tamper_target_0123456789');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    for (const index of [0, 11, 12, 27, 28, raw.length - 1]) {
      const copy = Buffer.from(raw);
      copy[index]! ^= 0x01;
      assert.throws(
        () => box.open(`v1:${copy.toString('base64url')}`),
        /could not be opened/,
        `byte ${index}`,
      );
    }
    assert.throws(
      () => box.open(`v1:${raw.subarray(0, raw.length - 1).toString('base64url')}`),
      /could not be opened/,
    );
    assert.throws(() => box.open(`v1:${raw.subarray(0, 27).toString('base64url')}`), /too short/);
  });

  test('malformed sealed text is refused with SecretBoxError, not garbage', () => {
    const sealed = box.seal('whsec_x_0123456789012345678');
    for (const bad of [
      '',
      `v2:${sealed.slice(3)}`,
      sealed.slice(3),
      'v1:',
      'v1:!!!not-base64!!!',
      `${sealed}=`,
    ]) {
      assert.throws(() => box.open(bad), SecretBoxError, JSON.stringify(bad));
    }
  });

  test('a wrong key cannot open; old keys still open after rotation, and new seals use the new key', () => {
    const secret = generateWebhookSecret();
    const sealedWithOld = box.seal(secret);
    const otherKey = randomBytes(32);
    assert.throws(() => createSecretBox(otherKey).open(sealedWithOld), /could not be opened/);

    const rotated = createSecretBox(otherKey, [key]);
    assert.equal(rotated.open(sealedWithOld), secret);
    const sealedWithNew = rotated.seal(secret);
    assert.equal(createSecretBox(otherKey).open(sealedWithNew), secret);
    assert.throws(() => box.open(sealedWithNew), /could not be opened/, 'new seals do not use the old key');
  });
});

describe('key material', () => {
  const bytes = randomBytes(32);

  test('32 bytes as bytes, hex (either case), base64 or base64url, with or without padding', () => {
    const forms = [
      bytes,
      new Uint8Array(bytes),
      bytes.toString('hex'),
      bytes.toString('hex').toUpperCase(),
      bytes.toString('base64'),
      bytes.toString('base64').replace(/=$/, ''),
      bytes.toString('base64url'),
    ];
    for (const form of forms) assert.deepEqual(parseKeyMaterial(form), bytes, String(form));
    // All forms open each other's seals.
    const sealed = createSecretBox(bytes.toString('hex')).seal('same key');
    assert.equal(createSecretBox(bytes.toString('base64')).open(sealed), 'same key');
  });

  test('wrong lengths and junk are refused, and the error never echoes the material', () => {
    const junk = `!!!!${'A'.repeat(40)}=`; // Buffer.from(junk, 'base64') would silently skip the '!'s
    const bad: unknown[] = [
      randomBytes(16),
      randomBytes(31),
      randomBytes(33),
      '',
      randomBytes(16).toString('hex'),
      `${bytes.toString('hex')}00`,
      randomBytes(24).toString('base64'),
      randomBytes(48).toString('base64'),
      junk,
      `${bytes.toString('hex').slice(0, 63)}g`,
      'correct horse battery staple correct horse b',
      42,
    ];
    for (const material of bad) {
      assert.throws(
        () => createSecretBox(material as string),
        (err: Error) => {
          assert.ok(err instanceof SecretBoxError);
          assert.match(err.message, /32 bytes|bytes or a string/);
          if (typeof material === 'string' && material) assert.ok(!err.message.includes(material));
          return true;
        },
        String(material),
      );
    }
    assert.throws(
      () => createSecretBox(bytes, [randomBytes(8)]),
      SecretBoxError,
      'old keys are validated too',
    );
  });
});
