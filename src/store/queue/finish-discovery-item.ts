/**
 * Counting a finished inquiry of a discovery, in the transaction that finishes its check (after
 * finish-check.ts), and completing the discovery when it was the last.
 *
 * Why exactly one `discovery.completed`, even with several workers finishing the last inquiries at once:
 * as for a batch (finish-batch-item.ts), each finishing transaction decrements `pending` with one
 * conditional UPDATE of the discovery row. The row lock makes those updates take turns (under READ
 * COMMITTED a waiting UPDATE re-reads the row once the other commits), so every finish sees a distinct
 * `pending`, and exactly one sees it reach 0: that one marks the discovery COMPLETED and writes the event in
 * the same transaction. A check is finished once (the lease guard of finish-check.ts), so it is counted
 * once; the unique index on the event's (discovery_id, kind) would refuse a second event anyway. A crash
 * before the commit rolls both back: the check is claimed again and counted then.
 */
import type { Queryable } from '../db.ts';
import { DISCOVERY_COLUMNS, type DiscoveryRow } from '../discoveries.ts';
import { insertOutboxEvent } from './outbox-event.ts';

/** Counts the inquiry; returns the discovery when this inquiry was its last (now COMPLETED), else undefined. */
export async function countDiscoveryItemFinished(
  tx: Queryable,
  item: { discoveryId: string; status: 'COMPLETED' | 'FAILED' },
): Promise<DiscoveryRow | undefined> {
  const { rows } = await tx.query<DiscoveryRow>(
    `UPDATE discoveries
        SET pending = pending - 1,
            answered = answered + 1,
            found = found + ($2 = 'COMPLETED')::int,
            status = CASE WHEN pending = 1 THEN 'COMPLETED' ELSE status END,
            completed_at = CASE WHEN pending = 1 THEN now() ELSE completed_at END
      WHERE id = $1 AND pending > 0
      RETURNING ${DISCOVERY_COLUMNS}`,
    [item.discoveryId, item.status],
  );
  const discovery = rows[0];
  return discovery && discovery.pending === 0 ? discovery : undefined;
}

/** The discovery's `discovery.completed` event, when its organization has a URL that takes this type. */
export function insertDiscoveryCompletedEvent(
  tx: Queryable,
  event: { id: string; organizationId: string; discoveryId: string; body: string },
): Promise<void> {
  return insertOutboxEvent(tx, {
    id: event.id,
    organizationId: event.organizationId,
    kind: 'discovery.completed',
    subject: 'discovery_id',
    subjectId: event.discoveryId,
    body: event.body,
  });
}
