/**
 * Finishing a claimed check: its final status, and its webhook event when the organization has a URL, in
 * the caller's transaction (transactional outbox). Guarded by the lease (`locked_by = <me>` and still
 * IN_PROGRESS, see claim.ts), so exactly one completion is ever recorded for a check, and the event's
 * unique `check_id` keeps it to one event even if that guard were bypassed.
 */
import type { Queryable } from '../db.ts';

export interface CheckCompletion {
  id: string;
  organizationId: string;
  workerId: string;
  status: 'COMPLETED' | 'FAILED';
  body: string;
  /** Codes only, no PHI, e.g. `COMPLETED`, `AAA:72`, `SH01`. */
  outcomeCode: string;
  /** The id of the webhook event, if one is written. */
  eventId: string;
}

/** Returns false (and writes nothing) when this worker no longer holds the check. */
export async function finishClaimedCheck(tx: Queryable, done: CheckCompletion): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE checks SET status = $3, result = $4, outcome_code = $5, completed_at = now(),
            locked_until = NULL, locked_by = NULL, last_error = NULL
      WHERE id = $1 AND locked_by = $2 AND status = 'IN_PROGRESS'`,
    [done.id, done.workerId, done.status, done.body, done.outcomeCode],
  );
  if (rowCount !== 1) return false;
  // No URL configured: no event (the spec says clients poll).
  await tx.query(
    `INSERT INTO webhook_events (id, organization_id, check_id, body, url)
     SELECT $1, o.id, $3, $4, o.webhook_url FROM organizations o WHERE o.id = $2 AND o.webhook_url IS NOT NULL
     ON CONFLICT (check_id) DO NOTHING`,
    [done.eventId, done.organizationId, done.id, done.body],
  );
  return true;
}
