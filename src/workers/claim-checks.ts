/**
 * The SQL that moves checks through the queue. The `checks` table is the queue.
 *
 * Why claiming is safe under concurrency: the inner SELECT locks candidate rows with FOR UPDATE SKIP
 * LOCKED, so two workers never pick the same row at the same time, and the UPDATE stamps a lease
 * (`locked_until`, `locked_by`) in the same statement. A row whose lease expired (its worker crashed or
 * hung) is claimable again. Every later write is guarded by `locked_by = <me> AND status = 'IN_PROGRESS'`,
 * so a worker that lost its lease cannot overwrite the result of the worker that took over, and a check
 * is completed exactly once.
 */
import type { Queryable } from '../store/db.ts';

export interface ClaimedCheck {
  id: string;
  organization_id: string;
  trading_partner_service_id: string;
  request: unknown;
  attempts: number;
  created_at: Date;
}

export async function claimDueChecks(
  db: Queryable,
  workerId: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedCheck[]> {
  const { rows } = await db.query<ClaimedCheck>(
    `UPDATE checks c
        SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2, attempts = c.attempts + 1
      WHERE c.id IN (
        SELECT id FROM checks
         WHERE status = 'IN_PROGRESS' AND next_attempt_at <= now()
           AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED)
      RETURNING c.id, c.organization_id, c.trading_partner_service_id, c.request, c.attempts, c.created_at`,
    [limit, workerId, leaseMs],
  );
  return rows;
}

/**
 * Gives a claimed check back to be tried again after `delayMs`; false when the lease was lost meanwhile.
 * `attempt: 'counted'` after a transient payer failure; `'refunded'` when the payer was not asked (its
 * breaker is open or its slots are busy), so the wait does not spend the check's attempt budget.
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

/** Gives a claimed check back untouched (graceful shutdown): the attempt does not count. */
export async function releaseCheck(db: Queryable, id: string, workerId: string): Promise<void> {
  await db.query(
    `UPDATE checks SET locked_until = NULL, locked_by = NULL, attempts = greatest(attempts - 1, 0)
      WHERE id = $1 AND locked_by = $2 AND status = 'IN_PROGRESS'`,
    [id, workerId],
  );
}

export async function nextDueIn(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM (min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) - now())) * 1000 AS ms
       FROM checks WHERE status = 'IN_PROGRESS'`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, Number(ms));
}
