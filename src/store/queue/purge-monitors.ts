/**
 * Retention for monitors: a completed monitor (a `dates` monitor whose last appointment has been checked)
 * holds its patient's details and will never run again, so it goes once the retention period has passed
 * since its last run (or its creation, when it never ran): by then the checks it created are being purged
 * too, and the monitor would be the last copy of the patient's name, date of birth and member id. Its checks
 * stay (monitor_id is set null by the foreign key) and follow their own retention.
 *
 * Why several workers may run it at once: the batch is taken with FOR UPDATE SKIP LOCKED, so two purges take
 * disjoint batches, and a deleted row cannot be taken again. A monitor being resumed or read at that moment
 * is not in the way: a completed monitor cannot be resumed (monitors.ts), and a read simply finds it gone.
 */
import type { Queryable } from '../db.ts';

/** Deletes up to `batch` completed monitors idle for more than `retentionDays`; returns their ids. */
export async function deleteExpiredCompletedMonitors(
  tx: Queryable,
  retentionDays: number,
  batch: number,
): Promise<{ id: string }[]> {
  const { rows } = await tx.query<{ id: string }>(
    `WITH due AS (
       SELECT id FROM monitors
        WHERE status = 'completed' AND coalesce(last_run_at, created_at) < now() - $1 * interval '1 day'
        ORDER BY id LIMIT ${Math.trunc(batch)} FOR UPDATE SKIP LOCKED)
     DELETE FROM monitors m USING due WHERE m.id = due.id
     RETURNING m.id`,
    [retentionDays],
  );
  return rows;
}
