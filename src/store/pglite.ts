/**
 * The embedded store: PGlite (PostgreSQL compiled to WebAssembly) on a data directory, in this process.
 *
 * Storage faults. PGlite turns a PostgreSQL PANIC (a WAL write that failed: read-only or full disk, I/O
 * error) into an ordinary error but leaves the engine inside its critical section: the next statement other
 * than ROLLBACK spins forever in WebAssembly and blocks the event loop, so nothing (not even /healthz) would
 * answer again. So after a PANIC the instance is never used again (not even for ROLLBACK or close); every
 * call fails at once with DatabaseUnavailableError while a new instance is opened on the same directory
 * with a backoff (crash recovery replays the WAL; it fails quickly while the disk is still unwritable).
 * That is also why transactions are run here rather than by PGlite's transaction(), which would ROLLBACK.
 *
 * A full disk is mostly kept from coming to that: below LOW_DISK_BYTES of free space, writes are refused
 * (DatabaseUnavailableError 'disk-full') while reads go on.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { projectPath } from '../paths.ts';
import type { Db, Queryable } from './db.ts';
import { DatabaseUnavailableError, FaultLatch, translate } from './faults.ts';
import { PrivateNodeFS } from './private-nodefs.mjs';

/**
 * PGlite's defaults size shared buffers for a server (160 MB of WebAssembly memory, all of it resident);
 * one embedded process serving a practice needs far less, and the OS page cache is still there.
 */
export const PGLITE_SETTINGS = ['shared_buffers=16MB', 'wal_buffers=1MB'];

const CHANNEL_NAME = /^[a-z_][a-z0-9_]*$/;
const REOPEN_MIN_MS = 1000;
const REOPEN_MAX_MS = 30_000;
/**
 * Below this much free space on the data disk the store refuses writes and is not ready: PostgreSQL
 * needs a new 16 MB WAL segment now and then, and failing to create one is a PANIC.
 */
const LOW_DISK_BYTES = 32 * 1024 * 1024;

export interface PgliteOptions {
  /**
   * Run initdb for a new data directory in a child process, so its memory leaves with that process
   * (long-running servers; about 400 MB otherwise kept for the life of the process).
   */
  initInChildProcess?: boolean;
  /** Free space below which writes are refused (default 32 MB; 0: never, let the disk fill up). */
  lowDiskBytes?: number;
  /** Where stopping and reopening after a PANIC are reported. */
  log?: Pick<Logger, 'warn' | 'info'>;
}

