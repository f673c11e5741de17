/**
 * Per-API-key token buckets, in process memory. Each process enforces the limit on the requests it sees:
 * with N API processes behind a balancer a key can reach up to N times the limit (documented). The answer
 * to an empty bucket is 429 ThrottlingException with Retry-After and RateLimit-* headers.
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
}

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
      b = { tokens: burst, updated: t };
      this.buckets.set(key, b);
    }
    b.tokens = Math.min(burst, b.tokens + ((t - b.updated) / 1000) * ratePerSecond);
    b.updated = t;
    const resetSeconds = Math.ceil((burst - b.tokens) / ratePerSecond);
    if (b.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - b.tokens) / ratePerSecond));
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
    b.tokens -= 1;
    return {
      'ratelimit-limit': String(burst),
      'ratelimit-remaining': String(Math.floor(b.tokens)),
      'ratelimit-reset': String(resetSeconds),
    };
  }
}
