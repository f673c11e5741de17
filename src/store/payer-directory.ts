/**
 * The payer directory's sources as stored (table payer_directory): PAYERS_FILE as last loaded (`file`)
 * and each imported clearinghouse list (`import:<connection>`). Documents hold payer and connection
 * settings with secret references, never secret values.
 */
import { PAYER_DIRECTORY_CHANNEL, wake } from './channels.ts';
import type { Db, Queryable } from './db.ts';
import { payerDirectory as t } from './schema.ts';
import { sqlOf } from './typed.ts';

const READ = sqlOf`SELECT ${t.source} AS source, ${t.document} AS document, ${t.version} AS version
  FROM ${t} ORDER BY ${t.source}`;
// Unchanged documents are not written: a process starting with the same file wakes no one.
const WRITE = sqlOf`INSERT INTO ${t} (${t.source}, ${t.document}, ${t.version}, ${t.updatedAt})
  VALUES ($1, $2::jsonb, 1, now())
  ON CONFLICT (${t.source}) DO UPDATE
    SET ${t.document} = excluded.${t.document}, ${t.version} = ${t}.${t.version} + 1, ${t.updatedAt} = now()
    WHERE ${t}.${t.document} IS DISTINCT FROM excluded.${t.document}`;
const DELETE = sqlOf`DELETE FROM ${t} WHERE ${t.source} = $1`;

export interface DirectorySource {
  source: string;
  document: unknown;
  version: number;
}

export async function readDirectorySources(db: Queryable): Promise<DirectorySource[]> {
  const { rows } = await db.query<{ source: string; document: unknown; version: string | number }>(READ);
  return rows.map((r) => ({ source: r.source, document: r.document, version: Number(r.version) }));
}

/**
 * Stores a source's document when it differs from the stored one, and tells every process. Returns
 * whether it changed (a process starting with the same file writes nothing and wakes no one).
 */
export async function writeDirectorySource(db: Db, source: string, document: unknown): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(WRITE, [source, JSON.stringify(document)]);
    if (rowCount) await wake(tx, PAYER_DIRECTORY_CHANNEL);
    return rowCount === 1;
  });
}

export async function deleteDirectorySource(db: Db, source: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const { rowCount } = await tx.query(DELETE, [source]);
    if (rowCount) await wake(tx, PAYER_DIRECTORY_CHANNEL);
    return rowCount === 1;
  });
}
