import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { randomBase62 } from '../src/ids.ts';
import { estimateSecretBits, secretKeyWeakness } from '../src/secret-strength.ts';

const GUESSABLE: [string, RegExp][] = [
  ['a'.repeat(40), /distinct characters/],
  ['ab'.repeat(20), /distinct characters/],
  ['abcdefghijklmnopqrstuvwxyzABCDEFGHIJ', /runs or sequences/],
  ['ZYXWVUTSRQPONMLKJIHGFEDCBAzyxwvutsrq', /runs or sequences/],
  ['qwertyuiopasdfghjklzxcvbnm1234567890', /runs or sequences/],
  ['11223344556677889900112233445566', /runs or sequences/],
  ['12345678901234567890123456789012', /repeats a short sequence/],
  ['0123456789abcdef0123456789abcdef', /repeats a short sequence/],
  ['Passw0rd!Passw0rd!Passw0rd!Passw0rd!', /repeats a short sequence/],
  ['Passw0rd!Passw0rd!Passw0rd!Passw0rd!x', /repeats a short sequence/],
  ['changeme-changeme-changeme-changeme', /repeats a short sequence/],
  ['my-secret-key-my-secret-key-my-secret-key', /repeats a short sequence/],
  ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaabcdefgh', /repeats/],
  ['aaaaabbbbbcccccdddddeeeeefffffggggghhhhh', /repeats/],
  // 32 random-looking digits are still only ~106 bits: too few kinds of characters for the length.
  ['83920174659283746501928374650192', /too few kinds of characters/],
];

test('guessable keys are refused, each with the reason', () => {
  for (const [key, reason] of GUESSABLE) {
    const weakness = secretKeyWeakness(key);
    assert.ok(weakness, `${key} accepted (${estimateSecretBits(key).bits.toFixed(0)} bits)`);
    assert.match(weakness, reason, key);
  }
});

test('random keys of the usual shapes are accepted', () => {
  // 32 hex characters carry exactly 128 bits; over 500,000 draws their estimate never fell below 136.
  const shapes: Record<string, () => string> = {
    'openssl rand -hex 16': () => randomBytes(16).toString('hex'),
    'openssl rand -hex 32': () => randomBytes(32).toString('hex'),
    'openssl rand -base64 24': () => randomBytes(24).toString('base64'),
    'openssl rand -base64 32': () => randomBytes(32).toString('base64'),
    'base64url of 32 bytes': () => randomBytes(32).toString('base64url'),
    'upper-case hex': () => randomBytes(16).toString('hex').toUpperCase(),
    'the generated development key': () => randomBase62(48),
  };
  for (const [shape, draw] of Object.entries(shapes)) {
    for (let i = 0; i < 3000; i++) {
      const key = draw();
      assert.equal(secretKeyWeakness(key), undefined, `${shape}: ${key}`);
    }
  }
});

test('production refuses a guessable ELIG_SECRET_KEY, naming the variable and never the value', () => {
  const key = 'Passw0rd!Passw0rd!Passw0rd!Passw0rd!';
  assert.throws(
    () => loadConfig({ ELIG_ENV: 'production', ELIG_SECRET_KEY: key }),
    (err: Error) =>
      /ELIG_SECRET_KEY is too predictable: it repeats a short sequence/.test(err.message) &&
      !err.message.includes('Passw0rd') &&
      /openssl rand/.test(err.message),
  );
  assert.equal(
    loadConfig({ ELIG_ENV: 'production', ELIG_SECRET_KEY: randomBytes(32).toString('base64') }).env,
    'production',
  );
  // Outside production a weak key is the developer's business.
  assert.equal(loadConfig({ ELIG_ENV: 'development', ELIG_SECRET_KEY: 'x'.repeat(40) }).env, 'development');
});
