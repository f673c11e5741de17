/**
 * Portal passwords: argon2id with the library's defaults (19 MiB, 2 passes, 1 lane: the OWASP baseline),
 * and the rules a new password must meet. Verification of an unknown email still runs argon2 against a
 * throw-away hash, so the answer time does not reveal which emails have accounts.
 */
import { hash, verify } from '@node-rs/argon2';

/** `Algorithm.Argon2id`; the package's const enum is not available at run time. */
const ARGON2ID = 2;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, { algorithm: ARGON2ID });
}

let decoy: Promise<string> | undefined;

export type PasswordVerifier = typeof verifyPassword;

/** True when the password matches; false for a wrong password or a user without one. */
export async function verifyPassword(
  passwordHash: string | null | undefined,
  password: string,
): Promise<boolean> {
  if (!passwordHash) {
    decoy ??= hashPassword('decoy password, never valid');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

/** The problem with a new password, in words for the person typing it; undefined when it is fine. */
export function newPasswordProblem(
  password: string,
  confirmation: string,
  email: string,
): string | undefined {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  if (password.trim().toLowerCase() === email.toLowerCase())
    return 'Do not use your email address as your password.';
  if (new Set(password).size < 4) return 'Use a less repetitive password.';
  if (password !== confirmation) return 'The two passwords do not match.';
  return undefined;
}
