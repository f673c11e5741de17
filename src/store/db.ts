/**
 * One small database interface over the two engines we run on: PGlite (embedded, one process; see
 * pglite.ts) and PostgreSQL (node-postgres pool, many processes; here). The same SQL runs on both.
 */
import type { Column, Table } from 'drizzle-orm';
import pg from 'pg';
import { DatabaseUnavailableError, FaultLatch, translate } from './faults.ts';
import { type Columns, sqlOf } from './typed.ts';

export { DatabaseUnavailableError } from './faults.ts';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/** The first row a statement returns, or undefined: a lookup by key. */
export async function firstRow<T>(db: Queryable, sql: string, params: unknown[]): Promise<T | undefined> {
  return (await db.query<T>(sql, params)).rows[0];
}

/**
 * How one thing of an organization is looked up by id, from a row to what the API and the portal show:
 * another organization's thing reads as absent, so every caller answers it exactly like a missing one.
 */
export type OwnedLookup<T> = (db: Queryable, organizationId: string, id: string) => Promise<T | undefined>;

/** A table whose rows belong to an organization, keyed by `id`. */
type OwnedTable = Table & { id: Column; organizationId: Column };

/**
 * One row of `table` by id, scoped to its organization, read with `columns`: a module's
 * `findX(db, organizationId, id)`. Another organization's row reads as absent (a 404, like a missing one).
 */
export function ownedRowLookup<T>(table: OwnedTable, columns: Columns<T>): OwnedLookup<T> {
  const text = sqlOf`SELECT ${columns} FROM ${table} WHERE ${table.id} = $1 AND ${table.organizationId} = $2`;
  return (db, organizationId, id) => firstRow<T>(db, text, [id, organizationId]);
}

/** Which page of an organization's rows, newest first: up to `limit` rows older than the id `before`. */
export interface NewestFirstPage {
  before?: string;
  limit: number;
}

/**
 * A page of an organization's rows of `table`, newest first. Its ids are time-ordered (UUIDv7, or prefixed
 * ones that sort by time), so id order is creation order and the last id of a page is the next one's cursor.
 */
export function organizationPageLookup<T>(table: OwnedTable, columns: Columns<T>) {
  const text = sqlOf`SELECT ${columns} FROM ${table}
        WHERE ${table.organizationId} = $1 AND ($2::text IS NULL OR ${table.id} < $2)
        ORDER BY ${table.id} DESC LIMIT $3`;
  return async (db: Queryable, organizationId: string, page: NewestFirstPage): Promise<T[]> => {
    const { rows } = await db.query<T>(text, [organizationId, page.before ?? null, page.limit]);
    return rows;
  };
}

/** A table that takes an Idempotency-Key (checks, batches, monitors). */
type IdempotentTable = OwnedTable & { idempotencyKey: Column; createdAt: Column };

/**
 * The Idempotency-Key statements of `table`, read with `columns`: `findHolder`, the row holding a key and
 * whether it is older than `windowMs`; `release`, which frees an expired key for reuse (unless another
 * request freed it already).
 */
export function idempotencyKeyStatements<T>(table: IdempotentTable, columns: Columns<T>) {
  const findHolder = sqlOf`SELECT ${columns}, ${table.createdAt} < now() - $3 * interval '1 millisecond' AS expired
           FROM ${table} WHERE ${table.organizationId} = $1 AND ${table.idempotencyKey} = $2`;
  const release = sqlOf`UPDATE ${table} SET ${table.idempotencyKey} = NULL WHERE ${table.id} = $1 AND ${table.idempotencyKey} = $2`;
  return {
    findHolder: (
      db: Queryable,
      organizationId: string,
      idempotencyKey: string,
      windowMs: number,
    ): Promise<(T & { expired: boolean }) | undefined> =>
      firstRow<T & { expired: boolean }>(db, findHolder, [organizationId, idempotencyKey, windowMs]),
    release: async (db: Queryable, id: string, idempotencyKey: string): Promise<void> => {
      await db.query(release, [id, idempotencyKey]);
    },
  };
}

