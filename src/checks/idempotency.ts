/**
 * The Idempotency-Key rule every create shares (a check in submit.ts, a monitor in monitors.ts): the same key
 * and the same body within 24 hours answer the same object again; the same key with another body is a
 * conflict; a key older than 24 hours is released and may be used afresh. A unique index on (organization,
 * key) decides races, never a read-then-insert: `insert` writes nothing when the key is taken, and the
 * holder is read after.
 */
import { createHash } from 'node:crypto';

export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

/** An Idempotency-Key header value: 1–255 printable ASCII characters. */
export function isValidIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

/** Hash of the body with object keys sorted, so key order and whitespace do not matter. */
export function requestHash(body: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

export const IDEMPOTENCY_CONFLICT =
  'Idempotency-Key was already used with a different request body in the last 24 hours.';

/** The row holding a key, as the store reads it. */
export interface KeyHolder {
  id: string;
  requestHash: string | null;
  /** Older than IDEMPOTENCY_WINDOW_MS. */
  expired: boolean;
}

export type Idempotent<T> = { ok: true; value: T; replayed: boolean } | { ok: false; conflict: string };

export interface IdempotentSteps<T, H extends KeyHolder> {
  /** Writes the new object under the key; undefined (nothing written) when the key is taken. */
  insert: () => Promise<T | undefined>;
  /** The row holding the key now, if any. */
  holder: () => Promise<H | undefined>;
  /** Frees an expired key (unless another request freed it already). */
  release: (holder: H) => Promise<void>;
  /** The answer to a replay: what the holder's create answered (or answers now). */
  replay: (holder: H) => Promise<T>;
}

/**
 * Inserts under the key, or settles who holds it. `hash` is requestHash() of the body as sent. Retries
 * when the key is released between the insert and the read (another request saw it expire).
 */
export async function insertIdempotently<T, H extends KeyHolder>(
  hash: string,
  steps: IdempotentSteps<T, H>,
): Promise<Idempotent<T>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const value = await steps.insert();
    if (value !== undefined) return { ok: true, value, replayed: false };
    const holder = await steps.holder();
    if (!holder) continue; // released between the two statements: try again
    if (holder.expired) {
      await steps.release(holder);
      continue;
    }
    if (holder.requestHash !== hash) return { ok: false, conflict: IDEMPOTENCY_CONFLICT };
    return { ok: true, value: await steps.replay(holder), replayed: true };
  }
  throw new Error('idempotent insert did not settle');
}
