/**
 * `x12-json`: raw X12 over a clearinghouse JSON API (Stedi with an API key, Optum/Change Healthcare with
 * OAuth2 client credentials). `POST {url}` with `{"x12": "<270>"}`; a 2xx answer's `x12` string is the
 * 271 (or 999/TA1). A 401 with OAuth2 drops the token and tries once more with a fresh one.
 * See docs/payers.md for the error mapping and the scrubbing of gateway messages.
 */
import type { Dispatcher } from 'undici';
import { charsetOf, decodeText, safeLabel, UnknownCharsetError } from '../charset.ts';
import { type PayerCallOptions, TransientPayerError } from '../connector.ts';
import type { ConnectorDeps, GatewayConnector } from '../connector-deps.ts';
import type { X12JsonConnector } from '../directory-schema.ts';
import {
  createGatewayAgent,
  exchange,
  type GatewayAnswer,
  headerValue,
  htmlPage,
  permanentRefusal,
  requireX12,
  safeJson,
  scrubGatewayText,
  statusError,
} from '../http.ts';
import { ClientCredentialsTokens } from './oauth2.ts';

const NAME = 'x12-json';
/** Response headers that carry a gateway's request id, first found wins. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-amzn-requestid', 'x-correlation-id'];

export interface X12JsonGatewayConnector extends GatewayConnector {
  /** OAuth2 token requests sent so far (0 with an API key). */
  readonly tokenRequests: number;
}

export function createX12JsonConnector(
  config: X12JsonConnector,
  deps: ConnectorDeps,
): X12JsonGatewayConnector {
  const agent = createGatewayAgent(deps.ca ? { ca: deps.ca } : {});
  const now = deps.now ?? (() => new Date());
  const auth = config.auth;
  const tokens =
    auth.type === 'oauth2-client-credentials'
      ? new ClientCredentialsTokens(NAME, auth, { secret: deps.secret, now, dispatcher: agent })
      : undefined;
  const apiKey = auth.type === 'api-key' ? auth.key : undefined;
  const secrets = () => (apiKey ? [deps.secret(apiKey)] : (tokens?.secrets() ?? []));

  const post = (authorization: string, body: string, options: PayerCallOptions) =>
    exchange(NAME, config.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization },
      body,
      dispatcher: agent,
      signal: options.signal,
      onHeaders: (headers) => {
        const id = requestId(headers);
        if (id) options.onExchangeId?.(id);
      },
    });

  return {
    name: NAME,
    get tokenRequests() {
      return tokens?.requests ?? 0;
    },
    async send(x12_270: string, options: PayerCallOptions): Promise<string> {
      const body = JSON.stringify({ x12: x12_270 });
      if (apiKey) return readAnswer(await post(deps.secret(apiKey), body, options));
      let token = await tokens!.get(options.signal);
      let answer = await post(`Bearer ${token}`, body, options);
      if (answer.status === 401) {
        tokens!.invalidate(token);
        token = await tokens!.get(options.signal);
        answer = await post(`Bearer ${token}`, body, options);
      }
      return readAnswer(answer);
    },
    // Destroy, not close: a shutdown must not wait on a gateway that hangs; in-flight calls fail as transient.
    close: () => agent.destroy(),
  };

  function readAnswer(answer: GatewayAnswer): string {
    const { status } = answer;
    if (status === 400 || status === 422) {
      throw permanentRefusal(NAME, status, scrubGatewayText(gatewayMessage(answer), secrets()));
    }
    if (status < 200 || status >= 300) throw statusError(NAME, answer, now());
    if (answer.mediaType === 'text/html') throw htmlPage(NAME, status);
    if (answer.mediaType !== 'application/json' && !answer.mediaType.endsWith('+json')) {
      throw new TransientPayerError(`${NAME}: the answer is not JSON`);
    }
    // JSON is UTF-8 (RFC 8259); a gateway that declares another charset is taken at its word.
    const charset = charsetOf(answer.contentType);
    let text: string;
    try {
      text = charset ? decodeText(answer.body, charset) : answer.body.toString('utf8');
    } catch (err) {
      if (!(err instanceof UnknownCharsetError)) throw err;
      throw new TransientPayerError(
        `${NAME}: the answer is in an unknown character set (${safeLabel(err.label)})`,
      );
    }
    const json = safeJson(text);
    if (!json) throw new TransientPayerError(`${NAME}: the answer is malformed JSON`);
    if (typeof json.x12 !== 'string') throw new TransientPayerError(`${NAME}: the answer has no x12 string`);
    return requireX12(NAME, json.x12);
  }
}

/** A request id that is a plain token (never free text), so it is safe for the call's log line. */
function requestId(headers: Dispatcher.ResponseData['headers']): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = headerValue(headers, name)?.trim();
    if (value && /^[A-Za-z0-9._:/+=-]{1,128}$/.test(value)) return value;
  }
  return undefined;
}

/** The human part of a 400/422: the usual JSON error fields, or a short text body. Scrubbed by the caller. */
function gatewayMessage(answer: GatewayAnswer): string {
  const json = safeJson(answer.body);
  if (!json)
    return answer.mediaType.startsWith('text/plain') ? answer.body.subarray(0, 4096).toString('utf8') : '';
  const pick = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v : undefined);
  const nested = (v: unknown) => (v && typeof v === 'object' ? (v as Record<string, unknown>) : undefined);
  const firstError = Array.isArray(json.errors) ? nested(json.errors[0]) : undefined;
  return (
    pick(json.message) ??
    pick(json.error_description) ??
    pick(nested(json.error)?.message) ??
    pick(json.error) ??
    pick(firstError?.message) ??
    pick(firstError?.detail) ??
    pick(json.detail) ??
    pick(json.title) ??
    ''
  );
}
