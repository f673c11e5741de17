/**
 * Prometheus metrics (one registry per service instance). Labels carry payer ids from the directory (the
 * canonical id, also for a check submitted under an alias), connector types, connections, outcomes and
 * routes only: never PHI, and never a client-chosen string (unknown payers count as "unknown").
 *
 * The payer label is bounded: a directory of at most METRICS_PAYER_LABELS payers names each; a larger one
 * names only that many, the payers with the most calls in the last day (read from the scorecard's table,
 * so every process names the same ones), and counts the rest as "other". A payer that leaves the top has
 * its series removed, so at any time a payer label has at most METRICS_PAYER_LABELS + 2 values ("other",
 * "unknown"). Connections are few (the configured ones), so `connection` is always named.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { countChecksInProgress, oldestCheckInProgressAgeSeconds } from './store/checks.ts';
import type { Db } from './store/db.ts';
import { topPayersByCalls } from './store/payer-call-stats.ts';

/** How the payer label is bounded (see above). */
export interface PayerLabelOptions {
  /** METRICS_PAYER_LABELS. */
  maxPayers: number;
  /** How many payers the directory has. */
  directorySize: number;
}

/** The window whose calls rank the payers that metrics name. */
const RANKING_WINDOW_MS = 24 * 3_600_000;

export class Metrics {
  readonly registry = new Registry();
  private readonly submittedTotal: Counter<'payer'>;
  private readonly finishedTotal: Counter<'payer' | 'status'>;
  private readonly checkDuration: Histogram<'payer'>;
  private readonly payerCall: Histogram<'payer' | 'connector' | 'connection' | 'result'>;
  private readonly payerAuthFailures: Counter<'payer' | 'connector' | 'connection'>;
  private readonly benefitSources: Counter<'payer' | 'connection' | 'source'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly webhookLatency: Histogram;
  private readonly rateLimited: Counter<'operation'>;
  private readonly breakerState: Gauge<'payer' | 'connector'>;
  private readonly deferredTotal: Counter<'payer' | 'reason'>;
  /** Every metric with a payer label, whose series of a payer that leaves the named ones are removed. */
  private readonly payerLabelled: (Counter<string> | Gauge<string> | Histogram<string>)[];
  /** The payers named when the directory is larger than the bound; undefined: every payer is named. */
  private named: Set<string> | undefined;
  private maxPayers = 0;

