/**
 * Invitations to an organization's team, kept as records of their own (issue 26 item 10). An owner invites
 * an address; the answer, the team list and the page the link opens are the same whether or not the address
 * has an account anywhere, so no owner can test addresses against other organizations. Who holds the link
 * decides when using it:
 * - an address without an account: they choose a password, and the account is made in the organization;
 * - an existing account: they enter its password, and the account moves to the organization. An account
 *   belongs to one organization (sessions, roles, removal and the owners' sign-in links are all per
 *   account), so joining means leaving the one it is in; its only owner cannot leave (docs/portal.md).
 * A link works once and expires after 7 days; only its HMAC is stored.
 */
import { prefixedId, randomBase62 } from '../ids.ts';
import type { Db, Queryable } from '../store/db.ts';
import {
  acceptInvitationRow,
  countOpenInvitations,
  deleteOpenInvitation,
  deleteOpenInvitationsFor,
  findLiveInvitation,
  insertInvitation,
  renewInvitation,
  selectOpenInvitations,
} from '../store/invitations.ts';
import { expireUserLoginTokens } from '../store/login-tokens.ts';
import { deleteUserSessions } from '../store/sessions.ts';
import { findUserRowByEmail, insertUserIfNew, lockOwners, moveUser } from '../store/users.ts';
import {
  hashToken,
  INVITE_LINK_TTL_MS,
  normalizeEmail,
  PortalUserError,
  type Role,
  type User,
} from './users.ts';

/** Unused invitations an organization may hold at once (expired ones count until withdrawn or renewed). */
export const MAX_OPEN_INVITATIONS = 200;
export const INVITATION_VALID_DAYS = INVITE_LINK_TTL_MS / (24 * 3600_000);
const TOKEN = /^[0-9A-Za-z]{40}$/;

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: string;
  expired: boolean;
}

/** What the page a link opens shows: the same for every address. */
export interface LiveInvitation {
  id: string;
  organizationId: string;
  organizationName: string;
  email: string;
  role: Role;
}

const invitationPath = (token: string) => `/portal/invitations/${token}`;
const asRole = (role: string): Role => (role === 'owner' ? 'owner' : 'member');

function newToken(tokenKey: Buffer): { token: string; tokenHash: string } {
  const token = randomBase62(40);
  return { token, tokenHash: hashToken(tokenKey, token) };
}

/**
 * Invites an address to the organization's team; returns the link's path. Refused: an invalid address, one
 * already on this team (the team list shows it anyway), too many open invitations. An address with an
 * account in another organization is treated exactly as a new one, with the same statements. An open
 * invitation of the same address is replaced (its link stops working).
 */
export async function inviteToTeam(
  db: Db,
  tokenKey: Buffer,
  input: { organizationId: string; email: string; role: Role },
): Promise<{ email: string; invitationPath: string }> {
  let email: string;
  try {
    email = normalizeEmail(input.email);
  } catch {
    throw new PortalUserError('Enter a valid email address, like name@clinic.example.');
  }
  const role = asRole(input.role);
  return db.transaction(async (tx) => {
    const account = await findUserRowByEmail(tx, email);
    if (account?.organizationId === input.organizationId) {
      throw new PortalUserError('Someone with this email is already on your team.');
    }
    await deleteOpenInvitationsFor(tx, input.organizationId, email);
    if ((await countOpenInvitations(tx, input.organizationId)) >= MAX_OPEN_INVITATIONS) {
      throw new PortalUserError(
        `Your organization has ${MAX_OPEN_INVITATIONS} open invitations. Withdraw some before inviting more.`,
      );
    }
    const { token, tokenHash } = newToken(tokenKey);
    const id = prefixedId('inv');
    await insertInvitation(tx, {
      id,
      organizationId: input.organizationId,
      email,
      role,
      tokenHash,
      ttlMs: INVITE_LINK_TTL_MS,
    });
    return { email, invitationPath: invitationPath(token) };
  });
}

/** The organization's unused invitations, oldest first, expired ones marked. */
export async function listInvitations(db: Queryable, organizationId: string): Promise<Invitation[]> {
  const now = Date.now();
  return (await selectOpenInvitations(db, organizationId)).map((r) => ({
    id: r.id,
    email: r.email,
    role: asRole(r.role),
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    expired: r.expiresAt.getTime() <= now,
  }));
}

