/**
 * The worker's decision as a table: every kind of attempt, at the start, middle and end of the budget.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Attempt,
  type Decision,
  decide,
  isPoisoned,
  LOST_ATTEMPT_ALLOWANCE,
  permitResult,
  type RetryPolicy,
  retryDelayMs,
} from '../../src/workers/check-decision.ts';
import type { CheckOutcome } from '../../src/workers/process-check.ts';

const policy: RetryPolicy = {
  maxAttempts: 3,
  retryBaseMs: 100,
  outageWaitMs: 60_000,
  batchRetryMs: 3_600_000,
  random: () => 0.5,
};
const created = new Date('2026-11-24T10:00:00Z');
const at = (ms: number) => new Date(created.getTime() + ms);

const completed: CheckOutcome = {
  kind: 'finished',
  status: 'COMPLETED',
  body: '{}',
  outcomeCode: 'COMPLETED',
};
const rejected: CheckOutcome = { kind: 'finished', status: 'FAILED', body: '{}', outcomeCode: 'AAA:72' };
const unavailable: CheckOutcome = { kind: 'transient', reason: 'payer timeout' };
const throttled: CheckOutcome = { kind: 'transient', reason: 'payer unavailable', retryAfterMs: 7000 };
const locked: CheckOutcome = {
  kind: 'transient',
  reason: 'payer authentication failed',
  cause: 'authentication',
  retryAfterMs: 30_000,
};
const trace: CheckOutcome = { kind: 'transient', reason: "payer's 271 does not echo this check's trace" };

type Row = [
  name: string,
  attempts: number,
  attempt: Attempt,
  now: Date,
  expected: Partial<Decision>,
  batch?: 'batch',
];
const rows: Row[] = [
  [
    'a payer answer finishes',
    1,
    { kind: 'outcome', outcome: completed },
    at(0),
    { kind: 'finish', status: 'COMPLETED' },
  ],
  [
    'an AAA rejection finishes',
    3,
    { kind: 'outcome', outcome: rejected },
    at(0),
    { kind: 'finish', outcomeCode: 'AAA:72' },
  ],
  [
    'a transient failure is retried',
    1,
    { kind: 'outcome', outcome: unavailable },
    at(0),
    { kind: 'retry', attempt: 'counted', delayMs: 75 },
  ],
  [
    'backoff doubles with the attempt',
    2,
    { kind: 'outcome', outcome: unavailable },
    at(0),
    { kind: 'retry', delayMs: 150 },
  ],
  [
    "the payer's Retry-After wins",
    1,
    { kind: 'outcome', outcome: throttled },
    at(0),
    { kind: 'retry', delayMs: 7000 },
  ],
  [
    'the last transient failure fails SH02',
    3,
    { kind: 'outcome', outcome: unavailable },
    at(0),
    { kind: 'fail', code: 'SH02', outcomeCode: 'SH02' },
  ],
  [
    'a service error is retried',
    1,
    { kind: 'error', errorClass: 'TypeError' },
    at(0),
    { kind: 'retry', attempt: 'counted', reason: 'service error (TypeError)' },
  ],
  [
    'the last service error fails SH03',
    3,
    { kind: 'error', errorClass: 'TypeError' },
    at(0),
    { kind: 'fail', code: 'SH03', outcomeCode: 'SH03:TypeError' },
  ],
  [
    'a busy payer defers without cost',
    3,
    { kind: 'refused', reason: 'busy', retryInMs: 250 },
    at(0),
    { kind: 'retry', attempt: 'refunded', delayMs: 250 },
  ],
  [
    'an open breaker defers within the outage window',
    1,
    { kind: 'refused', reason: 'circuit-open', retryInMs: 900 },
    at(59_999),
    { kind: 'retry', attempt: 'refunded', deferredBy: 'circuit-open' },
  ],
  [
    'an open breaker defers no later than the end of the outage window',
    1,
    { kind: 'refused', reason: 'circuit-open', retryInMs: 30_000 },
    at(50_000),
    { kind: 'retry', attempt: 'refunded', delayMs: 10_000 },
  ],
  [
    'an open breaker past the outage window fails SH02',
    1,
    { kind: 'refused', reason: 'circuit-open', retryInMs: 900 },
    at(60_000),
    { kind: 'fail', code: 'SH02' },
  ],
  [
    'a busy payer never fails the check',
    1,
    { kind: 'refused', reason: 'busy', retryInMs: 900 },
    at(10 * 60_000),
    { kind: 'retry', attempt: 'refunded' },
  ],
  [
    'refused credentials defer without cost, even on the last attempt, until the breaker lets a trial through',
    3,
    { kind: 'outcome', outcome: locked },
    at(0),
    { kind: 'retry', attempt: 'refunded', deferredBy: 'auth-failed', delayMs: 30_000 },
  ],
  [
    'refused credentials past the outage window fail SH02',
    1,
    { kind: 'outcome', outcome: locked },
    at(60_000),
    { kind: 'fail', code: 'SH02', outcomeCode: 'SH02' },
  ],
  [
    'a breaker opened by refused credentials defers like an outage',
    2,
    { kind: 'refused', reason: 'auth-failed', retryInMs: 900 },
    at(1_000),
    { kind: 'retry', attempt: 'refunded', deferredBy: 'auth-failed', delayMs: 900 },
  ],
  [
    'a 271 for another inquiry is retried like any transient answer, never attached',
    1,
    { kind: 'outcome', outcome: trace },
    at(0),
    { kind: 'retry', attempt: 'counted' },
  ],
  ['shutdown releases', 2, { kind: 'aborted' }, at(0), { kind: 'release' }],
  [
    'batch: a transient failure within the budget is retried as usual',
    1,
    { kind: 'outcome', outcome: unavailable },
    at(0),
    { kind: 'retry', attempt: 'counted', delayMs: 75 },
    'batch',
  ],
  [
    'batch: the last transient failure of the budget is retried, refunded, within the window',
    3,
    { kind: 'outcome', outcome: unavailable },
    at(0),
    { kind: 'retry', attempt: 'refunded', deferredBy: 'batch-retry', delayMs: 300 },
    'batch',
  ],
  [
    'batch: the delay grows with the time waited, up to 10 minutes',
    3,
    { kind: 'outcome', outcome: unavailable },
    at(48 * 60_000),
    { kind: 'retry', attempt: 'refunded', delayMs: 600_000 },
    'batch',
  ],
  [
    'batch: a retry comes back no later than the end of the window',
    3,
    { kind: 'outcome', outcome: unavailable },
    at(55 * 60_000),
    { kind: 'retry', attempt: 'refunded', delayMs: 300_000 },
    'batch',
  ],
  [
    'batch: a transient failure past the window fails SH02',
    3,
    { kind: 'outcome', outcome: unavailable },
    at(3_600_000),
    { kind: 'fail', code: 'SH02', outcomeCode: 'SH02' },
    'batch',
  ],
  [
    'batch: an open breaker past the real-time outage window still defers',
    1,
    { kind: 'refused', reason: 'circuit-open', retryInMs: 900 },
    at(60_000),
    { kind: 'retry', attempt: 'refunded', deferredBy: 'circuit-open', delayMs: 900 },
    'batch',
  ],
  [
    'batch: an open breaker past the batch window fails SH02',
    1,
    { kind: 'refused', reason: 'circuit-open', retryInMs: 900 },
    at(3_600_000),
    { kind: 'fail', code: 'SH02' },
    'batch',
  ],
  [
    'batch: refused credentials wait within the batch window too',
    3,
    { kind: 'outcome', outcome: locked },
    at(30 * 60_000),
    { kind: 'retry', attempt: 'refunded', deferredBy: 'auth-failed' },
    'batch',
  ],
  [
    'batch: an AAA rejection finishes at once',
    1,
    { kind: 'outcome', outcome: rejected },
    at(0),
    { kind: 'finish', outcomeCode: 'AAA:72' },
    'batch',
  ],
];

for (const [name, attempts, attempt, now, expected, batch] of rows) {
  test(`decide: ${name}`, () => {
    const decision = decide({ attempts, createdAt: created, batch: batch === 'batch' }, attempt, policy, now);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(
        (decision as Record<string, unknown>)[key],
        value,
        `${key} of ${JSON.stringify(decision)}`,
      );
    }
  });
}

test('decide: the SH03 detail names the field an X12BuildError names, and the attempts', () => {
  const decision = decide(
    { attempts: 3, createdAt: created },
    {
      kind: 'error',
      errorClass: 'X12BuildError',
      detail: 'Cannot write encounter.dateOfService into X12: has the wrong format',
    },
    policy,
    at(0),
  );
  assert.equal(decision.kind, 'fail');
  assert.match(
    (decision as { detail: string }).detail,
    /failed 3 times: Cannot write encounter\.dateOfService/,
  );
});

test('decide: SH02 after refused credentials says so', () => {
  const decision = decide(
    { attempts: 1, createdAt: created },
    { kind: 'refused', reason: 'auth-failed', retryInMs: 1 },
    policy,
    at(120_000),
  );
  assert.match(
    (decision as { detail: string }).detail,
    /unavailable for 2 minutes \(it refuses our credentials\)/,
  );
});

test('permitResult: refused credentials are reported to the guard as such', () => {
  assert.equal(permitResult({ kind: 'outcome', outcome: locked }), 'auth-failure');
  assert.equal(permitResult({ kind: 'outcome', outcome: trace }), 'failure');
  assert.equal(permitResult({ kind: 'outcome', outcome: rejected }), 'success');
  assert.equal(permitResult({ kind: 'refused', reason: 'auth-failed', retryInMs: 1 }), 'neutral');
});

test('isPoisoned: only claims beyond the budget and the lost-attempt allowance', () => {
  const limit = policy.maxAttempts + LOST_ATTEMPT_ALLOWANCE;
  assert.equal(isPoisoned({ attempts: limit, createdAt: created }, policy), false);
  assert.equal(isPoisoned({ attempts: limit + 1, createdAt: created }, policy), true);
});

test('decide: the SH02 of a batch check names the retry window', () => {
  const decision = decide(
    { attempts: 3, createdAt: created, batch: true },
    { kind: 'outcome', outcome: unavailable },
    policy,
    at(3_600_000),
  );
  assert.match((decision as { detail: string }).detail, /batch retry window of 1 hours/);
});

test('retryDelayMs: full jitter between half and all of an exponential cap', () => {
  assert.equal(
    retryDelayMs(1, 100, () => 0),
    50,
  );
  assert.equal(
    retryDelayMs(1, 100, () => 1),
    100,
  );
  assert.equal(
    retryDelayMs(4, 100, () => 1),
    800,
  );
  assert.equal(
    retryDelayMs(40, 1, () => 1),
    2 ** 16,
    'the exponent is capped',
  );
});
