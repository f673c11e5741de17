/**
 * For webhook receivers (exported as `eligibility-service/webhooks`): verify a delivery's signature over
 * the raw body, in constant time, within a replay window. Pass the body exactly as received (string or
 * bytes); a parsed-and-re-serialized object has different bytes and will not verify.
 *
 *   import { verifyWebhook } from 'eligibility-service/webhooks';
 *   const result = verifyWebhook({
 *     secret: process.env.WEBHOOK_SECRET,
 *     timestamp: req.headers['x-webhook-timestamp'],
 *     signature: req.headers['x-webhook-signature'],
 *     previousSignature: req.headers['x-webhook-signature-previous'],
 *     body: rawBody,
 *   });
 *   if (!result.ok) return res.writeHead(400).end(result.reason);
 *
 * Wire problems (missing, malformed or wrong headers) come back as a reason and never throw; programming
 * mistakes (no secret, a parsed object as body, a nonsensical tolerance) throw a TypeError or RangeError.
 */
import { timingSafeEqual } from 'node:crypto';
import { signWebhook } from './sign.ts';

export type VerifyFailureReason =
  | 'missing_signature'
  | 'malformed_signature'
  | 'bad_signature'
  | 'timestamp_out_of_tolerance'
  | 'malformed_timestamp';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailureReason };

/** A header value as Node's `req.headers` types it. */
type HeaderValue = string | readonly string[] | undefined | null;

export interface VerifyInput {
  /** The signing secret; to accept both sides of a roll, an array of secrets. */
  secret: string | readonly string[];
  /** `X-Webhook-Timestamp`: Unix seconds. */
  timestamp: HeaderValue | number;
  /** `X-Webhook-Signature`: 64 hex digits (uppercase is accepted as the same digest). */
  signature: HeaderValue;
  /** `X-Webhook-Signature-Previous`, sent during a secret roll: lets a receiver still on the old secret verify. */
  previousSignature?: HeaderValue;
  /** The raw request body exactly as received. */
  body: string | Uint8Array;
  /** Largest accepted distance between the timestamp and now, in either direction. Default 300. */
  toleranceSeconds?: number;
  /** Current time in Unix seconds (tests). */
  now?: number;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

const SIGNATURE = /^[0-9a-fA-F]{64}$/;
const TIMESTAMP = /^\d{1,12}$/;

export function verifyWebhook(input: VerifyInput): VerifyResult {
  const secrets = checkSecrets(input.secret);
  checkBody(input.body);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Number.isNaN(tolerance) || tolerance < 0) {
    throw new RangeError('toleranceSeconds must be a non-negative number of seconds.');
  }

  const presented: string[] = [];
  for (const value of [input.signature, input.previousSignature]) {
    const one = single(value);
    if (one === undefined) continue;
    if (one === null || !SIGNATURE.test(one)) return { ok: false, reason: 'malformed_signature' };
    presented.push(one);
  }
  if (!presented.length) return { ok: false, reason: 'missing_signature' };

  const timestamp = typeof input.timestamp === 'number' ? String(input.timestamp) : single(input.timestamp);
  if (!timestamp || !TIMESTAMP.test(timestamp)) return { ok: false, reason: 'malformed_timestamp' };
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > tolerance)
    return { ok: false, reason: 'timestamp_out_of_tolerance' };

  // Hex decoding is case-insensitive, so comparing decoded bytes accepts uppercase hex; every buffer is
  // 32 bytes (checked by the pattern above), which timingSafeEqual requires.
  const presentedBytes = presented.map((hex) => Buffer.from(hex, 'hex'));
  let matched = false;
  for (const secret of secrets) {
    const expected = Buffer.from(signWebhook({ secret, timestamp, body: input.body }), 'hex');
    for (const bytes of presentedBytes) matched = timingSafeEqual(bytes, expected) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: 'bad_signature' };
}

/** undefined = absent; null = present but unusable (several values); otherwise the value. */
function single(value: HeaderValue): string | null | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (value.length === 0) return undefined;
  return value.length === 1 ? value[0]! : null;
}

function checkSecrets(secret: string | readonly string[]): readonly string[] {
  const list = typeof secret === 'string' ? [secret] : secret;
  if (!Array.isArray(list) || list.length === 0 || list.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('verifyWebhook needs the signing secret (a non-empty string or array of strings).');
  }
  return list;
}

function checkBody(body: unknown): void {
  if (typeof body !== 'string' && !(body instanceof Uint8Array)) {
    throw new TypeError(
      'verifyWebhook needs the raw request body (string or bytes) exactly as received, not a parsed object.',
    );
  }
}
