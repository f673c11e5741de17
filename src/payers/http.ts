/**
 * What every gateway connector shares: one keep-alive undici Agent per connector, a POST whose answer is
 * read with a byte cap under the caller's time budget, the HTTP status → error class mapping, the
 * Retry-After reading, the "is this X12?" test and the scrubbing of gateway text before it goes into an
 * error message. Error messages name the connector, a status, a code or a field — never PHI or a secret.
 */
import { rootCertificates } from 'node:tls';
import { Agent, type Dispatcher, request } from 'undici';
import {
  ConnectionThrottledError,
  PayerAuthenticationError,
  PermanentPayerError,
  TransientPayerError,
} from './connector.ts';

/** A 271 for one patient is a few kilobytes; 5 MB leaves room for large plans and stops a runaway body. */
export const MAX_ANSWER_BYTES = 5 * 1024 * 1024;
/** A gateway that takes longer than this to accept a TCP/TLS connection is down; the budget is 20–45 s. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Longer Retry-After values are cut to this: the worker's outage wait, not the gateway, bounds a check. */
export const MAX_RETRY_AFTER_MS = 15 * 60_000;

export interface GatewayTls {
  /** Client certificate and key (PEM) for gateways that authenticate with X.509. */
  cert?: string;
  key?: string;
  /** Extra trust anchors (PEM), added to Node's bundled CAs. */
  ca?: string;
}

export function createGatewayAgent(tls: GatewayTls = {}): Agent {
  // `ca` replaces Node's trust store unless the bundled roots are passed along with it.
  const ca = tls.ca ? [...rootCertificates, tls.ca] : undefined;
  return new Agent({
    keepAliveTimeout: 30_000,
    connections: 128,
    // The caller's AbortSignal is the real limit; these are backstops above the largest allowed budget.
    headersTimeout: 610_000,
    bodyTimeout: 610_000,
    connect: {
      timeout: CONNECT_TIMEOUT_MS,
      ...(tls.cert ? { cert: tls.cert } : {}),
      ...(tls.key ? { key: tls.key } : {}),
      ...(ca ? { ca } : {}),
    },
  });
}

export interface GatewayAnswer {
  status: number;
  headers: Dispatcher.ResponseData['headers'];
  /** Media type in lower case without parameters, '' when absent. */
  mediaType: string;
  /** The Content-Type header as sent (multipart needs its boundary). */
  contentType: string;
  body: Buffer;
}

export interface ExchangeInput {
  method: 'POST';
  headers: Record<string, string>;
  body: string | Buffer;
  dispatcher: Dispatcher;
  signal: AbortSignal;
  maxBytes?: number;
  /** Called once the status line and headers are in, before the body is read (exchange ids). */
  onHeaders?: (headers: Dispatcher.ResponseData['headers']) => void;
}

/**
 * One request and its whole answer, or a TransientPayerError: connection failures, the time budget
 * (the same signal aborts a body that is still arriving), and answers over the byte cap (the read stops
 * and the connection is dropped as soon as the cap is passed, so memory stays bounded).
 */
export async function exchange(connector: string, url: string, input: ExchangeInput): Promise<GatewayAnswer> {
  const { signal } = input;
  if (signal.aborted) throw budgetSpent(connector, signal);
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: input.method,
      headers: input.headers,
      body: input.body,
      dispatcher: input.dispatcher,
      signal,
    });
  } catch (err) {
    throw signal.aborted ? budgetSpent(connector, signal) : connectionFailed(connector, err);
  }
  input.onHeaders?.(response.headers);
  const maxBytes = input.maxBytes ?? MAX_ANSWER_BYTES;
  if (Number(headerValue(response.headers, 'content-length')) > maxBytes) {
    response.body.on('error', () => {}).destroy();
    throw tooLarge(connector, maxBytes);
  }
  const body = await readCapped(connector, response.body, maxBytes, signal);
  const contentType = headerValue(response.headers, 'content-type') ?? '';
  return {
    status: response.statusCode,
    headers: response.headers,
    mediaType: contentType.split(';')[0]!.trim().toLowerCase(),
    contentType,
    body,
  };
}

/**
 * Events rather than `for await`: an async iterator costs a promise per chunk, and this runs once per
 * check. The signal destroys a body that stalls; passing the cap destroys it at once.
 */
function readCapped(
  connector: string,
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: Error | undefined) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      // onError stays: undici may still emit an abort on the body once the budget signal fires.
      body.off('data', onData).off('end', onEnd);
      if (!body.destroyed) body.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onAbort = () => finish(budgetSpent(connector, signal));
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish(tooLarge(connector, maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish(signal.aborted ? budgetSpent(connector, signal) : undefined);
    const onError = (err: unknown) =>
      finish(signal.aborted ? budgetSpent(connector, signal) : connectionFailed(connector, err));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    body.on('data', onData).on('end', onEnd).on('error', onError);
  });
}

function tooLarge(connector: string, maxBytes: number): TransientPayerError {
  return new TransientPayerError(`${connector}: answer too large (over ${maxBytes} bytes)`);
}

