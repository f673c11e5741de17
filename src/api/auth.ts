/**
 * API key authentication (`Authorization: Key <key>`), with a short in-process cache so the hot path does
 * not pay a database round trip per request. Every change of access (a key revoked, an organization
 * disabled) sends NOTIFY on `elig_keys` in its own transaction (src/tenancy/api-keys.ts), and every
 * process, this one included, clears its cache when it arrives.
 */
import type { FastifyRequest } from 'fastify';
import { touchApiKeys } from '../store/api-keys.ts';
import { KEYS_CHANNEL } from '../store/channels.ts';
import type { Db } from '../store/db.ts';
import { type AuthenticatedKey, authenticateApiKey, hashApiKey, type Scope } from '../tenancy/api-keys.ts';
import { accessDenied, unauthorized } from './errors.ts';

const CACHE_TTL_MS = 30_000;
const CACHE_MAX = 10_000;

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthenticatedKey;
  }
}

export class ApiKeyAuthenticator {
  private readonly cache = new Map<string, { auth: AuthenticatedKey | undefined; expires: number }>();
  private readonly used = new Set<string>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly pepper: Buffer,
  ) {}

  async start(): Promise<() => Promise<void>> {
    const unlisten = await this.db.listen(KEYS_CHANNEL, () => this.cache.clear());
    this.flushTimer = setInterval(() => void this.flushLastUsed(), 15_000).unref();
    return async () => {
      clearInterval(this.flushTimer);
      await unlisten();
      await this.flushLastUsed();
    };
  }

  /**
   * The key of `request` if it may do `scope`. `bearer`: the key may also come as `Bearer <key>`, as SMART
   * clients send their tokens (the FHIR face only; everywhere else a Bearer header is another scheme).
   */
  async authenticate(
    request: FastifyRequest,
    scope: Scope,
    options: { bearer?: boolean } = {},
  ): Promise<AuthenticatedKey> {
    const header = request.headers.authorization;
    if (!header) throw unauthorized('Missing API key. Send "Authorization: Key <API key>".');
    const match = (options.bearer ? /^(?:Key|Bearer) +(\S+)\s*$/ : /^Key +(\S+)\s*$/).exec(header);
    if (!match) throw unauthorized('Unsupported authorization scheme. Send "Authorization: Key <API key>".');
    const key = match[1]!;
    const cacheKey = hashApiKey(this.pepper, key);
    const now = Date.now();
    let entry = this.cache.get(cacheKey);
    if (!entry || entry.expires < now) {
      const auth = await authenticateApiKey(this.db, this.pepper, key);
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      entry = { auth, expires: now + CACHE_TTL_MS };
      this.cache.set(cacheKey, entry);
    }
    const auth = entry.auth;
    if (!auth) throw unauthorized('Invalid or revoked API key.');
    this.used.add(auth.keyId);
    if (!auth.eligibilityEnabled) {
      throw accessDenied('This site is not configured for eligibility checks. Contact support to enable it.');
    }
    if (!auth.scopes.includes(scope))
      throw accessDenied(`This API key does not have access to this operation (needs ${scope}).`);
    request.auth = auth;
    return auth;
  }

  private async flushLastUsed(): Promise<void> {
    if (!this.used.size) return;
    const ids = [...this.used];
    this.used.clear();
    await touchApiKeys(this.db, ids).catch(() => {});
  }
}
