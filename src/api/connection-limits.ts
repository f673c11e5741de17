/**
 * Slow or stalled clients must not hold connections: a client that trickles its headers (slowloris) or its
 * body, or stops reading the answer, is cut off after a bounded time, before or after authentication. And a
 * body the server will not use (the request was refused before it was read) is not read at all.
 */
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

/**
 * An answer sent before the request body was read (401, 403, 429, 413, 404...) closes the connection.
 * Otherwise Node reads and discards the rest of the body to keep the connection alive, and a client that
 * announces a gigabyte keeps the server reading it until the request timeout.
 */
export function closeConnectionsWithUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.raw.complete) reply.header('connection', 'close');
    return payload;
  });
}
