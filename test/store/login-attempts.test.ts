/** src/store/login-attempts.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prefixedId } from '../../src/ids.ts';
import {
  ATTEMPTS_FORGOTTEN_AFTER_MS,
  clearLoginAttempts,
  pruneLoginAttempts,
  reserveLoginAttempt,
} from '../../src/store/login-attempts.ts';
import { openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const POLICY = { freeAttempts: 3, firstWaitMs: 1000, maxWaitMs: 8000 };
const at = (start: Date, ms: number) => new Date(start.getTime() + ms);

test('free attempts are counted, then each further one waits twice as long, up to the longest wait', async () => {
  const { db } = store;
  const key = prefixedId('k');
  const t0 = new Date('2026-11-28T10:00:00Z');
  assert.deepEqual(await reserveLoginAttempt(db, key, POLICY, t0), { allowed: true, attempt: 1 });
  assert.deepEqual(await reserveLoginAttempt(db, key, POLICY, at(t0, 1)), { allowed: true, attempt: 2 });
  assert.deepEqual(await reserveLoginAttempt(db, key, POLICY, at(t0, 2)), { allowed: true, attempt: 3 });
  // Reserving the third started the first wait (1 s from its time).
  assert.deepEqual(await reserveLoginAttempt(db, key, POLICY, at(t0, 500)), {
    allowed: false,
    retryAt: at(t0, 1002),
  });
  assert.deepEqual(await reserveLoginAttempt(db, key, POLICY, at(t0, 1002)), { allowed: true, attempt: 4 });
  assert.deepEqual(await reserveLoginAttempt(db, key, POLICY, at(t0, 1003)), {
    allowed: false,
    retryAt: at(t0, 1002 + 2000),
  });
  await clearLoginAttempts(db, key);
  assert.deepEqual(await reserveLoginAttempt(db, key, POLICY, at(t0, 1004)), { allowed: true, attempt: 1 });
});

test('forgotten rows are pruned; recent ones stay', async () => {
  const { db } = store;
  const old = prefixedId('k');
  const recent = prefixedId('k');
  const now = new Date();
  await reserveLoginAttempt(db, old, POLICY, at(now, -ATTEMPTS_FORGOTTEN_AFTER_MS - 60_000));
  await reserveLoginAttempt(db, recent, POLICY, now);
  assert.ok((await pruneLoginAttempts(db, now)) >= 1);
  const { rows } = await db.query<{ key: string }>('SELECT key FROM login_attempts WHERE key = ANY($1)', [
    [old, recent],
  ]);
  assert.deepEqual(
    rows.map((r) => r.key),
    [recent],
  );
});
