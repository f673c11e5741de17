/**
 * One small database interface over the two engines we run on: PGlite (embedded, one process; see
 * pglite.ts) and PostgreSQL (node-postgres pool, many processes; postgres.ts). The same SQL runs on both.
 */
import type { Column, Table } from 'drizzle-orm';
import type { DatabaseUnavailableError } from './faults.ts';
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

/** True when a statement changed exactly one row (an update by key that found its row). */
export async function changedOne(db: Queryable, sql: string, params: unknown[]): Promise<boolean> {
  return (await db.query(sql, params)).rowCount === 1;
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
