/**
 * Gives a claimed check back to be tried again later. Guarded by the lease (`locked_by = <me>` and still
 * IN_PROGRESS): a worker that lost its lease changes nothing, so it cannot undo the work of the worker that
 * took the check over (see claim.ts).
 */
import type { Queryable } from '../db.ts';

/**
 * Retries the check after `delayMs`; false when the lease was lost meanwhile. `attempt: 'counted'` after a
 * transient payer failure; `'refunded'` when the payer was not asked (its breaker is open or its slots are
 * busy), so the wait does not spend the check's attempt budget.
 */
export async function scheduleRetry(
  db: Queryable,
  id: string,
  workerId: string,
  delayMs: number,
  reason: string,
  attempt: 'counted' | 'refunded' = 'counted',
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE checks SET next_attempt_at = now() + $3 * interval '1 millisecond', locked_until = NULL, locked_by = NULL,
            attempts = CASE WHEN $5 THEN greatest(attempts - 1, 0) ELSE attempts END, last_error = $4
      WHERE id = $1 AND locked_by = $2 AND status = 'IN_PROGRESS'`,
    [id, workerId, delayMs, reason, attempt === 'refunded'],
  );
  return rowCount === 1;
}
