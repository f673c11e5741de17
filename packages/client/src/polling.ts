/**
 * How long waitForCheck waits between two status reads. The server's `Retry-After` is a floor, never
 * shortened: asking sooner cannot tell anything new and costs the key's rate limit. On top of it an
 * exponential backoff lengthens the wait the longer a check runs (a check waiting on a payer outage may take
 * minutes; polling it every second for that long helps no one), and jitter spreads clients that started
 * together so they do not poll in lockstep. Jitter only ever adds, so the floor holds.
 */

export interface PollTiming {
  /** First wait when the server sends no `Retry-After`; default 1000 ms. */
  initialIntervalMs?: number;
  /** Largest wait the backoff grows to (a larger `Retry-After` is still honoured); default 15000 ms. */
  maxIntervalMs?: number;
  /** Growth of the wait per poll; default 1.5. */
  backoffFactor?: number;
  /** Up to this fraction is added at random to each wait; default 0.2. */
  jitter?: number;
}

export const DEFAULT_POLL_TIMING: Required<PollTiming> = {
  initialIntervalMs: 1000,
  maxIntervalMs: 15_000,
  backoffFactor: 1.5,
  jitter: 0.2,
};

/**
 * The wait before poll number `attempt + 1`, in milliseconds. `attempt` counts from 1 (the wait after the
 * first read); `retryAfterSeconds` is the server's floor, when it sent one.
 */
export function pollDelayMs(
  attempt: number,
  retryAfterSeconds: number | undefined,
  timing: PollTiming = {},
  random: () => number = Math.random,
): number {
  const { initialIntervalMs, maxIntervalMs, backoffFactor, jitter } = { ...DEFAULT_POLL_TIMING, ...timing };
  const backoff = Math.min(maxIntervalMs, initialIntervalMs * backoffFactor ** Math.max(0, attempt - 1));
  const floor = retryAfterSeconds === undefined ? 0 : retryAfterSeconds * 1000;
  return Math.round(Math.max(floor, backoff) * (1 + jitter * random()));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts (clearing the timer). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
