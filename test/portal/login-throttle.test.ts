/**
 * The sign-in throttle on the real table (PGlite, or PostgreSQL with DATABASE_URL): backoff with a clock the
 * tests move, atomic reservations under parallel attempts, keys that hold no email or address, survival
 * across a restart on the same data, and pruning.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, beforeEach, test } from 'node:test';
import type { Config } from '../../src/config.ts';
import {
  ACCOUNT_POLICY,
  LoginThrottle,
  UNKNOWN_ACCOUNT_ADDRESS_POLICY,
} from '../../src/portal/login-throttle.ts';
import { ATTEMPTS_FORGOTTEN_AFTER_MS, pruneLoginAttempts } from '../../src/store/login-attempts.ts';
import { openStore, type Store } from '../../src/store/open.ts';
import { dropTestSchema, testConfig } from '../helpers/service.ts';

const MINUTE = 60_000;
const EMAIL = 'front.desk@clinic.example';
const ADDRESS = '203.0.113.9';
const hmacKey = randomBytes(32);

let config: Config;
let store: Store;
const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
const throttle = () => new LoginThrottle(store.db, hmacKey, () => clock.now);

before(async () => {
  config = testConfig();
  store = await openStore(config);
});
after(async () => {
  await store.close();
  await dropTestSchema(config);
  rmSync(config.dataDir, { recursive: true, force: true });
});
beforeEach(async () => {
  await store.db.query('DELETE FROM login_attempts');
});

async function reserveTimes(t: LoginThrottle, n: number, email = EMAIL) {
  const results = [];
  for (let i = 0; i < n; i++) results.push(await t.reserveAccount(email));
  return results;
}

test('an account gets 5 attempts, then waits 1, 2, 4, 8 minutes, then never more than 15', async () => {
  const t = throttle();
  assert.equal(ACCOUNT_POLICY.freeAttempts, 5);
  const free = await reserveTimes(t, 5);
  assert.ok(free.every((r) => r.allowed));
  const waits: number[] = [];
  for (let i = 0; i < 7; i++) {
    const refused = await t.reserveAccount(EMAIL);
    assert.equal(refused.allowed, false);
    const wait = refused.allowed ? 0 : refused.retryAfterSeconds;
    waits.push(wait);
    clock.now += (wait - 1) * 1000;
    assert.equal((await t.reserveAccount(EMAIL)).allowed, false, 'one second early is still too early');
    clock.now += 1000;
    assert.equal((await t.reserveAccount(EMAIL)).allowed, true, `attempt ${6 + i} after ${wait} s`);
  }
  assert.deepEqual(waits, [60, 120, 240, 480, 900, 900, 900]);
  // Another account, and the same email typed later by someone else, are throttled on their own.
  assert.equal((await t.reserveAccount('someone.else@clinic.example')).allowed, true);
});

test('a success starts the account from zero; an hour without attempts forgets it too', async () => {
  const t = throttle();
  await reserveTimes(t, 4);
  await t.signedIn(EMAIL);
  assert.ok(
    (await reserveTimes(t, 5)).every((r) => r.allowed),
    '5 fresh attempts after a success',
  );
  assert.equal((await t.reserveAccount(EMAIL)).allowed, false);
  clock.now += ATTEMPTS_FORGOTTEN_AFTER_MS + 1;
  assert.ok(
    (await reserveTimes(t, 5)).every((r) => r.allowed),
    '5 fresh attempts after an idle hour',
  );
  assert.equal((await t.reserveAccount(EMAIL)).allowed, false);
});

test('60 parallel attempts on one account reserve exactly 5', async () => {
  const t = throttle();
  const results = await Promise.all(Array.from({ length: 60 }, () => t.reserveAccount(EMAIL)));
  assert.equal(results.filter((r) => r.allowed).length, 5);
  for (const r of results.filter((x) => !x.allowed)) {
    assert.equal(r.allowed ? 0 : r.retryAfterSeconds, 60);
  }
  const { rows } = await store.db.query<{ attempts: number }>('SELECT attempts FROM login_attempts');
  assert.deepEqual(rows, [{ attempts: 5 }]);
});

test('an address gets 50 checks of passwords typed for unknown emails, then a wait; in parallel too', async () => {
  const t = throttle();
  assert.equal(UNKNOWN_ACCOUNT_ADDRESS_POLICY.freeAttempts, 50);
  const results = await Promise.all(Array.from({ length: 80 }, () => t.reserveUnknownAccountCheck(ADDRESS)));
  assert.equal(results.filter(Boolean).length, 50);
  assert.equal(await t.reserveUnknownAccountCheck('203.0.113.10'), true, 'another address');
  clock.now += MINUTE;
  assert.equal(await t.reserveUnknownAccountCheck(ADDRESS), true, 'one more after a minute');
  assert.equal(await t.reserveUnknownAccountCheck(ADDRESS), false);
  // The address cap and an account's count are separate rows: the account typed from there is untouched.
  assert.equal((await t.reserveAccount(EMAIL)).allowed, true);
});

test('the table holds HMACs of the email and address, never the values', async () => {
  const t = throttle();
  await t.reserveAccount(EMAIL);
  await t.reserveUnknownAccountCheck(ADDRESS);
  const { rows } = await store.db.query<{ row: string }>(
    'SELECT row_to_json(a)::text AS row FROM login_attempts a',
  );
  assert.equal(rows.length, 2);
  for (const { row } of rows) {
    assert.doesNotMatch(row, /clinic\.example|front|203\.0\.113/);
    assert.match(row, /"key":"(account|address):[0-9a-f]{64}"/);
  }
  assert.ok(rows.some((r) => r.row.includes(t.accountKey(EMAIL))));
  // Another deployment's key gives other keys: the table cannot be matched against a list of emails.
  assert.notEqual(new LoginThrottle(store.db, randomBytes(32)).accountKey(EMAIL), t.accountKey(EMAIL));
});

test('a wait survives a restart on the same data directory or schema', async () => {
  await reserveTimes(throttle(), 5);
  await store.close();
  store = await openStore(config);
  const after = await throttle().reserveAccount(EMAIL);
  assert.deepEqual(after, { allowed: false, retryAfterSeconds: 60 });
});

test('pruning deletes rows untouched for an hour and keeps the rest', async () => {
  const t = throttle();
  await t.reserveAccount('old@clinic.example');
  await t.reserveUnknownAccountCheck('198.51.100.1');
  clock.now += ATTEMPTS_FORGOTTEN_AFTER_MS + 1;
  await reserveTimes(t, 5);
  assert.equal(await pruneLoginAttempts(store.db, new Date(clock.now)), 2);
  const { rows } = await store.db.query<{ key: string }>('SELECT key FROM login_attempts');
  assert.deepEqual(
    rows.map((r) => r.key),
    [t.accountKey(EMAIL)],
  );
  assert.equal((await t.reserveAccount(EMAIL)).allowed, false, 'the recent block is still there');
});
