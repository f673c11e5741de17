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
import { AsyncResource } from 'node:async_hooks';
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
import { inBackground } from './statement-lane.ts';

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
  const create = () => createInstance(dataDir);
  const engine = new RecoveringEngine(await create(), create, Boolean(dataDir), options.log);
  const disk = new DiskWatch(dataDir, options.lowDiskBytes ?? LOW_DISK_BYTES);
  const exclusive = oneAtATime();
  return {
    kind: 'pglite',
    query: (sql, params) =>
      exclusive(() => {
        disk.maybeSample();
        return disk.low
          ? engine.inTransaction((tx) => tx.query(sql, params), disk.low)
          : engine.wrap(engine.current()).query(sql, params);
      }),
    transaction: (fn) =>
      exclusive(() => {
        disk.maybeSample();
        return engine.inTransaction(fn, disk.low);
      }),
    listen: (channel, onNotify) => engine.listen(channel, onNotify, exclusive),
    async notify(channel, payload = '') {
      await exclusive(() =>
        engine.wrap(engine.current()).query('SELECT pg_notify($1, $2)', [channel, payload]),
      );
    },
    async storageFault() {
      if (engine.stopped) return engine.stopped;
      if (await disk.sample()) return new DatabaseUnavailableError('disk-full');
      return engine.latch.current();
    },
    async close() {
      engine.close();
      const instance = engine.lite;
      if (instance) await exclusive(() => instance.close());
    },
  };
}

/** A PGlite instance on `dataDir` (in memory without one). */
function createInstance(dataDir: string | undefined): Promise<PGlite> {
  // PrivateNodeFS: the files hold PHI, so no mode PGlite sets may open them to other users.
  return PGlite.create({
    ...(dataDir ? { fs: new PrivateNodeFS(dataDir) } : {}),
    postgresqlconf: PGLITE_SETTINGS,
  }) as Promise<PGlite>;
}

type Exclusive = <T>(fn: () => Promise<T>) => Promise<T>;

/**
 * A background statement runs at least once in this many turns while both lanes wait, so a steady stream of
 * interactive statements slows background work down but never stops it.
 */
export const BACKGROUND_TURN_EVERY = 4;

/**
 * One statement or transaction at a time, as PGlite itself does; ours, so transactions can skip ROLLBACK,
 * and in two lanes (src/store/statement-lane.ts): a statement of background work waits while others do,
 * except every BACKGROUND_TURN_EVERY-th turn. Each lane is first come, first served. Between two statements
 * the event loop takes a turn.
 */
export function oneAtATime(): Exclusive {
  const lanes: [(() => void)[], (() => void)[]] = [[], []];
  let running = false;
  let passedOver = 0;
  const next = () => {
    const [front, back] = lanes;
    const lane = front.length && (!back.length || passedOver < BACKGROUND_TURN_EVERY - 1) ? front : back;
    const start = lane.shift();
    running = start !== undefined;
    passedOver = lane === front && back.length ? passedOver + 1 : 0;
    start?.();
  };
  return <T>(fn: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      // Bound to the caller's async context: it runs in that, not in the one of the statement before it.
      const start = AsyncResource.bind(() => {
        let settled: Promise<T>;
        try {
          settled = fn();
        } catch (err) {
          settled = Promise.reject(err);
        }
        // The next statement starts in a later turn of the event loop: PGlite runs each statement on this
        // thread and settles it as a microtask, so starting the next one from here would run the whole
        // queue without ever letting a request, a timer or an interactive statement in (stalls of 300 ms
        // and more under a batch).
        settled.then(resolve, reject).finally(() => setImmediate(next));
      });
      lanes[inBackground() ? 1 : 0].push(start);
      if (!running) next();
    });
}

/**
 * Free space of the data disk, sampled at most once a second without waiting for it. Below the mark,
 * statements run in read-only transactions: PostgreSQL then refuses writes itself (reads still work)
 * before a write fails to extend the WAL, which would be a PANIC.
 */
class DiskWatch {
  low = false;
  private sampledAt = 0;

  constructor(
    private readonly dataDir: string | undefined,
    private readonly lowDiskBytes: number,
  ) {}

  async sample(): Promise<boolean> {
    if (!this.dataDir || this.lowDiskBytes <= 0) return false;
    this.sampledAt = Date.now();
    const fs = await statfs(this.dataDir).catch(() => undefined);
    this.low = fs !== undefined && fs.bavail * fs.bsize < this.lowDiskBytes;
    return this.low;
  }

  maybeSample(): void {
    if (Date.now() - this.sampledAt >= 1000) void this.sample();
  }
}

/**
 * The current PGlite instance, stopped for good after a PANIC (see the top of this file) and replaced by a
 * new one on the same data directory, reopened with a backoff; the LISTEN handlers move to the new one.
 */
