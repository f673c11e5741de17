import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
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

/**
 * Seeded bytes (SHA-256 in counter mode), so the draws are random-looking yet the same on every run: a
 * 32-hex key carries exactly 128 bits, and about one true random draw in several million lands below the
 * bar (one did, in CI: eleven 2s among 32 characters). The property holds for these 21,000 draws, always.
 */
function seededBytes(seed: string): (n: number) => Buffer {
  let counter = 0;
  return (n) => {
    const blocks: Buffer[] = [];
    for (let have = 0; have < n; have += 32)
      blocks.push(createHash('sha256').update(`${seed}:${counter++}`).digest());
    return Buffer.concat(blocks).subarray(0, n);
  };
}

test('random keys of the usual shapes are accepted', () => {
  // Over 1,000,000 true random 32-hex draws the estimate's minimum was 133 bits (median 165).
  const bytes = seededBytes('secret-strength');
  const shapes: Record<string, () => string> = {
    'openssl rand -hex 16': () => bytes(16).toString('hex'),
    'openssl rand -hex 32': () => bytes(32).toString('hex'),
    'openssl rand -base64 24': () => bytes(24).toString('base64'),
    'openssl rand -base64 32': () => bytes(32).toString('base64'),
    'base64url of 32 bytes': () => bytes(32).toString('base64url'),
    'upper-case hex': () => bytes(16).toString('hex').toUpperCase(),
  };
  for (const [shape, draw] of Object.entries(shapes)) {
    for (let i = 0; i < 3000; i++) {
      const key = draw();
      assert.equal(secretKeyWeakness(key), undefined, `${shape}: ${key}`);
    }
  }
});

test('the generated development key is always accepted', () => {
  // 48 base-62 characters are ~286 bits, far above the bar, so true random draws are safe here.
  for (let i = 0; i < 3000; i++) {
    const key = randomBase62(48);
    assert.equal(secretKeyWeakness(key), undefined, key);
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
