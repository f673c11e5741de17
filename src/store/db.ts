/**
 * One small database interface over the two engines we run on: PGlite (embedded, one process; see
 * pglite.ts) and PostgreSQL (node-postgres pool, many processes; postgres.ts). The same SQL runs on both.
 */
import type { DatabaseUnavailableError } from './faults.ts';

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

/**
 * One row of `table` by id, scoped to its organization: another organization's row reads as absent, so every
 * caller answers it exactly like a missing one (a 404). `table` and `columns` are the caller's constants.
 */
export function findOwnedRow<T>(
  db: Queryable,
  table: string,
  columns: string,
  organizationId: string,
  id: string,
): Promise<T | undefined> {
  return firstRow<T>(db, `SELECT ${columns} FROM ${table} WHERE id = $1 AND organization_id = $2`, [
    id,
    organizationId,
  ]);
}

/**
 * How one thing of an organization is looked up by id, from a row to what the API and the portal show:
 * another organization's thing reads as absent, so every caller answers it exactly like a missing one.
 */
export type OwnedLookup<T> = (db: Queryable, organizationId: string, id: string) => Promise<T | undefined>;

/** `findOwnedRow` for one table and its columns: a module's `findX(db, organizationId, id)`. */
export function ownedRowLookup<T>(table: string, columns: string): OwnedLookup<T> {
  return (db, organizationId, id) => findOwnedRow<T>(db, table, columns, organizationId, id);
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
export function organizationPageLookup<T>(table: string, columns: string) {
  return async (db: Queryable, organizationId: string, page: NewestFirstPage): Promise<T[]> => {
    const { rows } = await db.query<T>(
      `SELECT ${columns} FROM ${table}
        WHERE organization_id = $1 AND ($2::text IS NULL OR id < $2)
        ORDER BY id DESC LIMIT $3`,
      [organizationId, page.before ?? null, page.limit],
    );
    return rows;
  };
}

/**
 * The Idempotency-Key statements of `table` (checks, batches, monitors: each has `organization_id`,
 * `idempotency_key`, `request_hash`, `created_at`), read with `columns`: `findHolder`, the row holding a key
 * and whether it is older than `windowMs`; `release`, which frees an expired key for reuse (unless another
 * request freed it already).
 */
export function idempotencyKeyStatements<T>(table: string, columns: string) {
  return {
    findHolder: (
      db: Queryable,
      organizationId: string,
      idempotencyKey: string,
      windowMs: number,
    ): Promise<(T & { expired: boolean }) | undefined> =>
      firstRow<T & { expired: boolean }>(
        db,
        `SELECT ${columns}, created_at < now() - $3 * interval '1 millisecond' AS expired
           FROM ${table} WHERE organization_id = $1 AND idempotency_key = $2`,
        [organizationId, idempotencyKey, windowMs],
      ),
    release: async (db: Queryable, id: string, idempotencyKey: string): Promise<void> => {
      await db.query(`UPDATE ${table} SET idempotency_key = NULL WHERE id = $1 AND idempotency_key = $2`, [
        id,
        idempotencyKey,
      ]);
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
