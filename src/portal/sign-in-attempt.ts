/**
 * One email + password sign-in attempt, from the throttle to the verdict. The order matters: the attempt
 * is reserved on the account before anything else (a throttled attempt learns nothing, not even whether
 * the account exists), and only then is the user looked up and the password checked.
 */
import type { Queryable } from '../store/db.ts';
import { findUserByEmail, type User } from '../tenancy/users.ts';
import type { LoginThrottle } from './login-throttle.ts';
import type { PasswordVerifier } from './passwords.ts';

export type SignInOutcome =
  | { kind: 'signed-in'; user: User }
  | { kind: 'refused' }
  | { kind: 'throttled'; retryAfterSeconds: number };

/**
 * A refusal is never answered sooner than this after the attempt began. argon2 takes 20-30 ms here; the
 * floor hides that, and the user lookup, and the argon2 run an email without an account skips once its
 * address is over the cap: known and unknown emails take the same time unless the server is so busy that
 * argon2 alone takes longer.
 */
export const REFUSAL_FLOOR_MS = 250;

export interface SignInAttempt {
  /** The normalised email, or what was typed (lower-cased) when it is not a valid address. */
  email: string;
  validEmail: boolean;
  password: string;
  /** The client address (`request.ip`, i.e. behind TRUSTED_PROXIES the forwarded one). */
  address: string;
}

export async function attemptSignIn(
  deps: { db: Queryable; throttle: LoginThrottle; verifyPassword: PasswordVerifier },
  attempt: SignInAttempt,
): Promise<SignInOutcome> {
  const started = performance.now();
  const reservation = await deps.throttle.reserveAccount(attempt.email);
  if (!reservation.allowed) return { kind: 'throttled', retryAfterSeconds: reservation.retryAfterSeconds };
  const user = attempt.validEmail ? await findUserByEmail(deps.db, attempt.email) : undefined;
  if (user?.passwordHash) {
    if (await deps.verifyPassword(user.passwordHash, attempt.password)) {
      await deps.throttle.signedIn(attempt.email);
      const { passwordHash: _hash, ...signedIn } = user;
      return { kind: 'signed-in', user: signedIn };
    }
  } else if (await deps.throttle.reserveUnknownAccountCheck(attempt.address)) {
    // Against a throw-away hash: the same work as for a real account.
    await deps.verifyPassword(undefined, attempt.password);
  }
  const rest = REFUSAL_FLOOR_MS - (performance.now() - started);
  if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
  return { kind: 'refused' };
}
