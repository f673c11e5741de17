/**
 * Per-API-key token buckets with fair refill, in process memory, and optionally a second bucket per
 * organization across all its keys (the submit limiter: one organization cannot multiply its share of the
 * workers by creating keys). Each process enforces the limits on the requests it sees: with N API
 * processes behind a balancer a key can reach up to N times the limit (documented). The answer to an
 * empty bucket is 429 ThrottlingException with Retry-After and RateLimit-* headers.
 *
 * Fair refill: a refused request books the next token nobody else has booked, and its Retry-After is the
 * wait until that token has accrued, computed from the bucket (the k-th request refused at once waits
 * about k / rate seconds, rounded up). Until the booked moment, requests arriving in between (others,
 * and fresh ones) cannot spend that token. Without bookings, a day's schedule sent by 50 clients at
 * 20/s sees some requests refused a dozen times in a row (test/api/rate-limit-fairness.test.ts).
 *
 * Whose token it is: a request is recognised across retries only by its key and its Idempotency-Key
 * (nothing else a polite client repeats is seen before the body is read). A booking made for a request
 * with an Idempotency-Key belongs to it: no other request can spend it, so a client that honours
 * Retry-After and sends an Idempotency-Key is refused at most once in a row (issue 26: at concurrency 40
 * without that, a request could be refused 7 times in a row, its booked token spent by a fresh request
 * that arrived a few milliseconds before it came back). A booking without one is spent by the first
 * request that finds it due, which is usually, not always, the one it was made for.
 */
import { ApiError } from './errors.ts';

export interface RateLimit {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Bucket size (the burst a key may send at once). */
  burst: number;
}

/** What the limiter knows of a request besides its key. */
export interface RequestIdentity {
  /** The organization of the key: counted against the per-organization limit, when there is one. */
  organizationId?: string;
  /** The request's Idempotency-Key: a token booked for it is kept for it alone. */
  idempotencyKey?: string;
}

interface Booking {
  /** When the refused request was told to come back. */
  at: number;
  /** The Idempotency-Key of the request it was made for (undefined: any request may spend it). */
  owner: string | undefined;
}

interface Bucket {
  tokens: number;
  updated: number;
  /** Ascending by `at`: each refused request's token is kept until then. */
  bookings: Booking[];
}

/** Bookings kept per bucket: beyond this a refusal still computes its wait but books nothing. */
const MAX_BOOKINGS = 10_000;
/** How long after its moment a booking waits for its client before it is given up. */
const CLAIM_WINDOW_MS = 5_000;

/** One family of buckets (per key, or per organization): admits a request or names its wait. */
class Buckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number,
  ) {}

  /**
   * Admits a request of `id` (the bucket is debited; the returned function gives the token back) or
   * returns the seconds to wait (its token is booked, owned by `owner` when given).
   */
  take(id: string, owner: string | undefined): { bucket: Bucket; undo: () => void } | number {
    const { ratePerSecond, burst } = this.limit;
    const t = this.now();
    let b = this.buckets.get(id);
    if (!b) {
      if (this.buckets.size > 100_000) this.buckets.clear();
      b = { tokens: burst, updated: t, bookings: [] };
      this.buckets.set(id, b);
    }
    const bucket = b;
    bucket.tokens = Math.min(burst, bucket.tokens + ((t - bucket.updated) / 1000) * ratePerSecond);
    bucket.updated = t;
    // Bookings that expired unclaimed (their client gave up) are forgotten; their tokens stay spent.
    while (bucket.bookings.length && bucket.bookings[0]!.at < t - CLAIM_WINDOW_MS) bucket.bookings.shift();
    // A request coming back finds the token booked for it: spent now if due, else it is told to wait
    // for it again (without booking a second one).
    const own = owner === undefined ? -1 : bucket.bookings.findIndex((x) => x.owner === owner);
    if (own >= 0) {
      const booking = bucket.bookings[own]!;
      if (booking.at > t) return Math.max(1, Math.ceil((booking.at - t) / 1000));
      bucket.bookings.splice(own, 1);
      return { bucket, undo: () => insertSorted(bucket.bookings, booking) };
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { bucket, undo: () => (bucket.tokens += 1) };
    }
    // Otherwise the first due booking nobody owns: usually the one made for this request.
    const shared = bucket.bookings.findIndex((x) => x.owner === undefined && x.at <= t);
    if (shared >= 0) {
      const [booking] = bucket.bookings.splice(shared, 1);
      return { bucket, undo: () => insertSorted(bucket.bookings, booking!) };
    }
    // Refused: pay for a token now (the bucket goes into debt) and come back when it has accrued.
    const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond));
    if (bucket.bookings.length < MAX_BOOKINGS && bucket.tokens > -MAX_BOOKINGS) {
      bucket.tokens -= 1;
      insertSorted(bucket.bookings, { at: t + retryAfter * 1000, owner });
    }
    return retryAfter;
  }
}

export class RateLimiter {
  private readonly keys: Buckets;
  private readonly organizations: Buckets | undefined;

  constructor(
    limit: RateLimit,
    now: () => number = () => performance.now(),
    /** A second limit shared by all the keys of an organization (requests naming their organization). */
    perOrganization?: RateLimit,
  ) {
    this.keys = new Buckets(limit, now);
    this.organizations = perOrganization && new Buckets(perOrganization, now);
  }

  /**
   * Takes one token for `key` (and for its organization, when limited), or throws a 429 ApiError.
   * Returns headers describing the key's bucket.
   */
  take(key: string, request: RequestIdentity = {}): Record<string, string> {
    const admitted = this.keys.take(key, request.idempotencyKey);
    if (typeof admitted === 'number') throw throttled(this.keys.limit, admitted, 'API key');
    if (this.organizations && request.organizationId !== undefined) {
      const organization = this.organizations.take(request.organizationId, request.idempotencyKey);
      if (typeof organization === 'number') {
        admitted.undo(); // refused for its organization: the key's token is not spent
        throw throttled(this.organizations.limit, organization, 'organization');
      }
    }
    const { ratePerSecond, burst } = this.keys.limit;
    const { tokens } = admitted.bucket;
    return {
      'ratelimit-limit': String(burst),
      'ratelimit-remaining': String(Math.max(0, Math.floor(tokens))),
      'ratelimit-reset': String(Math.max(0, Math.ceil((burst - tokens) / ratePerSecond))),
    };
  }
}

function throttled(limit: RateLimit, retryAfter: number, per: string): ApiError {
  const { ratePerSecond, burst } = limit;
  return new ApiError(
    429,
    'ThrottlingException',
    `Rate limit exceeded: ${ratePerSecond} requests per second (burst ${burst}) per ${per}. Retry after ${retryAfter}s.`,
    {
      'retry-after': String(retryAfter),
      'ratelimit-limit': String(burst),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(retryAfter),
    },
  );
}

function insertSorted(list: Booking[], booking: Booking): void {
  let i = list.length;
  while (i > 0 && list[i - 1]!.at > booking.at) i--;
  list.splice(i, 0, booking);
}
