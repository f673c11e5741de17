/**
 * The payer directory's sources as stored (table payer_directory): PAYERS_FILE as last loaded (`file`)
 * and each imported clearinghouse list (`import:<connection>`). Documents hold payer and connection
 * settings with secret references, never secret values.
 */
import { PAYER_DIRECTORY_CHANNEL, wake } from './channels.ts';
import type { Db, Queryable } from './db.ts';

export interface DirectorySource {
  source: string;
  document: unknown;
  version: number;
}

export async function readDirectorySources(db: Queryable): Promise<DirectorySource[]> {
  const { rows } = await db.query<{ source: string; document: unknown; version: string | number }>(
    'SELECT source, document, version FROM payer_directory ORDER BY source',
  );
  return rows.map((r) => ({ source: r.source, document: r.document, version: Number(r.version) }));
}

/**
 * Stores a source's document when it differs from the stored one, and tells every process. Returns
 * whether it changed (a process starting with the same file writes nothing and wakes no one).
 */
export async function writeDirectorySource(db: Db, source: string, document: unknown): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(
      `INSERT INTO payer_directory (source, document, version, updated_at)
       VALUES ($1, $2::jsonb, 1, now())
       ON CONFLICT (source) DO UPDATE
         SET document = excluded.document, version = payer_directory.version + 1, updated_at = now()
         WHERE payer_directory.document IS DISTINCT FROM excluded.document`,
      [source, JSON.stringify(document)],
    );
    if (rowCount) await wake(tx, PAYER_DIRECTORY_CHANNEL);
    return rowCount === 1;
  });
}

export async function deleteDirectorySource(db: Db, source: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query('DELETE FROM payer_directory WHERE source = $1', [source]);
    if (rowCount) await wake(tx, PAYER_DIRECTORY_CHANNEL);
    return rowCount === 1;
  });
}
