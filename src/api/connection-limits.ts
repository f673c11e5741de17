/**
 * Slow or stalled clients must not hold connections: a client that trickles its headers (slowloris) or its
 * body, or stops reading the answer, is cut off after a bounded time, before or after authentication. And a
 * body the server will not use (the request was refused before it was read) is not read at all.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export interface HttpTimeouts {
  /** The request line and headers must arrive within this; else 408 and the connection closes. */
  headersMs: number;
  /** The whole request, headers and body, must arrive within this; else 408 and the connection closes. */
  requestMs: number;
  /** A connection with no traffic either way (a client that stops reading the answer) is closed. */
  idleMs: number;
  /** How long an idle keep-alive connection is kept open for its next request. */
  keepAliveMs: number;
}

/** Fastify server options for these limits. */
export function timeoutOptions(t: HttpTimeouts) {
  return {
    connectionTimeout: t.idleMs,
    requestTimeout: t.requestMs,
    keepAliveTimeout: t.keepAliveMs,
    http: {
      headersTimeout: t.headersMs,
      // Node enforces the headers and request timeouts only when it sweeps its connections, every 30 s by
      // default: a 10 s limit could then last 40 s. Sweeping a few times per limit keeps them honest.
      connectionsCheckingInterval: Math.max(
        50,
        Math.min(1000, Math.floor(Math.min(t.headersMs, t.requestMs) / 4)),
      ),
    },
  };
}

/** A refused body is drained up to this many bytes, and for at most this long, before the connection closes. */
export const DRAIN_MAX_BYTES = 32 * 1024 * 1024;
export const DRAIN_MAX_MS = 5000;

/**
 * An answer sent before the request body was read (401, 403, 429, 404...) closes the connection.
 * Otherwise Node reads and discards the rest of the body to keep the connection alive, and a client that
 * announces a gigabyte keeps the server reading it until the request timeout.
 *
 * A 413 is the exception, within bounds: the client is usually an honest one sending a file too large, and
 * closing while it still sends makes the kernel reset the connection, so Node's `fetch` and `http` fail
 * with EPIPE and never read the 413 (curl happens to). Its body is drained and discarded, up to
 * DRAIN_MAX_BYTES and DRAIN_MAX_MS, after which the connection is cut; a body announced larger than that
 * is cut at once, as before.
 */
export function closeConnectionsWithUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.raw.complete) return payload;
    const announced = Number(request.headers['content-length'] ?? 0);
    if (reply.statusCode === 413 && announced <= DRAIN_MAX_BYTES) {
      // Fastify asks for a close on every body it refused to parse; draining instead keeps the client's
      // sends going to a reader until the body ends, and the connection then serves the next request.
      reply.removeHeader('connection');
      drainBounded(request.raw);
    } else {
      reply.header('connection', 'close');
    }
    return payload;
  });
}

function drainBounded(body: IncomingMessage): void {
  let seen = 0;
  const cut = () => body.socket?.destroy();
  const timer = setTimeout(cut, DRAIN_MAX_MS).unref();
  const done = () => clearTimeout(timer);
  body.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_MAX_BYTES) cut();
  });
  body.once('end', done);
  body.once('close', done);
  body.resume();
}
