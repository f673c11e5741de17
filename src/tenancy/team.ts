/**
 * What an organization's owners do to its team in the portal (Settings > Team): change a role, remove
 * someone, and give someone a new one-time sign-in link (the sign-in page tells people to ask an owner).
 * Rules: an owner acts on others only, never on themselves (no locking yourself out); an organization
 * always keeps at least one owner (counted under a lock, see lockOwners). Each change is one transaction.
 */
import type { Db, Queryable } from '../store/db.ts';
import { deleteUserLoginTokens, expireUserLoginTokens } from '../store/login-tokens.ts';
import { deleteUserSessions } from '../store/sessions.ts';
import { deleteUser, findOrganizationUser, lockOwners, updateUserRole } from '../store/users.ts';
import {
  INVITE_LINK_TTL_MS,
  issueLoginToken,
  PortalUserError,
  RESET_LINK_TTL_MS,
  type Role,
  type User,
} from './users.ts';

interface TeamAction {
  organizationId: string;
  /** The owner acting. */
  actorId: string;
  /** The user acted on. */
  userId: string;
}

async function target(db: Queryable, a: TeamAction) {
  if (a.userId === a.actorId) {
    throw new PortalUserError('you cannot change or remove your own account; ask another owner');
  }
  const user = await findOrganizationUser(db, a.organizationId, a.userId);
  if (!user) throw new PortalUserError('no such user in this organization');
  return user;
}

async function keepAnOwner(db: Queryable, organizationId: string, losing: string): Promise<void> {
  const owners = await lockOwners(db, organizationId);
  if (owners.every((o) => o.id === losing)) {
    throw new PortalUserError('an organization needs at least one owner; make someone else an owner first');
  }
}

export async function changeRole(db: Db, a: TeamAction & { role: Role }): Promise<User> {
  if (a.role !== 'owner' && a.role !== 'member') throw new PortalUserError('role must be owner or member');
  return db.transaction(async (tx) => {
    if (a.role === 'member') await keepAnOwner(tx, a.organizationId, a.userId);
    const user = await target(tx, a);
    await updateUserRole(tx, a.organizationId, a.userId, a.role);
    return { id: user.id, organizationId: user.organizationId, email: user.email, role: a.role };
  });
}

/** Removes a user: their sessions end at once and their open links stop working. */
export async function removeUser(db: Db, a: TeamAction): Promise<User> {
  return db.transaction(async (tx) => {
    await keepAnOwner(tx, a.organizationId, a.userId);
    const user = await target(tx, a);
    await deleteUserSessions(tx, user.id);
    await deleteUserLoginTokens(tx, user.id);
    await deleteUser(tx, a.organizationId, user.id);
    return { id: user.id, organizationId: user.organizationId, email: user.email, role: user.role as Role };
  });
}

/**
 * A new one-time link for a user (an invitation if they never set a password, else a password reset);
 * their older links stop working. Returns the path `/portal/login/<token>`.
 */
export async function relinkUser(
  db: Db,
  tokenKey: Buffer,
  a: TeamAction,
): Promise<{ user: User; loginPath: string; validDays: number }> {
  return db.transaction(async (tx) => {
    const user = await target(tx, a);
    const invite = user.passwordHash === null;
    const ttlMs = invite ? INVITE_LINK_TTL_MS : RESET_LINK_TTL_MS;
    await expireUserLoginTokens(tx, user.id);
    const token = await issueLoginToken(tx, tokenKey, {
      userId: user.id,
      purpose: invite ? 'invite' : 'password-reset',
      ttlMs,
    });
    return {
      user: { id: user.id, organizationId: user.organizationId, email: user.email, role: user.role as Role },
      loginPath: `/portal/login/${token}`,
      validDays: ttlMs / (24 * 3600_000),
    };
  });
}
