/**
 * Transaction-scoped advisory locks that serialize one kind of work for one thing (an organization's
 * monitor cap, a patient's coverage comparison) across every process on the database. The key is a 64-bit
 * hash of `scope:value` computed by the database (`hashtextextended`), so each scope has its own key space
 * and no caller builds lock numbers by hand. The lock is released when the transaction ends, commit or
 * rollback; PGlite has the same functions (one connection: the lock is then only taken, never waited on).
 */
import type { Queryable } from './db.ts';

/** The scopes taken today; a new one is a new name here. */
export type AdvisoryScope = 'monitors.cap' | 'checks.patient-history' | 'discoveries.daily-cap';

/** Waits for, then holds until the end of `tx`, the lock of `value` within `scope`. */
export async function lockForTransaction(tx: Queryable, scope: AdvisoryScope, value: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${scope}:${value}`]);
}
