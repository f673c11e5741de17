/**
 * The `webhook_events` table (the outbox) outside the queue: the delivery log's reads, test events and
 * manual resends. The queue's own statements (claim, record an attempt) are in src/store/queue/; statements
 * are typed as described in typed.ts.
 */
import { ownedRowLookup, type Queryable } from './db.ts';
import { organizations, webhookAttempts, webhookEvents } from './schema.ts';
import { columns, type RowOf, sqlOf } from './typed.ts';

export type WebhookEventRow = typeof webhookEvents.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;

export type EventSummaryRow = Pick<
  WebhookEventRow,
  'id' | 'kind' | 'checkId' | 'state' | 'attempts' | 'createdAt' | 'deliveredAt' | 'nextAttemptAt'
> & {
  lastStatus: AttemptRow['responseStatus'];
  lastError: AttemptRow['error'];
  lastLatencyMs: AttemptRow['latencyMs'];
};

const e = webhookEvents;
const at = webhookAttempts;
const SELECT_PAGE = sqlOf`SELECT ${columns(e, ['id', 'kind', 'checkId', 'state', 'attempts', 'createdAt', 'deliveredAt', 'nextAttemptAt'], 'e')},
            a.${at.responseStatus} AS "lastStatus", a.${at.error} AS "lastError", a.${at.latencyMs} AS "lastLatencyMs"
       FROM ${e} e
       LEFT JOIN LATERAL (SELECT ${at.responseStatus}, ${at.error}, ${at.latencyMs} FROM ${at}
                           WHERE ${at.eventId} = e.${e.id} ORDER BY ${at.attemptNumber} DESC LIMIT 1) a ON true
      WHERE e.${e.organizationId} = $1 AND ($2::text IS NULL OR e.${e.id} < $2)
      ORDER BY e.${e.id} DESC LIMIT $3`;

/** A page of an organization's events, newest first, each with its last attempt's outcome. */
export async function selectEventPage(
  db: Queryable,
  organizationId: string,
  page: { before: string | null; limit: number },
): Promise<EventSummaryRow[]> {
  const { rows } = await db.query<EventSummaryRow>(SELECT_PAGE, [organizationId, page.before, page.limit]);
  return rows;
}

const DETAIL = columns(e, ['id', 'kind', 'checkId', 'state', 'url', 'createdAt', 'deliveredAt']);
export type EventDetailRow = RowOf<typeof DETAIL>;

/** One event of an organization; undefined for anyone else's. */
export const findEvent = ownedRowLookup(e, DETAIL);

const BELONGS = sqlOf`SELECT 1 FROM ${e} WHERE ${e.id} = $1 AND ${e.organizationId} = $2`;

export async function eventBelongsTo(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rows } = await db.query(BELONGS, [id, organizationId]);
  return rows.length > 0;
}

const INSERT_TEST = sqlOf`INSERT INTO ${e} (${e.id}, ${e.organizationId}, ${e.checkId}, ${e.kind}, ${e.body}, ${e.url}) VALUES ($1, $2, NULL, 'test', $3, $4)`;

/** A test event (no check), due now. */
export async function insertTestEvent(
  db: Queryable,
  event: Pick<WebhookEventRow, 'id' | 'organizationId' | 'body' | 'url'>,
): Promise<void> {
  await db.query(INSERT_TEST, [event.id, event.organizationId, event.body, event.url]);
}

const DUE_NOW = sqlOf`UPDATE ${e} e SET ${e.state} = 'pending', ${e.nextAttemptAt} = now(), ${e.lockedUntil} = NULL, ${e.lockedBy} = NULL,
            ${e.url} = coalesce(o.${organizations.webhookUrl}, e.${e.url})
       FROM ${organizations} o
      WHERE e.${e.id} = $1 AND e.${e.organizationId} = $2 AND o.${organizations.id} = e.${e.organizationId}`;

/**
 * The same event (same id, same bytes) becomes due now, to the organization's current URL; false when
 * the organization has no such event.
 */
export async function makeEventDueNow(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(DUE_NOW, [id, organizationId]);
  return rowCount === 1;
}

const PURGE_BODIES = sqlOf`UPDATE ${e} SET ${e.body} = '{}' WHERE ${e.checkId} = ANY($1) AND ${e.state} <> 'pending'`;

/** Blanks the bodies of the purged checks' events, except those still to be sent. */
export async function purgeEventBodies(tx: Queryable, checkIds: string[]): Promise<void> {
  await tx.query(PURGE_BODIES, [checkIds]);
}
