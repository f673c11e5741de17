/**
 * The `invitations` table (invitations to a team): every statement that reads or writes it. Only a link
 * token's hash reaches this module; normalising the address and the rules of accepting stay in
 * src/tenancy/invitations.ts. Statements are typed as described in typed.ts.
 */
import { changedOne, firstRow, type Queryable } from './db.ts';
import { invitations, organizations } from './schema.ts';
import { columns, type RowOf, sqlOf } from './typed.ts';

export type InvitationRow = typeof invitations.$inferSelect;

const INSERT = sqlOf`INSERT INTO ${invitations} (${invitations.id}, ${invitations.organizationId}, ${invitations.email}, ${invitations.role}, ${invitations.tokenHash}, ${invitations.expiresAt})
     VALUES ($1, $2, $3, $4, $5, now() + $6 * interval '1 millisecond')`;

export async function insertInvitation(
  db: Queryable,
  row: Pick<InvitationRow, 'id' | 'organizationId' | 'email' | 'role' | 'tokenHash'> & { ttlMs: number },
): Promise<void> {
  await db.query(INSERT, [row.id, row.organizationId, row.email, row.role, row.tokenHash, row.ttlMs]);
}

const DELETE_OPEN_FOR = sqlOf`DELETE FROM ${invitations}
      WHERE ${invitations.organizationId} = $1 AND ${invitations.email} = $2 AND ${invitations.acceptedAt} IS NULL`;

/** Deletes the organization's unused invitations of one address (a new one replaces them). */
export async function deleteOpenInvitationsFor(db: Queryable, organizationId: string, email: string) {
  await db.query(DELETE_OPEN_FOR, [organizationId, email]);
}

const COUNT_OPEN = sqlOf`SELECT count(*)::int AS n FROM ${invitations}
      WHERE ${invitations.organizationId} = $1 AND ${invitations.acceptedAt} IS NULL`;

/** How many invitations of the organization are not used yet (expired ones included). */
export async function countOpenInvitations(db: Queryable, organizationId: string): Promise<number> {
  return (await firstRow<{ n: number }>(db, COUNT_OPEN, [organizationId]))?.n ?? 0;
}

const LISTED = columns(invitations, ['id', 'email', 'role', 'expiresAt', 'createdAt']);
export type ListedInvitationRow = RowOf<typeof LISTED>;
const SELECT_OPEN = sqlOf`SELECT ${LISTED} FROM ${invitations}
      WHERE ${invitations.organizationId} = $1 AND ${invitations.acceptedAt} IS NULL
      ORDER BY ${invitations.createdAt}, ${invitations.id}`;

/** The organization's unused invitations (expired ones too, so an owner sees them), oldest first. */
export async function selectOpenInvitations(
  db: Queryable,
  organizationId: string,
): Promise<ListedInvitationRow[]> {
  const { rows } = await db.query<ListedInvitationRow>(SELECT_OPEN, [organizationId]);
  return rows;
}

export type LiveInvitationRow = Pick<InvitationRow, 'id' | 'organizationId' | 'email' | 'role'> & {
  organizationName: (typeof organizations.$inferSelect)['name'];
};
// Written out rather than with columns(): organizationName is not the table's own key.
const FIND_LIVE = sqlOf`SELECT i.${invitations.id}, i.${invitations.organizationId} AS "organizationId", i.${invitations.email}, i.${invitations.role},
            o.${organizations.name} AS "organizationName"
       FROM ${invitations} i JOIN ${organizations} o ON o.${organizations.id} = i.${invitations.organizationId}
      WHERE i.${invitations.tokenHash} = $1 AND i.${invitations.acceptedAt} IS NULL AND i.${invitations.expiresAt} > now()`;

/** An unused, unexpired invitation by its token's hash, with its organization's name. */
export async function findLiveInvitation(
  db: Queryable,
  tokenHash: string,
): Promise<LiveInvitationRow | undefined> {
  return firstRow<LiveInvitationRow>(db, FIND_LIVE, [tokenHash]);
}

const ACCEPTED = columns(invitations, ['id', 'organizationId', 'email', 'role']);
export type AcceptedInvitationRow = RowOf<typeof ACCEPTED>;
const ACCEPT = sqlOf`UPDATE ${invitations} SET ${invitations.acceptedAt} = now()
      WHERE ${invitations.tokenHash} = $1 AND ${invitations.acceptedAt} IS NULL AND ${invitations.expiresAt} > now()
      RETURNING ${ACCEPTED}`;

/**
 * Marks an unused, unexpired invitation accepted and returns it; undefined when there is no such
 * invitation. One statement, so two requests with one link cannot both accept it.
 */
export async function acceptInvitationRow(
  db: Queryable,
  tokenHash: string,
): Promise<AcceptedInvitationRow | undefined> {
  return firstRow<AcceptedInvitationRow>(db, ACCEPT, [tokenHash]);
}

const RENEW = sqlOf`UPDATE ${invitations} SET ${invitations.tokenHash} = $3, ${invitations.expiresAt} = now() + $4 * interval '1 millisecond'
      WHERE ${invitations.id} = $1 AND ${invitations.organizationId} = $2 AND ${invitations.acceptedAt} IS NULL
      RETURNING ${columns(invitations, ['email', 'role'])}`;

/**
 * A new link for an unused invitation of the organization (the old link stops working) and a new expiry;
 * undefined when the organization has no such invitation.
 */
export async function renewInvitation(
  db: Queryable,
  organizationId: string,
  id: string,
  token: { tokenHash: string; ttlMs: number },
): Promise<Pick<InvitationRow, 'email' | 'role'> | undefined> {
  return firstRow(db, RENEW, [id, organizationId, token.tokenHash, token.ttlMs]);
}

const DELETE = sqlOf`DELETE FROM ${invitations}
      WHERE ${invitations.id} = $1 AND ${invitations.organizationId} = $2 AND ${invitations.acceptedAt} IS NULL`;

/** Withdraws an unused invitation of the organization; false when it has no such invitation. */
export async function deleteOpenInvitation(
  db: Queryable,
  organizationId: string,
  id: string,
): Promise<boolean> {
  return changedOne(db, DELETE, [id, organizationId]);
}
