/**
 * Portal sessions, kept on the server. The browser holds a random cookie value; the table holds only its
 * HMAC (with the service's token key), so a copy of the database cannot be replayed as a cookie. A session
 * ends after 8 hours without use and 7 days after sign-in at the latest, whichever comes first.
 */
import { randomBase62 } from '../ids.ts';
import type { Queryable } from '../store/db.ts';
import {
  deleteExpiredSessions,
  deleteSession,
  deleteUserSessions,
  findLiveSession,
  insertSession,
  updateSessionExpiry,
} from '../store/sessions.ts';
import { hashToken, type Role, type User } from './users.ts';

export const SESSION_IDLE_MS = 8 * 3600_000;
export const SESSION_MAX_MS = 7 * 24 * 3600_000;
/** Extending the expiry costs a write; do it only when a few minutes of idle time have been used up. */
const EXTEND_AFTER_MS = 5 * 60_000;

const COOKIE_VALUE = /^[0-9A-Za-z]{43}$/;

export interface PortalSession {
  idHash: string;
  user: User;
  organizationName: string;
  /** The IANA zone the portal shows times in; null: the browser's own. */
  organizationTimeZone: string | null;
  csrfToken: string;
  expiresAt: Date;
  /**
   * An owner of OPERATOR_ORGANIZATION_ID: one of the service's operators, who see the Scorecard page (set by
   * the portal, which knows the setting).
   */
  operator?: boolean;
}

export async function createSession(
  db: Queryable,
  tokenKey: Buffer,
  userId: string,
): Promise<{ cookieValue: string; csrfToken: string }> {
  const cookieValue = randomBase62(43);
  const csrfToken = randomBase62(32);
  // Housekeeping on the way in: this user's expired sessions are of no use to anyone.
  await insertSession(db, {
    idHash: hashToken(tokenKey, cookieValue),
    userId,
    csrfToken,
    idleMs: SESSION_IDLE_MS,
  });
  return { cookieValue, csrfToken };
}

/** The live session for a cookie value (extending its idle expiry), or undefined. */
export async function findSession(
  db: Queryable,
  tokenKey: Buffer,
  cookieValue: string,
): Promise<PortalSession | undefined> {
  if (!COOKIE_VALUE.test(cookieValue)) return undefined;
  const idHash = hashToken(tokenKey, cookieValue);
  const r = await findLiveSession(db, idHash);
  if (!r) return undefined;
  let expiresAt = r.expiresAt;
  const now = Date.now();
  const hardEnd = r.createdAt.getTime() + SESSION_MAX_MS;
  if (now + SESSION_IDLE_MS - expiresAt.getTime() > EXTEND_AFTER_MS && expiresAt.getTime() < hardEnd) {
    expiresAt = new Date(Math.min(now + SESSION_IDLE_MS, hardEnd));
    await updateSessionExpiry(db, idHash, expiresAt);
  }
  return {
    idHash,
    user: { id: r.userId, organizationId: r.organizationId, email: r.email, role: r.role as Role },
    organizationName: r.organizationName,
    organizationTimeZone: r.organizationTimeZone,
    csrfToken: r.csrfToken,
    expiresAt,
  };
}

export async function endSession(db: Queryable, tokenKey: Buffer, cookieValue: string): Promise<void> {
  if (!COOKIE_VALUE.test(cookieValue)) return;
  await deleteSession(db, hashToken(tokenKey, cookieValue));
}

/** Signs a user out everywhere (after a password change or reset). */
export async function endUserSessions(db: Queryable, userId: string): Promise<number> {
  return deleteUserSessions(db, userId);
}

export async function purgeExpiredSessions(db: Queryable): Promise<number> {
  return deleteExpiredSessions(db);
}