/** A new link (7 days) for an unused invitation of the organization; the old link stops working. */
export async function renewInvitationLink(
  db: Queryable,
  tokenKey: Buffer,
  a: { organizationId: string; id: string },
): Promise<{ email: string; invitationPath: string } | undefined> {
  const { token, tokenHash } = newToken(tokenKey);
  const renewed = await renewInvitation(db, a.organizationId, a.id, { tokenHash, ttlMs: INVITE_LINK_TTL_MS });
  return renewed && { email: renewed.email, invitationPath: invitationPath(token) };
}

/** Withdraws an unused invitation of the organization (its link stops working); false when there is none. */
export function withdrawInvitation(
  db: Queryable,
  a: { organizationId: string; id: string },
): Promise<boolean> {
  return deleteOpenInvitation(db, a.organizationId, a.id);
}

/** The unused, unexpired invitation a link names, without using it. */
export async function peekInvitation(
  db: Queryable,
  tokenKey: Buffer,
  token: string,
): Promise<LiveInvitation | undefined> {
  if (!TOKEN.test(token)) return undefined;
  const r = await findLiveInvitation(db, hashToken(tokenKey, token));
  return r && { ...r, role: asRole(r.role) };
}

export type Acceptance =
  | { kind: 'joined'; user: User }
  /** Used, expired, withdrawn or never made. */
  | { kind: 'gone' }
  /** "Choose a password" for an address that has an account: that account's password is needed. */
  | { kind: 'account-exists' }
  /** The account is its organization's only owner, and would leave it without one. */
  | { kind: 'last-owner' };

/** Thrown inside a transaction to roll it back (the invitation stays unused) with an outcome to answer. */
class Declined extends Error {
  constructor(readonly outcome: Acceptance) {
    super(outcome.kind);
  }
}

async function accepting(db: Db, run: (tx: Queryable) => Promise<Acceptance>): Promise<Acceptance> {
  try {
    return await db.transaction(run);
  } catch (err) {
    if (err instanceof Declined) return err.outcome;
    throw err;
  }
}

/** Accepts an invitation by making a new account with the password chosen (hashed by the caller). */
export function acceptAsNewAccount(db: Db, tokenKey: Buffer, token: string, passwordHash: string) {
  return accepting(db, async (tx) => {
    if (!TOKEN.test(token)) return { kind: 'gone' };
    const accepted = await acceptInvitationRow(tx, hashToken(tokenKey, token));
    if (!accepted) return { kind: 'gone' };
    const user = {
      id: prefixedId('usr'),
      organizationId: accepted.organizationId,
      email: accepted.email,
      role: asRole(accepted.role),
    };
    if (!(await insertUserIfNew(tx, { ...user, passwordHash })))
      throw new Declined({ kind: 'account-exists' });
    return { kind: 'joined', user };
  });
}

/**
 * Accepts an invitation with an existing account whose password the caller has just checked: the account
 * joins the organization with the invitation's role, leaving the one it was in (unless it is that one's only
 * owner). Its sessions end and its open sign-in links stop working, so nobody of the organization it left
 * (an owner's earlier link included) keeps a way into it.
 */
export function acceptWithAccount(db: Db, tokenKey: Buffer, token: string, account: User) {
  return accepting(db, async (tx) => {
    if (!TOKEN.test(token)) return { kind: 'gone' };
    const accepted = await acceptInvitationRow(tx, hashToken(tokenKey, token));
    if (!accepted || accepted.email !== account.email) throw new Declined({ kind: 'gone' });
    if (account.organizationId === accepted.organizationId) return { kind: 'joined', user: account };
    const owners = await lockOwners(tx, account.organizationId);
    if (owners.length === 1 && owners[0]?.id === account.id) throw new Declined({ kind: 'last-owner' });
    const role = asRole(accepted.role);
    await moveUser(tx, account.id, accepted.organizationId, role);
    await expireUserLoginTokens(tx, account.id);
    await deleteUserSessions(tx, account.id);
    return { kind: 'joined', user: { ...account, organizationId: accepted.organizationId, role } };
  });
}
