/**
 * The check worker: claims due checks (see claim-checks.ts), runs them with bounded concurrency, records
 * each outcome, and retries transient payer failures with exponential backoff and full jitter until the
 * attempt budget is spent (then the check FAILS with SH02). The loop itself is the shared QueueRunner.
 */
import type { Logger } from 'pino';
import { finishCheck } from '../checks/finish.ts';
import { serviceFailure } from '../checks/outcome.ts';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { PayerEntry } from '../payers/connector.ts';
import type { PayerGuard, PayerPermit } from '../payers/guard.ts';
import { CHECKS_CHANNEL } from '../store/channels.ts';
import type { Db } from '../store/db.ts';
import { type ClaimedCheck, claimDueChecks, nextDueIn, releaseCheck, scheduleRetry } from './claim-checks.ts';
import { type CheckOutcome, processCheck } from './process-check.ts';
import { QueueRunner } from './queue-runner.ts';

export interface CheckWorkerOptions {
  db: Db;
  log: Logger;
  workerId: string;
  resolvePayer: (tradingPartnerServiceId: string) => PayerEntry | undefined;
  concurrency: number;
  pollMs: number;
  leaseMs: number;
  payerTimeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  senderId: string;
  applicationMode: 'sandbox' | 'production';
  random?: () => number;
  /** Per-payer concurrency limit and circuit breaker of this process (none: calls are not limited). */
  guard?: PayerGuard;
  /** How long a check may wait on an open breaker, from submission, before it fails with SH02. */
  outageWaitMs?: number;
  onDeferred?: (event: { tradingPartnerServiceId: string; reason: string }) => void;
  /** Observability hook (metrics). */
  onFinished?: (event: { tradingPartnerServiceId: string; status: string; durationMs: number }) => void;
  onPayerCall?: (event: { tradingPartnerServiceId: string; result: string; durationMs: number }) => void;
}

type Finish = { status: 'COMPLETED' | 'FAILED'; body: string; outcomeCode: string };

export function retryDelayMs(attempt: number, baseMs: number, random: () => number): number {
  const cap = baseMs * 2 ** Math.min(attempt - 1, 16);
  return Math.round(cap / 2 + random() * (cap / 2));
}

export class CheckWorker {
  private readonly runner: QueueRunner<ClaimedCheck>;

  constructor(private readonly opts: CheckWorkerOptions) {
    this.runner = new QueueRunner({
      db: opts.db,
      log: opts.log,
      channel: CHECKS_CHANNEL,
      concurrency: opts.concurrency,
      pollMs: opts.pollMs,
      claim: (limit) => claimDueChecks(opts.db, opts.workerId, limit, opts.leaseMs),
      handle: (row, signal) => this.handle(row, signal),
      nextDueIn: () => nextDueIn(opts.db),
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

  private async handle(row: ClaimedCheck, signal: AbortSignal): Promise<void> {
    const { db, log, workerId } = this.opts;
    const started = Date.now();
    const request = row.request as EligibilityCheckRequest;
    const payer = this.opts.resolvePayer(row.trading_partner_service_id);
    const failure = (detail: string): Finish => ({
      status: 'FAILED',
      outcomeCode: 'SH02',
      body: serviceFailure(
        {
          id: row.id,
          request,
          payer: payer ? { payerName: payer.payerName, payerId: payer.payerId } : {},
          meta: {},
        },
        'SH02',
        detail,
      ),
    });
    let finish: Finish | undefined;
    let permit: PayerPermit | undefined;
    if (payer && this.opts.guard) {
      // Wait a little for a slot, but never so long that the lease could lapse during the call.
      const slack = (this.opts.leaseMs - this.opts.payerTimeoutMs) / 2;
      permit = await this.opts.guard.acquire(payer.tradingPartnerServiceId, Math.min(5_000, slack), signal);
      if (!permit.ok) {
        if (signal.aborted) {
          await releaseCheck(db, row.id, workerId);
          return;
        }
        const waitedMs = Date.now() - new Date(row.created_at).getTime();
        if (
          permit.reason === 'circuit-open' &&
          waitedMs >= (this.opts.outageWaitMs ?? Number.POSITIVE_INFINITY)
        ) {
          finish = failure(
            `The payer has been unavailable for ${Math.round(waitedMs / 60_000)} minutes (circuit breaker open); no answer was obtained.`,
          );
        } else {
          const kept = await scheduleRetry(
            db,
            row.id,
            workerId,
            permit.retryInMs,
            `payer ${permit.reason}`,
            'refunded',
          );
          this.opts.onDeferred?.({
            tradingPartnerServiceId: row.trading_partner_service_id,
            reason: permit.reason,
          });
          log.debug(
            { checkId: row.id, reason: permit.reason, delayMs: permit.retryInMs, kept },
            'check deferred',
          );
          return;
        }
      }
    }
    if (!finish) {
      const granted = permit?.ok ? permit : undefined;
      let outcome: CheckOutcome;
      try {
        outcome = await processCheck(row.id, request, {
          payer,
          senderId: this.opts.senderId,
          applicationMode: this.opts.applicationMode,
          timeoutMs: this.opts.payerTimeoutMs,
          signal,
          onPayerCall: (result, durationMs) =>
            this.opts.onPayerCall?.({
              tradingPartnerServiceId: row.trading_partner_service_id,
              result,
              durationMs,
            }),
        });
      } catch (err) {
        granted?.release('neutral');
        throw err;
      }
      granted?.release(outcome.kind === 'finished' ? 'success' : signal.aborted ? 'neutral' : 'failure');
      if (outcome.kind === 'finished') {
        finish = outcome;
      } else if (signal.aborted) {
        await releaseCheck(db, row.id, workerId);
        log.info({ checkId: row.id }, 'check released on shutdown');
        return;
      } else if (row.attempts >= this.opts.maxAttempts) {
        finish = failure(`No usable answer after ${row.attempts} attempts (last: ${outcome.reason}).`);
      } else {
        const delay =
          outcome.retryAfterMs ??
          retryDelayMs(row.attempts, this.opts.retryBaseMs, this.opts.random ?? Math.random);
        const kept = await scheduleRetry(db, row.id, workerId, delay, outcome.reason);
        log.info(
          { checkId: row.id, attempt: row.attempts, delayMs: delay, reason: outcome.reason, kept },
          'check will be retried',
        );
        return;
      }
    }
    const recorded = await finishCheck(db, {
      id: row.id,
      organizationId: row.organization_id,
      workerId,
      status: finish.status,
      body: finish.body,
      outcomeCode: finish.outcomeCode,
    });
    const durationMs = Date.now() - started;
    if (recorded) {
      log.info(
        {
          checkId: row.id,
          status: finish.status,
          outcome: finish.outcomeCode,
          attempt: row.attempts,
          durationMs,
        },
        'check finished',
      );
      this.opts.onFinished?.({
        tradingPartnerServiceId: row.trading_partner_service_id,
        status: finish.status,
        durationMs,
      });
    } else {
      log.warn(
        { checkId: row.id },
        'lease lost before the result was recorded; another worker owns the check',
      );
    }
  }
}
