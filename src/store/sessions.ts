/**
 * The `sessions` table (portal sessions): every statement that reads or writes it. Only the HMAC of a
 * cookie value reaches this module; expiry rules stay in src/tenancy/sessions.ts. Statements are typed as
 * described in typed.ts.
 */
import { firstRow, type Queryable } from './db.ts';
import { organizations, sessions, users } from './schema.ts';
import { sqlOf } from './typed.ts';

export type SessionRow = typeof sessions.$inferSelect;

const DELETE_EXPIRED_OF_USER = sqlOf`DELETE FROM ${sessions} WHERE ${sessions.userId} = $1 AND ${sessions.expiresAt} <= now()`;
const INSERT = sqlOf`INSERT INTO ${sessions} (${sessions.idHash}, ${sessions.userId}, ${sessions.csrfToken}, ${sessions.expiresAt})
     VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`;

/** A new session, idle-expiring after `idleMs`; the user's expired sessions are deleted on the way in. */
export async function insertSession(
  db: Queryable,
  session: Pick<SessionRow, 'idHash' | 'userId' | 'csrfToken'> & { idleMs: number },
): Promise<void> {
  await db.query(DELETE_EXPIRED_OF_USER, [session.userId]);
  await db.query(INSERT, [session.idHash, session.userId, session.csrfToken, session.idleMs]);
}

export type LiveSessionRow = Pick<SessionRow, 'userId' | 'csrfToken' | 'expiresAt' | 'createdAt'> &
  Pick<typeof users.$inferSelect, 'organizationId' | 'email' | 'role'> & {
    organizationName: (typeof organizations.$inferSelect)['name'];
    organizationTimeZone: (typeof organizations.$inferSelect)['timeZone'];
  };

// Written out rather than with columns(): two keys (organizationName, organizationTimeZone) are not the
// table's own; the row type above names each key once.
const FIND_LIVE = sqlOf`SELECT s.${sessions.userId} AS "userId", u.${users.organizationId} AS "organizationId", o.${organizations.name} AS "organizationName",
            o.${organizations.timeZone} AS "organizationTimeZone", u.${users.email},
            u.${users.role}, s.${sessions.csrfToken} AS "csrfToken", s.${sessions.expiresAt} AS "expiresAt", s.${sessions.createdAt} AS "createdAt"
       FROM ${sessions} s JOIN ${users} u ON u.${users.id} = s.${sessions.userId} JOIN ${organizations} o ON o.${organizations.id} = u.${users.organizationId}
      WHERE s.${sessions.idHash} = $1 AND s.${sessions.expiresAt} > now()`;

/** The unexpired session with this id hash, with its user and organization. */
export async function findLiveSession(db: Queryable, idHash: string): Promise<LiveSessionRow | undefined> {
  return firstRow<LiveSessionRow>(db, FIND_LIVE, [idHash]);
}

const SET_EXPIRY = sqlOf`UPDATE ${sessions} SET ${sessions.expiresAt} = $2 WHERE ${sessions.idHash} = $1`;

export async function updateSessionExpiry(db: Queryable, idHash: string, expiresAt: Date): Promise<void> {
  await db.query(SET_EXPIRY, [idHash, expiresAt]);
}

const DELETE = sqlOf`DELETE FROM ${sessions} WHERE ${sessions.idHash} = $1`;

export async function deleteSession(db: Queryable, idHash: string): Promise<void> {
  await db.query(DELETE, [idHash]);
}

const DELETE_OF_USER = sqlOf`DELETE FROM ${sessions} WHERE ${sessions.userId} = $1`;

/** Deletes every session of a user; returns how many. */
export async function deleteUserSessions(db: Queryable, userId: string): Promise<number> {
  const { rowCount } = await db.query(DELETE_OF_USER, [userId]);
  return rowCount;
}

const DELETE_EXPIRED = sqlOf`DELETE FROM ${sessions} WHERE ${sessions.expiresAt} <= now()`;

/** Deletes every expired session; returns how many. */
export async function deleteExpiredSessions(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(DELETE_EXPIRED);
  return rowCount;
}
