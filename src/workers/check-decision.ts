/**
 * What to do with a claimed check after one attempt, decided in one place. Pure: the claimed row, what the
 * attempt came to and the retry policy in, a decision out; the worker carries it out (check-worker.ts).
 *
 * Every path ends: a payer outcome finishes the check; a transient failure or a service error (a bug, a
 * request the 270 builder cannot encode, a crash while reading the answer) is retried with backoff until
 * the attempt budget is spent, then FAILS (SH02 for the payer, SH03 for the service); waiting on a payer
 * that is down ends after the outage window (SH02). A check claimed again and again without any attempt
 * being recorded (its workers died on it) is failed with SH03 without a further try, so no input can keep
 * a check IN_PROGRESS forever.
 *
 * A batch check has no one waiting on it: where a real-time check fails with SH02 (attempt budget spent,
 * outage window over), a batch check keeps waiting and retrying until the batch retry window
 * (BATCH_RETRY_HOURS, from submission) is over, then fails with SH02. Past the attempt budget its retries
 * are refunded, so the lost-claim allowance still tells a poisoned check from a payer that is down, and
 * their delay grows with the time already waited (up to BATCH_RETRY_MAX_DELAY_MS).
 */
import type { EligibilityCheckResponse } from '../contract/check-response.ts';
import type { PermitResult } from '../payers/guard.ts';
import type { CheckOutcome } from './process-check.ts';

export interface RetryPolicy {
  maxAttempts: number;
  retryBaseMs: number;
  /** How long a check may wait on an open breaker, from submission, before it fails with SH02. */
  outageWaitMs: number;
  /** How long a batch check may keep retrying, from submission, before it fails with SH02. */
  batchRetryMs: number;
  random: () => number;
}

/** The longest wait between two tries of a batch check whose payer keeps failing. */
export const BATCH_RETRY_MAX_DELAY_MS = 10 * 60_000;

/**
 * Claims beyond the budget that are allowed before a check is declared poisoned. A claim that recorded
 * nothing (a worker killed mid-call, a lease lost to a stall) costs an attempt like any other; two spare
 * claims keep a check whose last attempt met a routine worker restart from failing for it.
 */
export const LOST_ATTEMPT_ALLOWANCE = 2;

export interface ClaimFacts {
  /** Attempts counted so far, this claim included. */
  attempts: number;
  createdAt: Date;
  /** A batch item (background work): it retries within the batch retry window. */
  batch?: boolean;
}

/**
 * Why the payer was not asked: its breaker is open (after an outage, or a refused credential), its slots
 * are busy, or its connection is throttled (account limits, a 429's back-off).
 */
export type PayerRefusal = 'circuit-open' | 'auth-failed' | 'busy' | 'throttled';
/** Why a check waits without spending an attempt: a refusal, or a batch check past its attempt budget. */
export type Deferral = PayerRefusal | 'batch-retry';

/** What one attempt came to. */
export type Attempt =
  | { kind: 'outcome'; outcome: CheckOutcome }
  /** Processing threw: neither a payer outcome nor a payer failure. `errorClass` is the error's name. */
  | { kind: 'error'; errorClass: string; detail?: string }
  /** The payer was not asked: its breaker is open or its slots stayed busy. */
  | { kind: 'refused'; reason: PayerRefusal; retryInMs: number }
  /** The process is shutting down: the attempt is given back. */
  | { kind: 'aborted' };

export type ServiceFailureCode = 'SH02' | 'SH03';

export type Decision =
  | {
      kind: 'finish';
      status: 'COMPLETED' | 'FAILED';
      body: string;
      outcomeCode: string;
      /** The object `body` was serialized from, when the worker built it (not for a reused answer). */
      response?: EligibilityCheckResponse;
    }
  /** Fail with a service error; the worker writes the body (it knows the request and the payer). */
  | { kind: 'fail'; code: ServiceFailureCode; outcomeCode: string; detail: string }
  /** Try again after `delayMs`; `refunded` when the payer was not asked, so the wait costs no attempt. */
  | { kind: 'retry'; delayMs: number; reason: string; attempt: 'counted' }
  | { kind: 'retry'; delayMs: number; reason: string; attempt: 'refunded'; deferredBy: Deferral }
  | { kind: 'release' };

/** When a throttled check comes back if the connection named no Retry-After. */
export const THROTTLE_RETRY_MS = 1_000;

export function retryDelayMs(attempt: number, baseMs: number, random: () => number): number {
  const cap = baseMs * 2 ** Math.min(attempt - 1, 16);
  return Math.round(cap / 2 + random() * (cap / 2));
}

/** True when earlier claims of this check never recorded an outcome, more often than the budget allows. */
export function isPoisoned(claim: ClaimFacts, policy: Pick<RetryPolicy, 'maxAttempts'>): boolean {
  return claim.attempts > policy.maxAttempts + LOST_ATTEMPT_ALLOWANCE;
}

export function poisonedDecision(claim: ClaimFacts): Decision {
  return {
    kind: 'fail',
    code: 'SH03',
    outcomeCode: 'SH03:LOST',
    detail: `Processing was started ${claim.attempts - 1} times and never finished (the workers stopped during it); it was not tried again.`,
  };
}

