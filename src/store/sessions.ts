/**
 * The `sessions` table (portal sessions): every statement that reads or writes it. Only the HMAC of a
 * cookie value reaches this module; expiry rules stay in src/tenancy/sessions.ts. Row typing as described
 * at the top of organizations.ts.
 */
import { firstRow, type Queryable } from './db.ts';
import type { organizations, sessions, users } from './schema.ts';

export type SessionRow = typeof sessions.$inferSelect;

/** A new session, idle-expiring after `idleMs`; the user's expired sessions are deleted on the way in. */
export async function insertSession(
  db: Queryable,
  session: Pick<SessionRow, 'idHash' | 'userId' | 'csrfToken'> & { idleMs: number },
): Promise<void> {
  await db.query('DELETE FROM sessions WHERE user_id = $1 AND expires_at <= now()', [session.userId]);
  await db.query(
    `INSERT INTO sessions (id_hash, user_id, csrf_token, expires_at)
     VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
    [session.idHash, session.userId, session.csrfToken, session.idleMs],
  );
}

export type LiveSessionRow = Pick<SessionRow, 'userId' | 'csrfToken' | 'expiresAt' | 'createdAt'> &
  Pick<typeof users.$inferSelect, 'organizationId' | 'email' | 'role'> & {
    organizationName: (typeof organizations.$inferSelect)['name'];
    organizationTimeZone: (typeof organizations.$inferSelect)['timeZone'];
  };

/** The unexpired session with this id hash, with its user and organization. */
export async function findLiveSession(db: Queryable, idHash: string): Promise<LiveSessionRow | undefined> {
  return firstRow<LiveSessionRow>(
    db,
    `SELECT s.user_id AS "userId", u.organization_id AS "organizationId", o.name AS "organizationName",
            o.time_zone AS "organizationTimeZone", u.email,
            u.role, s.csrf_token AS "csrfToken", s.expires_at AS "expiresAt", s.created_at AS "createdAt"
       FROM sessions s JOIN users u ON u.id = s.user_id JOIN organizations o ON o.id = u.organization_id
      WHERE s.id_hash = $1 AND s.expires_at > now()`,
    [idHash],
  );
}

export async function updateSessionExpiry(db: Queryable, idHash: string, expiresAt: Date): Promise<void> {
  await db.query('UPDATE sessions SET expires_at = $2 WHERE id_hash = $1', [idHash, expiresAt]);
}

export async function deleteSession(db: Queryable, idHash: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id_hash = $1', [idHash]);
}

/** Deletes every session of a user; returns how many. */
export async function deleteUserSessions(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE user_id = $1', [userId]);
  return rowCount;
}

/** Deletes every expired session; returns how many. */
export async function deleteExpiredSessions(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE expires_at <= now()');
  return rowCount;
}
