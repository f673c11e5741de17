/** PayerGuard: the per-payer concurrency limit and circuit breaker, on a fake clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type BreakerState, PayerGuard, type PayerPermit } from '../../src/payers/guard.ts';

function guard(overrides: Partial<ConstructorParameters<typeof PayerGuard>[0]> = {}) {
  const clock = { t: 1_000_000 };
  const changes: BreakerState[] = [];
  const g = new PayerGuard({
    maxConcurrent: 2,
    failureThreshold: 3,
    openMs: 1_000,
    maxOpenMs: 3_000,
    now: () => clock.t,
    random: () => 0,
    onStateChange: (_payer, state) => changes.push(state),
    ...overrides,
  });
  return { g, clock, changes };
}

function granted(p: PayerPermit): Extract<PayerPermit, { ok: true }> {
  assert.ok(p.ok, `expected a permit, got ${JSON.stringify(p)}`);
  return p;
}

test('no more than maxConcurrent calls at once; a waiter inherits the released slot', async () => {
  const { g } = guard();
  const a = granted(await g.acquire('P', 0));
  const b = granted(await g.acquire('P', 0));
  const refused = await g.acquire('P', 0);
  assert.deepEqual(refused.ok ? 'granted' : refused.reason, 'busy');
  const waiting = g.acquire('P', 10_000);
  let settled = false;
  void waiting.then(() => (settled = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(settled, false, 'waits while both slots are taken');
  a.release('success');
  const c = granted(await waiting);
  // Still two in use (b and c): a third caller is refused.
  assert.equal((await g.acquire('P', 0)).ok, false);
  b.release('success');
  c.release('success');
  granted(await g.acquire('P', 0));
  // Other payers have their own slots.
  granted(await g.acquire('Q', 0));
});

test('a waiter gives up after its wait, and at once when aborted', async () => {
  const { g } = guard({ maxConcurrent: 1 });
  granted(await g.acquire('P', 0));
  const t0 = Date.now();
  const timedOut = await g.acquire('P', 30);
  assert.equal(timedOut.ok, false);
  assert.ok(Date.now() - t0 >= 25);
  const ac = new AbortController();
  const aborted = g.acquire('P', 60_000, ac.signal);
  ac.abort();
  assert.equal((await aborted).ok, false);
});

test('consecutive failures open the breaker; the open period defers callers; a trial closes it', async () => {
  const { g, clock, changes } = guard();
  for (let i = 0; i < 2; i++) granted(await g.acquire('P', 0)).release('failure');
  assert.equal(g.state('P'), 'closed');
  granted(await g.acquire('P', 0)).release('success'); // a success resets the count
  for (let i = 0; i < 3; i++) granted(await g.acquire('P', 0)).release('failure');
  assert.equal(g.state('P'), 'open');
  const deferred = await g.acquire('P', 0);
  assert.ok(!deferred.ok && deferred.reason === 'circuit-open');
  assert.equal(deferred.retryInMs, 1_000);
  clock.t += 400;
  const later = await g.acquire('P', 0);
  assert.ok(!later.ok && later.retryInMs === 600, 'retry when the open period ends');

  clock.t += 600;
  const trial = granted(await g.acquire('P', 0));
  assert.equal(g.state('P'), 'half-open');
  const second = await g.acquire('P', 0);
  assert.ok(!second.ok && second.reason === 'circuit-open', 'one trial call at a time');
  trial.release('success');
  assert.equal(g.state('P'), 'closed');
  granted(await g.acquire('P', 0));
  assert.deepEqual(changes, ['open', 'half-open', 'closed']);
});

test('a failed trial reopens for twice as long, up to the cap; neutral results change nothing', async () => {
  const { g, clock } = guard();
  for (let i = 0; i < 3; i++) granted(await g.acquire('P', 0)).release('failure');
  const periods: number[] = [];
  for (let round = 0; round < 4; round++) {
    const refused = await g.acquire('P', 0);
    assert.ok(!refused.ok);
    periods.push(refused.retryInMs);
    clock.t += refused.retryInMs;
    granted(await g.acquire('P', 0)).release('failure');
  }
  assert.deepEqual(periods, [1_000, 2_000, 3_000, 3_000]);
  const refused = await g.acquire('P', 0);
  assert.ok(!refused.ok);
  clock.t += refused.retryInMs;
  granted(await g.acquire('P', 0)).release('neutral'); // e.g. shutdown: no verdict on the payer
  assert.equal(g.state('P'), 'half-open');
  granted(await g.acquire('P', 0)).release('success');
  assert.equal(g.state('P'), 'closed');
});

test('jitter only ever delays past the open period (up to +20 %)', async () => {
  const { g } = guard({ random: () => 0.999 });
  for (let i = 0; i < 3; i++) granted(await g.acquire('P', 0)).release('failure');
  const refused = await g.acquire('P', 0);
  assert.ok(!refused.ok && refused.retryInMs >= 1_000 && refused.retryInMs <= 1_200);
});

test('callers waiting for a slot when the breaker opens do not call the payer', async () => {
  const { g } = guard({ maxConcurrent: 1, failureThreshold: 1 });
  const first = granted(await g.acquire('P', 0));
  const waiting = [g.acquire('P', 10_000), g.acquire('P', 10_000), g.acquire('P', 10_000)];
  first.release('failure'); // opens the breaker and hands the slot to the first waiter
  const results = await Promise.all(waiting);
  for (const r of results) assert.ok(!r.ok && r.reason === 'circuit-open', JSON.stringify(r));
  assert.equal(g.state('P'), 'open');
});

test('refused credentials open the breaker at once and stay reported until a call succeeds', async () => {
  const { g, clock, changes } = guard();
  granted(await g.acquire('P', 0)).release('auth-failure');
  assert.equal(g.state('P'), 'open', 'no waiting for failureThreshold failures');
  assert.deepEqual(changes, ['open']);
  assert.deepEqual(g.authFailures(), [{ payer: 'P', since: new Date(clock.t) }]);
  const refused = await g.acquire('P', 0);
  assert.deepEqual(refused, { ok: false, reason: 'auth-failed', retryInMs: 1_000 });
  assert.equal(g.openForMs('P'), 1_000);
  assert.equal(g.openForMs('Q'), 0);
  clock.t += 1_000;
  // The trial call is refused again: open for twice as long, still reported.
  granted(await g.acquire('P', 0)).release('auth-failure');
  assert.equal(g.openForMs('P'), 2_000);
  assert.equal(g.authFailures().length, 1);
  clock.t += 2_000;
  granted(await g.acquire('P', 0)).release('success');
  assert.equal(g.state('P'), 'closed');
  assert.deepEqual(g.authFailures(), []);
  // An outage that follows is an ordinary one again.
  granted(await g.acquire('P', 0)).release('failure');
  assert.equal(g.state('P'), 'closed');
});

test("a payer's own concurrency limit replaces maxConcurrent for it alone", async () => {
  const { g } = guard({ maxConcurrent: 3, concurrencyOf: (p) => (p === 'ONE' ? 1 : undefined) });
  granted(await g.acquire('ONE', 0));
  assert.deepEqual((await g.acquire('ONE', 0)).ok, false);
  for (let i = 0; i < 3; i++) granted(await g.acquire('OTHER', 0));
  assert.deepEqual((await g.acquire('OTHER', 0)).ok, false);
});
