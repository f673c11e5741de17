/**
 * Per-API-key token buckets with fair refill, in process memory. Each process enforces the limit on the
 * requests it sees: with N API processes behind a balancer a key can reach up to N times the limit
 * (documented). The answer to an empty bucket is 429 ThrottlingException with Retry-After and RateLimit-*
 * headers.
 *
 * Fair refill: a refused request books the next token nobody else has booked, and its Retry-After is the
 * wait until that token has accrued, computed from the bucket (the k-th request refused at once waits
 * about k / rate seconds, rounded up). Until the booked moment, requests arriving in between (others,
 * and fresh ones) cannot spend that token, so a client that honours Retry-After finds it there when it
 * comes back, instead of racing everyone who was told "1 second" at the same time. Without bookings, a
 * day's schedule sent by 50 clients at 20/s sees some requests refused a dozen times in a row
 * (test/api/rate-limit-fairness.test.ts); with them, no more than a few.
 */
import { ApiError } from './errors.ts';

export interface RateLimit {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size (the burst a key may send at once). */
  burst: number;
}

interface Bucket {
  tokens: number;
  updated: number;
  /** When each refused request was told to come back (ascending): its token is kept until then. */
  bookings: number[];
}

/** Bookings kept per key: beyond this a refusal still computes its wait but books nothing. */
const MAX_BOOKINGS = 10_000;
/** How long after its moment a booking waits for its client before it is given up. */
const CLAIM_WINDOW_MS = 5_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for `key`, or throws a 429 ApiError. Returns headers describing the bucket. */
  take(key: string): Record<string, string> {
    const { ratePerSecond, burst } = this.limit;
    const t = this.now();
    let b = this.buckets.get(key);
    if (!b) {
      if (this.buckets.size > 100_000) this.buckets.clear();
      b = { tokens: burst, updated: t, bookings: [] };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(burst, b.tokens + ((t - b.updated) / 1000) * ratePerSecond);
    b.updated = t;
    // Bookings that expired unclaimed (their client gave up) are forgotten; their tokens stay spent.
    while (b.bookings.length && b.bookings[0]! < t - CLAIM_WINDOW_MS) b.bookings.shift();
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return this.headers(b);
    }
    // A request coming back when told finds the token it paid for when it was refused.
    if (b.bookings.length && b.bookings[0]! <= t) {
      b.bookings.shift();
      return this.headers(b);
    }
    // Refused: pay for a token now (the bucket goes into debt) and come back when it has accrued.
    const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / ratePerSecond));
    if (b.bookings.length < MAX_BOOKINGS && b.tokens > -MAX_BOOKINGS) {
      b.tokens -= 1;
      insertSorted(b.bookings, t + retryAfter * 1000);
    }
    throw new ApiError(
      429,
      'ThrottlingException',
      `Rate limit exceeded: ${ratePerSecond} requests per second (burst ${burst}) per API key. Retry after ${retryAfter}s.`,
      {
        'retry-after': String(retryAfter),
        'ratelimit-limit': String(burst),
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(retryAfter),
      },
    );
  }

  private headers(b: Bucket): Record<string, string> {
    const { ratePerSecond, burst } = this.limit;
    return {
      'ratelimit-limit': String(burst),
      'ratelimit-remaining': String(Math.max(0, Math.floor(b.tokens))),
      'ratelimit-reset': String(Math.max(0, Math.ceil((burst - b.tokens) / ratePerSecond))),
    };
  }
}

function insertSorted(list: number[], value: number): void {
  let i = list.length;
  while (i > 0 && list[i - 1]! > value) i--;
  list.splice(i, 0, value);
}