class RecoveringEngine {
  /** The instance in use; undefined while stopped. */
  lite: PGlite | undefined;
  /** Why the instance stopped, until one is reopened. */
  stopped: DatabaseUnavailableError | undefined;
  readonly latch = new FaultLatch();
  private reopenTimer: NodeJS.Timeout | undefined;
  private reopenDelayMs = REOPEN_MIN_MS;
  private closed = false;
  private readonly handlers = new Map<string, Set<(payload: string) => void>>();

  constructor(
    first: PGlite,
    private readonly create: () => Promise<PGlite>,
    /** On a data directory (not in memory): a stopped instance can be reopened. */
    private readonly reopens: boolean,
    private readonly log: PgliteOptions['log'],
  ) {
    this.lite = first;
  }

  current(): PGlite {
    if (!this.lite) throw this.stoppedError();
    return this.lite;
  }

  wrap(instance: PGlite): Queryable {
    return {
      query: async <T>(sql: string, params: unknown[] = []) => {
        if (this.lite !== instance) throw this.stoppedError(); // stopped during this transaction
        try {
          const r = await instance.query<T>(sql, params);
          return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
        } catch (err) {
          throw this.fail(instance, err);
        }
      },
    };
  }

  async inTransaction<T>(fn: (tx: Queryable) => Promise<T>, readOnly: boolean): Promise<T> {
    const instance = this.current();
    try {
      await instance.exec(readOnly ? 'BEGIN READ ONLY' : 'BEGIN');
    } catch (err) {
      throw this.fail(instance, err);
    }
    try {
      const result = await fn(this.wrap(instance));
      await instance.exec('COMMIT');
      return result;
    } catch (err) {
      const failure = this.lite === instance ? this.fail(instance, err) : translate(err);
      if (this.lite === instance) await instance.exec('ROLLBACK').catch(() => {});
      // Read-only because the disk is nearly full: that is why the write was refused.
      if (readOnly && failure instanceof DatabaseUnavailableError && failure.reason === 'read-only') {
        throw new DatabaseUnavailableError('disk-full');
      }
      throw failure;
    }
  }

  async listen(
    channel: string,
    onNotify: (payload: string) => void,
    exclusive: Exclusive,
  ): Promise<() => Promise<void>> {
    if (!CHANNEL_NAME.test(channel)) throw new Error('invalid channel name');
    const set = this.handlers.get(channel) ?? new Set();
    this.handlers.set(channel, set);
    set.add(onNotify);
    // While stopped, the reopened instance LISTENs on every channel in `handlers`, this one included.
    const instance = this.lite;
    if (set.size === 1 && instance) {
      await exclusive(async () => {
        try {
          await instance.listen(channel, this.dispatch(channel));
        } catch (err) {
          throw this.fail(instance, err);
        }
      });
    }
    return async () => {
      set.delete(onNotify);
    };
  }

  /** No more reopening or notifications; the caller closes the current instance. */
  close(): void {
    this.closed = true;
    clearTimeout(this.reopenTimer);
    this.handlers.clear();
  }

  private stoppedError(): DatabaseUnavailableError {
    return this.stopped ?? new DatabaseUnavailableError('storage');
  }

  private dispatch(channel: string) {
    return (payload: string) => {
      for (const h of this.handlers.get(channel) ?? []) h(payload);
    };
  }

  /** The error to throw for `err` from `instance`; after a PANIC (or FATAL), the instance is stopped. */
  private fail(instance: PGlite, err: unknown): unknown {
    const failure = translate(err);
    this.latch.note(failure);
    const severity = (err as { severity?: string }).severity;
    if ((severity === 'PANIC' || severity === 'FATAL') && this.lite === instance) {
      this.stopped =
        failure instanceof DatabaseUnavailableError ? failure : new DatabaseUnavailableError('storage');
      this.lite = undefined;
      this.log?.warn(
        { reason: this.stopped.reason },
        'embedded database stopped after a PANIC; reopening it',
      );
      // Closes the instance's files without running any of its code (close() would checkpoint, and hang).
      try {
        instance.Module.FS.quit();
      } catch {}
      if (this.reopens) this.scheduleReopen();
    }
    return failure;
  }

  private scheduleReopen(): void {
    if (this.closed || this.reopenTimer) return;
    this.reopenTimer = setTimeout(() => void this.reopen(), this.reopenDelayMs);
    this.reopenTimer.unref();
  }

  private async reopen(): Promise<void> {
    let next: PGlite;
    try {
      next = await this.create();
      for (const channel of this.handlers.keys()) await next.listen(channel, this.dispatch(channel));
    } catch {
      this.reopenTimer = undefined;
      this.reopenDelayMs = Math.min(this.reopenDelayMs * 2, REOPEN_MAX_MS);
      this.scheduleReopen();
      return;
    }
    this.reopenTimer = undefined;
    this.reopenDelayMs = REOPEN_MIN_MS;
    if (this.closed) {
      await next.close().catch(() => {});
      return;
    }
    this.lite = next;
    this.stopped = undefined;
    this.log?.info('embedded database reopened');
    // Wake-ups may have been missed while stopped: tell every handler to look now.
    for (const set of this.handlers.values()) for (const h of set) h('');
  }
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
