/**
 * Portal sessions, kept on the server. The browser holds a random cookie value; the table holds only its
 * HMAC (with the service's token key), so a copy of the database cannot be replayed as a cookie. A session
 * ends after 8 hours without use and 7 days after sign-in at the latest, whichever comes first.
 */
import { randomBase62 } from '../ids.ts';
import type { Queryable } from '../store/db.ts';
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
  csrfToken: string;
  expiresAt: Date;
}

export async function createSession(
  db: Queryable,
  tokenKey: Buffer,
  userId: string,
): Promise<{ cookieValue: string; csrfToken: string }> {
  const cookieValue = randomBase62(43);
  const csrfToken = randomBase62(32);
  // Housekeeping on the way in: this user's expired sessions are of no use to anyone.
  await db.query('DELETE FROM sessions WHERE user_id = $1 AND expires_at <= now()', [userId]);
  await db.query(
    `INSERT INTO sessions (id_hash, user_id, csrf_token, expires_at)
     VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
    [hashToken(tokenKey, cookieValue), userId, csrfToken, SESSION_IDLE_MS],
  );
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
  const { rows } = await db.query<{
    user_id: string;
    organization_id: string;
    organization_name: string;
    email: string;
    role: Role;
    csrf_token: string;
    expires_at: Date;
    created_at: Date;
  }>(
    `SELECT s.user_id, u.organization_id, o.name AS organization_name, u.email, u.role, s.csrf_token,
            s.expires_at, s.created_at
       FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = u.organization_id
      WHERE s.id_hash = $1 AND s.expires_at > now()`,
    [idHash],
  );
  const r = rows[0];
  if (!r) return undefined;
  let expiresAt = r.expires_at;
  const now = Date.now();
  const hardEnd = r.created_at.getTime() + SESSION_MAX_MS;
  if (now + SESSION_IDLE_MS - expiresAt.getTime() > EXTEND_AFTER_MS && expiresAt.getTime() < hardEnd) {
    expiresAt = new Date(Math.min(now + SESSION_IDLE_MS, hardEnd));
    await db.query('UPDATE sessions SET expires_at = $2 WHERE id_hash = $1', [idHash, expiresAt]);
  }
  return {
    idHash,
    user: { id: r.user_id, organizationId: r.organization_id, email: r.email, role: r.role },
    organizationName: r.organization_name,
    csrfToken: r.csrf_token,
    expiresAt,
  };
}

export async function endSession(db: Queryable, tokenKey: Buffer, cookieValue: string): Promise<void> {
  if (!COOKIE_VALUE.test(cookieValue)) return;
  await db.query('DELETE FROM sessions WHERE id_hash = $1', [hashToken(tokenKey, cookieValue)]);
}

/** Signs a user out everywhere (after a password change or reset). */
export async function endUserSessions(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  return rowCount;
}

export async function purgeExpiredSessions(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE expires_at <= now()');
  return rowCount;
}
