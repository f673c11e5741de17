/**
 * Sends one webhook attempt with undici and classifies the answer:
 * 2xx = delivered, 410 = gone (stop retrying), anything else, a connection error or the time limit =
 * failed, and a target the SSRF rules forbid = refused.
 *
 * - Connect-time SSRF check: unless private targets are allowed, the Agent's `connect.lookup` resolves the
 *   hostname itself and refuses the connection if any resolved address is forbidden, so a name that
 *   passed the save-time check but now resolves inward (DNS rebinding) never gets a socket. Literal IPs
 *   skip DNS, so they are checked here before sending (checkWebhookUrl again).
 * - Redirects are not followed (undici's `request` never follows them); a 3xx is a failure that says so.
 * - One time limit covers connect, TLS, request, response headers and the snippet read.
 * - At most RESPONSE_SNIPPET_BYTES of the response body are read (for the customer's delivery log), then
 *   the stream is dropped. The snippet is never logged and never put into `error`.
 * - Refusal reasons do not name the resolved address: a portal user could otherwise map internal DNS.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { Agent, type Dispatcher, request } from 'undici';
import { checkWebhookUrl, isForbiddenAddress } from './ssrf.ts';

export interface SendInput {
  url: string;
  /** The stored body bytes, sent as they are. */
  body: string | Uint8Array;
  headers: Record<string, string>;
  allowPrivate: boolean;
  /** Total time limit of the attempt. Default 15 000 ms. */
  timeoutMs?: number;
  /** Aborts the attempt (shutdown). */
  signal?: AbortSignal;
  /** Resolver used at connect time instead of DNS (tests: simulate DNS answers, e.g. rebinding). */
  lookup?: ResolveAll;
}

export interface SendResult {
  outcome: 'delivered' | 'failed' | 'gone' | 'refused';
  status?: number;
  latencyMs: number;
  /** What went wrong, for the delivery log; never contains the response body. */
  error?: string;
  /** Up to RESPONSE_SNIPPET_BYTES of the response body, for the customer's delivery log only. */
  responseSnippet?: string;
}

