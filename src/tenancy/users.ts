/**
 * Portal users and their one-time links (first sign-in, invitations, password resets). Only a hash of a
 * link's token is stored; a token works once and expires.
 */
import { createHmac } from 'node:crypto';
import { prefixedId, randomBase62 } from '../ids.ts';
import type { Queryable } from '../store/db.ts';
import { findLoginToken, insertLoginToken, useLoginToken } from '../store/login-tokens.ts';
import { organizationExists } from '../store/organizations.ts';
import {
  emailTaken,
  findUserRowByEmail,
  insertUser,
  selectUsers,
  type UserAccountRow,
  updatePasswordHash,
} from '../store/users.ts';

export type Role = 'owner' | 'member';
export type TokenPurpose = 'first-login' | 'invite' | 'password-reset';

export interface User {
  id: string;
  organizationId: string;
  email: string;
  role: Role;
}

export function normalizeEmail(email: string): string {
  const e = email.trim().toLowerCase();
  if (!/^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{2,}$/.test(e)) throw new Error('invalid email address');
  return e;
}

export async function createUser(
  db: Queryable,
  input: { organizationId: string; email: string; role: Role },
): Promise<User> {
  const user = {
    id: prefixedId('usr'),
    organizationId: input.organizationId,
    email: normalizeEmail(input.email),
    role: input.role,
  };
  await insertUser(db, user);
  return user;
}

export async function findUserByEmail(
  db: Queryable,
  email: string,
): Promise<(User & { passwordHash: string | null }) | undefined> {
  const r = await findUserRowByEmail(db, normalizeEmail(email));
  return r && { ...r, role: r.role as Role };
}

export function hashToken(tokenKey: Buffer, token: string): string {
  return createHmac('sha256', tokenKey).update(token).digest('hex');
}

export async function issueLoginToken(
  db: Queryable,
  tokenKey: Buffer,
  input: { userId: string; purpose: TokenPurpose; ttlMs: number },
): Promise<string> {
  const token = randomBase62(40);
  await insertLoginToken(db, {
    tokenHash: hashToken(tokenKey, token),
    userId: input.userId,
    purpose: input.purpose,
    ttlMs: input.ttlMs,
  });
  return token;
}

/** Consumes a one-time token: returns its user once, then never again. */
export async function consumeLoginToken(
  db: Queryable,
  tokenKey: Buffer,
  token: string,
): Promise<{ user: User; purpose: TokenPurpose } | undefined> {
  if (!/^[0-9A-Za-z]{40}$/.test(token)) return undefined;
  const r = await useLoginToken(db, hashToken(tokenKey, token));
  return (
    r && {
      user: { id: r.id, organizationId: r.organizationId, email: r.email, role: r.role as Role },
      purpose: r.purpose as TokenPurpose,
    }
  );
}

export class PortalUserError extends Error {
  override name = 'PortalUserError';
}

const toUser = (r: UserAccountRow): User & { hasPassword: boolean } => ({
  id: r.id,
  organizationId: r.organizationId,
  email: r.email,
  role: r.role as Role,
  hasPassword: r.passwordHash !== null,
});

export async function listUsers(
  db: Queryable,
  organizationId: string,
): Promise<(User & { hasPassword: boolean; createdAt: string })[]> {
  const rows = await selectUsers(db, organizationId);
  return rows.map((r) => ({ ...toUser(r), createdAt: r.createdAt.toISOString() }));
}

/** Stores an argon2id PHC string (hashing happens in the caller, off the database connection). */
export async function setPasswordHash(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await updatePasswordHash(db, userId, passwordHash);
}

/** Reads a one-time token without using it up: the sign-in page shows its form first, then consumes it. */
export async function peekLoginToken(
  db: Queryable,
  tokenKey: Buffer,
  token: string,
): Promise<{ user: User & { hasPassword: boolean }; purpose: TokenPurpose } | undefined> {
  if (!/^[0-9A-Za-z]{40}$/.test(token)) return undefined;
  const r = await findLoginToken(db, hashToken(tokenKey, token));
  return r && { user: toUser(r), purpose: r.purpose as TokenPurpose };
}

/** Operator action (`elig user create`): a portal user without a password; give them a link to set one. */
export async function createPortalUser(
  db: Queryable,
  input: { organizationId: string; email: string; role: Role },
): Promise<User> {
  if (input.role !== 'owner' && input.role !== 'member')
    throw new PortalUserError('role must be owner or member');
  let email: string;
  try {
    email = normalizeEmail(input.email);
  } catch {
    throw new PortalUserError('invalid email address');
  }
  if (!(await organizationExists(db, input.organizationId)))
    throw new PortalUserError(`no organization with id ${input.organizationId}`);
  if (await emailTaken(db, email)) throw new PortalUserError('a portal user with this email already exists');
  return createUser(db, { organizationId: input.organizationId, email, role: input.role });
}

export const RESET_LINK_TTL_MS = 24 * 3600_000;
export const INVITE_LINK_TTL_MS = 7 * 24 * 3600_000;

/**
 * Operator action (`elig user reset-password`): a one-time link (path `/portal/login/<token>`) where the
 * user sets a new password. A user who never set one gets an invitation instead, valid longer.
 */
export async function issuePasswordResetLink(
  db: Queryable,
  tokenKey: Buffer,
  email: string,
): Promise<{ loginPath: string; expiresAt: string; user: User }> {
  let user: Awaited<ReturnType<typeof findUserByEmail>>;
  try {
    user = await findUserByEmail(db, email);
  } catch {
    throw new PortalUserError('invalid email address');
  }
  if (!user) throw new PortalUserError('no portal user with this email');
  const invite = user.passwordHash === null;
  const ttlMs = invite ? INVITE_LINK_TTL_MS : RESET_LINK_TTL_MS;
  const token = await issueLoginToken(db, tokenKey, {
    userId: user.id,
    purpose: invite ? 'invite' : 'password-reset',
    ttlMs,
  });
  return {
    loginPath: `/portal/login/${token}`,
    expiresAt: new Date(Date.now() + ttlMs).toISOString(),
    user: { id: user.id, organizationId: user.organizationId, email: user.email, role: user.role },
  };
}
