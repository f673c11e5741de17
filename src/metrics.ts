/**
 * Prometheus metrics (one registry per service instance). Labels carry payer ids from the directory (the
 * canonical id, also for a check submitted under an alias), connector types, outcomes and routes only:
 * never PHI, and never a client-chosen string (unknown payers count as "unknown").
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { countChecksInProgress, oldestCheckInProgressAgeSeconds } from './store/checks.ts';
import type { Db } from './store/db.ts';

export class Metrics {
  readonly registry = new Registry();
  private readonly submittedTotal: Counter<'payer'>;
  private readonly finishedTotal: Counter<'payer' | 'status'>;
  private readonly checkDuration: Histogram<'payer'>;
  private readonly payerCall: Histogram<'payer' | 'connector' | 'result'>;
  private readonly payerAuthFailures: Counter<'payer' | 'connector'>;
  private readonly webhookAttempts: Counter<'outcome'>;
  private readonly webhookLatency: Histogram;
  private readonly rateLimited: Counter<'operation'>;
  private readonly breakerState: Gauge<'payer' | 'connector'>;
  private readonly deferredTotal: Counter<'payer' | 'reason'>;

  constructor(
    db: Db,
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
      ['payer', 'connector', 'result'],
    );
    this.payerAuthFailures = counter(
      'elig_payer_auth_failures_total',
      "Payer calls refused for the service's credentials (each opens the payer's breaker at once)",
      ['payer', 'connector'],
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

  private payer(id: string): string {
    return this.payerOf(id)?.id ?? 'unknown';
  }

  private payerLabels(id: string): { payer: string; connector: string } {
    const entry = this.payerOf(id);
    return entry
      ? { payer: entry.id, connector: entry.connector }
      : { payer: 'unknown', connector: 'unknown' };
  }

  submitted(tradingPartnerServiceId: string): void {
    this.submittedTotal.inc({ payer: this.payer(tradingPartnerServiceId) });
  }

  finished(e: { tradingPartnerServiceId: string; status: string; durationMs: number }): void {
    const payer = this.payer(e.tradingPartnerServiceId);
    this.finishedTotal.inc({ payer, status: e.status });
    this.checkDuration.observe({ payer }, e.durationMs / 1000);
  }

  payerCalled(tradingPartnerServiceId: string, result: string, durationMs: number): void {
    const labels = this.payerLabels(tradingPartnerServiceId);
    this.payerCall.observe({ ...labels, result }, durationMs / 1000);
    if (result === 'auth-failed') this.payerAuthFailures.inc(labels);
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