/** A resolver answering every address of a hostname (the shape of `dns.lookup` with `all: true`). */
export type ResolveAll = (
  hostname: string,
  options: { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const DEFAULT_TIMEOUT_MS = 15_000;
export const RESPONSE_SNIPPET_BYTES = 1024;

const REFUSED_AT_CONNECT =
  'Refused: the webhook host resolves to a private, loopback or reserved address, which webhooks may not reach.';

export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
  code = 'ERR_WEBHOOK_FORBIDDEN_ADDRESS';
}

const systemResolver: ResolveAll = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * A `net.connect` lookup that resolves all addresses and refuses the connection when any of them is
 * forbidden (one private answer among public ones is enough for an attacker to win a race).
 */
export function guardLookup(resolve: ResolveAll): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    resolve(hostname, { all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (!addresses.length) {
        const none: NodeJS.ErrnoException = new Error('no addresses');
        none.code = 'ENOTFOUND';
        return callback(none, '');
      }
      if (addresses.some((a) => isForbiddenAddress(a.address))) {
        return callback(new RefusedAddressError('forbidden address'), '');
      }
      if (options.all) return callback(null, addresses);
      const wanted = options.family === 6 || options.family === 4 ? options.family : undefined;
      const first = addresses.find((a) => wanted === undefined || a.family === wanted) ?? addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** Unguarded lookup through a custom resolver (tests with allowPrivate). */
function plainLookup(resolve: ResolveAll): LookupFunction {
  return (hostname, options, callback) =>
    resolve(hostname, { all: true }, (err, addresses) => {
      if (err || !addresses.length) return callback(err ?? new Error('no addresses'), '');
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
}

const agents = new Map<boolean, Agent>();
const customAgents = new WeakMap<ResolveAll, Map<boolean, Agent>>();
const customPools = new Set<Map<boolean, Agent>>();

function newAgent(allowPrivate: boolean, resolve: ResolveAll | undefined): Agent {
  const lookup = allowPrivate
    ? resolve
      ? plainLookup(resolve)
      : undefined
    : guardLookup(resolve ?? systemResolver);
  return new Agent({
    connect: { timeout: 10_000, ...(lookup ? { lookup } : {}) },
    keepAliveTimeout: 10_000,
    connections: 64,
  });
}

/** One Agent per allowPrivate setting (and per injected resolver), reused across attempts. */
export function webhookAgent(allowPrivate: boolean, resolve?: ResolveAll): Agent {
  let pool = agents;
  if (resolve) {
    pool = customAgents.get(resolve) ?? new Map();
    customAgents.set(resolve, pool);
    customPools.add(pool);
  }
  let agent = pool.get(allowPrivate);
  if (!agent) {
    agent = newAgent(allowPrivate, resolve);
    pool.set(allowPrivate, agent);
  }
  return agent;
}

/** Closes every Agent made so far (shutdown, tests); later sends create new ones. */
export async function closeWebhookAgents(): Promise<void> {
  const pools = [agents, ...customPools];
  const open = pools.flatMap((pool) => [...pool.values()]);
  for (const pool of pools) pool.clear();
  customPools.clear();
  await Promise.all(open.map((a) => a.close()));
}

export async function sendWebhook(input: SendInput): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const checked = checkWebhookUrl(input.url, { allowPrivate: input.allowPrivate });
  if (!checked.ok) return { outcome: 'refused', latencyMs: 0, error: checked.reason };

  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = input.signal ? AbortSignal.any([timeout, input.signal]) : timeout;
  let response: Dispatcher.ResponseData;
  try {
    response = await request(checked.url, {
      method: 'POST',
      headers: input.headers,
      body: input.body,
      dispatcher: webhookAgent(input.allowPrivate, input.lookup),
      signal,
    });
  } catch (err) {
    if (isRefusal(err)) return { outcome: 'refused', latencyMs: elapsed(), error: REFUSED_AT_CONNECT };
    const error = timeout.aborted
      ? `No answer within ${timeoutMs} ms.`
      : input.signal?.aborted
        ? 'The attempt was interrupted (the service is shutting down); it will be retried.'
        : describeConnectionError(err);
    return { outcome: 'failed', latencyMs: elapsed(), error };
  }

  const status = response.statusCode;
  const responseSnippet = await readSnippet(response.body);
  const result = { status, latencyMs: elapsed(), ...(responseSnippet ? { responseSnippet } : {}) };
  if (status >= 200 && status < 300) return { outcome: 'delivered', ...result };
  if (status === 410) {
    return {
      outcome: 'gone',
      ...result,
      error: 'The receiver answered 410 Gone: this event will not be retried.',
    };
  }
  if (status >= 300 && status < 400) {
    return {
      outcome: 'failed',
      ...result,
      error: `The receiver answered ${status}, a redirect; redirects are not followed. Set the webhook URL to the final address.`,
    };
  }
  return {
    outcome: 'failed',
    ...result,
    error: `The receiver answered ${status}; a 2xx status acknowledges a webhook.`,
  };
}

/** Reads up to RESPONSE_SNIPPET_BYTES, then drops the rest (closing the connection if it was not done). */
async function readSnippet(body: Dispatcher.ResponseData['body']): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= RESPONSE_SNIPPET_BYTES) break;
    }
  } catch {
    // Time limit or reset while reading: the status line already answered the delivery question.
  } finally {
    if (!body.destroyed) body.destroy();
  }
  const text = new StringDecoder('utf8').write(Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES));
  return text || undefined;
}

function isRefusal(err: unknown): boolean {
  for (
    let e = err as { cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as never, depth++
  ) {
    if (e instanceof RefusedAddressError) return true;
  }
  return false;
}

/** A human sentence for a connection failure; names only an error code, never response content. */
export function describeConnectionError(err: unknown): string {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  const code =
    e?.code && e.code !== 'UND_ERR_SOCKET' ? e.code : (e?.cause?.code ?? e?.code ?? e?.name ?? 'unknown');
  switch (code) {
    case 'ECONNREFUSED':
      return 'Connection refused: nothing is listening at the webhook URL.';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NODATA':
      return `The webhook hostname could not be resolved (${code}).`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'The receiver closed the connection before answering.';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'Connecting to the receiver timed out.';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `The receiver's network is unreachable (${code}).`;
  }
  if (/CERT|SSL|TLS|SIGNATURE|ERR_TLS/.test(code)) {
    return `The TLS connection failed (${code}): the receiver's certificate or TLS setup was not accepted.`;
  }
  return `Connection failed (${code}).`;
}
