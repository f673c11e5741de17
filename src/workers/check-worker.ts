/**
 * The check worker: claims due checks (see src/store/queue/claim.ts), runs them with bounded concurrency, records
 * each outcome, and retries transient payer failures with exponential backoff and full jitter until the
 * attempt budget is spent (then the check FAILS with SH02). The loop itself is the shared QueueRunner.
 */
import type { Logger } from 'pino';
import { type BenefitSource, benefitSource } from '../benefits/source.ts';
import { reusedBody } from '../checks/check-history.ts';
import { finishCheck } from '../checks/finish.ts';
import { serviceFailure } from '../checks/outcome.ts';
import { answeredCheckKeys, type CheckKeys, storedCheckKeys } from '../checks/patient-identity.ts';
import type { PayerEntry } from '../payers/connector.ts';
import type { PayerGuard, PayerPermit } from '../payers/guard.ts';
import type { ConnectionLimiter } from '../payers/limits.ts';
import { type Route, routeOf } from '../payers/routes.ts';
import { CHECKS_CHANNEL } from '../store/channels.ts';
import { findReusableCheck } from '../store/check-history.ts';
import type { Db } from '../store/db.ts';
import { claimDueChecks, nextDueIn, QUEUES } from '../store/queue/claim.ts';
import { releaseCheck } from '../store/queue/release-check.ts';
import { scheduleRetry } from '../store/queue/retry-check.ts';
import type { checks } from '../store/schema.ts';
import { inBackgroundLane } from '../store/statement-lane.ts';
import { X12BuildError } from '../x12/build270.ts';
import {
  type Attempt,
  type Decision,
  decide,
  isPoisoned,
  permitResult,
  poisonedDecision,
  type RetryPolicy,
} from './check-decision.ts';
import { ConnectionLoad } from './connection-load.ts';
import { type PayerCall, type PayerCallOutcome, processCheck } from './process-check.ts';
import { QueueRunner } from './queue-runner.ts';

/** What a worker needs of a claimed check. */
export const CLAIMED_CHECK = [
  'id',
  'organizationId',
  'tradingPartnerServiceId',
  'request',
  'requestCorrections',
  'charges',
  'attempts',
  'createdAt',
  'batchId',
  'discoveryId',
  'priority',
  'reuseWithinHours',
  'connection',
] as const;
export type ClaimedCheck = Pick<typeof checks.$inferSelect, (typeof CLAIMED_CHECK)[number]>;

export interface CheckWorkerOptions {
  db: Db;
  log: Logger;
  workerId: string;
  resolvePayer: (tradingPartnerServiceId: string) => PayerEntry | undefined;
  /** Payers near an id `resolvePayer` does not know, named in SH01's possible resolutions. */
  suggestPayers?: (unknownId: string) => readonly { id: string; name: string }[];
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  payerTimeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  /** ISA06/GS02 and ISA05 of the 270 (X12_SENDER_ID, X12_SENDER_QUALIFIER); a payer entry may override. */
  senderId: string;
  senderQualifier?: string;
  random?: () => number;
  /**
   * HMAC key of the patient identity hashes (ServiceKeys.patientIdentityKey). Without it, checks are neither
   * reused nor compared with earlier ones (src/checks/check-history.ts).
   */
  identityKey?: Buffer;
  /** Per-payer concurrency limit and circuit breaker of this process (none: calls are not limited). */
  guard?: PayerGuard;
  /** Account-wide limits of each connection, shared by every process (none: connections are not limited). */
  limiter?: ConnectionLimiter;
  /** How long a check may wait on an open breaker, from submission, before it fails with SH02. */
  outageWaitMs?: number;
  /** How long a batch check may keep retrying, from submission, before it fails with SH02 (BATCH_RETRY_HOURS). */
  batchRetryMs?: number;
  onDeferred?: (event: { tradingPartnerServiceId: string; reason: string }) => void;
  /** Observability hook (metrics). */
  onFinished?: (event: {
    tradingPartnerServiceId: string;
    status: string;
    durationMs: number;
    /** The connection that answered (`meta.connection`), else the payer's first; none for an unknown payer. */
    connection?: string;
    /** Where the product service types came from; only for a COMPLETED check answered by a payer call now. */
    benefitSource?: BenefitSource;
  }) => void;
  onPayerCall?: (event: {
    tradingPartnerServiceId: string;
    connector: string;
    /** The connection's name (`stedi`, `payer:<id>`), or the connector type for the sandbox. */
    connection: string;
    outcome: PayerCallOutcome;
    durationMs: number;
    aaaCodes?: string[];
  }) => void;
}

