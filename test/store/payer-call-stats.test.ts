/**
 * The scorecard's table on the store the tests run on (PGlite, or PostgreSQL with DATABASE_URL): an upsert
 * adds counts, buckets and AAA codes to what is there; two recorders (two worker processes) add up; a window
 * reads summed lines most calls first, paginated; old hours are pruned.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { Db } from '../../src/store/db.ts';
import { openStore, type Store } from '../../src/store/open.ts';
import {
  addPayerCallStats,
  emptyCounts,
  LATENCY_BUCKETS_MS,
  type PayerCallStatsRow,
  prunePayerCallStats,
  readScorecard,
  topPayersByCalls,
} from '../../src/store/payer-call-stats.ts';
import { ScorecardRecorder } from '../../src/workers/payer-scorecard.ts';
import { dropTestSchema, testConfig } from '../helpers/service.ts';

const config = testConfig();
let store: Store;
let db: Db;
before(async () => {
  store = await openStore(config);
  db = store.db;
});
after(async () => {
  await store.close();
  await dropTestSchema(config);
  rmSync(config.dataDir, { recursive: true, force: true });
});

const HOUR = new Date('2026-11-28T10:00:00Z');
const LONG_AGO = new Date('2026-01-01T00:00:00Z');

function row(payerId: string, connection: string, hour: Date, fill: Partial<PayerCallStatsRow>) {
  return { payerId, connection, hour, ...emptyCounts(), ...fill };
}

const buckets = (entries: [number, number][]) => {
  const b = emptyCounts().latencyBuckets;
  for (const [k, n] of entries) b[k] = n;
  return b;
};

test('an upsert adds to the row: counts, buckets element by element, AAA codes by code, the later success', async () => {
  const first = new Date('2026-11-28T10:05:00Z');
  const later = new Date('2026-11-28T10:40:00Z');
  await addPayerCallStats(db, [
    row('P-UPSERT', 'stedi', HOUR, {
      calls: 3,
      completed: 1,
      aaa: 2,
      aaaCodes: { '75': 1, '72': 1 },
      latencyBuckets: buckets([
        [0, 2],
        [5, 1],
      ]),
      latencyTotalMs: 600,
      sourcePayerRows: 1,
      lastSuccessAt: later,
    }),
  ]);
  await addPayerCallStats(db, [
    row('P-UPSERT', 'stedi', HOUR, {
      calls: 2,
      transient: 1,
      rejected: 1,
      aaaCodes: { '75': 4 },
      latencyBuckets: buckets([
        [5, 1],
        [16, 1],
      ]),
      latencyTotalMs: 70_500,
      sourcePlanFallback: 2,
      sourceNone: 1,
      lastSuccessAt: first,
    }),
  ]);
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT calls, completed, aaa, transient, rejected, aaa_codes, latency_buckets, latency_total_ms::int AS ms,
            source_payer_rows, source_plan_fallback, source_none, last_success_at
       FROM payer_call_stats WHERE payer_id = 'P-UPSERT'`,
  );
  assert.equal(rows.length, 1);
  const r = rows[0]!;
  assert.deepEqual([r.calls, r.completed, r.aaa, r.transient, r.rejected, r.ms], [5, 1, 2, 1, 1, 71_100]);
  assert.deepEqual(r.aaa_codes, { '75': 5, '72': 1 });
  assert.deepEqual(
    r.latency_buckets,
    buckets([
      [0, 2],
      [5, 2],
      [16, 1],
    ]),
  );
  assert.equal((r.latency_buckets as number[]).length, LATENCY_BUCKETS_MS.length + 1);
  assert.deepEqual([r.source_payer_rows, r.source_plan_fallback, r.source_none], [1, 2, 1]);
  assert.equal((r.last_success_at as Date).toISOString(), later.toISOString(), 'the later success stays');
});

test('two recorders (two worker processes) flushing the same payer and hour add up', async () => {
  const log = pino({ level: 'silent' });
  const now = () => new Date('2026-11-28T11:30:00Z');
  const a = new ScorecardRecorder({ db, log, now });
  const b = new ScorecardRecorder({ db, log, now });
  for (let k = 0; k < 7; k++)
    a.callMade({ payerId: 'P-TWO', connection: 'c1', outcome: 'ok', durationMs: 80 });
  a.callMade({ payerId: 'P-TWO', connection: 'c1', outcome: 'ok', aaaCodes: ['75'], durationMs: 400 });
  for (let k = 0; k < 4; k++)
    b.callMade({ payerId: 'P-TWO', connection: 'c1', outcome: 'timeout', durationMs: 2_500 });
  b.checkFinished({ payerId: 'P-TWO', connection: 'c1', source: 'payer-rows' });
  await Promise.all([a.flush(), b.flush()]);
  // A second flush of each adds only what came since.
  a.callMade({ payerId: 'P-TWO', connection: 'c1', outcome: 'rejected', durationMs: 30 });
  await a.flush();
  await b.flush();
  const { lines } = await readScorecard(db, {
    since: new Date('2026-11-28T11:00:00Z'),
    by: 'payer',
    payerId: 'P-TWO',
    limit: 5,
  });
  const line = lines[0]!;
  assert.deepEqual(
    [line.calls, line.completed, line.aaa, line.transient, line.rejected, line.sourcePayerRows],
    [13, 7, 1, 4, 1, 1],
  );
  assert.deepEqual(line.aaaCodes, { '75': 1 });
  assert.equal(
    line.latencyBuckets.reduce((x, y) => x + y, 0),
    13,
  );
  assert.equal(line.lastSuccessAt?.toISOString(), '2026-11-28T11:30:00.000Z');
  // The connection's card reads the connection's own rows, which the recorders wrote beside the payer's.
  const connections = await readScorecard(db, {
    since: new Date('2026-11-28T11:00:00Z'),
    by: 'connection',
    limit: 5,
  });
  assert.deepEqual(
    connections.lines.map((l) => [l.key, l.calls, l.aaa]),
    [['c1', 13, 1]],
  );
});

test('a window reads lines most calls first, paginated, with the total; connections sum their payers', async () => {
  const hour = new Date('2026-11-27T08:00:00Z');
  const next = new Date('2026-11-27T09:00:00Z');
  await addPayerCallStats(db, [
    row('W-A', 'x', hour, { calls: 5, latencyBuckets: buckets([[1, 5]]) }),
    row('W-A', 'x', next, { calls: 5, latencyBuckets: buckets([[2, 5]]) }),
    row('W-B', 'x', hour, { calls: 30, latencyBuckets: buckets([[1, 30]]) }),
    row('W-B', 'y', hour, { calls: 1, latencyBuckets: buckets([[1, 1]]) }),
    row('W-C', 'y', hour, { calls: 20, latencyBuckets: buckets([[1, 20]]) }),
    row('W-OLD', 'x', LONG_AGO, { calls: 99, latencyBuckets: buckets([[1, 99]]) }),
  ]);
  const since = new Date('2026-11-27T00:00:00Z');
  const until = { since };
  const first = await readScorecard(db, { ...until, by: 'payer', limit: 2 });
  // P-UPSERT and P-TWO (the tests above) are in the window too.
  assert.deepEqual(
    first.lines.map((l) => [l.key, l.calls]),
    [
      ['W-B', 31],
      ['W-C', 20],
    ],
  );
  assert.equal(first.total, 5);
  const second = await readScorecard(db, { ...until, by: 'payer', limit: 2, offset: 2 });
  assert.deepEqual(
    second.lines.map((l) => [l.key, l.calls]),
    [
      ['P-TWO', 13],
      ['W-A', 10],
    ],
  );
  const a = second.lines[1]!;
  assert.deepEqual(a.latencyBuckets.slice(0, 3), [0, 5, 5], 'two hours summed bucket by bucket');
  const perConnection = await readScorecard(db, { ...until, by: 'connection', payerId: 'W-B', limit: 10 });
  assert.deepEqual(
    perConnection.lines.map((l) => [l.key, l.calls]),
    [
      ['x', 30],
      ['y', 1],
    ],
  );
  assert.deepEqual(await topPayersByCalls(db, since, 2), ['W-B', 'W-C']);
});

test('pruning deletes the hours before the cut and keeps the others', async () => {
  const deleted = await prunePayerCallStats(db, new Date('2026-06-01T00:00:00Z'));
  assert.equal(deleted, 1);
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM payer_call_stats WHERE payer_id = 'W-OLD'",
  );
  assert.equal(rows[0]!.n, 0);
  assert.equal((await readScorecard(db, { since: LONG_AGO, by: 'payer', limit: 100 })).total, 5);
});
