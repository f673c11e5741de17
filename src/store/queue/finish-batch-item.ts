/**
 * Counting a finished batch check, in the transaction that finishes it (after finish-check.ts), and
 * closing the batch when it was the last.
 *
 * Why exactly one `batch.completed`, even with several workers finishing the last items at once: each
 * finishing transaction decrements `pending` with one conditional UPDATE of the batch row. The row lock
 * makes those updates take turns (under READ COMMITTED a waiting UPDATE re-reads the row once the other
 * commits), so every finish sees a distinct `pending`, and exactly one sees it reach 0: that one stamps
 * `completed_at` and writes the event, in the same transaction (transactional outbox). A check is
 * finished once (the lease guard of finish-check.ts), so it is counted once; the unique index on the
 * event's (batch_id, kind) would refuse a second event anyway. The decrement comes last in the transaction
 * so the batch row stays locked only for its commit.
 */
import type { BatchRow } from '../batches.ts';
import { BATCH_COLUMNS } from '../batches.ts';
import type { Queryable } from '../db.ts';
import { insertOutboxEvent } from './outbox-event.ts';

export interface BatchItemFinish {
  batchId: string;
  status: 'COMPLETED' | 'FAILED';
  /** The verdict's status of the finished check (ACTIVE, INACTIVE, UNDETERMINED or FAILED). */
  verdict: string | undefined;
}

/** Counts the item; returns the batch when this item was its last (now completed), else undefined. */
export async function countBatchItemFinished(
  tx: Queryable,
  item: BatchItemFinish,
): Promise<BatchRow | undefined> {
  const { rows } = await tx.query<BatchRow>(
    `UPDATE batches
        SET pending = pending - 1,
            completed = completed + ($2 = 'COMPLETED')::int,
            failed = failed + ($2 = 'FAILED')::int,
            active = active + ($3 = 'ACTIVE')::int,
            inactive = inactive + ($3 = 'INACTIVE')::int,
            undetermined = undetermined + ($3 = 'UNDETERMINED')::int,
            completed_at = CASE WHEN pending = 1 THEN now() ELSE completed_at END
      WHERE id = $1 AND pending > 0
      RETURNING ${BATCH_COLUMNS}`,
    [item.batchId, item.status, item.verdict ?? ''],
  );
  const batch = rows[0];
  return batch && batch.pending === 0 ? batch : undefined;
}

/** The batch's `batch.completed` event, when its organization has a URL that takes this type. */
export function insertBatchCompletedEvent(
  tx: Queryable,
  event: { id: string; organizationId: string; batchId: string; body: string },
): Promise<void> {
  return insertOutboxEvent(tx, {
    id: event.id,
    organizationId: event.organizationId,
    kind: 'batch.completed',
    subject: 'batch_id',
    subjectId: event.batchId,
    body: event.body,
  });
}
