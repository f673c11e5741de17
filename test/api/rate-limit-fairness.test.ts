/**
 * Fair refill (issue 17): a day's schedule sent as single submits by clients that honour Retry-After gets
 * through, and no request is refused six times in a row; with Idempotency-Keys, never twice (issue 26). Simulated on a fake clock: clients send at once
 * when they may, and after a 429 wait exactly the Retry-After they were given.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import { RateLimiter } from '../../src/api/rate-limit.ts';

interface Run {
  maxRefusalsInARow: number;
  finishedAtMs: number;
  refusals: number;
}

/** A seeded generator, so a failure replays. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * `total` submits by `clients` concurrent clients; an admitted request takes 2-30 ms before the client
 * sends its next, and every answer reaches the client 0-20 ms late (network), so returns interleave.
 */
function simulate(
  limit: { ratePerSecond: number; burst: number },
  clients: number,
  total: number,
  seed = 1,
  options: { idempotencyKeys?: boolean; networkMs?: number } = {},
): Run {
  const networkMs = options.networkMs ?? 20;
  const random = rng(seed);
  let now = 0;
  const limiter = new RateLimiter(limit, () => now);
  // Each client: the time it next sends, and its current request's refusals so far.
  const next = Array.from({ length: clients }, (_, i) => ({ at: 0, refusedInARow: 0, request: `r${i}` }));
  let sent = Math.min(clients, total);
  let done = 0;
  let maxRefusalsInARow = 0;
  let refusals = 0;
  while (done < total) {
    const c = next.filter((x) => x.at !== Number.POSITIVE_INFINITY).sort((a, b) => a.at - b.at)[0]!;
    now = c.at;
    try {
      limiter.take('key', options.idempotencyKeys ? { idempotencyKey: c.request } : {});
      done++;
      c.refusedInARow = 0;
      if (sent < total) {
        sent++;
        c.request = `r${sent}`;
        c.at = now + 2 + random() * 28;
      } else {
        c.at = Number.POSITIVE_INFINITY;
      }
    } catch (err) {
      assert.ok(err instanceof ApiError && err.statusCode === 429);
      refusals++;
      c.refusedInARow++;
      maxRefusalsInARow = Math.max(maxRefusalsInARow, c.refusedInARow);
      const retryAfter = Number(err.headers['retry-after']);
      assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${retryAfter}`);
      c.at = now + retryAfter * 1000 + random() * networkMs;
    }
  }
  return { maxRefusalsInARow, finishedAtMs: now, refusals };
}

test('200 submits at concurrency 20 under the default limit: never refused six times in a row', () => {
  const run = simulate({ ratePerSecond: 20, burst: 40 }, 20, 200);
  assert.ok(run.maxRefusalsInARow < 6, JSON.stringify(run));
  // 40 at once, then 20 a second: about 8 s; fair refill wastes little of it.
  assert.ok(run.finishedAtMs < 12_000, JSON.stringify(run));
});

test("a day's schedule (2,000 submits at concurrency 50) gets through with few repeated refusals", () => {
  for (const [clients, total, seed] of [
    [20, 200, 2],
    [20, 200, 3],
    [20, 1000, 4],
    [50, 2000, 1],
    [50, 2000, 2],
  ] as const) {
    const run = simulate({ ratePerSecond: 20, burst: 40 }, clients, total, seed);
    assert.ok(run.maxRefusalsInARow < 6, JSON.stringify(run));
    assert.ok(run.finishedAtMs < (total / 20) * 1000 * 1.3, JSON.stringify(run));
  }
});

test('Retry-After is computed from the bucket: a slow refill asks for a longer wait', () => {
  let now = 0;
  const limiter = new RateLimiter({ ratePerSecond: 0.2, burst: 1 }, () => now);
  limiter.take('k');
  now = 100;
  const err = (() => {
    try {
      limiter.take('k');
    } catch (e) {
      return e as ApiError;
    }
  })();
  assert.equal(err?.headers['retry-after'], '5', 'one token every 5 s');
});

test('a refused request that comes back when told is admitted, even if others asked meanwhile', () => {
  let now = 0;
  const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1 }, () => now);
  const retryAfter = () => {
    try {
      limiter.take('k');
      return 0;
    } catch (e) {
      return Number((e as ApiError).headers['retry-after']);
    }
  };
  assert.equal(retryAfter(), 0, 'the burst');
  assert.equal(retryAfter(), 1, 'first refused: 1 s');
  now = 10;
  assert.equal(retryAfter(), 2, 'second refused: after the first, 2 s');
  now = 500;
  assert.equal(retryAfter(), 3, 'someone asking in between is queued behind both');
  now = 1000;
  assert.equal(retryAfter(), 0, 'the first comes back and is admitted');
  now = 2010;
  assert.equal(retryAfter(), 0, 'the second too');
});

test('400 submits at concurrency 40 with Idempotency-Keys: no request is refused twice in a row (issue 26)', () => {
  // N = 1: a retry carrying the Idempotency-Key of a refused request finds the token booked for it, which
  // no other request can spend; it comes back no earlier than told (its wait starts when it hears the
  // 429), so it is admitted. Without the key a fresh request arriving just before it may spend that token.
  for (const networkMs of [20, 200]) {
    for (let seed = 1; seed <= 8; seed++) {
      const limit = { ratePerSecond: 20, burst: 40 };
      const run = simulate(limit, 40, 400, seed, { idempotencyKeys: true, networkMs });
      assert.ok(run.maxRefusalsInARow <= 1, JSON.stringify({ seed, networkMs, ...run }));
      assert.ok(run.finishedAtMs < (400 / 20) * 1000 * 1.3, JSON.stringify(run));
    }
  }
  // The same load without Idempotency-Keys: tokens are spent by whoever comes first, and some request is
  // refused again after waiting as told (what the key prevents).
  const anonymous = simulate({ ratePerSecond: 20, burst: 40 }, 40, 400, 1, { networkMs: 200 });
  assert.ok(anonymous.maxRefusalsInARow > 1, JSON.stringify(anonymous));
});

test('a retry that comes back early is told to wait for its own token again, not booked a second one', () => {
  let now = 0;
  const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1 }, () => now);
  const retryAfter = (idempotencyKey: string) => {
    try {
      limiter.take('k', { idempotencyKey });
      return 0;
    } catch (e) {
      return Number((e as ApiError).headers['retry-after']);
    }
  };
  assert.equal(retryAfter('a'), 0, 'the burst');
  assert.equal(retryAfter('b'), 1, 'b books the next token');
  now = 500;
  assert.equal(retryAfter('b'), 1, 'b early: wait for the same token');
  assert.equal(retryAfter('c'), 2, 'c books the one after b (b did not book twice)');
  now = 1000;
  assert.equal(retryAfter('c'), 2, "b's token, due now, is not c's: c waits for its own");
  assert.equal(retryAfter('b'), 0, 'b is admitted with its token');
  now = 2500;
  assert.equal(retryAfter('c'), 0);
});

test('the per-organization limit is shared by its keys; refused there, the key keeps its token', () => {
  let now = 0;
  const limiter = new RateLimiter({ ratePerSecond: 1, burst: 2 }, () => now, { ratePerSecond: 1, burst: 3 });
  const org = { organizationId: 'org_a' };
  assert.ok(limiter.take('k1', org));
  assert.ok(limiter.take('k1', org));
  assert.ok(limiter.take('k2', org));
  assert.throws(() => limiter.take('k2', org), /per organization/);
  assert.ok(limiter.take('k3', { organizationId: 'org_b' }), 'another organization is not affected');
  now = 1000;
  assert.ok(limiter.take('k2', org), "k2's token was given back when its organization refused");
  assert.throws(() => limiter.take('k1', org), /per organization/, 'k1 has a token, its organization none');
  assert.throws(() => limiter.take('k1', org), /per organization/, 'and keeps it while refused there');
});
