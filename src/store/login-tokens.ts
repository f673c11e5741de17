/**
 * The `login_tokens` table (one-time sign-in links): every statement that reads or writes it. Only a
 * token's hash reaches this module. Row typing as described at the top of organizations.ts.
 */
import { firstRow, type Queryable } from './db.ts';
import type { loginTokens } from './schema.ts';
import type { UserAccountRow } from './users.ts';

export type LoginTokenRow = typeof loginTokens.$inferSelect;

export async function insertLoginToken(
  db: Queryable,
  token: Pick<LoginTokenRow, 'tokenHash' | 'userId' | 'purpose'> & { ttlMs: number },
): Promise<void> {
  await db.query(
    `INSERT INTO login_tokens (token_hash, user_id, purpose, expires_at) VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')`,
    [token.tokenHash, token.userId, token.purpose, token.ttlMs],
  );
}

/**
 * Marks an unused, unexpired token used and returns its user and purpose; undefined when there is no such
 * token. One statement, so two requests with one token cannot both use it.
 */
export async function useLoginToken(
  db: Queryable,
  tokenHash: string,
): Promise<(Omit<UserAccountRow, 'passwordHash'> & Pick<LoginTokenRow, 'purpose'>) | undefined> {
  const { rows } = await db.query<Omit<UserAccountRow, 'passwordHash'> & Pick<LoginTokenRow, 'purpose'>>(
    `UPDATE login_tokens t SET used_at = now() FROM users u
      WHERE t.token_hash = $1 AND t.used_at IS NULL AND t.expires_at > now() AND u.id = t.user_id
      RETURNING u.id, u.organization_id AS "organizationId", u.email, u.role, t.purpose`,
    [tokenHash],
  );
  return rows[0];
}

/** An unused, unexpired token's user and purpose, without using it up. */
export const findLoginToken = (db: Queryable, tokenHash: string) =>
  firstRow<UserAccountRow & Pick<LoginTokenRow, 'purpose'>>(
    db,
    `SELECT u.id, u.organization_id AS "organizationId", u.email, u.role, u.password_hash AS "passwordHash", t.purpose
       FROM login_tokens t JOIN users u ON u.id = t.user_id
      WHERE t.token_hash = $1 AND t.used_at IS NULL AND t.expires_at > now()`,
    [tokenHash],
  );

/** Uses up every open link of a user (a new link replaces them). */
export async function expireUserLoginTokens(db: Queryable, userId: string): Promise<void> {
  await db.query('UPDATE login_tokens SET used_at = now() WHERE user_id = $1 AND used_at IS NULL', [userId]);
}

export async function deleteUserLoginTokens(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM login_tokens WHERE user_id = $1', [userId]);
}
