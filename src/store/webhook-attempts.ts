/**
 * The `webhook_attempts` table (the delivery log's lines): reading them. Writing one is part of recording
 * an attempt under the lease (src/store/queue/finish-delivery.ts). Row typing as described at the top of
 * organizations.ts.
 */
import type { Queryable } from './db.ts';
import type { webhookAttempts } from './schema.ts';

export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

export type AttemptLogRow = Pick<
  WebhookAttemptRow,
  | 'attemptNumber'
  | 'startedAt'
  | 'outcome'
  | 'responseStatus'
  | 'latencyMs'
  | 'error'
  | 'responseSnippet'
  | 'nextAttemptAt'
>;

/** Every attempt of an event, first first. The caller checks that the event is the reader's. */
export async function selectAttempts(db: Queryable, eventId: string): Promise<AttemptLogRow[]> {
  const { rows } = await db.query<AttemptLogRow>(
    `SELECT attempt_number AS "attemptNumber", started_at AS "startedAt", outcome,
            response_status AS "responseStatus", latency_ms AS "latencyMs", error,
            response_snippet AS "responseSnippet", next_attempt_at AS "nextAttemptAt"
       FROM webhook_attempts WHERE event_id = $1 ORDER BY attempt_number`,
    [eventId],
  );
  return rows;
}

/** Forgets what receivers answered about the purged checks' events: they may echo the body sent. */
export async function clearResponseSnippets(tx: Queryable, checkIds: string[]): Promise<void> {
  await tx.query(
    `UPDATE webhook_attempts a SET response_snippet = NULL
       FROM webhook_events e WHERE a.event_id = e.id AND e.check_id = ANY($1) AND a.response_snippet IS NOT NULL`,
    [checkIds],
  );
}