export async function openPglite(dataDir: string | undefined, options: PgliteOptions = {}): Promise<Db> {
  if (dataDir && options.initInChildProcess && !existsSync(join(dataDir, 'PG_VERSION'))) {
    await initPgliteInChild(dataDir);
  }
  // PrivateNodeFS: the files hold PHI, so no mode PGlite sets may open them to other users.
  const create = () =>
    PGlite.create({
      ...(dataDir ? { fs: new PrivateNodeFS(dataDir) } : {}),
      postgresqlconf: PGLITE_SETTINGS,
    }) as Promise<PGlite>;
  let lite: PGlite | undefined = await create();
  let stopped: DatabaseUnavailableError | undefined;
  let reopenTimer: NodeJS.Timeout | undefined;
  let reopenDelayMs = REOPEN_MIN_MS;
  let closed = false;
  const latch = new FaultLatch();
  const lowDiskBytes = options.lowDiskBytes ?? LOW_DISK_BYTES;
  const handlers = new Map<string, Set<(payload: string) => void>>();
  const dispatch = (channel: string) => (payload: string) => {
    for (const h of handlers.get(channel) ?? []) h(payload);
  };

  // One statement or transaction at a time, as PGlite itself does; ours, so transactions can skip ROLLBACK.
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn);
    tail = run.catch(() => {});
    return run;
  };
  const stoppedError = () => stopped ?? new DatabaseUnavailableError('storage');
  const current = (): PGlite => {
    if (!lite) throw stoppedError();
    return lite;
  };
  const fail = (instance: PGlite, err: unknown): unknown => {
    const failure = translate(err);
    latch.note(failure);
    const severity = (err as { severity?: string }).severity;
    if ((severity === 'PANIC' || severity === 'FATAL') && lite === instance) {
      stopped =
        failure instanceof DatabaseUnavailableError ? failure : new DatabaseUnavailableError('storage');
      lite = undefined;
      options.log?.warn({ reason: stopped.reason }, 'embedded database stopped after a PANIC; reopening it');
      // Closes the instance's files without running any of its code (close() would checkpoint, and hang).
      try {
        instance.Module.FS.quit();
      } catch {}
      if (dataDir) scheduleReopen();
    }
    return failure;
  };
  const scheduleReopen = () => {
    if (closed || reopenTimer) return;
    reopenTimer = setTimeout(async () => {
      let next: PGlite;
      try {
        next = await create();
        for (const channel of handlers.keys()) await next.listen(channel, dispatch(channel));
      } catch {
        reopenTimer = undefined;
        reopenDelayMs = Math.min(reopenDelayMs * 2, REOPEN_MAX_MS);
        scheduleReopen();
        return;
      }
      reopenTimer = undefined;
      reopenDelayMs = REOPEN_MIN_MS;
      if (closed) {
        await next.close().catch(() => {});
        return;
      }
      lite = next;
      stopped = undefined;
      options.log?.info('embedded database reopened');
      // Wake-ups may have been missed while stopped: tell every handler to look now.
      for (const set of handlers.values()) for (const h of set) h('');
    }, reopenDelayMs);
    reopenTimer.unref();
  };

  // Free space of the data disk, sampled at most once a second without waiting for it. Below the mark,
  // statements run in read-only transactions: PostgreSQL then refuses writes itself (reads still work)
  // before a write fails to extend the WAL, which would be a PANIC.
  let lowDisk = false;
  let sampledAt = 0;
  const sampleDisk = async () => {
    if (!dataDir || lowDiskBytes <= 0) return false;
    sampledAt = Date.now();
    const fs = await statfs(dataDir).catch(() => undefined);
    lowDisk = fs !== undefined && fs.bavail * fs.bsize < lowDiskBytes;
    return lowDisk;
  };
  const maybeSampleDisk = () => {
    if (Date.now() - sampledAt >= 1000) void sampleDisk();
  };

  const wrap = (instance: PGlite): Queryable => ({
    async query<T>(sql: string, params: unknown[] = []) {
      if (lite !== instance) throw stoppedError(); // stopped during this transaction
      try {
        const r = await instance.query<T>(sql, params);
        return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
      } catch (err) {
        throw fail(instance, err);
      }
    },
  });
  const inTransaction = async <T>(fn: (tx: Queryable) => Promise<T>): Promise<T> => {
    const instance = current();
    const readOnly = lowDisk;
    try {
      await instance.exec(readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    } catch (err) {
      throw fail(instance, err);
    }
    try {
      const result = await fn(wrap(instance));
      await instance.exec('COMMIT');
      return result;
    } catch (err) {
      const failure = lite === instance ? fail(instance, err) : translate(err);
      if (lite === instance) await instance.exec('ROLLBACK').catch(() => {});
      // Read-only because the disk is nearly full: that is why the write was refused.
      if (readOnly && failure instanceof DatabaseUnavailableError && failure.reason === 'read-only') {
        throw new DatabaseUnavailableError('disk-full');
      }
      throw failure;
    }
  };

  return {
    kind: 'pglite',
    query: (sql, params) =>
      exclusive(() => {
        maybeSampleDisk();
        return lowDisk ? inTransaction((tx) => tx.query(sql, params)) : wrap(current()).query(sql, params);
      }),
    transaction: (fn) =>
      exclusive(() => {
        maybeSampleDisk();
        return inTransaction(fn);
      }),
    async listen(channel, onNotify) {
      if (!CHANNEL_NAME.test(channel)) throw new Error('invalid channel name');
      const set = handlers.get(channel) ?? new Set();
      handlers.set(channel, set);
      set.add(onNotify);
      // While stopped, the reopened instance LISTENs on every channel in `handlers`, this one included.
      const instance = lite;
      if (set.size === 1 && instance) {
        await exclusive(async () => {
          try {
            await instance.listen(channel, dispatch(channel));
          } catch (err) {
            throw fail(instance, err);
          }
        });
      }
      return async () => {
        set.delete(onNotify);
      };
    },
    async notify(channel, payload = '') {
      await exclusive(() => wrap(current()).query('SELECT pg_notify($1, $2)', [channel, payload]));
    },
    async storageFault() {
      if (stopped) return stopped;
      if (await sampleDisk()) return new DatabaseUnavailableError('disk-full');
      return latch.current();
    },
    async close() {
      closed = true;
      clearTimeout(reopenTimer);
      handlers.clear();
      const instance = lite;
      if (instance) await exclusive(() => instance.close());
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
