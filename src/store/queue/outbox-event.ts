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

/**
 * The outbox INSERT … SELECT of one event, its values given as SQL (placeholders or literals): the row is
 * written only when the organization has a URL whose endpoint takes the type, and at most once per subject
 * and type. `from` and `when` let a caller write it inside a larger statement (a CTE it depends on).
 */
export function outboxInsert(
  subject: OutboxEvent['subject'],
  v: { id: string; organizationId: string; subjectId: string; kind: string; body: string },
  join: { from?: string; when?: string } = {},
): string {
  return `INSERT INTO webhook_events (id, organization_id, ${subject}, kind, body, url)
     SELECT ${v.id}, o.id, ${v.subjectId}, ${v.kind}, ${v.body}, o.webhook_url FROM organizations o${join.from ? `, ${join.from}` : ''}
      WHERE o.id = ${v.organizationId}${join.when ? ` AND ${join.when}` : ''} AND o.webhook_url IS NOT NULL
        AND (o.webhook_event_types IS NULL OR ${v.kind} = ANY (o.webhook_event_types))
     ON CONFLICT (${subject}, kind) DO NOTHING`;
}

export async function insertOutboxEvent(tx: Queryable, e: OutboxEvent): Promise<void> {
  await tx.query(
    outboxInsert(e.subject, {
      id: '$1',
      organizationId: '$2',
      subjectId: '$3',
      kind: '$5::text',
      body: '$4',
    }),
    [e.id, e.organizationId, e.subjectId, e.body, e.kind],
  );
}
