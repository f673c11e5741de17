/**
 * PGlite is single-process: two processes on one data directory corrupt it. The first process takes an
 * exclusive lock file; a second one fails at once with a clear message. The lock file also tells the CLI
 * how to reach the running server's local admin endpoint instead of opening the directory itself.
 */
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LockInfo {
  pid: number;
  startedAt: string;
  /** Set once the server listens: where the CLI reaches the local admin API, and its bearer token. */
  adminUrl?: string;
  adminToken?: string;
}

export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
}

export function lockPath(dataDir: string): string {
  return join(dataDir, 'elig.lock');
}

export function readLock(dataDir: string): LockInfo | undefined {
  try {
    const info = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as LockInfo;
    return isAlive(info.pid) ? info : undefined;
  } catch {
    return undefined;
  }
}

export interface DataDirLock {
  update(info: Partial<LockInfo>): void;
  release(): void;
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 }); // private: see private-dir.ts
  const path = lockPath(dataDir);
  let info: LockInfo = { pid: process.pid, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeFileSync(fd, JSON.stringify(info));
      closeSync(fd);
      let released = false;
      return {
        update(more) {
          info = { ...info, ...more };
          writeFileSync(path, JSON.stringify(info), { mode: 0o600 });
        },
        release() {
          if (released) return;
          released = true;
          rmSync(path, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = readLock(dataDir);
      if (holder && holder.pid !== process.pid) {
        throw new DataDirLockedError(
          `The data directory ${dataDir} is in use by another process (pid ${holder.pid}, started ${holder.startedAt}). ` +
            'PGlite allows one process per directory: stop that process, use the `elig` CLI (it talks to the running ' +
            'server), or set DATABASE_URL to run several processes on PostgreSQL.',
        );
      }
      rmSync(path, { force: true }); // stale lock of a process that is gone
    }
  }
  throw new DataDirLockedError(`Could not lock the data directory ${dataDir}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
