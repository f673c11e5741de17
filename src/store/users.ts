/**
 * The `users` table (portal users): every statement that reads or writes it. Normalising emails, roles
 * and hashing passwords stay in src/tenancy/users.ts. Row typing as described at the top of
 * organizations.ts.
 */
import { firstRow, ownedRowLookup, type Queryable } from './db.ts';
import type { users } from './schema.ts';

export type UserRow = typeof users.$inferSelect;

/** What callers read of a user: everything but the creation time. */
export type UserAccountRow = Pick<UserRow, 'id' | 'organizationId' | 'email' | 'role' | 'passwordHash'>;

export async function insertUser(
  db: Queryable,
  user: Pick<UserRow, 'id' | 'organizationId' | 'email' | 'role'>,
): Promise<void> {
  await db.query('INSERT INTO users (id, organization_id, email, role) VALUES ($1, $2, $3, $4)', [
    user.id,
    user.organizationId,
    user.email,
    user.role,
  ]);
}

/** `email` must be normalised already. */
export async function findUserRowByEmail(db: Queryable, email: string): Promise<UserAccountRow | undefined> {
  return firstRow<UserAccountRow>(
    db,
    `SELECT id, organization_id AS "organizationId", email, role, password_hash AS "passwordHash"
       FROM users WHERE email = $1`,
    [email],
  );
}

export async function emailTaken(db: Queryable, email: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE email = $1', [email]);
  return rows.length > 0;
}

/** An organization's users, oldest first. */
export async function selectUsers(
  db: Queryable,
  organizationId: string,
): Promise<(UserAccountRow & Pick<UserRow, 'createdAt'>)[]> {
  const { rows } = await db.query<UserAccountRow & Pick<UserRow, 'createdAt'>>(
    `SELECT id, organization_id AS "organizationId", email, role, password_hash AS "passwordHash",
            created_at AS "createdAt"
       FROM users WHERE organization_id = $1 ORDER BY created_at`,
    [organizationId],
  );
  return rows;
}

export async function updatePasswordHash(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
}

/**
 * The organization's owners, locked until the transaction ends: a change that could leave it without an
 * owner (a demotion, a removal) counts them under this lock, so two owners demoting each other at once
 * cannot both succeed.
 */
export async function lockOwners(db: Queryable, organizationId: string): Promise<Pick<UserRow, 'id'>[]> {
  const { rows } = await db.query<Pick<UserRow, 'id'>>(
    "SELECT id FROM users WHERE organization_id = $1 AND role = 'owner' ORDER BY id FOR UPDATE",
    [organizationId],
  );
  return rows;
}

/** One user of an organization (another organization's reads as absent). */
export const findOrganizationUser = ownedRowLookup<UserAccountRow>(
  'users',
  `id, organization_id AS "organizationId", email, role, password_hash AS "passwordHash"`,
);

export async function updateUserRole(
  db: Queryable,
  organizationId: string,
  userId: string,
  role: string,
): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE users SET role = $3 WHERE id = $1 AND organization_id = $2', [
    userId,
    organizationId,
    role,
  ]);
  return rowCount === 1;
}

/** Deletes a user; the caller deletes their sessions and sign-in links first (foreign keys). */
export async function deleteUser(db: Queryable, organizationId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM users WHERE id = $1 AND organization_id = $2', [
    userId,
    organizationId,
  ]);
  return rowCount === 1;
}
