/**
 * The payer scorecard's table (`payer_call_stats`): counts per payer, connection and UTC hour. Writers add
 * (each worker process flushes what it counted since its last flush), readers sum a window of hours. Counts
 * only: no check id, no patient, no payer answer.
 */
import type { Queryable } from './db.ts';
import { type payerCallStats, payerCallStats as t } from './schema.ts';
import { sqlOf } from './typed.ts';

/**
 * Upper bounds (milliseconds, inclusive) of the latency buckets; a last bucket counts the calls above the
 * highest. Changing them changes what stored arrays mean: only ever append a bound.
 */
export const LATENCY_BUCKETS_MS = [
  50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 20_000, 30_000, 60_000,
] as const;

/** How long hours are kept (retention deletes older ones): longer than the longest window, 720 hours. */
export const STATS_KEPT_DAYS = 35;

/** The counts of one row, or of a sum of rows. */
export type PayerCallCounts = Omit<typeof payerCallStats.$inferSelect, 'payerId' | 'connection' | 'hour'>;

export type PayerCallStatsRow = typeof payerCallStats.$inferSelect;

/** Counts with nothing counted yet. */
export function emptyCounts(): PayerCallCounts {
  return {
    calls: 0,
    completed: 0,
    aaa: 0,
    transient: 0,
    rejected: 0,
    errors: 0,
    aaaCodes: {},
    latencyBuckets: new Array<number>(LATENCY_BUCKETS_MS.length + 1).fill(0),
    latencyTotalMs: 0,
    sourcePayerRows: 0,
    sourcePlanFallback: 0,
    sourceNone: 0,
    lastSuccessAt: null,
  };
}

/**
 * Adds `rows` to the table in one statement: a new (payer, connection, hour) is inserted, an existing one
 * gets the counts added, its buckets and AAA codes added element by element, and the later last success.
 * The caller gives each key once. Rows are written in key order, so two processes flushing the same keys
 * lock them in the same order and wait for each other instead of deadlocking.
 */
