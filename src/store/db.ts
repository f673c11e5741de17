/**
 * One small database interface over the two engines we run on: PGlite (embedded, one process) and
 * PostgreSQL (node-postgres pool, many processes). The same SQL runs on both.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { projectPath } from '../paths.ts';
import { PrivateNodeFS } from './private-nodefs.mjs';

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Subscribe to NOTIFY on a channel; returns an unsubscribe function. */
  listen(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload?: string): Promise<void>;
  close(): Promise<void>;
}

export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;
const LISTEN_RETRY_MIN_MS = 1000;
const LISTEN_RETRY_MAX_MS = 10_000;

/**
 * PGlite's defaults size shared buffers for a server (160 MB of WebAssembly memory, all of it resident);
 * one embedded process serving a practice needs far less, and the OS page cache is still there.
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB', 'wal_buffers=1MB'];

export interface PgliteOptions {
  /**
   * Run initdb for a new data directory in a child process, so its memory leaves with that process
   * (long-running servers; about 400 MB otherwise kept for the life of the process).
   */
  initInChildProcess?: boolean;
}

export async function openPglite(dataDir: string | undefined, options: PgliteOptions = {}): Promise<Db> {
  if (dataDir && options.initInChildProcess && !existsSync(join(dataDir, 'PG_VERSION'))) {
    await initPgliteInChild(dataDir);
  }
  // PrivateNodeFS: the files hold PHI, so no mode PGlite sets may open them to other users.
  const lite = await PGlite.create({
    ...(dataDir ? { fs: new PrivateNodeFS(dataDir) } : {}),
    postgresqlconf: PGLITE_SETTINGS,
  });
  const wrap = (q: Pick<PGlite, 'query'>): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      const r = await q.query<T>(sql, params);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  const base = wrap(lite);
  return {
    kind: 'pglite',
    query: base.query,
    transaction: (fn) => lite.transaction((tx) => fn(wrap(tx))),
    async listen(channel, onNotify) {
      if (!CHANNEL_NAME.test(channel)) throw new Error('invalid channel name');
      return lite.listen(channel, onNotify);
    },
    async notify(channel, payload = '') {
      await lite.query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      await lite.close();
    },
  };
}

function initPgliteInChild(dataDir: string): Promise<void> {
  const script = projectPath('src', 'store', 'pglite-init.mjs');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, dataDir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`creating the PGlite database in ${dataDir} failed (exit ${code}): ${stderr.trim()}`),
          ),
    );
  });
}

export async function openPostgres(url: string, schema: string, poolSize = 10): Promise<Db> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error('invalid schema name');
  const setup = new pg.Client({ connectionString: url });
  await setup.connect();
  try {
    await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  } catch (err) {
    // Two processes creating the schema at once: IF NOT EXISTS still races in the catalog (23505/42P06).
    const code = (err as { code?: string }).code;
    if (code !== '23505' && code !== '42P06') throw translate(err);
  } finally {
    await setup.end();
  }
  const clientConfig = {
    connectionString: url,
    options: `-c search_path="${schema}"`,
    // Lets operators (and the chaos tests) tell this service's connections apart: `elig:<schema>`.
    application_name: `elig:${schema}`,
    connectionTimeoutMillis: 5000,
    query_timeout: 30_000,
  };
  const pool = new pg.Pool({ ...clientConfig, max: poolSize, idleTimeoutMillis: 30_000 });
  // A client that loses its backend (server restart, pg_terminate_backend) may emit 'error' when no one
  // listens (idle, or after pool.query released it): that must not crash the process. The pool's own
  // listeners still remove broken clients; queries in flight fail and are translated below.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const run = async <T>(q: pg.Pool | pg.PoolClient, sql: string, params: unknown[] = []) => {
    let r: pg.QueryResult;
    try {
      r = await q.query(sql, params as unknown[]);
    } catch (err) {
      throw translate(err);
    }
    nudgeListener();
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
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
    query: (sql, params) => run(pool, sql, params),
    async transaction(fn) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw translate(err);
      }
      // The pool listens for errors only on idle clients: while checked out, a lost backend would emit an
      // unhandled 'error' and kill the process. Keep the error, and destroy the client on release.
      let broken: Error | undefined;
      const onError = (err: Error) => {
        broken = err;
      };
      client.on('error', onError);
      try {
        await client.query('BEGIN');
        const result = await fn({ query: (sql, params) => run(client, sql, params) });
        await client.query('COMMIT');
        nudgeListener();
        return result;
      } catch (err) {
        const failure = translate(broken ?? err);
        if (failure instanceof DatabaseUnavailableError) broken ??= failure;
        else await client.query('ROLLBACK').catch(() => {});
        throw failure;
      } finally {
        if (broken) {
          // Destroyed, not pooled: keep the listener, node-postgres may emit more errors while it closes.
          client.release(broken);
        } else {
          client.off('error', onError);
          client.release();
        }
      }
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
      await run(pool, 'SELECT pg_notify($1, $2)', [channel, payload]);
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

/** Connection-level failures become DatabaseUnavailableError so the API can answer 503, not 500. */
function translate(err: unknown): unknown {
  const code = (err as { code?: string }).code ?? '';
  const message = (err as Error).message ?? '';
  if (
    [
      'ECONNREFUSED',
      'ECONNRESET',
      'ETIMEDOUT',
      'EPIPE',
      '57P01',
      '57P02',
      '57P03',
      '08000',
      '08003',
      '08006',
    ].includes(code) ||
    /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i.test(
      message,
    )
  ) {
    return new DatabaseUnavailableError('database unavailable');
  }
  return err;
}
