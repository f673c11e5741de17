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

/**
 * Returns false (and writes nothing) when this dispatcher no longer holds the event. One statement (its own
 * transaction): the event's update and the attempt's row commit together, in one round trip.
 */
export async function recordDeliveryAttempt(
  db: Queryable,
  lease: { eventId: string; dispatcherId: string },
  state: DeliveryState,
  nextDelayMs: number | null,
  attempt: DeliveryAttempt,
): Promise<boolean> {
  const { rows } = await db.query<{ recorded: number }>(
    `WITH event AS (
       UPDATE webhook_events
          SET state = $3, locked_until = NULL, locked_by = NULL,
              next_attempt_at = CASE WHEN $4::bigint IS NULL THEN next_attempt_at ELSE now() + $4 * interval '1 millisecond' END,
              delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
        WHERE id = $1 AND locked_by = $2
        RETURNING CASE WHEN state = 'pending' THEN next_attempt_at END AS next_attempt_at
     ), attempt AS (
       INSERT INTO webhook_attempts (id, event_id, attempt_number, started_at, outcome, response_status, latency_ms, error, next_attempt_at, response_snippet)
       SELECT $5, $1, $6, now() - $9 * interval '1 millisecond', $7, $8, $9, $10, event.next_attempt_at, $11 FROM event
       RETURNING 1
     )
     SELECT count(*)::int AS recorded FROM attempt`,
    [
      lease.eventId,
      lease.dispatcherId,
      state,
      nextDelayMs,
      attempt.id,
      attempt.attemptNumber,
      attempt.outcome,
      attempt.responseStatus,
      attempt.latencyMs,
      attempt.error,
      attempt.responseSnippet,
    ],
  );
  return rows[0]?.recorded === 1;
}
