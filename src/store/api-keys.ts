/**
 * The `api_keys` table: every statement that reads or writes it. Generating, hashing and checking keys
 * stays in src/tenancy/api-keys.ts. Statements are typed as described in typed.ts.
 */
import { firstRow, type Queryable } from './db.ts';
import { apiKeys, organizations } from './schema.ts';
import { columns, joinColumns, type RowOf, sqlOf } from './typed.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

const CREATED_AT = columns(apiKeys, ['createdAt']);
const INSERT = sqlOf`INSERT INTO ${apiKeys} (${apiKeys.id}, ${apiKeys.organizationId}, ${apiKeys.name}, ${apiKeys.prefix}, ${apiKeys.hash}, ${apiKeys.scopes}) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING ${CREATED_AT}`;

/** Stores a new key (its hash only); returns when it was created. */
export async function insertApiKey(
  db: Queryable,
  key: Pick<ApiKeyRow, 'id' | 'organizationId' | 'name' | 'prefix' | 'hash' | 'scopes'>,
): Promise<Pick<ApiKeyRow, 'createdAt'>> {
  const { rows } = await db.query<RowOf<typeof CREATED_AT>>(INSERT, [
    key.id,
    key.organizationId,
    key.name,
    key.prefix,
    key.hash,
    key.scopes,
  ]);
  return rows[0]!;
}

const ACTIVE_KEY = joinColumns(
  columns(apiKeys, ['id', 'organizationId', 'hash', 'scopes'], 'k'),
  columns(organizations, ['eligibilityEnabled'], 'o'),
);
export type ActiveKeyRow = RowOf<typeof ACTIVE_KEY>;
const FIND_ACTIVE = sqlOf`SELECT ${ACTIVE_KEY}
       FROM ${apiKeys} k JOIN ${organizations} o ON o.${organizations.id} = k.${apiKeys.organizationId}
      WHERE k.${apiKeys.prefix} = $1 AND k.${apiKeys.revokedAt} IS NULL`;

/** The unrevoked key with this prefix, with whether its organization may run checks. */
export const findActiveKeyByPrefix = (db: Queryable, prefix: string) =>
  firstRow<ActiveKeyRow>(db, FIND_ACTIVE, [prefix]);

const LISTED = columns(apiKeys, [
  'id',
  'organizationId',
  'name',
  'prefix',
  'scopes',
  'createdAt',
  'lastUsedAt',
  'revokedAt',
]);
const SELECT_KEYS = sqlOf`SELECT ${LISTED}
       FROM ${apiKeys} WHERE ${apiKeys.organizationId} = $1 ORDER BY ${apiKeys.createdAt} DESC`;
export type ApiKeyListRow = RowOf<typeof LISTED>;

/** An organization's keys (never their hashes), newest first. */
export async function selectApiKeys(db: Queryable, organizationId: string): Promise<ApiKeyListRow[]> {
  const { rows } = await db.query<ApiKeyListRow>(SELECT_KEYS, [organizationId]);
  return rows;
}

const REVOKE = sqlOf`UPDATE ${apiKeys} SET ${apiKeys.revokedAt} = now() WHERE ${apiKeys.id} = $1 AND ${apiKeys.organizationId} = $2 AND ${apiKeys.revokedAt} IS NULL`;

/** Revokes an active key of the organization; false when there is none with this id. */
export async function markApiKeyRevoked(
  db: Queryable,
  organizationId: string,
  keyId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(REVOKE, [keyId, organizationId]);
  return rowCount === 1;
}

const TOUCH = sqlOf`UPDATE ${apiKeys} SET ${apiKeys.lastUsedAt} = now() WHERE ${apiKeys.id} = ANY($1)`;

export async function touchApiKeys(db: Queryable, keyIds: string[]): Promise<void> {
  if (keyIds.length) await db.query(TOUCH, [keyIds]);
}
