/**
 * bench/scorecard: what the payer scorecard costs.
 * - Counting a call in memory (ScorecardRecorder.callMade) against the Prometheus observation every call
 *   already makes (Metrics.payerCalled), per call.
 * - Flushing 1,000 (payer, connection, hour) rows with the one-statement upsert against 1,000 one-row upserts
 *   (the same statement with one row each); on the embedded store, or PostgreSQL with BENCH_DATABASE_URL.
 * - Reading a day's scorecard page over 10,000 payers × 24 hours against a plain `count(*)` of those rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../src/config.ts';
import { Metrics } from '../src/metrics.ts';
import { openStore } from '../src/store/open.ts';
import {
  ALL_PAYERS,
  addPayerCallStats,
  emptyCounts,
  type PayerCallStatsRow,
} from '../src/store/payer-call-stats.ts';
import { ScorecardRecorder } from '../src/workers/payer-scorecard.ts';
import { scorecardOverview } from '../src/workers/payer-scorecard-read.ts';

const CALLS = 1_000_000;

/** `n` payers' rows of one hour, and their connections' own rows (what the recorder writes). */
function rows(n: number, hour: Date, prefix = 'P'): PayerCallStatsRow[] {
  const payers = Array.from({ length: n }, (_, k) => ({
    payerId: `${prefix}${k}`,
    connection: k % 3 === 0 ? `${prefix}-stedi` : `${prefix}-availity`,
    hour,
    ...emptyCounts(),
    calls: 1 + (k % 17),
    completed: 1,
  }));
  const connections = new Map<string, PayerCallStatsRow>();
  for (const p of payers) {
    const c = connections.get(p.connection) ?? { ...p, payerId: ALL_PAYERS, calls: 0, completed: 0 };
    c.calls += p.calls;
    c.completed += p.completed;
    connections.set(p.connection, c);
  }
  return [...payers, ...connections.values()];
}

async function timed(fn: () => Promise<unknown> | unknown): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'elig-bench-'));
  // BENCH_DATABASE_URL: on PostgreSQL (in a schema of its own, dropped at the end), else the embedded store.
  const url = process.env.BENCH_DATABASE_URL;
  const schema = `bench_scorecard_${process.pid}`;
  const config = loadConfig({
    ELIG_ENV: 'test',
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    DB_REQUEST_BUDGET_MS: '600000',
    ...(url ? { DATABASE_URL: url, DATABASE_SCHEMA: schema } : {}),
  });
  const store = await openStore(config);
  try {
    const db = store.db;
    const log = pino({ level: 'silent' });
    const metrics = new Metrics(db, (id) => ({ id, connector: 'x12-json' }));
    const recorder = new ScorecardRecorder({ db, log });
    const payers = Array.from({ length: 500 }, (_, k) => `P${k}`);
    const observe = await timed(() => {
      for (let i = 0; i < CALLS; i++) metrics.payerCalled(payers[i % 500]!, 'ok', 120, 'stedi');
    });
    const count = await timed(() => {
      for (let i = 0; i < CALLS; i++)
        recorder.callMade({ payerId: payers[i % 500]!, connection: 'stedi', outcome: 'ok', durationMs: 120 });
    });
    console.log(
      `bench/scorecard: per call ${((count * 1e6) / CALLS).toFixed(0)} ns counted vs ${((observe * 1e6) / CALLS).toFixed(0)} ns observed by Prometheus (ratio ${(count / observe).toFixed(2)})`,
    );

    const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
    const oneByOne = await timed(async () => {
      for (const row of rows(1000, hour, 'ONE')) await addPayerCallStats(db, [row]);
    });
    const batched = await timed(() => addPayerCallStats(db, rows(1000, hour, 'BATCH')));
    const batchedAgain = await timed(() => addPayerCallStats(db, rows(1000, hour, 'BATCH')));
    console.log(
      `bench/scorecard: flush of 1,000 rows ${batched.toFixed(0)} ms new, ${batchedAgain.toFixed(0)} ms adding to existing, vs ${oneByOne.toFixed(0)} ms one row per statement (ratio ${(batched / oneByOne).toFixed(2)})`,
    );

    for (let h = 0; h < 24; h++) {
      await addPayerCallStats(db, rows(10_000, new Date(hour.getTime() - h * 3_600_000), 'DAY'));
    }
    const baseline = await timed(() =>
      db.query('SELECT count(*) FROM payer_call_stats WHERE hour >= $1', [
        new Date(hour.getTime() - 23 * 3_600_000),
      ]),
    );
    const read = await timed(() => scorecardOverview(db, { hours: 24, limit: 50, offset: 0 }));
    console.log(
      `bench/scorecard: a day's page over 10,000 payers (${(10_000 * 24).toLocaleString('en-US')} rows) ${read.toFixed(0)} ms vs ${baseline.toFixed(0)} ms count(*) (ratio ${(read / baseline).toFixed(1)})`,
    );
  } finally {
    if (url) await store.db.query(`DROP SCHEMA ${schema} CASCADE`);
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
