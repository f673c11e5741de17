import { join } from 'node:path';
import type { Config } from '../config.ts';
import { acquireDataDirLock, type DataDirLock } from './datadir-lock.ts';
import type { Db } from './db.ts';
import { migrate } from './migrate.ts';
import { openPglite, type PgliteOptions } from './pglite.ts';
import { openPostgres } from './postgres.ts';
import { makeDataDirPrivate } from './private-dir.ts';

export interface Store {
  db: Db;
  /** Present on PGlite: the exclusive data-directory lock. */
  lock?: DataDirLock;
  /** PGlite: how many paths under the data directory were open to other users and made private at start. */
  madePrivate?: number;
  close(): Promise<void>;
}

/** Where the PGlite cluster lives inside DATA_DIR (beside the lock file and the generated secret). */
export function pgliteDataPath(dataDir: string): string {
  return join(dataDir, 'pg');
}

export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'databaseSchema' | 'dataDir'> &
    Partial<Pick<Config, 'dbRequestBudgetMs'>>,
  pglite: PgliteOptions = {},
): Promise<Store> {
  if (config.databaseUrl) {
    const db = await openPostgres(config.databaseUrl, config.databaseSchema, {
      budgetMs: config.dbRequestBudgetMs,
    });
    await migrate(db);
    return { db, close: () => db.close() };
  }
  const lock = acquireDataDirLock(config.dataDir);
  try {
    const madePrivate = makeDataDirPrivate(config.dataDir);
    const db = await openPglite(pgliteDataPath(config.dataDir), pglite);
    await migrate(db);
    return {
      db,
      lock,
      madePrivate,
      async close() {
        await db.close();
        lock.release();
      },
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}
