/**
 * The `login_tokens` table (one-time sign-in links): every statement that reads or writes it. Only a
 * token's hash reaches this module. Statements are typed as described in typed.ts.
 */
import { firstRow, type Queryable } from './db.ts';
import { loginTokens, users } from './schema.ts';
import { columns, joinColumns, type RowOf, sqlOf } from './typed.ts';

export type LoginTokenRow = typeof loginTokens.$inferSelect;

const INSERT = sqlOf`INSERT INTO ${loginTokens} (${loginTokens.tokenHash}, ${loginTokens.userId}, ${loginTokens.purpose}, ${loginTokens.expiresAt}) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`;

export async function insertLoginToken(
  db: Queryable,
  token: Pick<LoginTokenRow, 'tokenHash' | 'userId' | 'purpose'> & { ttlMs: number },
): Promise<void> {
  await db.query(INSERT, [token.tokenHash, token.userId, token.purpose, token.ttlMs]);
}

const USED = joinColumns(
  columns(users, ['id', 'organizationId', 'email', 'role'], 'u'),
  columns(loginTokens, ['purpose'], 't'),
);
const USE = sqlOf`UPDATE ${loginTokens} t SET ${loginTokens.usedAt} = now() FROM ${users} u
      WHERE t.${loginTokens.tokenHash} = $1 AND t.${loginTokens.usedAt} IS NULL AND t.${loginTokens.expiresAt} > now() AND u.${users.id} = t.${loginTokens.userId}
      RETURNING ${USED}`;

/**
 * Marks an unused, unexpired token used and returns its user and purpose; undefined when there is no such
 * token. One statement, so two requests with one token cannot both use it.
 */
export async function useLoginToken(
  db: Queryable,
  tokenHash: string,
): Promise<RowOf<typeof USED> | undefined> {
  const { rows } = await db.query<RowOf<typeof USED>>(USE, [tokenHash]);
  return rows[0];
}

const OPEN = joinColumns(
  columns(users, ['id', 'organizationId', 'email', 'role', 'passwordHash'], 'u'),
  columns(loginTokens, ['purpose'], 't'),
);
const FIND_OPEN = sqlOf`SELECT ${OPEN}
       FROM ${loginTokens} t JOIN ${users} u ON u.${users.id} = t.${loginTokens.userId}
      WHERE t.${loginTokens.tokenHash} = $1 AND t.${loginTokens.usedAt} IS NULL AND t.${loginTokens.expiresAt} > now()`;

/** An unused, unexpired token's user and purpose, without using it up. */
export const findLoginToken = (db: Queryable, tokenHash: string) =>
  firstRow<RowOf<typeof OPEN>>(db, FIND_OPEN, [tokenHash]);

const EXPIRE_OF_USER = sqlOf`UPDATE ${loginTokens} SET ${loginTokens.usedAt} = now() WHERE ${loginTokens.userId} = $1 AND ${loginTokens.usedAt} IS NULL`;

/** Uses up every open link of a user (a new link replaces them). */
export async function expireUserLoginTokens(db: Queryable, userId: string): Promise<void> {
  await db.query(EXPIRE_OF_USER, [userId]);
}

const DELETE_OF_USER = sqlOf`DELETE FROM ${loginTokens} WHERE ${loginTokens.userId} = $1`;

export async function deleteUserLoginTokens(db: Queryable, userId: string): Promise<void> {
  await db.query(DELETE_OF_USER, [userId]);
}
