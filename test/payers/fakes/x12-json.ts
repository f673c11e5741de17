/**
 * A fake raw-X12-over-JSON clearinghouse (Stedi / Optum style) on 127.0.0.1:0, in API-key or OAuth2
 * client-credentials mode. It checks the JSON body, the Authorization header and the 270, counts token
 * requests, can revoke the tokens it issued (a 401 for the next call), and plays the faults tests need.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type FakeOptions,
  FaultState,
  listen,
  pause,
  playTransportFault,
  type RecordedRequest,
  readBody,
  reply,
  type TransportFault,
} from './server.ts';
import { answer271, check270, reject999, rejectTa1 } from './x12.ts';

export type X12JsonFault =
  | '400'
  | '422'
  | '999'
  | 'ta1'
  | 'foreign-trace'
  | 'non-x12'
  | 'broken-body'
  | 'no-x12-field';
export type TokenMode = 'ok' | '500' | '401' | '400' | 'slow';

export type X12JsonAuth =
  | { type: 'api-key'; key: string }
  | {
      type: 'oauth2';
      clientId: string;
      clientSecret: string;
      scope?: string;
      /** expires_in of issued tokens, seconds; default 3600. */
      expiresIn?: number;
      /** Delay of every token answer (single-flight tests); default 30 ms. */
      tokenDelayMs?: number;
    };

export interface X12JsonFakeOptions {
  payerId: string;
  auth: X12JsonAuth;
  now?: () => Date;
  /** Answer this X12 to every authorized request without reading the 270 (benchmarks). */
  fixedAnswer?: string;
  /** With fixedAnswer: the JSON is sent in this charset (latin1 bytes), declared on the Content-Type. */
  answerCharset?: string;
}

export interface X12JsonFake {
  url: string;
  tokenUrl: string;
  requests: RecordedRequest[];
  answers: string[];
  /** Token requests received, and the problems found in them. */
  tokenRequests: { problems: string[] }[];
  setMode(mode: X12JsonFault | TransportFault | 'ok', options?: FakeOptions): void;
  setTokenMode(mode: TokenMode): void;
  /** Makes every token issued so far invalid (the next API call with one gets a 401). */
  revokeTokens(): void;
  /** The request id header sent with the last answer. */
  readonly lastRequestId: string | undefined;
  readonly bytesStreamed: number;
  close(): Promise<void>;
}

/** PHI-laden text a careless gateway might put in a 400, to prove the connector scrubs it. */
export const LEAKY_MESSAGE =
  "Subscriber 'JANE DOE' born 1980-01-15 with member id SBX1000001 not found; segment NM1*IL*1*DOE*JANE*** rejected";

