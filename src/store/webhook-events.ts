/**
 * The `webhook_events` table (the outbox) outside the queue: the delivery log's reads, test events and
 * manual resends. The queue's own statements (claim, record an attempt) are in src/store/queue/; row
 * typing as described at the top of organizations.ts.
 */
import { ownedRowLookup, type Queryable } from './db.ts';
import type { webhookAttempts, webhookEvents } from './schema.ts';

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

/** A page of an organization's events, newest first, each with its last attempt's outcome. */
export async function selectEventPage(
  db: Queryable,
  organizationId: string,
  page: { before: string | null; limit: number },
): Promise<EventSummaryRow[]> {
  const { rows } = await db.query<EventSummaryRow>(
    `SELECT e.id, e.kind, e.check_id AS "checkId", e.state, e.attempts, e.created_at AS "createdAt",
            e.delivered_at AS "deliveredAt", e.next_attempt_at AS "nextAttemptAt",
            a.response_status AS "lastStatus", a.error AS "lastError", a.latency_ms AS "lastLatencyMs"
       FROM webhook_events e
       LEFT JOIN LATERAL (SELECT response_status, error, latency_ms FROM webhook_attempts
                           WHERE event_id = e.id ORDER BY attempt_number DESC LIMIT 1) a ON true
      WHERE e.organization_id = $1 AND ($2::text IS NULL OR e.id < $2)
      ORDER BY e.id DESC LIMIT $3`,
    [organizationId, page.before, page.limit],
  );
  return rows;
}

export type EventDetailRow = Pick<
  WebhookEventRow,
  'id' | 'kind' | 'checkId' | 'state' | 'url' | 'createdAt' | 'deliveredAt'
>;

/** One event of an organization; undefined for anyone else's. */
export const findEvent = ownedRowLookup<EventDetailRow>(
  'webhook_events',
  `id, kind, check_id AS "checkId", state, url, created_at AS "createdAt", delivered_at AS "deliveredAt"`,
);

export async function eventBelongsTo(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM webhook_events WHERE id = $1 AND organization_id = $2', [
    id,
    organizationId,
  ]);
  return rows.length > 0;
}

/** A test event (no check), due now. */
export async function insertTestEvent(
  db: Queryable,
  event: Pick<WebhookEventRow, 'id' | 'organizationId' | 'body' | 'url'>,
): Promise<void> {
  await db.query(
    `INSERT INTO webhook_events (id, organization_id, check_id, kind, body, url) VALUES ($1, $2, NULL, 'test', $3, $4)`,
    [event.id, event.organizationId, event.body, event.url],
  );
}

/**
 * The same event (same id, same bytes) becomes due now, to the organization's current URL; false when
 * the organization has no such event.
 */
export async function makeEventDueNow(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_events e SET state = 'pending', next_attempt_at = now(), locked_until = NULL, locked_by = NULL,
            url = coalesce(o.webhook_url, e.url)
       FROM organizations o
      WHERE e.id = $1 AND e.organization_id = $2 AND o.id = e.organization_id`,
    [id, organizationId],
  );
  return rowCount === 1;
}

/** Blanks the bodies of the purged checks' events, except those still to be sent. */
export async function purgeEventBodies(tx: Queryable, checkIds: string[]): Promise<void> {
  await tx.query(`UPDATE webhook_events SET body = '{}' WHERE check_id = ANY($1) AND state <> 'pending'`, [
    checkIds,
  ]);
}
