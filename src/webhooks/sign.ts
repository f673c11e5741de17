/**
 * Webhook signatures (docs/contract.md "The completion webhook"): hex HMAC-SHA256 of `${timestamp}.${body}`
 * with the organization's signing secret, over the exact bytes sent. The body is serialized once when the event is stored and
 * every attempt signs those stored bytes with a fresh timestamp; re-serializing would change the bytes and
 * break receivers' verification. During a secret roll's 24 h overlap a second header carries the signature
 * made with the previous secret, so receivers that have not switched yet keep verifying.
 */
import { createHmac } from 'node:crypto';

/** Header names as sent (HTTP header names are case-insensitive; Node receivers see them lowercased). */
export const WEBHOOK_HEADERS = {
  id: 'X-Webhook-Id',
  event: 'X-Webhook-Event',
  timestamp: 'X-Webhook-Timestamp',
  signature: 'X-Webhook-Signature',
  previousSignature: 'X-Webhook-Signature-Previous',
} as const;

export interface SignInput {
  secret: string;
  /** Unix seconds, exactly as sent in `X-Webhook-Timestamp`. */
  timestamp: number | string;
  /** The exact body bytes sent (a string is taken as UTF-8). */
  body: string | Uint8Array;
}

/** Lowercase hex HMAC-SHA256 of `${timestamp}.${body}`. */
export function signWebhook(input: SignInput): string {
  if (typeof input.timestamp === 'number' && !Number.isSafeInteger(input.timestamp)) {
    throw new RangeError('The webhook timestamp must be whole Unix seconds.');
  }
  const mac = createHmac('sha256', input.secret);
  mac.update(`${input.timestamp}.`);
  mac.update(input.body);
  return mac.digest('hex');
}

export interface WebhookHeaderInput {
  /** The event id: the same on every attempt, so receivers can deduplicate. */
  eventId: string;
  /** The event type (`eligibility.completed`, `batch.completed`, ...), sent in `X-Webhook-Event`. */
  eventType: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: string | Uint8Array;
  /** Absent, null or empty: no signing secret configured, no signature header. */
  secret?: string | null;
  /** The rolled-out secret while its 24 h overlap lasts; ignored without a current secret. */
  previousSecret?: string | null;
  userAgent: string;
}

export function buildWebhookHeaders(input: WebhookHeaderInput): Record<string, string> {
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new RangeError('The webhook timestamp must be whole, non-negative Unix seconds.');
  }
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': input.userAgent,
    [WEBHOOK_HEADERS.id]: input.eventId,
    [WEBHOOK_HEADERS.event]: input.eventType,
    [WEBHOOK_HEADERS.timestamp]: String(input.timestamp),
  };
  if (!input.secret) return headers;
  const { timestamp, body } = input;
  headers[WEBHOOK_HEADERS.signature] = signWebhook({ secret: input.secret, timestamp, body });
  if (input.previousSecret) {
    headers[WEBHOOK_HEADERS.previousSignature] = signWebhook({
      secret: input.previousSecret,
      timestamp,
      body,
    });
  }
  return headers;
}
