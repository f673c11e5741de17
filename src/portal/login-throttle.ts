/**
 * Slows down password guessing: after 5 failed sign-ins for one email from one address within 15 minutes,
 * that pair is refused until the oldest failure leaves the window; one address is also capped across all
 * emails (password spraying). Kept in memory: a restart forgets it, and with several API processes each
 * counts on its own, which still bounds guesses to a small multiple.
 */

export interface ThrottleLimits {
  perAccount: number;
  perAddress: number;
  windowMs: number;
}

export const DEFAULT_LIMITS: ThrottleLimits = { perAccount: 5, perAddress: 50, windowMs: 15 * 60_000 };
const MAX_TRACKED = 50_000;

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly limits: ThrottleLimits = DEFAULT_LIMITS) {}

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  retryAfterSeconds(email: string, address: string, now = Date.now()): number {
    const wait = Math.max(
      this.waitFor(`a:${email}|${address}`, this.limits.perAccount, now),
      this.waitFor(`ip:${address}`, this.limits.perAddress, now),
    );
    return Math.ceil(wait / 1000);
  }

  recordFailure(email: string, address: string, now = Date.now()): void {
    if (this.failures.size > MAX_TRACKED) this.prune(now);
    for (const key of [`a:${email}|${address}`, `ip:${address}`]) {
      const list = this.recent(key, now);
      list.push(now);
      this.failures.set(key, list);
    }
  }

  /** A successful sign-in clears that account's count (not the address-wide one). */
  recordSuccess(email: string, address: string): void {
    this.failures.delete(`a:${email}|${address}`);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => t > now - this.limits.windowMs);
  }

  private waitFor(key: string, limit: number, now: number): number {
    const list = this.recent(key, now);
    if (list.length < limit) return 0;
    return list[list.length - limit]! + this.limits.windowMs - now;
  }

  private prune(now: number): void {
    for (const [key, list] of this.failures) {
      if (!list.some((t) => t > now - this.limits.windowMs)) this.failures.delete(key);
    }
    if (this.failures.size > MAX_TRACKED) this.failures.clear();
  }
}
