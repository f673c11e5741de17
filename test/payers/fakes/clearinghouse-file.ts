/**
 * A PAYERS_FILE for the fake clearinghouse, in the shape of NETWORK-DESIGN.md: one shared `connections`
 * entry (x12-json, API key from an environment variable, the account's limits) and the payers naming it.
 * Tests write it to disk and point PAYERS_FILE at it.
 */
import type { ClearinghousePayer, StcBehaviour } from './clearinghouse-271.ts';

export type StcStrategy = 'repeat' | 'loops' | 'separate' | 'generic-only';

/** The strategy that gets every code answered from a payer with this behaviour. */
export const STRATEGY_FOR: Record<StcBehaviour, StcStrategy> = {
  repeat: 'repeat',
  'first-repetition': 'loops',
  'first-eq': 'separate',
  'generic-only': 'generic-only',
};

export interface ConnectionJson {
  type: 'x12-json';
  url: string;
  auth: { type: 'api-key'; key: { env: string } };
  limits?: { concurrency?: number; ratePerSecond?: number };
  stcStrategy?: StcStrategy;
  timeoutMs?: number;
}

export interface PayerJson {
  id: string;
  name: string;
  payerId: string;
  connection: string | string[];
  stcStrategy?: StcStrategy;
}

export interface PayersFileJson {
  connections: Record<string, ConnectionJson>;
  payers: PayerJson[];
}

export interface ClearinghouseConnection {
  /** The fake's `url`. */
  url: string;
  /** Default `clearinghouse`. */
  connectionName?: string;
  /** The environment variable holding the fake's API key; default `CLEARINGHOUSE_API_KEY`. */
  keyEnv?: string;
  limits?: { concurrency?: number; ratePerSecond?: number };
  /** The connection's default strategy. */
  stcStrategy?: StcStrategy;
  timeoutMs?: number;
}

export interface ClearinghousePayersFileOptions extends ClearinghouseConnection {
  /** The fake's payers (or the few a test needs). */
  payers: readonly Pick<ClearinghousePayer, 'id' | 'name' | 'behaviour'>[];
  /** Further connections tried in order after the first (failover), e.g. a second fake. */
  failover?: (ClearinghouseConnection & { connectionName: string })[];
  /**
   * `by-behaviour`: each payer gets the stcStrategy its behaviour needs (STRATEGY_FOR); `none` (default):
   * payers carry no strategy, the connection's default applies.
   */
  payerStrategies?: 'by-behaviour' | 'none';
}

function connection(c: ClearinghouseConnection): ConnectionJson {
  return {
    type: 'x12-json',
    url: c.url,
    auth: { type: 'api-key', key: { env: c.keyEnv ?? 'CLEARINGHOUSE_API_KEY' } },
    ...(c.limits ? { limits: c.limits } : {}),
    ...(c.stcStrategy ? { stcStrategy: c.stcStrategy } : {}),
    ...(c.timeoutMs ? { timeoutMs: c.timeoutMs } : {}),
  };
}

export function clearinghousePayersFile(options: ClearinghousePayersFileOptions): PayersFileJson {
  const first = options.connectionName ?? 'clearinghouse';
  const connections: Record<string, ConnectionJson> = { [first]: connection(options) };
  for (const other of options.failover ?? []) connections[other.connectionName] = connection(other);
  const names = Object.keys(connections);
  const payers = options.payers.map((p) => ({
    id: p.id,
    name: p.name,
    payerId: p.id,
    connection: names.length === 1 ? first : names,
    ...(options.payerStrategies === 'by-behaviour' ? { stcStrategy: STRATEGY_FOR[p.behaviour] } : {}),
  }));
  return { connections, payers };
}