/**
 * Slots a worker keeps for interactive checks: background (batch) checks may fill the others, so a single
 * check submitted while a batch runs is claimed as soon as it is due, not when a batch check finishes.
 */
export function backgroundSlots(concurrency: number): number {
  return Math.max(1, concurrency - Math.floor(concurrency / 4));
}

export class CheckWorker {
  private readonly runner: QueueRunner<ClaimedCheck>;
  private readonly policy: RetryPolicy;
  private readonly maxBackground: number;
  private backgroundInFlight = 0;
  private readonly load: ConnectionLoad;

  constructor(private readonly opts: CheckWorkerOptions) {
    this.policy = {
      maxAttempts: opts.maxAttempts,
      retryBaseMs: opts.retryBaseMs,
      outageWaitMs: opts.outageWaitMs ?? Number.POSITIVE_INFINITY,
      batchRetryMs: opts.batchRetryMs ?? 8 * 3_600_000,
      random: opts.random ?? Math.random,
    };
    this.maxBackground = backgroundSlots(opts.concurrency);
    this.load = new ConnectionLoad();
    this.runner = new QueueRunner({
      db: opts.db,
      log: opts.log,
      channel: CHECKS_CHANNEL,
      concurrency: opts.concurrency,
      pollMs: opts.pollMs,
      claim: async (limit) => {
        const rows = await claimDueChecks(opts.db, CLAIMED_CHECK, {
          workerId: opts.workerId,
          limit,
          backgroundLimit: this.maxBackground - this.backgroundInFlight,
          leaseMs: opts.leaseMs,
          skipConnections: this.load.saturated(),
        });
        for (const row of rows) {
          if (row.priority > 0) this.backgroundInFlight++;
          this.load.take(row.connection, this.connectionLimit(row));
        }
        return rows;
      },
      // A background check's statements wait behind everyone else's on a one-statement-at-a-time store.
      handle: (row, signal) =>
        (row.priority > 0
          ? inBackgroundLane(() => this.handle(row, signal))
          : this.handle(row, signal)
        ).finally(() => {
          if (row.priority > 0) this.backgroundInFlight--;
          this.load.drop(row.connection);
        }),
      // With its background slots full, a due batch check is no reason to wake early: a finishing
      // check frees a slot and wakes the runner, a new single check notifies. Likewise a due check of a
      // connection this worker holds enough of.
      nextDueIn: () =>
        this.backgroundInFlight >= this.maxBackground
          ? Promise.resolve(undefined)
          : nextDueIn(opts.db, QUEUES.checks, this.load.saturated()),
    });
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  wake(): void {
    this.runner.wake();
  }

  get activeCount(): number {
    return this.runner.activeCount;
  }

  /** Stops claiming, lets in-flight checks finish for up to `graceMs`, then releases the rest. */
  stop(graceMs = 10_000): Promise<void> {
    return this.runner.stop(graceMs);
  }

  /** The concurrency limit of the connection named on a check, as the directory says now. */
  private connectionLimit(row: ClaimedCheck): number | undefined {
    if (!row.connection) return undefined;
    const connections = this.opts.resolvePayer(row.tradingPartnerServiceId)?.connections;
    return connections?.find((c) => c.name === row.connection)?.limits?.concurrency;
  }

  private async handle(row: ClaimedCheck, signal: AbortSignal): Promise<void> {
    const started = Date.now();
    // Background checks (batch items, monitor runs) have no one waiting: they retry within the batch window.
    const claim = { attempts: row.attempts, createdAt: new Date(row.createdAt), batch: row.priority > 0 };
    const keys = this.keysOf(row);
    if (isPoisoned(claim, this.policy)) return this.carryOut(row, poisonedDecision(claim), started, keys);
    // Before a payer slot is asked for: a reused check neither waits on its payer nor takes its capacity.
    const reused =
      keys && row.reuseWithinHours ? await this.reuse(row, keys.reuseKey, row.reuseWithinHours) : undefined;
    if (reused && keys)
      return this.finish(row, reused.decision, started, { ...keys, reusedFrom: reused.from });
    const decision = decide(claim, await this.attempt(row, signal), this.policy, new Date());
    await this.carryOut(row, decision, started, keys);
  }

  /** The check's identity hashes; undefined without an identity key (or for a request that cannot have any). */
  private keysOf(row: ClaimedCheck): CheckKeys | undefined {
    if (!this.opts.identityKey) return undefined;
    try {
      return storedCheckKeys(this.opts.identityKey, row.request);
    } catch {
      return undefined; // a stored request without a subscriber: it fails on its own, without history
    }
  }

  /** The answer of a recent check that asked the same question, as this check's own; undefined: none. */
  private async reuse(row: ClaimedCheck, reuseKey: string, hours: number) {
    const earlier = await findReusableCheck(this.opts.db, row.organizationId, reuseKey, hours);
    if (!earlier?.result || !earlier.completedAt) return undefined;
    const from = { id: earlier.id, finishedAt: new Date(earlier.completedAt) };
    const corrections = row.requestCorrections;
    const body = reusedBody(earlier.result, row.id, from, corrections, row.charges);
    const decision = { kind: 'finish', status: 'COMPLETED', body, outcomeCode: 'COMPLETED' } as const;
    return { decision, from: earlier.id };
  }

  /** One attempt: a payer slot, then the payer call and the reading of its answer. Never throws. */
  private async attempt(row: ClaimedCheck, signal: AbortSignal): Promise<Attempt> {
    const entry = this.opts.resolvePayer(row.tradingPartnerServiceId);
    // Failover: the first connection whose breaker (for this payer) is closed; see src/payers/routes.ts.
    const route = entry && routeOf(entry, this.opts.guard, this.opts.limiter, this.opts.leaseMs);
    const payer = route?.payer;
    let permit: PayerPermit | undefined;
    const timeoutMs = payer?.timeoutMs ?? this.opts.payerTimeoutMs;
    if (route && this.opts.guard) {
      // Wait a little for a slot, but never so long that the lease could lapse during the call.
      const slack = (this.opts.leaseMs - timeoutMs) / 2;
      permit = await this.opts.guard.acquire(route.guardKey, Math.min(5_000, slack), signal);
      if (!permit.ok) {
        return signal.aborted
          ? { kind: 'aborted' }
          : { kind: 'refused', reason: permit.reason, retryInMs: permit.retryInMs };
      }
    }
    let attempt: Attempt;
    try {
      const outcome = await processCheck(row.id, row.request, {
        payer,
        connection: route?.connection,
        senderId: this.opts.senderId,
        senderQualifier: this.opts.senderQualifier,
        timeoutMs,
        signal,
        requestCorrections: row.requestCorrections,
        charges: row.charges,
        onPayerCall: route ? (call) => this.payerCalled(row, route, call) : undefined,
        suggestPayers: this.opts.suggestPayers,
      });
      attempt =
        outcome.kind === 'transient' && signal.aborted ? { kind: 'aborted' } : { kind: 'outcome', outcome };
    } catch (err) {
      attempt = serviceError(err);
      // Ids and the error's class only: a foreign error's message may quote the request.
      this.opts.log.error(
        { checkId: row.id, attempt: row.attempts, errorClass: attempt.errorClass },
        'processing a check failed',
      );
    }
    if (permit?.ok) permit.release(permitResult(attempt));
    const outcome = attempt.kind === 'outcome' ? attempt.outcome : undefined;
    if (route && this.opts.guard && outcome?.kind === 'transient' && outcome.cause === 'authentication') {
      // The refused credential opened the breaker: come back when it lets a trial call through.
      outcome.retryAfterMs = this.opts.guard.openForMs(route.guardKey) || undefined;
    }
    return attempt;
  }

  /** One line per payer call: ids, connector, outcome and latency; never PHI, X12 or credentials. */
  private payerCalled(row: ClaimedCheck, route: Route, call: PayerCall): void {
    const { payer } = route;
    const connector = payer.connectorType ?? payer.connector.name;
    const fields = {
      checkId: row.id,
      payer: payer.tradingPartnerServiceId,
      connector,
      ...(route.connection ? { connection: route.connection } : {}),
      outcome: call.outcome,
      latencyMs: Math.round(call.durationMs),
      exchangeId: call.exchangeId,
      traceId: call.traceNumber,
    };
    this.opts.log.info(fields, 'payer call');
    if (call.outcome === 'auth-failed') {
      this.opts.log.warn(
        { payer: payer.tradingPartnerServiceId, connector },
        "payer refused the service's credentials; its checks wait until they are fixed",
      );
    }
    this.opts.onPayerCall?.({
      tradingPartnerServiceId: payer.tradingPartnerServiceId,
      connector,
      connection: route.connection ?? connector,
      outcome: call.outcome,
      durationMs: call.durationMs,
      aaaCodes: call.aaaCodes,
    });
  }

  private async carryOut(
    row: ClaimedCheck,
    decision: Decision,
    started: number,
    keys: CheckKeys | undefined,
  ): Promise<void> {
    const { db, log, workerId } = this.opts;
    switch (decision.kind) {
      case 'release':
        await releaseCheck(db, row.id, workerId);
        log.info({ checkId: row.id }, 'check released on shutdown');
        return;
      case 'retry': {
        const kept = await scheduleRetry(
          db,
          row.id,
          workerId,
          decision.delayMs,
          decision.reason,
          decision.attempt,
        );
        if (decision.attempt === 'refunded') {
          this.opts.onDeferred?.({
            tradingPartnerServiceId: row.tradingPartnerServiceId,
            reason: decision.deferredBy,
          });
        }
        log.info(
          {
            checkId: row.id,
            attempt: row.attempts,
            delayMs: decision.delayMs,
            reason: decision.reason,
            kept,
          },
          decision.attempt === 'refunded' ? 'check deferred' : 'check will be retried',
        );
        return;
      }
      case 'fail':
      case 'finish':
        await this.finish(row, decision, started, keys);
    }
  }

  private async finish(
    row: ClaimedCheck,
    decision: Extract<Decision, { kind: 'finish' | 'fail' }>,
    started: number,
    history: (CheckKeys & { reusedFrom?: string }) | undefined,
  ): Promise<void> {
    const { db, log, workerId } = this.opts;
    const done =
      decision.kind === 'finish'
        ? decision
        : { status: 'FAILED' as const, ...this.failureBody(row, decision) };
    // A discovery's inquiry names no member id: its identity is the one the payer answered with.
    history ??=
      row.discoveryId && done.status === 'COMPLETED' && this.opts.identityKey
        ? answeredCheckKeys(this.opts.identityKey, row.request, done.body)
        : undefined;
    const recorded = await finishCheck(db, {
      id: row.id,
      organizationId: row.organizationId,
      batchId: row.batchId,
      discoveryId: row.discoveryId,
      workerId,
      status: done.status,
      body: done.body,
      outcomeCode: done.outcomeCode,
      tradingPartnerServiceId: row.tradingPartnerServiceId,
      patientKey: history?.patientKey,
      reuseKey: history?.reuseKey,
      reusedFrom: history?.reusedFrom,
      ...('response' in done && done.response ? { response: done.response } : {}),
    });
    const durationMs = Date.now() - started;
    if (!recorded) {
      log.warn(
        { checkId: row.id },
        'lease lost before the result was recorded; another worker owns the check',
      );
      return;
    }
    log.info(
      {
        checkId: row.id,
        status: done.status,
        outcome: done.outcomeCode,
        attempt: row.attempts,
        durationMs,
        // Ids and a count only: the changes themselves are PHI.
        ...(history?.reusedFrom ? { reusedFrom: history.reusedFrom } : {}),
        ...(recorded.coverageChanges ? { coverageChanges: recorded.coverageChanges } : {}),
      },
      'check finished',
    );
    const payer = this.opts.resolvePayer(row.tradingPartnerServiceId);
    // The answer's own record of the connection that answered (after a failover, not the first one).
    const answered =
      done.status === 'COMPLETED' && !history?.reusedFrom && this.opts.onFinished
        ? (('response' in done ? done.response : undefined) ??
          (JSON.parse(done.body) as { meta?: { connection?: string } }))
        : undefined;
    this.opts.onFinished?.({
      tradingPartnerServiceId: row.tradingPartnerServiceId,
      status: done.status,
      durationMs,
      connection:
        answered?.meta?.connection ??
        (payer && (payer.connections?.[0]?.name ?? payer.connectorType ?? payer.connector.name)),
      benefitSource: answered ? benefitSource(answered as Parameters<typeof benefitSource>[0]) : undefined,
    });
  }

  private failureBody(row: ClaimedCheck, failure: Extract<Decision, { kind: 'fail' }>) {
    const request = row.request;
    const payer = this.opts.resolvePayer(row.tradingPartnerServiceId);
    const context = {
      id: row.id,
      request,
      payer: payer ? { payerName: payer.payerName, payerId: payer.payerId } : {},
      meta: {},
      requestCorrections: row.requestCorrections,
    };
    return { body: serviceFailure(context, failure.code, failure.detail), outcomeCode: failure.outcomeCode };
  }
}

/** A thrown error as an attempt: its class, and its message only where ours and free of request data. */
function serviceError(err: unknown): Extract<Attempt, { kind: 'error' }> {
  const errorClass = err instanceof Error ? err.name : typeof err;
  if (err instanceof X12BuildError) return { kind: 'error', errorClass, detail: err.message };
  return { kind: 'error', errorClass };
}