export function budgetSpent(connector: string, signal: AbortSignal): TransientPayerError {
  const timedOut = (signal.reason as { name?: string } | undefined)?.name === 'TimeoutError';
  return new TransientPayerError(
    timedOut
      ? `${connector}: no complete answer within the time budget`
      : `${connector}: the call was aborted before a complete answer`,
  );
}

/** Names the error code only: undici's messages can carry the URL, which may hold a credential. */
export function connectionFailed(connector: string, err: unknown): TransientPayerError {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const raw = typeof e?.cause?.code === 'string' ? e.cause.code : e?.code;
  const code = typeof raw === 'string' && /^[A-Z0-9_]{2,40}$/.test(raw) ? raw : 'unknown';
  return new TransientPayerError(`${connector}: connection to the gateway failed (${code})`);
}

export function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** `Retry-After` as delta-seconds or an HTTP-date, in ms from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let ms: number;
  if (/^\d{1,10}$/.test(v)) ms = Number(v) * 1000;
  else {
    const at = Date.parse(v);
    if (Number.isNaN(at) || !/[A-Za-z]{3},? /.test(v)) return undefined;
    ms = Math.max(0, at - now.getTime());
  }
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

/**
 * The error for a non-2xx status that the connector did not read more closely: 401/403 → authentication,
 * 400/422 → permanent when the wire format says the inquiry itself was refused, everything else →
 * transient, with Retry-After honoured on 429 and 5xx.
 */
export function statusError(
  connector: string,
  answer: Pick<GatewayAnswer, 'status' | 'headers'>,
  now: Date,
  detail = '',
): TransientPayerError {
  const { status } = answer;
  const suffix = detail ? ` (${detail})` : '';
  if (status === 401 || status === 403) {
    return new PayerAuthenticationError(`${connector}: the gateway refused our credentials (HTTP ${status})`);
  }
  if (status === 429) {
    // The account's limit, not the payer's health: the connection backs off, no breaker counts it.
    const wait = retryAfterMs(headerValue(answer.headers, 'retry-after'), now);
    return new ConnectionThrottledError(
      `${connector}: the gateway answered HTTP 429 (too many requests)`,
      wait,
    );
  }
  const retry = status >= 500 ? retryAfterMs(headerValue(answer.headers, 'retry-after'), now) : undefined;
  return new TransientPayerError(`${connector}: the gateway answered HTTP ${status}${suffix}`, retry);
}

export function permanentRefusal(connector: string, status: number, message: string): PermanentPayerError {
  const said = message ? `: ${message}` : '';
  return new PermanentPayerError(`${connector}: the gateway refused the inquiry (HTTP ${status})${said}`);
}

/** A payload is X12 when it starts with an ISA segment, after optional whitespace or a byte-order mark. */
export function requireX12(connector: string, payload: string): string {
  if (!/^[\s\uFEFF]*ISA/.test(payload))
    throw new TransientPayerError(`${connector}: the answer's payload is not X12`);
  return payload;
}

export function htmlPage(connector: string, status: number): TransientPayerError {
  return new TransientPayerError(
    `${connector}: the gateway answered an HTML page (HTTP ${status}), not its API`,
  );
}

const MAX_GATEWAY_TEXT = 200;

/**
 * Gateway text (an error message, a SOAP fault reason) made safe for an error message. Gateways echo
 * what they were sent, so anything that could be PHI or a credential is replaced:
 * - the connector's own secret values, wherever they appear;
 * - everything from an ISA segment on, and any word containing `*`, `~` or `^` (X12 segments);
 * - quoted text ('…', "…", `…`): gateways quote the values they refuse;
 * - dates (digits with `-`, `/` or `.` separators), e-mail addresses;
 * - runs of 5 or more letters/digits that contain a digit (member ids, dates of birth, NPIs, tokens).
 * Control characters become spaces, whitespace is collapsed, and the result is cut to 200 characters.
 * Names in free text cannot be recognised; the quoting rule catches the usual "member 'X' not found".
 */
export function scrubGatewayText(text: string, secrets: readonly string[] = []): string {
  // Bounded work: what survives is cut to 200 characters anyway.
  let s = text.slice(0, 8_000);
  for (const secret of secrets) if (secret.length >= 4) s = s.split(secret).join('[secret]');
  s = s.replace(/ISA[*|^~:].*$/s, '[x12]');
  s = s.replace(/\p{Cc}+/gu, ' ');
  s = s.replace(/(["'`])[^"'`]{0,400}\1/g, '[value]');
  s = s.replace(/\S*[*~^]\S*/g, '[x12]');
  s = s.replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '[email]');
  s = s.replace(/\d+(?:[-/.]\d+){1,2}/g, '[date]');
  s = s.replace(/(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{5,}/g, '[id]');
  s = s.replace(/\s+/g, ' ').trim();
  return s.length > MAX_GATEWAY_TEXT ? `${s.slice(0, MAX_GATEWAY_TEXT - 1)}…` : s;
}

/** A JSON object from a body (UTF-8 bytes, or text already decoded), or undefined when it is not one. */
export function safeJson(body: Buffer | string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
