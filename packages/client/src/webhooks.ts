/**
 * verifyWebhook: checks a delivery's signature exactly as the service makes it (its src/webhooks/sign.ts):
 * lowercase hex HMAC-SHA256, keyed with the signing secret string as UTF-8 (`whsec_` prefix included, never
 * base64-decoded), over the bytes of `${X-Webhook-Timestamp}.` followed by the raw body bytes as received.
 *
 * WebCrypto (`crypto.subtle`) computes the HMAC, so this runs in Node 20+, browsers, Deno, Bun, Cloudflare
 * Workers and other edge runtimes; that is why it is async. The comparison is our own loop over the 32
 * bytes, without an early exit, rather than `crypto.subtle.verify`: Node's WebCrypto HMAC verify compares
 * with plain memcmp, which returns at the first differing byte, so it cannot be relied on for constant time.
 *
 * Problems with what was received (a missing, malformed or wrong header, an old timestamp) come back as a
 * reason and never throw; programming mistakes (no secret, a parsed object as body) throw a TypeError.
 */

export type WebhookFailureReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'bad_signature'
  | 'timestamp_out_of_tolerance'
  | 'malformed_timestamp';

export type WebhookVerification =
  | {
      ok: true;
      /** `X-Webhook-Id`: the same on every retry of one event; deduplicate by it. */
      eventId: string | undefined;
      /** `X-Webhook-Event`: `eligibility.completed`, `batch.completed`, `coverage.changed`, `test`. */
      eventType: string | undefined;
      /** `X-Webhook-Timestamp`, Unix seconds. */
      timestamp: number;
    }
  | { ok: false; reason: WebhookFailureReason };

/** Fetch's `Headers` (Request.headers), or a plain object such as Node's `req.headers`. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the timestamp and now, either way, in seconds; default 300. */
  toleranceSeconds?: number;
  /** The current time in Unix seconds (tests); default the clock. */
  now?: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE = /^[0-9a-fA-F]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

/**
 * @param rawBody the request body exactly as received, before any JSON parsing (a re-serialized body has
 *   other bytes and never verifies)
 * @param secret the signing secret; during a secret roll, both the old and the new one
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookVerification> {
  const secrets = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(secrets) || !secrets.length || secrets.some((s) => typeof s !== 'string' || !s)) {
    throw new TypeError('verifyWebhook needs the signing secret (a non-empty string or array of strings).');
  }
  const body = bodyBytes(rawBody);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0)) throw new RangeError('toleranceSeconds must be a non-negative number of seconds.');

  // During a roll the service sends the old secret's signature too; either may verify.
  const presented: Uint8Array[] = [];
  for (const name of ['x-webhook-signature', 'x-webhook-signature-previous']) {
    const value = header(headers, name);
    if (value === undefined) continue;
    if (value === null || !SIGNATURE.test(value)) return { ok: false, reason: 'malformed_signature' };
    presented.push(hexBytes(value));
  }
  if (!presented.length) return { ok: false, reason: 'missing_signature' };

  const timestamp = header(headers, 'x-webhook-timestamp');
  if (!timestamp || !TIMESTAMP.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }

  const signed = concat(new TextEncoder().encode(`${timestamp}.`), body);
  let matched = false;
  for (const s of secrets) {
    const expected = await hmacSha256(s, signed);
    // Every pair is compared (no short cut on a match), so the time taken says nothing about which matched.
    for (const candidate of presented) matched = constantTimeEqual(candidate, expected) || matched;
  }
  if (!matched) return { ok: false, reason: 'bad_signature' };
  return {
    ok: true,
    eventId: header(headers, 'x-webhook-id') ?? undefined,
    eventType: header(headers, 'x-webhook-event') ?? undefined,
    timestamp: Number(timestamp),
  };
}

function bodyBytes(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return new TextEncoder().encode(rawBody);
  if (rawBody instanceof Uint8Array) return rawBody; // Node's Buffer included
  if (rawBody instanceof ArrayBuffer) return new Uint8Array(rawBody);
  throw new TypeError(
    'verifyWebhook needs the raw request body (string or bytes) exactly as received, not a parsed object.',
  );
}

/** undefined: absent; null: present but unusable (sent more than once); else the one value. */
function header(headers: WebhookHeaders, name: string): string | null | undefined {
  if (typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function') {
    // Headers joins repeated fields with ", ", which then fails the format check as malformed.
    return (headers as Headers).get(name) || undefined;
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== name || value === undefined || value === null || value === '') continue;
    if (typeof value === 'string') values.push(value);
    else if (Array.isArray(value)) values.push(...value.map(String));
  }
  if (!values.length) return undefined;
  return values.length === 1 ? values[0] : null;
}

function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

async function hmacSha256(secret: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new TypeError('verifyWebhook needs WebCrypto (globalThis.crypto.subtle).');
  const key = await subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return new Uint8Array(await subtle.sign('HMAC', key, data));
}

/** Both are 32 bytes here (the format was checked); every byte is read whatever the earlier ones were. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