  constructor(
    private readonly db: Db,
    /** The directory's entry for an id or alias: its canonical id and connector type. */
    private readonly payerOf: (id: string) => { id: string; connector: string } | undefined,
  ) {
    const r = this.registry;
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers: [r] });
    const gauge = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Gauge<L>({ name, help, labelNames, registers: [r] });
    const histogram = <L extends string>(
      name: string,
      help: string,
      buckets: number[],
      labelNames: L[] = [],
    ) => new Histogram<L>({ name, help, buckets, labelNames, registers: [r] });
    this.submittedTotal = counter('elig_checks_submitted_total', 'Checks accepted', ['payer']);
    this.finishedTotal = counter('elig_checks_finished_total', 'Checks finished', ['payer', 'status']);
    this.checkDuration = histogram(
      'elig_check_duration_seconds',
      'From the last claim to the final status',
      [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
      ['payer'],
    );
    this.payerCall = histogram(
      'elig_payer_call_duration_seconds',
      'Payer connector calls, by outcome (ok, rejected, trace-mismatch, transient, timeout, auth-failed, ...)',
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      ['payer', 'connector', 'connection', 'result'],
    );
    this.payerAuthFailures = counter(
      'elig_payer_auth_failures_total',
      "Payer calls refused for the service's credentials (each opens the payer's breaker at once)",
      ['payer', 'connector', 'connection'],
    );
    this.benefitSources = counter(
      'elig_checks_benefit_source_total',
      "Completed checks by where their product service types came from: the payer's rows for the service type (payer-rows), the plan-level fallback (plan-fallback) or nothing (none)",
      ['payer', 'connection', 'source'],
    );
    this.webhookAttempts = counter('elig_webhook_attempts_total', 'Webhook delivery attempts', ['outcome']);
    this.webhookLatency = histogram(
      'elig_webhook_delivery_latency_seconds',
      'From event creation to successful delivery',
      [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
    );
    this.rateLimited = counter('elig_rate_limited_total', 'Requests refused with 429', ['operation']);
    this.breakerState = gauge(
      'elig_payer_circuit_state',
      'Circuit breaker per payer in this process: 0 closed, 1 half-open, 2 open',
      ['payer', 'connector'],
    );
    this.deferredTotal = counter(
      'elig_checks_deferred_total',
      'Checks put back to wait without spending an attempt (circuit open, payer slots busy)',
      ['payer', 'reason'],
    );
    this.payerLabelled = [
      this.submittedTotal,
      this.finishedTotal,
      this.checkDuration,
      this.payerCall,
      this.payerAuthFailures,
      this.benefitSources,
      this.breakerState,
      this.deferredTotal,
    ];
    new Gauge({
      name: 'elig_queue_depth',
      help: 'Checks IN_PROGRESS',
      registers: [r],
      async collect() {
        this.set(await countChecksInProgress(db));
      },
    });
    new Gauge({
      name: 'elig_queue_oldest_age_seconds',
      help: 'Age of the oldest IN_PROGRESS check',
      registers: [r],
      async collect() {
        this.set((await oldestCheckInProgressAgeSeconds(db)) ?? 0);
      },
    });
  }

  /** The payer label of an id or alias: its canonical id if named, "other" if not, "unknown" if no payer. */
  private payer(id: string): string {
    const entry = this.payerOf(id);
    if (!entry) return 'unknown';
    return !this.named || this.named.has(entry.id) ? entry.id : 'other';
  }

  private payerLabels(id: string): { payer: string; connector: string } {
    const entry = this.payerOf(id);
    return entry
      ? { payer: this.payer(id), connector: entry.connector }
      : { payer: 'unknown', connector: 'unknown' };
  }

  /** Bounds the payer label (until called, every payer is named: a directory of a few payers needs no bound). */
  boundPayerLabels(options: PayerLabelOptions): void {
    this.maxPayers = options.maxPayers;
    this.named = options.directorySize > options.maxPayers ? new Set() : undefined;
  }

  /**
   * Names the payers with the most calls in the last day (when the directory is larger than the bound) and
   * removes the series of those no longer named. Reads the store: call it on a timer (`startPayerLabels`).
   */
  async refreshPayerLabels(now = new Date()): Promise<void> {
    if (!this.named) return;
    const since = new Date(now.getTime() - RANKING_WINDOW_MS);
    const top = new Set(await topPayersByCalls(this.db, since, this.maxPayers));
    const dropped = [...this.named].filter((p) => !top.has(p));
    this.named = top;
    if (dropped.length > 0) await this.removePayerSeries(new Set(dropped));
  }

  /** Refreshes the named payers now and every `intervalMs`; returns the function that stops it. */
  startPayerLabels(onError: (err: unknown) => void, intervalMs = 60_000): () => void {
    if (!this.named) return () => {};
    const refresh = () => void this.refreshPayerLabels().catch(onError);
    refresh();
    const timer = setInterval(refresh, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async removePayerSeries(payers: Set<string>): Promise<void> {
    for (const metric of this.payerLabelled) {
      const seen = new Set<string>();
      for (const value of (await metric.get()).values) {
        const { le: _, ...labels } = value.labels;
        const key = JSON.stringify(labels);
        if (!payers.has(String(labels.payer)) || seen.has(key)) continue;
        seen.add(key);
        metric.remove(labels);
      }
    }
  }

  submitted(tradingPartnerServiceId: string): void {
    this.submittedTotal.inc({ payer: this.payer(tradingPartnerServiceId) });
  }

  finished(e: { tradingPartnerServiceId: string; status: string; durationMs: number }): void {
    const payer = this.payer(e.tradingPartnerServiceId);
    this.finishedTotal.inc({ payer, status: e.status });
    this.checkDuration.observe({ payer }, e.durationMs / 1000);
  }

  payerCalled(
    tradingPartnerServiceId: string,
    result: string,
    durationMs: number,
    connection?: string,
  ): void {
    const labels = { ...this.payerLabels(tradingPartnerServiceId), connection: connection ?? 'unknown' };
    this.payerCall.observe({ ...labels, result }, durationMs / 1000);
    if (result === 'auth-failed') this.payerAuthFailures.inc(labels);
  }

  benefitSource(tradingPartnerServiceId: string, connection: string, source: string): void {
    this.benefitSources.inc({ payer: this.payer(tradingPartnerServiceId), connection, source });
  }

  webhookAttempt(e: { outcome: string; latencyMs: number; deliveryLatencyMs?: number }): void {
    this.webhookAttempts.inc({ outcome: e.outcome });
    if (e.deliveryLatencyMs !== undefined) this.webhookLatency.observe(e.deliveryLatencyMs / 1000);
  }

  circuitState(tradingPartnerServiceId: string, state: 'closed' | 'half-open' | 'open'): void {
    const value = state === 'closed' ? 0 : state === 'half-open' ? 1 : 2;
    this.breakerState.set(this.payerLabels(tradingPartnerServiceId), value);
  }

  deferred(tradingPartnerServiceId: string, reason: string): void {
    this.deferredTotal.inc({ payer: this.payer(tradingPartnerServiceId), reason });
  }

  throttled(operation: string): void {
    this.rateLimited.inc({ operation });
  }
}
