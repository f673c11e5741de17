/**
 * The embedded store's directory holds PHI in plain text (PGlite's tables and WAL) and the master secret
 * outside production, so it is private to the service user: the directory is 0700, and nothing under it
 * may be readable, writable or searchable by group or others.
 *
 * New files: the process umask is tightened to 0077 before anything is created, and PGlite's own chmod
 * calls are masked (PrivateNodeFS). Existing directories (from an older version, a restore, a copy made
 * with a loose umask) are repaired at start: every mode is tightened in place rather than refusing to
 * start, since the owner is the service user and nothing but the permission bits changes. A path the
 * service cannot chmod (owned by another user) stops the start with a message naming it.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isMainThread } from 'node:worker_threads';

const GROUP_AND_OTHER = 0o077;

export class DataDirPermissionError extends Error {
  override name = 'DataDirPermissionError';
}

/** Creates `dataDir` (0700) if needed and makes everything under it owner-only; returns how many paths changed. */
export function makeDataDirPrivate(dataDir: string): number {
  restrictUmask();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  return tightenTree(dataDir);
}

/**
 * Every file the process creates from now on (PGlite's directories and files, the lock file, the secret
 * key) leaves out group and other. Worker threads cannot change the umask; the main thread sets it first.
 */
export function restrictUmask(): void {
  if (!isMainThread) return;
  const previous = process.umask(GROUP_AND_OTHER);
  process.umask(previous | GROUP_AND_OTHER);
}

function tightenTree(path: string): number {
  const stat = lstatSync(path);
  // A symbolic link's own mode means nothing, and its target may lie outside the directory.
  if (stat.isSymbolicLink()) return 0;
  let changed = 0;
  if (stat.mode & GROUP_AND_OTHER) {
    try {
      chmodSync(path, stat.mode & 0o700);
    } catch (err) {
      throw new DataDirPermissionError(
        `Cannot make ${path} private to the service user (${(err as NodeJS.ErrnoException).code}). ` +
          'The data directory holds PHI: give the whole directory to the user the service runs as ' +
          '(chown -R), or run the service as its owner.',
      );
    }
    changed++;
  }
  if (stat.isDirectory()) {
    for (const name of readdirSync(path)) changed += tightenTree(join(path, name));
  }
  return changed;
}
