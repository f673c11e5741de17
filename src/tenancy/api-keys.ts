/**
 * API keys: `elig_<mode>_<8-char id><32-char secret>`. The first part (`elig_test_ab12cd34`) is the
 * non-secret prefix used to find the row; the whole key is stored only as HMAC-SHA256 with a server pepper
 * and compared in constant time. The plaintext is returned once, at creation.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { randomBase62, uuidv7 } from '../ids.ts';
import { findActiveKeyByPrefix, insertApiKey, markApiKeyRevoked, selectApiKeys } from '../store/api-keys.ts';
import { KEYS_CHANNEL, wake } from '../store/channels.ts';
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
  const { createdAt } = await insertApiKey(db, {
    id,
    organizationId: input.organizationId,
    name: input.name,
    prefix,
    hash: hashApiKey(pepper, key),
    scopes: input.scopes,
  });
  return {
    key,
    record: {
      id,
      organizationId: input.organizationId,
      name: input.name,
      prefix,
      scopes: input.scopes,
      createdAt: createdAt.toISOString(),
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
  const row = await findActiveKeyByPrefix(db, match[1]!);
  const expected = Buffer.from(hashApiKey(pepper, presented), 'hex');
  // Compare even when no row matched, so timing does not reveal whether a prefix exists.
  const stored = row ? Buffer.from(row.hash, 'hex') : Buffer.alloc(expected.length);
  if (!timingSafeEqual(stored, expected) || !row) return undefined;
  return {
    keyId: row.id,
    organizationId: row.organizationId,
    scopes: row.scopes as Scope[],
    eligibilityEnabled: row.eligibilityEnabled,
  };
}

export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeyRecord[]> {
  const rows = await selectApiKeys(db, organizationId);
  return rows.map((r) => ({
    id: r.id,
    organizationId: r.organizationId,
    name: r.name,
    prefix: r.prefix,
    scopes: r.scopes as Scope[],
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    revokedAt: r.revokedAt?.toISOString() ?? null,
  }));
}

/**
 * Returns false when no such active key exists in that organization. Every process's key cache is told in
 * the same transaction (NOTIFY is sent on commit), so no caller has to remember to invalidate anything.
 */
export async function revokeApiKey(db: Db, organizationId: string, keyId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const revoked = await markApiKeyRevoked(tx, organizationId, keyId);
    if (revoked) await announceAccessChange(tx);
    return revoked;
  });
}

/** Tells every process's API key cache (src/api/auth.ts) to forget what it knows, once the change commits. */
export async function announceAccessChange(tx: Queryable): Promise<void> {
  await wake(tx, KEYS_CHANNEL);
}
