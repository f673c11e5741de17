/**
 * Sign-in throttling, kept in the database so that it holds across API processes and restarts.
 *
 * - Per account, the guard against guessing a password: 5 attempts on one email back to back, then a wait
 *   of 1 minute that doubles with each further attempt, up to 15 minutes, from any address (an attacker
 *   with many addresses gets no more guesses). Every email typed is throttled alike, with or without an
 *   account, so a 429 says nothing about which emails have one. A success starts the account from zero.
 * - Per client address, only attempts on emails without an account (or without a password yet): after 50,
 *   they no longer cost an argon2 run. The sign-in route answers them exactly like a wrong password, never
 *   with a 429, so the cap is invisible: it cannot reveal which emails exist, and people who share an
 *   address (a clinic's NAT, a proxy) are never locked out of their real accounts by someone else's typos.
 *
 * Attempts are reserved before the password is checked (see `reserveLoginAttempt`): parallel requests
 * cannot verify more passwords than the limit. Keys are HMACs with a key of their own, so the table holds
 * neither emails nor addresses, and a copy of it cannot be matched against a list of emails.
 */
import { createHmac } from 'node:crypto';
import type { Queryable } from '../store/db.ts';
import { type AttemptPolicy, clearLoginAttempts, reserveLoginAttempt } from '../store/login-attempts.ts';

export const ACCOUNT_POLICY: AttemptPolicy = { freeAttempts: 5, firstWaitMs: 60_000, maxWaitMs: 15 * 60_000 };
export const UNKNOWN_ACCOUNT_ADDRESS_POLICY: AttemptPolicy = {
  freeAttempts: 50,
  firstWaitMs: 60_000,
  maxWaitMs: 15 * 60_000,
};

export type AccountReservation = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export class LoginThrottle {
  constructor(
    private readonly db: Queryable,
    private readonly hmacKey: Buffer,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reserves an attempt on the account of `email` (normalised; known or not) before its password is checked. */
  async reserveAccount(email: string): Promise<AccountReservation> {
    const now = this.now();
    const r = await reserveLoginAttempt(this.db, this.accountKey(email), ACCOUNT_POLICY, new Date(now));
    if (r.allowed) return { allowed: true };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((r.retryAt.getTime() - now) / 1000)) };
  }

  /** Reserves a check of a password typed for an email without an account; false once the address's cap is used up. */
  async reserveUnknownAccountCheck(address: string): Promise<boolean> {
    const key = this.key('address', address);
    const r = await reserveLoginAttempt(this.db, key, UNKNOWN_ACCOUNT_ADDRESS_POLICY, new Date(this.now()));
    return r.allowed;
  }

  async signedIn(email: string): Promise<void> {
    await clearLoginAttempts(this.db, this.accountKey(email));
  }

  /** The table's key for an account: what tests and operators look up, never the email itself. */
  accountKey(email: string): string {
    return this.key('account', email);
  }

  private key(scope: 'account' | 'address', value: string): string {
    return `${scope}:${createHmac('sha256', this.hmacKey).update(`${scope}\0${value}`).digest('hex')}`;
  }
}
