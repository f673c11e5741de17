/**
 * The PostgreSQL store: a node-postgres pool (many processes share one database) behind the `Db` interface
 * of db.ts, and one LISTEN connection per process for wake-ups. `openPostgres` puts together the steps below:
 * the schema, the connection settings, the pool, the statements on it, and the listener.
 */
import pg from 'pg';
import {
  type Db,
  DEFAULT_BUDGET_MS,
  type Queryable,
  type QueryResult,
  type TransactionOptions,
} from './db.ts';
import { DatabaseUnavailableError, FaultLatch, translate } from './faults.ts';

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
  await createSchema(url, schema, budgetMs);
  const settings = connectionSettings(url, schema, budgetMs);
  const pool = openPool(settings, poolSize);
  const listener = new NotificationListener(settings);
  // A query that succeeds on the pool proves the database is back: it cuts the listener's backoff short.
  const statements = new PoolStatements(pool, budgetMs, () => listener.nudge());
  const query = <T>(sql: string, params: unknown[] = []) => statements.query<T>(sql, params);
  return {
    kind: 'postgres',
    query,
    transaction: (fn, transactionOptions = {}) => statements.transaction(fn, transactionOptions),
    listen: (channel, onNotify) => listener.listen(channel, onNotify),
    async notify(channel, payload = '') {
      await query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async storageFault() {
      return statements.latch.current();
    },
    async close() {
      await listener.close();
      await pool.end();
    },
  };
}

/** Creates `schema` if it is missing, on a connection of its own that is closed again. */
async function createSchema(url: string, schema: string, budgetMs: number): Promise<void> {
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
}

/** What every connection of the pool, and the listener's, is opened with. */
function connectionSettings(url: string, schema: string, budgetMs: number) {
  return {
    connectionString: url,
    options: `-c search_path="${schema}"`,
    // Lets operators (and the chaos tests) tell this service's connections apart: `elig:<schema>`.
    application_name: `elig:${schema}`,
    // Bounds opening a connection, and (in the pool) waiting for a free one.
    connectionTimeoutMillis: budgetMs,
    statement_timeout: budgetMs,
  };
}

function openPool(settings: pg.ClientConfig, poolSize: number): pg.Pool {
  const pool = new pg.Pool({ ...settings, max: poolSize, idleTimeoutMillis: 30_000 });
  // A client that loses its backend (server restart, pg_terminate_backend) may emit 'error' when no one
  // listens (idle, or released): that must not crash the process. The pool's own listeners still remove
  // broken idle clients; queries in flight fail and are translated below.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/**
 * Statements and transactions on the pool, each within the time budget, with errors translated: a recent
 * storage error is kept in `latch` for readiness, and `onSuccess` hears of every statement that succeeded.
 */
class PoolStatements {
  readonly latch = new FaultLatch();

  constructor(
    private readonly pool: pg.Pool,
    private readonly budgetMs: number,
    private readonly onSuccess: () => void,
  ) {}

  query<T>(sql: string, params: unknown[]): Promise<QueryResult<T>> {
    const deadline = Date.now() + this.budgetMs;
    return this.withClient((client) => this.send<T>(client, sql, params, deadline));
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions): Promise<T> {
    const deadline = options.unbounded ? undefined : Date.now() + this.budgetMs;
    return this.withClient(async (client) => {
      await this.send(client, 'BEGIN', [], deadline);
      try {
        if (options.unbounded) await this.send(client, 'SET LOCAL statement_timeout = 0', []);
        const result = await fn({ query: (sql, params = []) => this.send(client, sql, params, deadline) });
        await this.send(client, 'COMMIT', [], deadline);
        return result;
      } catch (err) {
        if (!(translate(err) instanceof DatabaseUnavailableError)) {
          await client.query(timed('ROLLBACK', [], this.budgetMs)).catch(() => {});
        }
        throw err;
      }
    });
  }

  /** One statement on a checked-out client, within what is left of `deadline` (none: unbounded). */
  private async send<T>(
    client: pg.PoolClient,
    sql: string,
    params: unknown[],
    deadline?: number,
  ): Promise<QueryResult<T>> {
    const left = deadline === undefined ? undefined : deadline - Date.now();
    if (left !== undefined && left <= 0) throw new DatabaseUnavailableError('timeout');
    let r: pg.QueryResult;
    try {
      r = await client.query(timed(sql, params, left));
    } catch (err) {
      throw translate(err);
    }
    this.onSuccess();
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
  }

  /**
   * Runs `fn` on a client of its own. A client that failed with an unavailable error (lost, timed out
   * with a statement still running, or on a read-only server after a failover) is destroyed rather than
   * pooled, so the next query gets a fresh connection.
   */
  private async withClient<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
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
      this.latch.note(failure);
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
  }
}

