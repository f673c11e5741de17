/**
 * API keys: `elig_<mode>_<8-char id><32-char secret>`. The first part (`elig_test_ab12cd34`) is the
 * non-secret prefix used to find the row; the whole key is stored only as HMAC-SHA256 with a server pepper
 * and compared in constant time. The plaintext is returned once, at creation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62, uuidv7 } from '../ids.ts';
import { KEYS_CHANNEL } from '../store/channels.ts';
import type { Db, Queryable } from '../store/db.ts';

export const SCOPES = ['eligibility:read', 'eligibility:write'] as const;
export type Scope = (typeof SCOPES)[number];

const KEY_PATTERN = /^(elig_(?:test|live)_[0-9A-Za-z]{8})[0-9A-Za-z]{32}$/;

export interface ApiKeyRecord {
  id: string;
  organizationId: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface AuthenticatedKey {
  keyId: string;
  organizationId: string;
  scopes: Scope[];
  eligibilityEnabled: boolean;
}

export function hashApiKey(pepper: Buffer, key: string): string {
  return createHmac('sha256', pepper).update(key).digest('hex');
}

export function parseScopes(text: string | undefined): Scope[] {
  if (!text) return [...SCOPES];
  const scopes = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length)
    throw new Error(`unknown scope(s): ${unknown.join(', ')}; allowed: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

export async function createApiKey(
  db: Queryable,
  pepper: Buffer,
  input: { organizationId: string; name: string; scopes: Scope[]; mode: 'test' | 'live' },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const prefix = `elig_${input.mode}_${randomBase62(8)}`;
  const key = `${prefix}${randomBase62(32)}`;
  const id = uuidv7();
  const { rows } = await db.query<{ created_at: Date }>(
    `INSERT INTO api_keys (id, organization_id, name, prefix, hash, scopes) VALUES ($1, $2, $3, $4, $5, $6)
     RETURNING created_at`,
    [id, input.organizationId, input.name, prefix, hashApiKey(pepper, key), input.scopes],
  );
  return {
    key,
    record: {
      id,
      organizationId: input.organizationId,
      name: input.name,
      prefix,
      scopes: input.scopes,
      createdAt: rows[0]!.created_at.toISOString(),
      lastUsedAt: null,
      revokedAt: null,
    },
  };
}

/** Looks a presented key up by prefix and checks its hash in constant time; undefined when it is not valid. */
export async function authenticateApiKey(
  db: Queryable,
  pepper: Buffer,
  presented: string,
): Promise<AuthenticatedKey | undefined> {
  const match = KEY_PATTERN.exec(presented);
  if (!match) return undefined;
  const { rows } = await db.query<{
    id: string;
    organization_id: string;
    hash: string;
    scopes: Scope[];
    eligibility_enabled: boolean;
  }>(
    `SELECT k.id, k.organization_id, k.hash, k.scopes, o.eligibility_enabled
       FROM api_keys k JOIN organizations o ON o.id = k.organization_id
      WHERE k.prefix = $1 AND k.revoked_at IS NULL`,
    [match[1]],
  );
  const row = rows[0];
  const expected = Buffer.from(hashApiKey(pepper, presented), 'hex');
  // Compare even when no row matched, so timing does not reveal whether a prefix exists.
  const stored = row ? Buffer.from(row.hash, 'hex') : Buffer.alloc(expected.length);
  if (!timingSafeEqual(stored, expected) || !row) return undefined;
  return {
    keyId: row.id,
    organizationId: row.organization_id,
    scopes: row.scopes,
    eligibilityEnabled: row.eligibility_enabled,
  };
}

export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeyRecord[]> {
  const { rows } = await db.query<{
    id: string;
    organization_id: string;
    name: string;
    prefix: string;
    scopes: Scope[];
    created_at: Date;
    last_used_at: Date | null;
    revoked_at: Date | null;
  }>(
    `SELECT id, organization_id, name, prefix, scopes, created_at, last_used_at, revoked_at
       FROM api_keys WHERE organization_id = $1 ORDER BY created_at DESC`,
    [organizationId],
  );
  return rows.map((r) => ({
    id: r.id,
    organizationId: r.organization_id,
    name: r.name,
    prefix: r.prefix,
    scopes: r.scopes,
    createdAt: r.created_at.toISOString(),
    lastUsedAt: r.last_used_at?.toISOString() ?? null,
    revokedAt: r.revoked_at?.toISOString() ?? null,
  }));
}

/**
 * Returns false when no such active key exists in that organization. Every process's key cache is told in
 * the same transaction (NOTIFY is sent on commit), so no caller has to remember to invalidate anything.
 */
export async function revokeApiKey(db: Db, organizationId: string, keyId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      'UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND organization_id = $2 AND revoked_at IS NULL',
      [keyId, organizationId],
    );
    if (rowCount === 1) await announceAccessChange(tx);
    return rowCount === 1;
  });
}

/** Tells every process's API key cache (src/api/auth.ts) to forget what it knows, once the change commits. */
export async function announceAccessChange(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [KEYS_CHANNEL, '']);
}

export async function touchApiKeys(db: Queryable, keyIds: string[]): Promise<void> {
  if (keyIds.length) await db.query('UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1)', [keyIds]);
}