export interface TransactionOptions {
  /** No time budget: for migrations, whose DDL on a large table may take minutes. */
  unbounded?: boolean;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Subscribe to NOTIFY on a channel; returns an unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload?: string): Promise<void>;
  /**
   * Why writes are failing or about to (a recent disk-full or out-of-resources error; on PGlite also a
   * nearly full data disk, or a stopped database), for readiness; undefined when there is no such sign.
   */
  storageFault(): Promise<DatabaseUnavailableError | undefined>;
  close(): Promise<void>;
}

/** The default of DB_REQUEST_BUDGET_MS (src/config.ts). */
export const DEFAULT_BUDGET_MS = 3000;

const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;
const LISTEN_RETRY_MIN_MS = 1000;
const LISTEN_RETRY_MAX_MS = 10_000;

/** node-postgres reads a per-query `query_timeout` (client side) that its types do not declare. */
const timed = (text: string, values: unknown[], timeoutMs?: number): pg.QueryConfig =>
  ({ text, values, ...(timeoutMs ? { query_timeout: timeoutMs } : {}) }) as pg.QueryConfig;

export interface PostgresOptions {
  poolSize?: number;
  /**
   * How long one statement, or one transaction, may take from asking the pool for a connection to the
   * last answer. Past it the caller gets DatabaseUnavailableError('timeout') and the connection is
   * discarded; the server cancels the statement too (statement_timeout), rather than work for no one.
   */
  budgetMs?: number;
}

