/**
 * Fair refill (issue 17): a day's schedule sent as single submits by clients that honour Retry-After gets
 * through, and no request is refused six times in a row. Simulated on a fake clock: clients send at once
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
): Run {
  const random = rng(seed);
  let now = 0;
  const limiter = new RateLimiter(limit, () => now);
  // Each client: the time it next sends, and its current request's refusals so far.
  const next = Array.from({ length: clients }, () => ({ at: 0, refusedInARow: 0 }));
  let sent = Math.min(clients, total);
  let done = 0;
  let maxRefusalsInARow = 0;
  let refusals = 0;
  while (done < total) {
    const c = next.filter((x) => x.at !== Number.POSITIVE_INFINITY).sort((a, b) => a.at - b.at)[0]!;
    now = c.at;
    try {
      limiter.take('key');
      done++;
      c.refusedInARow = 0;
      if (sent < total) {
        sent++;
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
      c.at = now + retryAfter * 1000 + random() * 20;
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
