/**
 * The payer scorecard (docs/payers.md "Scorecard"): each worker process counts its payer calls and
 * finished checks per payer, connection and hour in memory, and adds them to `payer_call_stats` every few
 * seconds (src/store/payer-call-stats.ts), so several processes add up. Readers (the operator API and portal
 * page) turn summed counts into a card: shares, p50/p95 latency from the fixed buckets, last success.
 */
import type { Logger } from 'pino';
import type { BenefitSource } from '../benefits/source.ts';
import type { Db } from '../store/db.ts';
import { createFaultReporter } from '../store/faults.ts';
import {
  ALL_PAYERS,
  addPayerCallStats,
  emptyCounts,
  LATENCY_BUCKETS_MS,
  type PayerCallCounts,
  type PayerCallStatsRow,
} from '../store/payer-call-stats.ts';
import type { PayerCallOutcome } from './process-check.ts';

/** What one payer call came to, for the scorecard: mutually exclusive, so the shares add up to 1. */
export type ScorecardOutcome = 'completed' | 'aaa' | 'transient' | 'rejected' | 'error';

/**
 * - completed: a 271 without AAA (the check completes);
 * - aaa: a 271 with AAA rejections, those that fail the check and 42/80 "try later" alike (by code);
 * - transient: no answer (timeout, connection or gateway error, refused credentials, someone else's trace);
 * - rejected: a 999 or TA1 (our 270 was refused);
 * - error: an answer that could not be read, or a connector's permanent error.
 */
export function scorecardOutcome(outcome: PayerCallOutcome, aaaCodes?: readonly string[]): ScorecardOutcome {
  if (aaaCodes?.length && (outcome === 'ok' || outcome === 'transient')) return 'aaa';
  switch (outcome) {
    case 'ok':
      return 'completed';
    case 'rejected':
      return 'rejected';
    case 'unreadable':
    case 'permanent':
      return 'error';
    default:
      return 'transient';
  }
}

/** The bucket a latency falls in: the first bound it does not exceed, else the last (over the highest). */
export function latencyBucket(durationMs: number): number {
  for (let k = 0; k < LATENCY_BUCKETS_MS.length; k++) if (durationMs <= LATENCY_BUCKETS_MS[k]!) return k;
  return LATENCY_BUCKETS_MS.length;
}

/**
 * The q-quantile (0 < q ≤ 1) of the latencies counted in `buckets`, interpolated linearly inside its bucket
 * as Prometheus' histogram_quantile does; a quantile in the last (unbounded) bucket reads as the highest
 * bound. Undefined when nothing was counted.
 */
export function latencyPercentileMs(buckets: readonly number[], q: number): number | undefined {
  const total = buckets.reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  const rank = q * total;
  let below = 0;
  for (let k = 0; k < buckets.length; k++) {
    const inBucket = buckets[k]!;
    if (below + inBucket >= rank && inBucket > 0) {
      if (k >= LATENCY_BUCKETS_MS.length) return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1];
      const lower = k === 0 ? 0 : LATENCY_BUCKETS_MS[k - 1]!;
      const upper = LATENCY_BUCKETS_MS[k]!;
      return Math.round(lower + (upper - lower) * ((rank - below) / inBucket));
    }
    below += inBucket;
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1];
}

/** An AAA code as a count's key: a payer's text could be anything, the codes are two characters. */
function aaaKey(code: string): string {
  return /^[A-Z0-9]{1,3}$/.test(code) ? code : 'other';
}

/** The counts of `from` added into `into`. */
export function addCounts(into: PayerCallCounts, from: PayerCallCounts): void {
  into.calls += from.calls;
  into.completed += from.completed;
  into.aaa += from.aaa;
  into.transient += from.transient;
  into.rejected += from.rejected;
  into.errors += from.errors;
  for (const [code, n] of Object.entries(from.aaaCodes)) into.aaaCodes[code] = (into.aaaCodes[code] ?? 0) + n;
  for (let k = 0; k < from.latencyBuckets.length; k++)
    into.latencyBuckets[k] = (into.latencyBuckets[k] ?? 0) + from.latencyBuckets[k]!;
  into.latencyTotalMs += from.latencyTotalMs;
  into.sourcePayerRows += from.sourcePayerRows;
  into.sourcePlanFallback += from.sourcePlanFallback;
  into.sourceNone += from.sourceNone;
  if (from.lastSuccessAt && (!into.lastSuccessAt || from.lastSuccessAt > into.lastSuccessAt))
    into.lastSuccessAt = from.lastSuccessAt;
}

/** A payer call as the scorecard counts it (the worker's `onPayerCall` event carries these fields). */
export interface ScoredCall {
  payerId: string;
  connection: string;
  outcome: PayerCallOutcome;
  aaaCodes?: readonly string[];
  durationMs: number;
}

export interface ScorecardRecorderOptions {
  db: Db;
  log: Logger;
  /** How often counts go to the store (default 5 s). */
  flushMs?: number;
  now?: () => Date;
}

const HOUR_MS = 3_600_000;

/** Counts calls and finished checks in memory and adds them to the store on a timer (and on stop). */
export class ScorecardRecorder {
  private pending = new Map<string, PayerCallStatsRow>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private readonly reportFault: (err: unknown, what: string) => boolean;