export async function openPostgres(url: string, schema: string, options: PostgresOptions = {}): Promise<Db> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
  const { poolSize = 10, budgetMs = DEFAULT_BUDGET_MS } = options;
  const setup = new pg.Client({ connectionString: url, connectionTimeoutMillis: budgetMs });
  try {
    await setup.connect();
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (err) {
    // Two processes creating the schema at once: IF NOT EXISTS still races in the catalog (23505/42P06).
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw translate(err);
  } finally {
    await setup.end().catch(() => {});
  }
  const clientConfig = {
    connectionString: url,
    options: `-c search_path="${schema}"`,
    // Lets operators (and the chaos tests) tell this service's connections apart: `elig:<schema>`.
    application_name: `elig:${schema}`,
    // Bounds opening a connection, and (in the pool) waiting for a free one.
    connectionTimeoutMillis: budgetMs,
    statement_timeout: budgetMs,
  };
  const pool = new pg.Pool({ ...clientConfig, max: poolSize, idleTimeoutMillis: 30_000 });
  // A client that loses its backend (server restart, pg_terminate_backend) may emit 'error' when no one
  // listens (idle, or released): that must not crash the process. The pool's own listeners still remove
  // broken idle clients; queries in flight fail and are translated below.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const latch = new FaultLatch();
  /** One statement on a checked-out client, within what is left of `deadline` (none: unbounded). */
  const send = async <T>(client: pg.PoolClient, sql: string, params: unknown[], deadline?: number) => {
    const left = deadline === undefined ? undefined : deadline - Date.now();
    if (left !== undefined && left <= 0) throw new DatabaseUnavailableError('timeout');
    let r: pg.QueryResult;
    try {
      r = await client.query(timed(sql, params, left));
    } catch (err) {
      throw translate(err);
    }
    nudgeListener();
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
  };
  /**
   * Runs `fn` on a client of its own. A client that failed with an unavailable error (lost, timed out
   * with a statement still running, or on a read-only server after a failover) is destroyed rather than
   * pooled, so the next query gets a fresh connection.
   */
  const withClient = async <T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw translate(err);
    }
    // The pool listens for errors only on idle clients: keep a checked-out client's, to destroy it.
    let broken: unknown;
    const onError = (err: Error) => {
      broken = err;
    };
    client.on('error', onError);
    try {
      return await fn(client);
    } catch (err) {
      const failure = translate(broken ?? err);
      latch.note(failure);
      if (failure instanceof DatabaseUnavailableError) broken ??= failure;
      throw failure;
    } finally {
      if (broken) {
        // Destroyed, not pooled: keep the listener, node-postgres may emit more errors while it closes.
        client.release(broken as Error);
      } else {
        client.off('error', onError);
        client.release();
      }
    }
  };
  const query = <T>(sql: string, params: unknown[] = []) => {
    const deadline = Date.now() + budgetMs;
    return withClient((client) => send<T>(client, sql, params, deadline));
  };
  // One LISTEN connection per process. When it is lost (node-postgres may emit 'error' more than once for
  // one loss), the old client is ended and exactly one reconnect is scheduled, retrying with a backoff
  // (1 s doubling to 10 s) until it succeeds. A query that succeeds on the pool proves the database is
  // back, so it cuts a long backoff short (at most once a second): wake-ups resume as soon as queries do.
  let listener: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnectAt = 0;
  let backoffMs = LISTEN_RETRY_MIN_MS;
  let lastNudge = 0;
  let closed = false;
  let connecting: Promise<void> | undefined;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const scheduleReconnect = (delayMs: number) => {
    if (closed || reconnectTimer) return;
    reconnectAt = Date.now() + delayMs;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      connectListener().then(
        () => {
          backoffMs = LISTEN_RETRY_MIN_MS;
        },
        () => {
          backoffMs = Math.min(backoffMs * 2, LISTEN_RETRY_MAX_MS);
          scheduleReconnect(backoffMs);
        },
      );
    }, delayMs);
    reconnectTimer.unref();
  };
  const nudgeListener = () => {
    if (!reconnectTimer) return;
    const now = Date.now();
    if (reconnectAt - now < 250 || now - lastNudge < LISTEN_RETRY_MIN_MS) return;
    lastNudge = now;
    clearTimeout(reconnectTimer);
    reconnectTimer = undefined;
    scheduleReconnect(0);
  };
  const connectListener = async () => {
    const c = new pg.Client(clientConfig);
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (listener === c) listener = undefined;
      c.end().catch(() => {});
      scheduleReconnect(backoffMs);
    };
    c.on('error', onLost);
    c.on('end', onLost);
    c.on('notification', (n) => {
      for (const h of handlers.get(n.channel) ?? []) h(n.payload ?? '');
    });
    try {
      await c.connect();
      for (const channel of handlers.keys()) await c.query(`LISTEN ${channel}`);
    } catch (err) {
      lost = true;
      c.end().catch(() => {});
      throw err;
    }
    if (closed) {
      lost = true;
      await c.end().catch(() => {});
      return;
    }
    listener = c;
    // Wake-ups may have been missed while disconnected: tell every handler to look now.
    for (const set of handlers.values()) for (const h of set) h('');
  };
  return {
    kind: 'postgres',
    query,
    transaction: (fn, options = {}) => {
      const deadline = options.unbounded ? undefined : Date.now() + budgetMs;
      return withClient(async (client) => {
        await send(client, 'BEGIN', [], deadline);
        try {
          if (options.unbounded) await send(client, 'SET LOCAL statement_timeout = 0', []);
          const result = await fn({ query: (sql, params = []) => send(client, sql, params, deadline) });
          await send(client, 'COMMIT', [], deadline);
          return result;
        } catch (err) {
          if (!(translate(err) instanceof DatabaseUnavailableError)) {
            await client.query(timed('ROLLBACK', [], budgetMs)).catch(() => {});
          }
          throw err;
        }
      });
    },
    async listen(channel, onNotify) {
      if (!CHANNEL_NAME.test(channel)) throw new Error('invalid channel name');
      const set = handlers.get(channel) ?? new Set();
      handlers.set(channel, set);
      set.add(onNotify);
      if (listener) {
        if (set.size === 1) await listener.query(`LISTEN ${channel}`);
      } else if (connecting) {
        await connecting; // the new connection LISTENs on every channel in `handlers`, this one included
        if (listener && set.size === 1)
          await (listener as pg.Client).query(`LISTEN ${channel}`).catch(() => {});
      } else if (!reconnectTimer) {
        connecting = connectListener().finally(() => {
          connecting = undefined;
        });
        await connecting;
      }
      return async () => {
        set.delete(onNotify);
      };
    },
    async notify(channel, payload = '') {
      await query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async storageFault() {
      return latch.current();
    },
    async close() {
      closed = true;
      clearTimeout(reconnectTimer);
      handlers.clear();
      await listener?.end().catch(() => {});
      await pool.end();
    },
  };
}
