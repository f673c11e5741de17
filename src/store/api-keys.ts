/**
 * The `api_keys` table: every statement that reads or writes it. Generating, hashing and checking keys
 * stays in src/tenancy/api-keys.ts. Row typing as described at the top of organizations.ts.
 */
import { firstRow, type Queryable } from './db.ts';
import type { apiKeys, organizations } from './schema.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** Stores a new key (its hash only); returns when it was created. */
export async function insertApiKey(
  db: Queryable,
  key: Pick<ApiKeyRow, 'id' | 'organizationId' | 'name' | 'prefix' | 'hash' | 'scopes'>,
): Promise<Pick<ApiKeyRow, 'createdAt'>> {
  const { rows } = await db.query<Pick<ApiKeyRow, 'createdAt'>>(
    `INSERT INTO api_keys (id, organization_id, name, prefix, hash, scopes) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING created_at AS "createdAt"`,
    [key.id, key.organizationId, key.name, key.prefix, key.hash, key.scopes],
  );
  return rows[0]!;
}

export type ActiveKeyRow = Pick<ApiKeyRow, 'id' | 'organizationId' | 'hash' | 'scopes'> &
  Pick<typeof organizations.$inferSelect, 'eligibilityEnabled'>;

/** The unrevoked key with this prefix, with whether its organization may run checks. */
export const findActiveKeyByPrefix = (db: Queryable, prefix: string) =>
  firstRow<ActiveKeyRow>(
    db,
    `SELECT k.id, k.organization_id AS "organizationId", k.hash, k.scopes, o.eligibility_enabled AS "eligibilityEnabled"
       FROM api_keys k JOIN organizations o ON o.id = k.organization_id
      WHERE k.prefix = $1 AND k.revoked_at IS NULL`,
    [prefix],
  );

export type ApiKeyListRow = Omit<ApiKeyRow, 'hash'>;

/** An organization's keys (never their hashes), newest first. */
export async function selectApiKeys(db: Queryable, organizationId: string): Promise<ApiKeyListRow[]> {
  const { rows } = await db.query<ApiKeyListRow>(
    `SELECT id, organization_id AS "organizationId", name, prefix, scopes, created_at AS "createdAt",
            last_used_at AS "lastUsedAt", revoked_at AS "revokedAt"
       FROM api_keys WHERE organization_id = $1 ORDER BY created_at DESC`,
    [organizationId],
  );
  return rows;
}

/** Revokes an active key of the organization; false when there is none with this id. */
export async function markApiKeyRevoked(
  db: Queryable,
  organizationId: string,
  keyId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL',
    [keyId, organizationId],
  );
  return rowCount === 1;
}

export async function touchApiKeys(db: Queryable, keyIds: string[]): Promise<void> {
  if (keyIds.length) await db.query('UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1)', [keyIds]);
}
