/**
 * Finishing a claimed check: its final status, and its webhook event when the organization has a URL, in
 * the caller's transaction (transactional outbox). Guarded by the lease (`locked_by = <me>` and still
 * IN_PROGRESS, see claim.ts), so exactly one completion is ever recorded for a check, and the event's
 * unique (`check_id`, `kind`) keeps it to one event even if that guard were bypassed.
 */
import type { Queryable } from '../db.ts';
import { outboxInsert } from './outbox-event.ts';

/** The check's `eligibility.completed` event, written only when the update (`done`) happened and `$13`. */
const COMPLETED_EVENT = outboxInsert(
  'check_id',
  { id: '$9', organizationId: '$10', subjectId: '$1', kind: "'eligibility.completed'::text", body: '$4' },
  { from: 'done', when: '$13::boolean' },
);

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

/** The patient's previous completed check, read while finishing (see `finishClaimedCheck`). */
export interface PreviousCheck {
  id: string;
  result: string;
  completedAt: Date;
}

/** What finishing recorded: false when this worker no longer held the check. */
export type FinishedCheck = false | { previous?: PreviousCheck; events: number };

/**
 * Returns false (and writes nothing) when this worker no longer holds the check. The `verdict` column is
 * read off the body (its `verdict.status`, see src/checks/verdict.ts), so the list's filter and the
 * served body can never disagree. `completed_at` is the time of this statement, not of the transaction's
 * start: a finish that waited for its patient's lock (src/checks/finish.ts) is later than the one it waited on.
 *
 * One statement, one round trip: the update, the `eligibility.completed` event (written only when the
 * update happened), a NOTIFY on `notify` when an event was written (sent on commit), and, with
 * `previousOf` (the patient key), the patient's newest completed check that finished before this one (the
 * baseline of coverage.changed, src/checks/check-history.ts). Run alone it commits by itself; in a
 * transaction (under the patient's lock) it commits with the rest.
 */
export async function finishClaimedCheck(
  tx: Queryable,
  done: CheckCompletion,
  options: { previousOf?: string; notify?: string } = {},
): Promise<FinishedCheck> {
  const { rows } = await tx.query<{
    finished: number;
    events: number;
    previousId: string | null;
    previousResult: string | null;
    previousCompletedAt: Date | null;
  }>(
    `WITH done AS (
       UPDATE checks SET status = $3, result = $4, outcome_code = $5, completed_at = clock_timestamp(),
              verdict = ($4::text)::jsonb->'verdict'->>'status',
              locked_until = NULL, locked_by = NULL, last_error = NULL,
              patient_key = $6, reuse_key = $7, reused_from = $8
        WHERE id = $1 AND locked_by = $2 AND status = 'IN_PROGRESS'
        RETURNING completed_at
     ), event AS (
       ${COMPLETED_EVENT}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM done)::int AS finished,
            (SELECT count(*) FROM event)::int AS events,
            (SELECT count(CASE WHEN $11::text IS NOT NULL THEN pg_notify($11, '') END) FROM event)::int AS notified,
            p.id AS "previousId", p.result AS "previousResult", p.completed_at AS "previousCompletedAt"
       FROM (SELECT 1) one
       LEFT JOIN LATERAL (
         SELECT id, result, completed_at FROM checks
          WHERE $12::text IS NOT NULL AND organization_id = $10 AND patient_key = $12
            AND status = 'COMPLETED' AND reused_from IS NULL AND result IS NOT NULL AND purged_at IS NULL
            AND completed_at <= (SELECT completed_at FROM done) AND id <> $1
          ORDER BY completed_at DESC LIMIT 1) p ON true`,
    [
      done.id,
      done.workerId,
      done.status,
      done.body,
      done.outcomeCode,
      done.patientKey ?? null,
      done.reuseKey ?? null,
      done.reusedFrom ?? null,
      done.eventId,
      done.organizationId,
      options.notify ?? null,
      options.previousOf ?? null,
      done.event !== false,
    ],
  );
  const row = rows[0]!;
  if (row.finished !== 1) return false;
  const previous =
    row.previousId && row.previousResult && row.previousCompletedAt
      ? { id: row.previousId, result: row.previousResult, completedAt: row.previousCompletedAt }
      : undefined;
  return { events: row.events, ...(previous ? { previous } : {}) };
}
