/**
 * The scorecard's arithmetic (src/workers/payer-scorecard.ts): outcomes of calls, latency buckets and the
 * percentiles read from them, a card's shares, and the recorder's flush (what it writes, and that a failed
 * flush loses nothing). Store round trips are in test/store/payer-call-stats.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import type { Db } from '../../src/store/db.ts';
import { emptyCounts, LATENCY_BUCKETS_MS } from '../../src/store/payer-call-stats.ts';
import {
  latencyBucket,
  latencyPercentileMs,
  ScorecardRecorder,
  scorecardCard,
  scorecardOutcome,
} from '../../src/workers/payer-scorecard.ts';

const bucketsOf = (latencies: number[]) => {
  const b = emptyCounts().latencyBuckets;
  for (const ms of latencies) b[latencyBucket(ms)]!++;
  return b;
};

test('each call outcome counts as exactly one scorecard outcome', () => {
  assert.equal(scorecardOutcome('ok'), 'completed');
  assert.equal(scorecardOutcome('ok', ['75']), 'aaa');
  assert.equal(scorecardOutcome('transient', ['42']), 'aaa', 'a "try later" AAA is an answer by code');
  for (const o of ['transient', 'timeout', 'trace-mismatch', 'auth-failed'] as const)
    assert.equal(scorecardOutcome(o), 'transient', o);
  assert.equal(scorecardOutcome('rejected'), 'rejected');
  assert.equal(scorecardOutcome('unreadable'), 'error');
  assert.equal(scorecardOutcome('permanent'), 'error');
});

test('a latency falls in the first bucket whose bound it does not exceed; above the last, the overflow', () => {
  assert.equal(latencyBucket(0), 0);
  assert.equal(latencyBucket(50), 0);
  assert.equal(latencyBucket(50.5), 1);
  assert.equal(latencyBucket(60_000), LATENCY_BUCKETS_MS.length - 1);
  assert.equal(latencyBucket(60_001), LATENCY_BUCKETS_MS.length);
});

test('p50 and p95 from buckets: interpolated inside the bucket, the highest bound for the overflow', () => {
  // 100 calls evenly inside (100, 200]: the p50 is the middle of that bucket, the p95 near its top.
  const even = bucketsOf(Array.from({ length: 100 }, (_, k) => 101 + k));
  assert.equal(latencyPercentileMs(even, 0.5), 150);
  assert.equal(latencyPercentileMs(even, 0.95), 195);
  // 90 fast, 10 slow: the median is fast, the p95 in the slow bucket (1500, 2000].
  const mixed = bucketsOf([...Array(90).fill(40), ...Array(10).fill(1800)]);
  assert.equal(latencyPercentileMs(mixed, 0.5), Math.round(50 * (50 / 90)));
  assert.equal(latencyPercentileMs(mixed, 0.95), 1750);
  // Beyond the last bound nothing is known but that: the p95 reads as the last bound.
  assert.equal(latencyPercentileMs(bucketsOf([...Array(10).fill(90_000)]), 0.95), 60_000);
  assert.equal(latencyPercentileMs(emptyCounts().latencyBuckets, 0.5), undefined);
});

test("a card's shares add up, and a card without calls has no latency", () => {
  const counts = { ...emptyCounts(), calls: 8, completed: 5, aaa: 1, transient: 2, latencyTotalMs: 800 };
  counts.latencyBuckets = bucketsOf([...Array(8).fill(90)]);
  counts.sourcePayerRows = 3;
  counts.sourcePlanFallback = 1;
  const card = scorecardCard('P', counts);
  assert.deepEqual(card.outcomeShares, {
    completed: 0.625,
    aaa: 0.125,
    transient: 0.25,
    rejected: 0,
    error: 0,
  });
  assert.deepEqual(card.sourceShares, { 'payer-rows': 0.75, 'plan-fallback': 0.25, none: 0 });
  assert.equal(card.latencyMs.mean, 100);
  const empty = scorecardCard('Q', emptyCounts());
  assert.deepEqual(empty.latencyMs, { p50: null, p95: null, mean: null });
  assert.equal(empty.outcomeShares.completed, 0);
  assert.equal(empty.lastSuccessAt, null);
});

/** A store that records what the recorder writes, failing the first `failures` writes. */
function fakeDb(failures = 0) {
  /** Each flush's rows as the statement receives them (snake_case JSON). */
  const written: Record<string, unknown>[][] = [];
  let left = failures;
  const db = {
    query: async (_sql: string, params?: unknown[]) => {
      if (left-- > 0) throw new Error('database away');
      const rows = JSON.parse(String(params?.[0])) as Record<string, unknown>[];
      written.push(rows);
      return { rows: [], rowCount: rows.length };
    },
  } as unknown as Db;
  return { db, written };
}

