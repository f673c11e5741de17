/**
 * The `webhook_attempts` table (the delivery log's lines): reading them. Writing one is part of recording
 * an attempt under the lease (src/store/queue/finish-delivery.ts). Statements are typed as described in
 * typed.ts.
 */
import type { Queryable } from './db.ts';
import { webhookAttempts, webhookEvents } from './schema.ts';
import { columns, type RowOf, sqlOf } from './typed.ts';

export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/** One line of an event's delivery log (the portal's and the API's view of attempts). */
export type AttemptLogRow = RowOf<typeof LOG_LINE>;
const LOG_LINE = columns(webhookAttempts, [
  'attemptNumber',
  'startedAt',
  'outcome',
  'responseStatus',
  'latencyMs',
  'error',
  'responseSnippet',
  'nextAttemptAt',
]);
const SELECT_ATTEMPTS = sqlOf`SELECT ${LOG_LINE}
       FROM ${webhookAttempts} WHERE ${webhookAttempts.eventId} = $1 ORDER BY ${webhookAttempts.attemptNumber}`;

/** Every attempt of an event, first first. The caller checks that the event is the reader's. */
export async function selectAttempts(db: Queryable, eventId: string): Promise<AttemptLogRow[]> {
  const { rows } = await db.query<AttemptLogRow>(SELECT_ATTEMPTS, [eventId]);
  return rows;
}

const CLEAR_SNIPPETS = sqlOf`UPDATE ${webhookAttempts} a SET ${webhookAttempts.responseSnippet} = NULL
       FROM ${webhookEvents} e WHERE a.${webhookAttempts.eventId} = e.${webhookEvents.id} AND e.${webhookEvents.checkId} = ANY($1) AND a.${webhookAttempts.responseSnippet} IS NOT NULL`;

/** Forgets what receivers answered about the purged checks' events: they may echo the body sent. */
export async function clearResponseSnippets(tx: Queryable, checkIds: string[]): Promise<void> {
  await tx.query(CLEAR_SNIPPETS, [checkIds]);
}