  constructor(private readonly opts: ScorecardRecorderOptions) {
    this.reportFault = createFaultReporter(opts.log);
  }

  callMade(call: ScoredCall): void {
    const outcome = scorecardOutcome(call.outcome, call.aaaCodes);
    const bucket = latencyBucket(call.durationMs);
    // A 271 that answers the inquiry, with or without AAA: the payer and the connection work.
    const success = call.outcome === 'ok' ? this.now() : undefined;
    for (const row of this.rows(call.payerId, call.connection)) {
      row.calls++;
      if (outcome === 'error') row.errors++;
      else row[outcome]++;
      if (outcome === 'aaa')
        for (const code of call.aaaCodes ?? []) {
          const key = aaaKey(code);
          row.aaaCodes[key] = (row.aaaCodes[key] ?? 0) + 1;
        }
      row.latencyBuckets[bucket]!++;
      row.latencyTotalMs += call.durationMs;
      if (success) row.lastSuccessAt = success;
    }
  }

  checkFinished(check: { payerId: string; connection: string; source: BenefitSource }): void {
    for (const row of this.rows(check.payerId, check.connection)) {
      if (check.source === 'payer-rows') row.sourcePayerRows++;
      else if (check.source === 'plan-fallback') row.sourcePlanFallback++;
      else row.sourceNone++;
    }
  }

  /** Adds what was counted since the last flush to the store; on failure the counts wait for the next. */
  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  start(): void {
    this.timer = setInterval(() => void this.flush(), this.opts.flushMs ?? 5_000);
    this.timer.unref();
  }

  /** Stops the timer and flushes what is left (once more if a flush was running). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  private async flushOnce(): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = this.pending;
    this.pending = new Map();
    try {
      await addPayerCallStats(this.opts.db, [...rows.values()]);
    } catch (err) {
      // Put them back under what was counted meanwhile: nothing is lost while the store is away.
      for (const [key, row] of rows) {
        const now = this.pending.get(key);
        if (now) addCounts(row, now);
        this.pending.set(key, row);
      }
      if (!this.reportFault(err, 'payer scorecard flush'))
        this.opts.log.warn({ err }, 'payer scorecard flush failed; will retry');
    }
  }

  private now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** The payer's row and its connection's own row (ALL_PAYERS) of the current hour. */
  private rows(payerId: string, connection: string): [PayerCallStatsRow, PayerCallStatsRow] {
    const hour = new Date(Math.floor(this.now().getTime() / HOUR_MS) * HOUR_MS);
    return [this.row(payerId, connection, hour), this.row(ALL_PAYERS, connection, hour)];
  }

  private row(payerId: string, connection: string, hour: Date): PayerCallStatsRow {
    const key = `${payerId}\u0000${connection}\u0000${hour.getTime()}`;
    let row = this.pending.get(key);
    if (!row) {
      row = { payerId, connection, hour, ...emptyCounts() };
      this.pending.set(key, row);
    }
    return row;
  }
}

/** A card: the counts of one payer or connection over a window, with its shares and percentiles. */
export interface ScorecardCard {
  id: string;
  calls: number;
  latencyMs: { p50: number | null; p95: number | null; mean: number | null };
  outcomes: Record<ScorecardOutcome, number>;
  /** Each outcome's share of the calls (0 to 1, four decimals); 0 without calls. */
  outcomeShares: Record<ScorecardOutcome, number>;
  /** Calls answered with each AAA code. */
  aaaCodes: Record<string, number>;
  /** Completed checks by where their product service types came from (src/benefits/source.ts). */
  sources: Record<BenefitSource, number>;
  sourceShares: Record<BenefitSource, number>;
  lastSuccessAt: string | null;
}

const share = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 10_000);

export function scorecardCard(id: string, c: PayerCallCounts): ScorecardCard {
  const outcomes = {
    completed: c.completed,
    aaa: c.aaa,
    transient: c.transient,
    rejected: c.rejected,
    error: c.errors,
  };
  const sources = {
    'payer-rows': c.sourcePayerRows,
    'plan-fallback': c.sourcePlanFallback,
    none: c.sourceNone,
  };
  const sourced = c.sourcePayerRows + c.sourcePlanFallback + c.sourceNone;
  return {
    id,
    calls: c.calls,
    latencyMs: {
      p50: latencyPercentileMs(c.latencyBuckets, 0.5) ?? null,
      p95: latencyPercentileMs(c.latencyBuckets, 0.95) ?? null,
      mean: c.calls === 0 ? null : Math.round(c.latencyTotalMs / c.calls),
    },
    outcomes,
    outcomeShares: mapValues(outcomes, (n) => share(n, c.calls)),
    aaaCodes: c.aaaCodes,
    sources,
    sourceShares: mapValues(sources, (n) => share(n, sourced)),
    lastSuccessAt: c.lastSuccessAt ? new Date(c.lastSuccessAt).toISOString() : null,
  };
}

function mapValues<K extends string>(o: Record<K, number>, f: (n: number) => number): Record<K, number> {
  return Object.fromEntries(Object.entries<number>(o).map(([k, n]) => [k, f(n)])) as Record<K, number>;
}
