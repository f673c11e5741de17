/**
 * Retention's batch statement: blanks the details of finished checks past the retention period, keeping
 * id, status, times, payer id and outcome codes (and no patient hashes or coverage changes).
 *
 * Why several workers may run it at once: the batch is taken with FOR UPDATE SKIP LOCKED, so two purges
 * take disjoint batches, and `purged_at IS NULL` keeps a purged check from being taken again. Run it in a
 * transaction with the event and attempt clean-ups (purgeEventBodies, clearResponseSnippets) so a check is
 * never purged without them.
 */
import type { Queryable } from '../db.ts';
import type { checks } from '../schema.ts';

/** Purges up to `batch` checks finished more than `retentionDays` ago; returns their ids. */
export async function purgeExpiredCheckBatch(
  tx: Queryable,
  retentionDays: number,
  batch: number,
): Promise<Pick<typeof checks.$inferSelect, 'id'>[]> {
  const { rows } = await tx.query<Pick<typeof checks.$inferSelect, 'id'>>(
    `WITH due AS (
       SELECT id FROM checks
        WHERE status <> 'IN_PROGRESS' AND purged_at IS NULL AND completed_at < now() - $1 * interval '1 day'
        ORDER BY completed_at LIMIT ${Math.trunc(batch)} FOR UPDATE SKIP LOCKED)
     UPDATE checks c
        SET request = jsonb_build_object('tradingPartnerServiceId', c.trading_partner_service_id),
            result = json_strip_nulls(json_build_object(
              'id', c.id, 'status', c.status, 'tradingPartnerServiceId', c.trading_partner_service_id,
              'errors', CASE WHEN c.result IS NOT NULL AND (c.result::jsonb) ? 'errors'
                             THEN (SELECT jsonb_agg(e - 'location') FROM jsonb_array_elements((c.result::jsonb)->'errors') e) END,
              'warnings', json_build_array(json_build_object('code', 'PURGED',
                'description', 'Details of this check were deleted after the retention period; only its status and codes remain.'))
            ))::text,
            purged_at = now(),
            -- Its history goes with it: the changes name plan values, and a purged check is neither reused
            -- nor compared with (src/store/check-history.ts).
            patient_key = NULL, reuse_key = NULL, coverage_changes = NULL,
            -- The charges asked about (services and amounts of a visit) go with the request.
            charges = NULL
       FROM due WHERE c.id = due.id
     RETURNING c.id`,
    [retentionDays],
  );
  return rows;
}
