/**
 * The outbox: an event row written in the same transaction as what it reports (a check finishing, a batch's
 * last item), so it exists exactly when that commits. Written only when the organization has a webhook URL and
 * its endpoint takes this type (no URL: clients poll, as the spec says). One per subject and type: the unique
 * index on (subject, kind) makes a repeated write a no-op.
 */
import type { Queryable } from '../db.ts';

export interface OutboxEvent {
  id: string;
  organizationId: string;
  kind: string;
  /** The column naming what the event is about. */
  subject: 'check_id' | 'batch_id' | 'discovery_id';
  subjectId: string;
  body: string;
}

export async function insertOutboxEvent(tx: Queryable, e: OutboxEvent): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_events (id, organization_id, ${e.subject}, kind, body, url)
     SELECT $1, o.id, $3, $5::text, $4, o.webhook_url FROM organizations o
      WHERE o.id = $2 AND o.webhook_url IS NOT NULL
        AND (o.webhook_event_types IS NULL OR $5::text = ANY (o.webhook_event_types))
     ON CONFLICT (${e.subject}, kind) DO NOTHING`,
    [e.id, e.organizationId, e.subjectId, e.body, e.kind],
  );
}
