/**
 * The `users` table (portal users): every statement that reads or writes it. Normalising emails, roles
 * and hashing passwords stay in src/tenancy/users.ts. Statements are typed as described in typed.ts.
 */
import { changedOne, firstRow, ownedRowLookup, type Queryable } from './db.ts';
import { users } from './schema.ts';
import { columns, joinColumns, type RowOf, sqlOf } from './typed.ts';

export type UserRow = typeof users.$inferSelect;

/** What callers read of a user: everything but the creation time. */
const ACCOUNT = columns(users, ['id', 'organizationId', 'email', 'role', 'passwordHash']);
export type UserAccountRow = RowOf<typeof ACCOUNT>;

const INSERT = sqlOf`INSERT INTO ${users} (${users.id}, ${users.organizationId}, ${users.email}, ${users.role}) VALUES ($1, $2, $3, $4)`;

export async function insertUser(
  db: Queryable,
  user: Pick<UserRow, 'id' | 'organizationId' | 'email' | 'role'>,
): Promise<void> {
  await db.query(INSERT, [user.id, user.organizationId, user.email, user.role]);
}

const INSERT_IF_NEW = sqlOf`INSERT INTO ${users} (${users.id}, ${users.organizationId}, ${users.email}, ${users.role}, ${users.passwordHash})
     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (${users.email}) DO NOTHING`;

/**
 * A new user with a password, unless an account already has the email (false then): the unique index
 * decides, so an account made at the same moment by another request is not made twice.
 */
export async function insertUserIfNew(
  db: Queryable,
  user: Pick<UserRow, 'id' | 'organizationId' | 'email' | 'role' | 'passwordHash'>,
): Promise<boolean> {
  return changedOne(db, INSERT_IF_NEW, [
    user.id,
    user.organizationId,
    user.email,
    user.role,
    user.passwordHash,
  ]);
}

const BY_EMAIL = sqlOf`SELECT ${ACCOUNT}
       FROM ${users} WHERE ${users.email} = $1`;

/** `email` must be normalised already. */
export async function findUserRowByEmail(db: Queryable, email: string): Promise<UserAccountRow | undefined> {
  return firstRow<UserAccountRow>(db, BY_EMAIL, [email]);
}

const EMAIL_TAKEN = sqlOf`SELECT 1 FROM ${users} WHERE ${users.email} = $1`;

export async function emailTaken(db: Queryable, email: string): Promise<boolean> {
  const { rows } = await db.query(EMAIL_TAKEN, [email]);
  return rows.length > 0;
}

const LISTED = joinColumns(ACCOUNT, columns(users, ['createdAt']));
const SELECT_USERS = sqlOf`SELECT ${LISTED}
       FROM ${users} WHERE ${users.organizationId} = $1 ORDER BY ${users.createdAt}`;

/** An organization's users, oldest first. */
export async function selectUsers(db: Queryable, organizationId: string): Promise<RowOf<typeof LISTED>[]> {
  const { rows } = await db.query<RowOf<typeof LISTED>>(SELECT_USERS, [organizationId]);
  return rows;
}

const SET_PASSWORD = sqlOf`UPDATE ${users} SET ${users.passwordHash} = $2 WHERE ${users.id} = $1`;

export async function updatePasswordHash(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query(SET_PASSWORD, [userId, passwordHash]);
}

const LOCK_OWNERS = sqlOf`SELECT ${users.id} FROM ${users} WHERE ${users.organizationId} = $1 AND ${users.role} = 'owner' ORDER BY ${users.id} FOR UPDATE`;

/**
 * The organization's owners, locked until the transaction ends: a change that could leave it without an
 * owner (a demotion, a removal) counts them under this lock, so two owners demoting each other at once
 * cannot both succeed.
 */
export async function lockOwners(db: Queryable, organizationId: string): Promise<Pick<UserRow, 'id'>[]> {
  const { rows } = await db.query<Pick<UserRow, 'id'>>(LOCK_OWNERS, [organizationId]);
  return rows;
}

/** One user of an organization (another organization's reads as absent). */
export const findOrganizationUser = ownedRowLookup(users, ACCOUNT);

const SET_ROLE = sqlOf`UPDATE ${users} SET ${users.role} = $3 WHERE ${users.id} = $1 AND ${users.organizationId} = $2`;

export async function updateUserRole(
  db: Queryable,
  organizationId: string,
  userId: string,
  role: string,
): Promise<boolean> {
  return changedOne(db, SET_ROLE, [userId, organizationId, role]);
}

const DELETE = sqlOf`DELETE FROM ${users} WHERE ${users.id} = $1 AND ${users.organizationId} = $2`;

/** Deletes a user; the caller deletes their sessions and sign-in links first (foreign keys). */
export async function deleteUser(db: Queryable, organizationId: string, userId: string): Promise<boolean> {
  return changedOne(db, DELETE, [userId, organizationId]);
}

const MOVE = sqlOf`UPDATE ${users} SET ${users.organizationId} = $2, ${users.role} = $3 WHERE ${users.id} = $1`;

/**
 * Moves an account to another organization with a role there (an invitation accepted with an existing
 * account: an account belongs to one organization). The caller ends its sessions and links.
 */
export async function moveUser(
  db: Queryable,
  userId: string,
  organizationId: string,
  role: string,
): Promise<boolean> {
  return changedOne(db, MOVE, [userId, organizationId, role]);
}
