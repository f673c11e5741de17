/**
 * Webhook retry schedule: exponential backoff with ±20 % jitter over about three days.
 *
 * Waits after failed attempt 1, 2, …: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, then 8 h eight
 * times. That is 17 attempts in all, the last about 71.7 hours after the first (57–86 h with jitter);
 * after the 17th failure the event is given up. Jitter spreads the retries of many events that failed
 * together (a receiver outage) so they do not return as one burst. docs/webhooks.md has the same table
 * (a test keeps the two equal).
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([
  5,
  30,
  120,
  600,
  1800,
  3600,
  7200,
  14_400,
  ...Array<number>(8).fill(28_800),
]);

/** First attempt plus one retry per delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;
const JITTER = 0.2;
export const TOTAL_SCHEDULE_HOURS = RETRY_DELAYS_SECONDS.reduce((a, b) => a + b, 0) / 3600;

export interface Schedule {
  /**
   * Delay before the next attempt after `failedAttempts` attempts have failed (1 after the first), or
   * null when the event should be given up.
   */
  nextAttemptDelayMs(failedAttempts: number, random?: () => number): number | null;
  readonly maxAttempts: number;
}

/** `scale` shrinks (tests, demos) or stretches every delay; 0.001 turns 8 h into about 29 s. */
export function createSchedule(options: { scale?: number } = {}): Schedule {
  const scale = options.scale ?? 1;
  if (!Number.isFinite(scale) || scale <= 0)
    throw new RangeError('The schedule scale must be a positive number.');
  return {
    maxAttempts: MAX_ATTEMPTS,
    nextAttemptDelayMs(failedAttempts, random = Math.random) {
      if (!Number.isSafeInteger(failedAttempts) || failedAttempts < 1) {
        throw new RangeError('failedAttempts counts attempts made: a whole number from 1.');
      }
      const base = RETRY_DELAYS_SECONDS[failedAttempts - 1];
      if (base === undefined) return null;
      const r = Math.min(Math.max(random(), 0), 1);
      const factor = 1 - JITTER + 2 * JITTER * r;
      return Math.max(1, Math.round(base * 1000 * scale * factor));
    },
  };
}

const standard = createSchedule();

/** The standard (unscaled) schedule. */
export function nextAttemptDelayMs(
  failedAttempts: number,
  random: () => number = Math.random,
): number | null {
  return standard.nextAttemptDelayMs(failedAttempts, random);
}