test('the recorder writes one row per payer, connection and hour, with the AAA codes by code', async () => {
  const { db, written } = fakeDb();
  let now = new Date('2026-11-28T10:59:59Z');
  const recorder = new ScorecardRecorder({ db, log: pino({ level: 'silent' }), now: () => now });
  recorder.callMade({ payerId: 'A', connection: 'c', outcome: 'ok', durationMs: 120 });
  recorder.callMade({ payerId: 'A', connection: 'c', outcome: 'ok', aaaCodes: ['75', '??'], durationMs: 80 });
  recorder.callMade({ payerId: 'A', connection: 'd', outcome: 'timeout', durationMs: 20_000 });
  now = new Date('2026-11-28T11:00:00Z');
  recorder.callMade({ payerId: 'A', connection: 'c', outcome: 'rejected', durationMs: 10 });
  recorder.checkFinished({ payerId: 'A', connection: 'c', source: 'plan-fallback' });
  await recorder.flush();
  const rows = written[0]!;
  assert.equal(rows.length, 6, "3 of the payer, and the same 3 as each connection's own (payer '*')");
  const byKey = Object.fromEntries(rows.map((r) => [`${r.payer_id} ${r.connection} ${r.hour}`, r]));
  assert.deepEqual(Object.keys(byKey).sort(), [
    '* c 2026-11-28T10:00:00.000Z',
    '* c 2026-11-28T11:00:00.000Z',
    '* d 2026-11-28T10:00:00.000Z',
    'A c 2026-11-28T10:00:00.000Z',
    'A c 2026-11-28T11:00:00.000Z',
    'A d 2026-11-28T10:00:00.000Z',
  ]);
  const first = byKey['A c 2026-11-28T10:00:00.000Z']!;
  assert.deepEqual([first.calls, first.completed, first.aaa], [2, 1, 1]);
  assert.deepEqual(first.aaa_codes, { '75': 1, other: 1 }, 'a code that is not one counts as other');
  assert.equal(first.last_success_at, '2026-11-28T10:59:59.000Z');
  assert.deepEqual(
    byKey['* c 2026-11-28T10:00:00.000Z'],
    { ...first, payer_id: '*' },
    'the connection counts the same',
  );
  const next = byKey['A c 2026-11-28T11:00:00.000Z']!;
  assert.deepEqual([next.calls, next.rejected, next.source_plan_fallback], [1, 1, 1]);
  await recorder.flush();
  assert.equal(written.length, 1, 'nothing new: nothing written');
});

test('a failed flush keeps its counts for the next one, added to what came meanwhile', async () => {
  const { db, written } = fakeDb(1);
  const now = () => new Date('2026-11-28T10:00:00Z');
  const recorder = new ScorecardRecorder({ db, log: pino({ level: 'silent' }), now });
  recorder.callMade({ payerId: 'A', connection: 'c', outcome: 'ok', durationMs: 10 });
  await recorder.flush();
  assert.equal(written.length, 0);
  recorder.callMade({ payerId: 'A', connection: 'c', outcome: 'ok', durationMs: 10 });
  await recorder.stop();
  const rows = written[0]!;
  assert.deepEqual(
    rows.map((r) => [r.payer_id, r.calls]),
    [
      ['*', 2],
      ['A', 2],
    ],
  );
});