export async function addPayerCallStats(db: Queryable, rows: readonly PayerCallStatsRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = [...rows].sort(
    (a, b) =>
      cmp(a.payerId, b.payerId) || cmp(a.connection, b.connection) || a.hour.getTime() - b.hour.getTime(),
  );
  const json = sorted.map((r) => ({
    payer_id: r.payerId,
    connection: r.connection,
    hour: r.hour.toISOString(),
    calls: r.calls,
    completed: r.completed,
    aaa: r.aaa,
    transient: r.transient,
    rejected: r.rejected,
    errors: r.errors,
    aaa_codes: r.aaaCodes,
    latency_buckets: r.latencyBuckets,
    latency_total_ms: Math.round(r.latencyTotalMs),
    source_payer_rows: r.sourcePayerRows,
    source_plan_fallback: r.sourcePlanFallback,
    source_none: r.sourceNone,
    last_success_at: r.lastSuccessAt?.toISOString() ?? null,
  }));
  await db.query(
    `INSERT INTO payer_call_stats AS s (payer_id, connection, hour, calls, completed, aaa, transient, rejected,
            errors, aaa_codes, latency_buckets, latency_total_ms, source_payer_rows, source_plan_fallback,
            source_none, last_success_at)
     SELECT r.payer_id, r.connection, r.hour, r.calls, r.completed, r.aaa, r.transient, r.rejected, r.errors,
            r.aaa_codes, r.latency_buckets, r.latency_total_ms, r.source_payer_rows, r.source_plan_fallback,
            r.source_none, r.last_success_at
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(value, n)
            CROSS JOIN LATERAL jsonb_to_record(e.value) AS r(payer_id text, connection text, hour timestamptz,
            calls int, completed int, aaa int, transient int, rejected int, errors int, aaa_codes jsonb,
            latency_buckets int[], latency_total_ms bigint, source_payer_rows int, source_plan_fallback int,
            source_none int, last_success_at timestamptz)
      ORDER BY e.n
     ON CONFLICT (payer_id, connection, hour) DO UPDATE SET
       calls = s.calls + excluded.calls,
       completed = s.completed + excluded.completed,
       aaa = s.aaa + excluded.aaa,
       transient = s.transient + excluded.transient,
       rejected = s.rejected + excluded.rejected,
       errors = s.errors + excluded.errors,
       aaa_codes = (SELECT coalesce(jsonb_object_agg(code, n), '{}'::jsonb)
                      FROM (SELECT e.key AS code, sum(e.value::int) AS n
                              FROM (SELECT * FROM jsonb_each_text(s.aaa_codes)
                                    UNION ALL SELECT * FROM jsonb_each_text(excluded.aaa_codes)) AS e
                             GROUP BY e.key) AS summed),
       latency_buckets = ARRAY(SELECT coalesce(a, 0) + coalesce(b, 0)
                                 FROM unnest(s.latency_buckets, excluded.latency_buckets) WITH ORDINALITY AS u(a, b, i)
                                ORDER BY i),
       latency_total_ms = s.latency_total_ms + excluded.latency_total_ms,
       source_payer_rows = s.source_payer_rows + excluded.source_payer_rows,
       source_plan_fallback = s.source_plan_fallback + excluded.source_plan_fallback,
       source_none = s.source_none + excluded.source_none,
       last_success_at = GREATEST(s.last_success_at, excluded.last_success_at)`,
    [JSON.stringify(json)],
  );
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The payer id of a connection's own rows: writers add every call and check to its payer's row and to this
 * row of its connection, so a connection's card reads a few rows per hour rather than every payer's.
 * No payer has this id (directory ids are letters and digits).
 */
export const ALL_PAYERS = '*';

/** One line of a scorecard: the summed counts of one payer or one connection over the window. */
export interface ScorecardLine extends PayerCallCounts {
  key: string;
}

export interface ScorecardPage {
  lines: ScorecardLine[];
  /** How many payers (or connections) have counts in the window. */
  total: number;
}

export interface ScorecardQuery {
  since: Date;
  /** What a line sums: one payer's rows, or one connection's. */
  by: 'payer' | 'connection';
  /** Only this payer's rows (with `by: 'connection'`: the payer's lines per connection). */
  payerId?: string;
  limit: number;
  offset?: number;
}

/** `sum(latency_buckets[1])::float8 AS b1, …`: one pass sums the buckets (an array subscript per row is cheap). */
const BUCKET_SUMS = Array.from(
  { length: LATENCY_BUCKETS_MS.length + 1 },
  (_, k) => `coalesce(sum(latency_buckets[${k + 1}]), 0)::float8 AS b${k + 1}`,
).join(', ');

/**
 * The rows a query sums ($1 the window's start, $2 the payer or null): a payer's, or every payer's but the
 * connections' own; per connection, the connections' own rows (or, for one payer, that payer's rows).
 */
function scope(q: ScorecardQuery): { key: string; where: string } {
  return q.by === 'connection'
    ? { key: 'connection', where: `hour >= $1 AND payer_id = coalesce($2::text, '${ALL_PAYERS}')` }
    : {
        key: 'payer_id',
        where: `hour >= $1 AND payer_id <> '${ALL_PAYERS}' AND ($2::text IS NULL OR payer_id = $2)`,
      };
}

/**
 * The lines of the window, most calls first (then by key), `limit` from `offset`, and how many there are.
 * First the page's keys (one grouped pass over the calls alone), then their full sums and AAA codes through
 * the primary key. Sums are float8 so that no window overflows an integer; they are whole numbers.
 */
export async function readScorecard(db: Queryable, q: ScorecardQuery): Promise<ScorecardPage> {
  const { key, where } = scope(q);
  const params = [q.since, q.payerId ?? null];
  const page = await db.query<{ key: string; total: number }>(
    `SELECT ${key} AS key, (count(*) OVER ())::float8 AS total FROM payer_call_stats WHERE ${where}
      GROUP BY ${key} ORDER BY sum(calls) DESC, ${key} LIMIT $3 OFFSET $4`,
    [...params, q.limit, q.offset ?? 0],
  );
  if (page.rows.length === 0) return { total: 0, lines: [] };
  const keys = page.rows.map((r) => r.key);
  const sums = await db.query<Record<string, unknown>>(
    `SELECT ${key} AS key, sum(calls)::float8 AS calls, sum(completed)::float8 AS completed,
            sum(aaa)::float8 AS aaa, sum(transient)::float8 AS transient, sum(rejected)::float8 AS rejected,
            sum(errors)::float8 AS errors, sum(latency_total_ms)::float8 AS "latencyTotalMs",
            sum(source_payer_rows)::float8 AS "sourcePayerRows",
            sum(source_plan_fallback)::float8 AS "sourcePlanFallback", sum(source_none)::float8 AS "sourceNone",
            max(last_success_at) AS "lastSuccessAt", ${BUCKET_SUMS}
       FROM payer_call_stats WHERE ${where} AND ${key} = ANY($3::text[]) GROUP BY ${key}`,
    [...params, keys],
  );
  const codes = await db.query<{ key: string; code: string; n: number }>(
    `SELECT ${key} AS key, e.key AS code, sum(e.value::int)::float8 AS n
       FROM payer_call_stats, jsonb_each_text(aaa_codes) AS e
      WHERE ${where} AND ${key} = ANY($3::text[]) AND aaa > 0 GROUP BY ${key}, e.key`,
    [...params, keys],
  );
  const byKey = new Map(sums.rows.map((r) => [String(r.key), r]));
  return {
    total: Number(page.rows[0]!.total),
    lines: keys.map((k) => {
      const line = lineOf(k, byKey.get(k) ?? {});
      for (const c of codes.rows) if (c.key === k) line.aaaCodes[c.code] = Number(c.n);
      return line;
    }),
  };
}

function lineOf(key: string, row: Record<string, unknown>): ScorecardLine {
  const n = (name: string) => Number(row[name] ?? 0);
  return {
    key,
    calls: n('calls'),
    completed: n('completed'),
    aaa: n('aaa'),
    transient: n('transient'),
    rejected: n('rejected'),
    errors: n('errors'),
    aaaCodes: {},
    latencyBuckets: Array.from({ length: LATENCY_BUCKETS_MS.length + 1 }, (_, k) => n(`b${k + 1}`)),
    latencyTotalMs: n('latencyTotalMs'),
    sourcePayerRows: n('sourcePayerRows'),
    sourcePlanFallback: n('sourcePlanFallback'),
    sourceNone: n('sourceNone'),
    lastSuccessAt: (row.lastSuccessAt as Date | null) ?? null,
  };
}

/** The `limit` payers with the most calls since `since` (ties by id): the ones metrics may name. */
export async function topPayersByCalls(db: Queryable, since: Date, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ payerId: string }>(TOP_PAYERS, [since, limit, ALL_PAYERS]);
  return rows.map((r) => r.payerId);
}

/** Deletes the hours before `before`; returns how many rows. */
export async function prunePayerCallStats(db: Queryable, before: Date): Promise<number> {
  return (await db.query(PRUNE, [before])).rowCount;
}

const TOP_PAYERS = sqlOf`SELECT ${t.payerId} AS "payerId" FROM ${t} WHERE ${t.hour} >= $1 AND ${t.payerId} <> $3
  GROUP BY ${t.payerId} ORDER BY sum(${t.calls}) DESC, ${t.payerId} LIMIT $2`;
const PRUNE = sqlOf`DELETE FROM ${t} WHERE ${t.hour} < $1`;
