/**
 * Which connection a check's payer is asked through, and the limits on the way.
 *
 * Failover: a payer may name several connections in order (`"connection": ["payer-direct", "stedi"]`).
 * Each (payer, connection) pair has its own breaker in the PayerGuard, keyed by the payer id for the
 * first connection (as before connections existed, so /readyz and metrics keep their keys) and by
 * `payer@connection` for the others. A check goes to the first connection whose breaker is not open; when
 * every one is open, to the first, whose guard then defers the check as in any outage.
 *
 * Account limits: the chosen connection's connector is wrapped so that every call (every inquiry of a
 * `separate` profile) first takes a slot and a token of the connection (src/payers/limits.ts), and a 429
 * from it backs the whole connection off. Neither refusal is a payer outage (ConnectionThrottledError).
 */
import {
  type Connection,
  ConnectionThrottledError,
  type PayerConnector,
  type PayerEntry,
} from './connector.ts';
import type { PayerGuard } from './guard.ts';
import type { ConnectionLimiter } from './limits.ts';

export interface Route {
  /** The payer as this attempt calls it: the chosen connection's connector, envelope and time budget. */
  payer: PayerEntry;
  /** The connection's name; undefined for a payer without connections (the sandbox, tests). */
  connection?: string;
  /** The PayerGuard key of this payer on this connection. */
  guardKey: string;
}

/** Longest wait for a connection slot inside a call's budget; past it the check is deferred. */
const SLOT_WAIT_MAX_MS = 2_000;

export function guardKey(entry: PayerEntry, index: number, connection: Connection): string {
  return index === 0 ? entry.tradingPartnerServiceId : `${entry.tradingPartnerServiceId}@${connection.name}`;
}

export function routeOf(
  entry: PayerEntry,
  guard: PayerGuard | undefined,
  limiter: ConnectionLimiter | undefined,
  leaseMs: number,
): Route {
  const connections = entry.connections ?? [];
  if (!connections.length) return { payer: entry, guardKey: entry.tradingPartnerServiceId };
  let index = connections.findIndex((c, i) => guard?.state(guardKey(entry, i, c)) !== 'open');
  if (index < 0) index = 0;
  const connection = connections[index]!;
  const timeoutMs = index === 0 ? entry.timeoutMs : (connection.timeoutMs ?? entry.timeoutMs);
  const connector = limiter
    ? limitedConnector(connection, limiter, Math.min(SLOT_WAIT_MAX_MS, (timeoutMs ?? leaseMs) / 4))
    : connection.connector;
  const payer: PayerEntry = {
    ...entry,
    connector,
    connectorType: connection.type,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(index === 0 ? {} : { envelope: connection.envelope }),
    stcStrategy: entry.stcStrategy ?? connection.stcStrategy,
  };
  return { payer, connection: connection.name, guardKey: guardKey(entry, index, connection) };
}

/** The connection's connector behind its account limits. */
function limitedConnector(
  connection: Connection,
  limiter: ConnectionLimiter,
  waitMs: number,
): PayerConnector {
  return {
    name: connection.connector.name,
    async send(x12, options) {
      const permit = await limiter.acquire(connection.name, connection.limits, waitMs, options.signal);
      if (!permit.ok) {
        throw new ConnectionThrottledError(
          `connection ${connection.name} has no free slot (account limit)`,
          permit.retryInMs,
          permit.reason === 'busy' ? 'busy' : 'throttled',
        );
      }
      try {
        return await connection.connector.send(x12, options);
      } catch (err) {
        if (!(err instanceof ConnectionThrottledError)) throw err;
        const pausedMs = await limiter.throttled(connection.name, err.retryAfterMs);
        throw new ConnectionThrottledError(err.message, pausedMs);
      } finally {
        permit.release();
      }
    },
  };
}