export function decide(claim: ClaimFacts, attempt: Attempt, policy: RetryPolicy, now: Date): Decision {
  switch (attempt.kind) {
    case 'aborted':
      return { kind: 'release' };
    case 'refused':
      return deferOrFail(claim, attempt.reason, attempt.retryInMs, policy, now);
    case 'error': {
      if (claim.attempts >= policy.maxAttempts) {
        const what = attempt.detail ?? `an internal error (${attempt.errorClass})`;
        return {
          kind: 'fail',
          code: 'SH03',
          outcomeCode: `SH03:${attempt.errorClass}`,
          detail: `Processing failed ${claim.attempts} times: ${what}.`,
        };
      }
      return {
        kind: 'retry',
        delayMs: retryDelayMs(claim.attempts, policy.retryBaseMs, policy.random),
        reason: `service error (${attempt.errorClass})`,
        attempt: 'counted',
      };
    }
    case 'outcome': {
      const { outcome } = attempt;
      if (outcome.kind === 'finished') return { kind: 'finish', ...withoutKind(outcome) };
      // Our credentials were refused: not this check's fault, so it waits as in an outage, attempt refunded.
      if (outcome.cause === 'authentication') {
        const delay = outcome.retryAfterMs ?? retryDelayMs(claim.attempts, policy.retryBaseMs, policy.random);
        return deferOrFail(claim, 'auth-failed', delay, policy, now);
      }
      // The connection's account limit, not the payer: wait for the back-off, attempt refunded.
      if (outcome.cause === 'throttled') {
        return deferOrFail(claim, 'throttled', outcome.retryAfterMs ?? THROTTLE_RETRY_MS, policy, now);
      }
      // Our own queue for the connection is full: it is busy, not down; the check waits its turn.
      if (outcome.cause === 'connection-busy') {
        return deferOrFail(claim, 'busy', outcome.retryAfterMs ?? THROTTLE_RETRY_MS, policy, now);
      }
      if (claim.attempts >= policy.maxAttempts && claim.batch) {
        return batchRetryOrFail(claim, outcome.reason, outcome.retryAfterMs, policy, now);
      }
      if (claim.attempts >= policy.maxAttempts) {
        return {
          kind: 'fail',
          code: 'SH02',
          outcomeCode: 'SH02',
          detail: `No usable answer after ${claim.attempts} attempts (last: ${outcome.reason}).`,
        };
      }
      return {
        kind: 'retry',
        delayMs: outcome.retryAfterMs ?? retryDelayMs(claim.attempts, policy.retryBaseMs, policy.random),
        reason: outcome.reason,
        attempt: 'counted',
      };
    }
  }
}

/** A check that waits on its payer without spending an attempt, until the outage window is spent. */
function deferOrFail(
  claim: ClaimFacts,
  reason: PayerRefusal,
  delayMs: number,
  policy: RetryPolicy,
  now: Date,
): Decision {
  const waitedMs = now.getTime() - claim.createdAt.getTime();
  const windowMs = claim.batch ? policy.batchRetryMs : policy.outageWaitMs;
  if (reason !== 'busy' && waitedMs >= windowMs) {
    const why =
      reason === 'auth-failed'
        ? 'it refuses our credentials'
        : reason === 'throttled'
          ? 'its connection kept refusing for its rate limit'
          : 'circuit breaker open';
    return {
      kind: 'fail',
      code: 'SH02',
      outcomeCode: 'SH02',
      detail: `The payer has been unavailable for ${Math.round(waitedMs / 60_000)} minutes (${why}); no answer was obtained.`,
    };
  }
  // Come back no later than the end of the window, so the SH02 is not late by a whole open period.
  const due = reason === 'busy' ? delayMs : Math.min(delayMs, Math.max(1, windowMs - waitedMs));
  return { kind: 'retry', delayMs: due, reason: `payer ${reason}`, attempt: 'refunded', deferredBy: reason };
}

/** A batch check past its attempt budget: try again later (attempt refunded) until its window is over. */
function batchRetryOrFail(
  claim: ClaimFacts,
  reason: string,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  now: Date,
): Decision {
  const waitedMs = now.getTime() - claim.createdAt.getTime();
  if (waitedMs >= policy.batchRetryMs) {
    return {
      kind: 'fail',
      code: 'SH02',
      outcomeCode: 'SH02',
      detail: `No usable answer within the batch retry window of ${Math.round(policy.batchRetryMs / 3_600_000)} hours (${claim.attempts} attempts, last: ${reason}).`,
    };
  }
  const backoff = retryDelayMs(claim.attempts, policy.retryBaseMs, policy.random);
  const grown = Math.min(BATCH_RETRY_MAX_DELAY_MS, Math.max(backoff, retryAfterMs ?? 0, waitedMs / 4));
  const delayMs = Math.round(Math.max(1, Math.min(grown, policy.batchRetryMs - waitedMs)));
  return { kind: 'retry', delayMs, reason, attempt: 'refunded', deferredBy: 'batch-retry' };
}

function withoutKind(outcome: Extract<CheckOutcome, { kind: 'finished' }>) {
  const { status, body, outcomeCode, response } = outcome;
  return { status, body, outcomeCode, ...(response ? { response } : {}) };
}

/** How the payer's slot is given back, from what the attempt came to. */
export function permitResult(attempt: Attempt): PermitResult {
  if (attempt.kind !== 'outcome') return 'neutral';
  if (attempt.outcome.kind === 'finished') return 'success';
  // A throttled call says nothing about the payer: its breaker does not count it.
  if (attempt.outcome.cause === 'throttled' || attempt.outcome.cause === 'connection-busy') return 'neutral';
  return attempt.outcome.cause === 'authentication' ? 'auth-failure' : 'failure';
}
