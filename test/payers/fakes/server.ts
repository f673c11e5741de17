/**
 * The HTTP side shared by the fake gateways: a server on 127.0.0.1:0 (HTTPS with a required client
 * certificate when given keys), request recording, and the transport faults every wire format can
 * suffer: slow answers, 401, 5xx then success, 429/503 with Retry-After, an HTML page, a 50 MB body and a
 * body that never ends.
 */
import {
  createServer as createHttp,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { TLSSocket } from 'node:tls';

export type TransportFault =
  | 'slow'
  | '401'
  | '403'
  | '5xx-then-ok'
  | '503-retry-after'
  | '429-retry-after'
  | 'html'
  | 'huge'
  | 'never-ending';

export interface FakeOptions {
  /** Delay of the `slow` fault; default 5 s. */
  slowMs?: number;
  /** Size of the `huge` body; default 50 MB. */
  hugeBytes?: number;
  /** Announce the `huge` body's size in Content-Length (default: chunked, the size unknown up front). */
  hugeAnnounced?: boolean;
}

export interface RecordedRequest {
  /** What the fake found wrong with the request; empty when it was a valid request. */
  problems: string[];
  headers: IncomingMessage['headers'];
  /** The CORE fields or JSON the request carried (tests read PayloadID, SenderID, …). */
  fields: Record<string, string>;
  /** CN of the client certificate on an HTTPS fake. */
  clientCertificate?: string;
}

export interface ServerTls {
  key: string;
  cert: string;
  /** CA that signed acceptable client certificates. */
  ca: string;
}

/** Everything a fake's answer depends on, settable per test. */
export class FaultState<M extends string> {
  mode: M | TransportFault | 'ok' = 'ok';
  options: FakeOptions = {};
  /** Requests answered in the current mode. */
  served = 0;
  /** Bytes of the `huge` body the fake managed to write before the client hung up. */
  bytesStreamed = 0;
  set(mode: M | TransportFault | 'ok', options: FakeOptions = {}): void {
    this.mode = mode;
    this.options = options;
    this.served = 0;
    this.bytesStreamed = 0;
  }
}

export interface Listening {
  origin: string;
  close(): Promise<void>;
}

export async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  tls?: ServerTls,
): Promise<Listening> {
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  };
  const server: Server = tls
    ? createHttps({ ...tls, requestCert: true, rejectUnauthorized: true }, onRequest)
    : createHttp(onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export function clientCertificate(req: IncomingMessage): string | undefined {
  const socket = req.socket as Partial<TLSSocket>;
  const cn = socket.getPeerCertificate?.()?.subject?.CN;
  return typeof cn === 'string' ? cn : undefined;
}

export async function readBody(req: IncomingMessage, max = 1024 * 1024): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new Error('request too large for the fake');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function reply(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers = {},
) {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

/** Resolves after `ms`, or early (false) when the client goes away. */
export function pause(ms: number, res: ServerResponse): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    res.once('close', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
}

/**
 * Plays the transport fault of the current mode. Returns true when it answered the request itself;
 * false to let the fake answer (after the delay of `slow`, or once `5xx-then-ok` has failed).
 * `body` is the start of a plausible answer in the fake's own format (for huge/never-ending bodies).
 */
export async function playTransportFault<M extends string>(
  state: FaultState<M>,
  res: ServerResponse,
  answer: { contentType: string; start: string },
): Promise<boolean> {
  const served = state.served++;
  switch (state.mode) {
    case 'slow':
      return !(await pause(state.options.slowMs ?? 5_000, res));
    case '401':
    case '403':
      reply(res, Number(state.mode), 'text/plain', 'Unauthorized', {
        'www-authenticate': 'Basic realm="fake"',
      });
      return true;
    case '5xx-then-ok':
      if (served > 0) return false;
      reply(res, 502, 'text/plain', 'Bad Gateway');
      return true;
    case '503-retry-after':
      reply(res, 503, 'text/plain', 'Service Unavailable', { 'retry-after': '7' });
      return true;
    case '429-retry-after':
      reply(res, 429, 'text/plain', 'Too Many Requests', { 'retry-after': '3' });
      return true;
    case 'html':
      reply(
        res,
        200,
        'text/html; charset=utf-8',
        '<!DOCTYPE html><html><body><h1>Maintenance</h1></body></html>',
      );
      return true;
    case 'huge':
      await streamHuge(state, res, answer);
      return true;
    case 'never-ending':
      res.writeHead(200, { 'content-type': answer.contentType });
      res.write(answer.start);
      return true;
    default:
      return false;
  }
}

async function streamHuge<M extends string>(
  state: FaultState<M>,
  res: ServerResponse,
  answer: { contentType: string; start: string },
): Promise<void> {
  const total = state.options.hugeBytes ?? 50 * 1024 * 1024;
  const chunk = Buffer.alloc(64 * 1024, 'A');
  const length = state.options.hugeAnnounced ? { 'content-length': total } : {};
  res.writeHead(200, { 'content-type': answer.contentType, ...length });
  let written = 0;
  const write = (data: Buffer | string) =>
    new Promise<boolean>((resolve) => {
      if (res.destroyed) return resolve(false);
      const more = res.write(data);
      state.bytesStreamed = written += Buffer.byteLength(data);
      if (more) return resolve(true);
      const done = (ok: boolean) => () => {
        res.off('drain', onDrain);
        res.off('close', onClose);
        resolve(ok);
      };
      const onDrain = done(true);
      const onClose = done(false);
      res.once('drain', onDrain);
      res.once('close', onClose);
    });
  if (!(await write(answer.start))) return;
  while (written + chunk.length <= total) if (!(await write(chunk))) return;
  if (written < total) await write(chunk.subarray(0, total - written));
  res.end();
}
