/**
 * The statements behind account-wide connection limits (src/store/queue/connection-slot-take.ts,
 * connection-state.ts), run on the store of this test run, and the limiter over the database store as two
 * processes would use it (two limiters, two holders, one table).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { DatabaseLimitStore } from '../../src/directory/limit-store.ts';
import { ConnectionLimiter, HAND_OFF_MS, LocalLimitStore } from '../../src/payers/limits.ts';
import { openStore, type Store } from '../../src/store/open.ts';
import {
  ensureConnectionSlots,
  releaseConnectionSlot,
  takeConnectionSlot,
} from '../../src/store/queue/connection-slot-take.ts';
import {
  ensureConnectionState,
  pauseConnection,
  takeConnectionToken,
} from '../../src/store/queue/connection-state.ts';
import { dropTestSchema, testConfig } from '../helpers/service.ts';

const config = testConfig();
let store: Store;

before(async () => {
  store = await openStore(config);
});

after(async () => {
  await store.close();
  await dropTestSchema(config);
});

test('slots: at most `concurrency` holders at once; a released or expired slot is free again', async () => {
  const db = store.db;
  await ensureConnectionSlots(db, 'acct', 3);
  await ensureConnectionSlots(db, 'acct', 3); // idempotent
  const taken = await Promise.all(
    [1, 2, 3, 4].map((n) => takeConnectionSlot(db, 'acct', 3, `w${n}`, 60_000)),
  );
  const slots = taken.filter((t) => 'slot' in t).map((t) => (t as { slot: number }).slot);
  assert.deepEqual(slots.sort(), [0, 1, 2]);
  assert.equal(taken.filter((t) => 'busy' in t).length, 1);
  const holderOf0 = ['w1', 'w2', 'w3', 'w4'][taken.findIndex((t) => 'slot' in t && t.slot === 0)]!;
  await releaseConnectionSlot(db, 'acct', 0, 'someone-else'); // only the holder can release
  assert.ok('busy' in (await takeConnectionSlot(db, 'acct', 3, 'w5', 60_000)));
  await releaseConnectionSlot(db, 'acct', 0, holderOf0);
  assert.deepEqual(await takeConnectionSlot(db, 'acct', 3, 'w5', 60_000), { slot: 0 });
  // A lowered limit applies at once: slots at or above it are not handed out.
  await ensureConnectionSlots(db, 'short', 2);
  assert.deepEqual(await takeConnectionSlot(db, 'short', 2, 'a', 1), { slot: 0 });
  await new Promise((r) => setTimeout(r, 20));
  // The holder of slot 0 held it for 1 ms and is gone: its slot is free again.
  assert.deepEqual(await takeConnectionSlot(db, 'short', 1, 'b', 60_000), { slot: 0 });
  assert.ok('busy' in (await takeConnectionSlot(db, 'short', 1, 'c', 60_000)));
});

test('a paused connection gives no slot until the pause ends, and a pause only ever moves later', async () => {
  const db = store.db;
  await ensureConnectionSlots(db, 'paused', 2);
  const until = Date.now() + 2_000;
  await pauseConnection(db, 'paused', until);
  await pauseConnection(db, 'paused', Date.now() + 50); // shorter: ignored
  const take = await takeConnectionSlot(db, 'paused', 2, 'w', 60_000);
  const left = until - Date.now();
  assert.ok('pausedForMs' in take && take.pausedForMs >= left - 50, JSON.stringify({ take, left }));
  await new Promise((r) => setTimeout(r, until - Date.now() + 50));
  assert.deepEqual(await takeConnectionSlot(db, 'paused', 2, 'w', 60_000), { slot: 0 });
});

test('tokens: a burst of `rate`, then about `rate` per second, never two spends of one token', async () => {
  const db = store.db;
  // 0.5 a second, so the time the statements themselves take adds (almost) nothing.
  const made = Date.now();
  await ensureConnectionState(db, 'rated', 4);
  const spent = await Promise.all(Array.from({ length: 10 }, () => takeConnectionToken(db, 'rated', 0.5, 4)));
  const grown = Math.floor((0.5 * (Date.now() - made)) / 1000);
  assert.equal(spent.filter(Boolean).length, Math.min(10, 4 + grown), 'the burst, and not one more');
  const emptied = Date.now();
  await new Promise((r) => setTimeout(r, 2_100)); // 0.5/s × 2.1 s = 1.05 tokens, more if the machine is slow
  const later = await Promise.all(Array.from({ length: 5 }, () => takeConnectionToken(db, 'rated', 0.5, 4)));
  const refilled = Math.min(4, Math.ceil((0.5 * (Date.now() - emptied)) / 1000));
  const n = later.filter(Boolean).length;
  assert.ok(n >= 1 && n <= refilled, `${n} tokens after the refill; at most ${refilled} had grown`);
});

for (const [name, makeStore] of [
  ['memory', () => new LocalLimitStore()],
  ['database', () => new DatabaseLimitStore(store.db)],
] as const) {
  test(`limiter (${name} store): two processes sharing a limit of 2 never run more than 2 calls at once`, async () => {
    const shared = makeStore();
    const connection = `two-${name}`;
    const a = new ConnectionLimiter({ store: shared, holder: 'proc-a', holdMs: 10_000, pollMs: 5 });
    const b = new ConnectionLimiter({ store: shared, holder: 'proc-b', holdMs: 10_000, pollMs: 5 });
    let running = 0;
    let peak = 0;
    let done = 0;
    const call = async (limiter: ConnectionLimiter) => {
      // As a worker does: a refusal (the process has enough calls queued) comes back when it says.
      let permit = await limiter.acquire(connection, { concurrency: 2 }, 5_000);
      while (!permit.ok) {
        assert.equal(permit.reason, 'busy');
        await new Promise((r) => setTimeout(r, permit.ok ? 0 : Math.min(permit.retryInMs, 50)));
        permit = await limiter.acquire(connection, { concurrency: 2 }, 5_000);
      }
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
      done++;
      permit.release();
    };
    await Promise.all(Array.from({ length: 30 }, (_, i) => call(i % 2 ? a : b)));
    assert.equal(done, 30);
    assert.equal(peak, 2);
  });
}

test('limiter: a refusal when no slot frees in time, and a 429 pauses every process', async () => {
  const shared = new LocalLimitStore();
  const a = new ConnectionLimiter({ store: shared, holder: 'a', holdMs: 10_000, pollMs: 5 });
  const b = new ConnectionLimiter({ store: shared, holder: 'b', holdMs: 10_000, pollMs: 5 });
  const held = await a.acquire('one', { concurrency: 1 }, 100);
  assert.ok(held.ok);
  const refused = await b.acquire('one', { concurrency: 1 }, 30);
  assert.equal(refused.ok, false);
  held.release();
  // Past the hand-off window a release goes back to the store, where the other process finds it.
  assert.ok(HAND_OFF_MS > 0);
  assert.ok((await b.acquire('one', { concurrency: 1 }, 100)).ok);
  await a.throttled('paused', 300);
  const paused = await b.acquire('paused', { concurrency: 5 }, 1_000);
  assert.ok(!paused.ok && paused.retryInMs > 100 && paused.retryInMs <= 300, JSON.stringify(paused));
  // A connection without limits is never counted.
  assert.ok((await a.acquire('free', undefined, 0)).ok);
});

test('limiter: while every slot is held elsewhere, one waiter per process polls the store, not each of them', async () => {
  const local = new LocalLimitStore();
  let takes = 0;
  const counting = {
    prepare: local.prepare.bind(local),
    take: (...args: Parameters<LocalLimitStore['take']>) => {
      takes++;
      return local.take(...args);
    },
    release: local.release.bind(local),
    token: local.token.bind(local),
    pause: local.pause.bind(local),
  };
  const other = new ConnectionLimiter({ store: counting, holder: 'other', holdMs: 10_000, pollMs: 10 });
  const held = await other.acquire('full', { concurrency: 1 }, 100);
  assert.ok(held.ok);
  takes = 0;
  const me = new ConnectionLimiter({ store: counting, holder: 'me', holdMs: 10_000, pollMs: 10 });
  const waitMs = 300;
  const waiters = Array.from({ length: 10 }, () => me.acquire('full', { concurrency: 1 }, waitMs));
  await new Promise((r) => setTimeout(r, waitMs / 2));
  // Another process frees its slot: one waiter here gets it, the others keep waiting.
  held.release();
  const permits = await Promise.all(waiters);
  const granted = permits.filter((p) => p.ok);
  assert.equal(granted.length >= 1, true, 'the freed slot reached a waiter');
  for (const p of granted) if (p.ok) p.release();
  // Ten arrivals ask once each; then one poller asks at most every 10 ms for 300 ms (≤ 30), and each
  // waiter asks again once when woken without a slot. Ten waiters polling on their own asked 77 times.
  assert.ok(takes <= 10 + 30 + 2 * 10, `the store was asked ${takes} times`);
});
