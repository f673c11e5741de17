/**
 * Finishing a claimed check: its final status, and its webhook event when the organization has a URL, in
 * the caller's transaction (transactional outbox). Guarded by the lease (`locked_by = <me>` and still
 * IN_PROGRESS, see claim.ts), so exactly one completion is ever recorded for a check, and the event's
 * unique (`check_id`, `kind`) keeps it to one event even if that guard were bypassed.
 */
import type { Queryable } from '../db.ts';
import { insertOutboxEvent } from './outbox-event.ts';

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
  /** The patient identity hashes (src/checks/patient-identity.ts); absent: not recorded. */
  patientKey?: string | null;
  reuseKey?: string | null;
  /** The check whose result this one repeats (no payer call was made). */
  reusedFrom?: string | null;
  /**
   * false: no `eligibility.completed` event (an inquiry of a discovery, which its `discovery.completed`
   * reports). Default true.
   */
  event?: boolean;
}

/**
 * Returns false (and writes nothing) when this worker no longer holds the check. The `verdict` column is
 * read off the body (its `verdict.status`, see src/checks/verdict.ts), so the list's filter and the
 * served body can never disagree. `completed_at` is the time of this statement, not of the transaction's
 * start: a finish that waited for its patient's lock (src/checks/finish.ts) is later than the one it waited on.
 */
export async function finishClaimedCheck(tx: Queryable, done: CheckCompletion): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE checks SET status = $3, result = $4, outcome_code = $5, completed_at = clock_timestamp(),
            verdict = ($4::text)::jsonb->'verdict'->>'status',
            locked_until = NULL, locked_by = NULL, last_error = NULL,
            patient_key = $6, reuse_key = $7, reused_from = $8
      WHERE id = $1 AND locked_by = $2 AND status = 'IN_PROGRESS'`,
    [
      done.id,
      done.workerId,
      done.status,
      done.body,
      done.outcomeCode,
      done.patientKey ?? null,
      done.reuseKey ?? null,
      done.reusedFrom ?? null,
    ],
  );
  if (rowCount !== 1) return false;
  if (done.event === false) return true;
  await insertOutboxEvent(tx, {
    id: done.eventId,
    organizationId: done.organizationId,
    kind: 'eligibility.completed',
    subject: 'check_id',
    subjectId: done.id,
    body: done.body,
  });
  return true;
}
