/**
 * OAuth2 client-credentials tokens for one x12-json connector: cached until shortly before they expire,
 * and fetched once for everyone waiting (single flight) so a burst of checks on a cold cache makes one
 * token request, not one per check. The shared token request has its own time limit, so one check's
 * budget running out never fails the others waiting on the same request.
 */
import type { Dispatcher } from 'undici';
import { PayerAuthenticationError, TransientPayerError } from '../connector.ts';
import type { SecretRef } from '../directory-schema.ts';
import { budgetSpent, exchange, headerValue, retryAfterMs, safeJson } from '../http.ts';

export const TOKEN_TIMEOUT_MS = 10_000;
/** A token without `expires_in` is kept this long. */
const DEFAULT_LIFETIME_S = 300;
const MAX_EARLY_MS = 60_000;

export interface TokenSource {
  tokenUrl: string;
  clientId: SecretRef;
  clientSecret: SecretRef;
  scope?: string;
}

interface Cached {
  value: string;
  refreshAt: number;
}

export class ClientCredentialsTokens {
  #cached: Cached | undefined;
  #pending: Promise<string> | undefined;
  /** Token requests sent (metrics, tests). */
  requests = 0;

  constructor(
    private readonly connector: string,
    private readonly source: TokenSource,
    private readonly deps: { secret: (ref: SecretRef) => string; now: () => Date; dispatcher: Dispatcher },
  ) {}

  /** A valid token: the cached one, or the answer of the one request in flight, or a new request. */
  async get(signal: AbortSignal): Promise<string> {
    const cached = this.#cached;
    if (cached && this.deps.now().getTime() < cached.refreshAt) return cached.value;
    this.#pending ??= this.fetchToken().finally(() => {
      this.#pending = undefined;
    });
    return raceSignal(this.connector, this.#pending, signal);
  }

  /** Forgets `used` after the API refused it; a token fetched meanwhile by another check is kept. */
  invalidate(used: string): void {
    if (this.#cached?.value === used) this.#cached = undefined;
  }

  /** Secret values to scrub from gateway text. */
  secrets(): string[] {
    const values = [this.deps.secret(this.source.clientSecret), this.deps.secret(this.source.clientId)];
    if (this.#cached) values.push(this.#cached.value);
    return values;
  }

  private async fetchToken(): Promise<string> {
    this.requests++;
    const sentAt = this.deps.now().getTime();
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: this.deps.secret(this.source.clientId),
      client_secret: this.deps.secret(this.source.clientSecret),
    });
    if (this.source.scope) form.set('scope', this.source.scope);
    const what = `${this.connector} token endpoint`;
    const answer = await exchange(what, this.source.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      dispatcher: this.deps.dispatcher,
      signal: AbortSignal.timeout(TOKEN_TIMEOUT_MS),
      maxBytes: 64 * 1024,
    });
    const json = safeJson(answer.body);
    const oauthError =
      typeof json?.error === 'string' && /^[a-z_]{1,40}$/.test(json.error) ? ` ${json.error}` : '';
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      throw new PayerAuthenticationError(
        `${what} refused our client credentials (HTTP ${answer.status}${oauthError})`,
      );
    }
    if (answer.status < 200 || answer.status >= 300) {
      const retry =
        answer.status === 429 || answer.status >= 500
          ? retryAfterMs(headerValue(answer.headers, 'retry-after'), this.deps.now())
          : undefined;
      throw new TransientPayerError(`${what} answered HTTP ${answer.status}`, retry);
    }
    const token = json?.access_token;
    if (typeof token !== 'string' || !token || /[\s\p{Cc}]/u.test(token)) {
      throw new TransientPayerError(`${what} answered without a usable access_token`);
    }
    const expiresIn = Number(json?.expires_in ?? DEFAULT_LIFETIME_S);
    const lifetimeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : DEFAULT_LIFETIME_S) * 1000;
    // Renew a minute early, or a tenth of the lifetime for short-lived tokens, so no call races expiry.
    this.#cached = { value: token, refreshAt: sentAt + lifetimeMs - Math.min(MAX_EARLY_MS, lifetimeMs / 10) };
    return token;
  }
}

/** Waits for `work`, but gives up (without cancelling it for the others) when this caller's signal aborts. */
function raceSignal<T>(connector: string, work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(budgetSpent(connector, signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(budgetSpent(connector, signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