/**
 * One LISTEN connection per process. When it is lost (node-postgres may emit 'error' more than once for
 * one loss), the old client is ended and exactly one reconnect is scheduled, retrying with a backoff
 * (1 s doubling to 10 s) until it succeeds. `nudge` (a query succeeded on the pool, so the database is
 * back) cuts a long backoff short, at most once a second: wake-ups resume as soon as queries do.
 */
class NotificationListener {
  private client: pg.Client | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectAt = 0;
  private backoffMs = LISTEN_RETRY_MIN_MS;
  private lastNudge = 0;
  private closed = false;
  private connecting: Promise<void> | undefined;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();

  constructor(private readonly settings: pg.ClientConfig) {}

  async listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>> {
    if (!CHANNEL_NAME.test(channel)) throw new Error('invalid channel name');
    const set = this.handlers.get(channel) ?? new Set();
    this.handlers.set(channel, set);
    set.add(onNotify);
    if (this.client) {
      if (set.size === 1) await this.client.query(`LISTEN ${channel}`);
    } else if (this.connecting) {
      await this.connecting; // the new connection LISTENs on every channel in `handlers`, this one included
      const client = this.client as pg.Client | undefined;
      if (client && set.size === 1) await client.query(`LISTEN ${channel}`).catch(() => {});
    } else if (!this.reconnectTimer) {
      this.connecting = this.connect().finally(() => {
        this.connecting = undefined;
      });
      await this.connecting;
    }
    return async () => {
      set.delete(onNotify);
    };
  }

  nudge(): void {
    if (!this.reconnectTimer) return;
    const now = Date.now();
    if (this.reconnectAt - now < 250 || now - this.lastNudge < LISTEN_RETRY_MIN_MS) return;
    this.lastNudge = now;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = undefined;
    this.scheduleReconnect(0);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.handlers.clear();
    await this.client?.end().catch(() => {});
  }

  private scheduleReconnect(delayMs: number): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectAt = Date.now() + delayMs;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().then(
        () => {
          this.backoffMs = LISTEN_RETRY_MIN_MS;
        },
        () => {
          this.backoffMs = Math.min(this.backoffMs * 2, LISTEN_RETRY_MAX_MS);
          this.scheduleReconnect(this.backoffMs);
        },
      );
    }, delayMs);
    this.reconnectTimer.unref();
  }

  private async connect(): Promise<void> {
    const c = new pg.Client(this.settings);
    let lost = false;
    const onLost = () => {
      if (lost) return;
      lost = true;
      if (this.client === c) this.client = undefined;
      c.end().catch(() => {});
      this.scheduleReconnect(this.backoffMs);
    };
    c.on('error', onLost);
    c.on('end', onLost);
    c.on('notification', (n) => {
      for (const h of this.handlers.get(n.channel) ?? []) h(n.payload ?? '');
    });
    try {
      await c.connect();
      for (const channel of this.handlers.keys()) await c.query(`LISTEN ${channel}`);
    } catch (err) {
      lost = true;
      c.end().catch(() => {});
      throw err;
    }
    if (this.closed) {
      lost = true;
      await c.end().catch(() => {});
      return;
    }
    this.client = c;
    // Wake-ups may have been missed while disconnected: tell every handler to look now.
    for (const set of this.handlers.values()) for (const h of set) h('');
  }
}