export async function startX12JsonFake(options: X12JsonFakeOptions): Promise<X12JsonFake> {
  const state = new FaultState<X12JsonFault>();
  const requests: RecordedRequest[] = [];
  const answers: string[] = [];
  const tokenRequests: { problems: string[] }[] = [];
  const tokens = new Set<string>();
  let tokenMode: TokenMode = 'ok';
  let lastRequestId: string | undefined;
  const now = () => options.now?.() ?? new Date();

  const token = async (req: IncomingMessage, res: ServerResponse) => {
    const auth = options.auth;
    const form = new URLSearchParams((await readBody(req)).toString('utf8'));
    const problems: string[] = [];
    tokenRequests.push({ problems });
    if (auth.type !== 'oauth2') return reply(res, 404, 'text/plain', 'Not Found');
    if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))
      problems.push('token request is not form-encoded');
    if (form.get('grant_type') !== 'client_credentials')
      problems.push('grant_type is not client_credentials');
    if ((form.get('scope') ?? undefined) !== auth.scope) problems.push('scope is wrong');
    const known = form.get('client_id') === auth.clientId && form.get('client_secret') === auth.clientSecret;
    if (!known) problems.push('client credentials are wrong');
    const delay = tokenMode === 'slow' ? 60_000 : (auth.tokenDelayMs ?? 30);
    if (!(await pause(delay, res))) return;
    if (tokenMode === '500') return reply(res, 500, 'text/plain', 'Internal Server Error');
    if (!known || tokenMode === '401')
      return reply(res, 401, 'application/json', '{"error":"invalid_client"}');
    if (problems.length || tokenMode === '400')
      return reply(res, 400, 'application/json', '{"error":"invalid_request"}');
    const issued = randomBytes(24).toString('base64url');
    tokens.add(issued);
    const body = { access_token: issued, token_type: 'Bearer', expires_in: auth.expiresIn ?? 3600 };
    reply(res, 200, 'application/json', JSON.stringify(body));
  };

  const api = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    const record: RecordedRequest = { problems: [], headers: req.headers, fields: {} };
    requests.push(record);
    lastRequestId = randomUUID();
    res.setHeader('x-request-id', lastRequestId);
    const authorization = req.headers.authorization ?? '';
    const auth = options.auth;
    const authorized =
      auth.type === 'api-key'
        ? authorization === auth.key
        : tokens.has(authorization.replace(/^Bearer /, ''));
    if (auth.type === 'oauth2' && !authorization.startsWith('Bearer '))
      record.problems.push('no Bearer token');
    if (!authorized) {
      record.problems.push('not authorized');
      return reply(res, 401, 'application/json', '{"message":"Unauthorized"}');
    }
    if (!req.headers['content-type']?.startsWith('application/json'))
      record.problems.push('body is not JSON');
    let x12 = '';
    try {
      const body = JSON.parse(raw.toString('utf8')) as { x12?: unknown };
      if (typeof body.x12 !== 'string') throw new Error('no x12');
      x12 = body.x12;
      record.fields = { x12 };
    } catch {
      record.problems.push('body is not {"x12": "…"}');
      return reply(res, 400, 'application/json', '{"message":"Invalid request body"}');
    }
    if (options.fixedAnswer && state.mode === 'ok' && options.answerCharset) {
      const json = Buffer.from(JSON.stringify({ x12: options.fixedAnswer }), 'latin1');
      return reply(res, 200, `application/json; charset=${options.answerCharset}`, json);
    }
    if (options.fixedAnswer && state.mode === 'ok') {
      return reply(res, 200, 'application/json', JSON.stringify({ x12: options.fixedAnswer }));
    }
    const checked = check270(x12, options.payerId);
    record.problems.push(...checked.problems);
    if (await playTransportFault(state, res, { contentType: 'application/json', start: '{"x12":"ISA*' }))
      return;
    const send = (answer: string) => {
      answers.push(answer);
      reply(res, 200, 'application/json', JSON.stringify({ x12: answer, meta: { traceId: 'fake' } }));
    };
    if (checked.problems.length) return send(reject999(checked, now()));
    switch (state.mode) {
      case '400':
      case '422':
        return reply(res, Number(state.mode), 'application/json', JSON.stringify({ message: LEAKY_MESSAGE }));
      case '999':
        return send(reject999(checked, now()));
      case 'ta1':
        return send(rejectTa1(checked, now()));
      case 'foreign-trace':
        return send(answer271(x12, now(), 'ANOTHERINQUIRY01'));
      case 'non-x12':
        return reply(res, 200, 'application/json', JSON.stringify({ x12: 'Payer unavailable' }));
      case 'no-x12-field':
        return reply(res, 200, 'application/json', JSON.stringify({ status: 'ok' }));
      case 'broken-body':
        return reply(res, 200, 'application/json', '{"x12": "ISA*00*');
      default:
        return send(answer271(x12, now()));
    }
  };

  const server = await listen(async (req, res) => {
    if (req.method === 'POST' && req.url === '/oauth/token') return token(req, res);
    if (req.method === 'POST' && req.url === '/x12') return api(req, res);
    reply(res, 404, 'text/plain', 'Not Found');
  });
  return {
    url: `${server.origin}/x12`,
    tokenUrl: `${server.origin}/oauth/token`,
    requests,
    answers,
    tokenRequests,
    setMode: (mode, opts) => state.set(mode, opts),
    setTokenMode: (mode) => {
      tokenMode = mode;
    },
    revokeTokens: () => tokens.clear(),
    get lastRequestId() {
      return lastRequestId;
    },
    get bytesStreamed() {
      return state.bytesStreamed;
    },
    close: server.close,
  };
}
