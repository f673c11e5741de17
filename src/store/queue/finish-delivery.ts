/**
 * Recording one webhook delivery attempt: the event's new state (and, when it stays pending, when it is
 * due again) and the attempt's log row, in the caller's transaction. Guarded by the lease (`locked_by =
 * <me>`, see claim.ts): a dispatcher that lost its lease records nothing, and the one that took over
 * records its own attempt, so the log never shows one attempt twice.
 */
import type { Queryable } from '../db.ts';
import type { webhookAttempts } from '../schema.ts';

type AttemptRow = typeof webhookAttempts.$inferSelect;

export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'cancelled';

export type DeliveryAttempt = Pick<
  AttemptRow,
  | 'id'
  | 'eventId'
  | 'attemptNumber'
  | 'outcome'
  | 'responseStatus'
  | 'latencyMs'
  | 'error'
  | 'responseSnippet'
>;

/** Returns false (and writes nothing) when this dispatcher no longer holds the event. */
export async function recordDeliveryAttempt(
  tx: Queryable,
  lease: { eventId: string; dispatcherId: string },
  state: DeliveryState,
  nextDelayMs: number | null,
  attempt: DeliveryAttempt,
): Promise<boolean> {
  const { rows } = await tx.query<Pick<AttemptRow, 'nextAttemptAt'>>(
    `UPDATE webhook_events
        SET state = $3, locked_until = NULL, locked_by = NULL,
            next_attempt_at = CASE WHEN $4::bigint IS NULL THEN next_attempt_at ELSE now() + $4 * interval '1 millisecond' END,
            delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
      WHERE id = $1 AND locked_by = $2
      RETURNING CASE WHEN state = 'pending' THEN next_attempt_at END AS "nextAttemptAt"`,
    [lease.eventId, lease.dispatcherId, state, nextDelayMs],
  );
  if (!rows.length) return false;
  await tx.query(
    `INSERT INTO webhook_attempts (id, event_id, attempt_number, started_at, outcome, response_status, latency_ms, error, next_attempt_at, response_snippet)
     VALUES ($1, $2, $3, now() - $6 * interval '1 millisecond', $4, $5, $6, $7, $8, $9)`,
    [
      attempt.id,
      attempt.eventId,
      attempt.attemptNumber,
      attempt.outcome,
      attempt.responseStatus,
      attempt.latencyMs,
      attempt.error,
      rows[0]!.nextAttemptAt,
      attempt.responseSnippet,
    ],
  );
  return true;
}
