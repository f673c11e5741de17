/**
 * The delivery log an organization can read: events (one per finished check, plus test events) and every
 * attempt with its time, response status, latency, error and next retry. Organization-scoped throughout.
 */
import { UUID_PATTERN, uuidv7 } from '../ids.ts';
import { WEBHOOKS_CHANNEL } from '../store/channels.ts';
import type { Queryable } from '../store/db.ts';

export interface WebhookEventSummary {
  id: string;
  kind: string;
  checkId: string | null;
  state: 'pending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  lastLatencyMs: number | null;
}

export interface WebhookAttempt {
  attemptNumber: number;
  startedAt: string;
  outcome: string;
  responseStatus: number | null;
  latencyMs: number | null;
  error: string | null;
  /** The first 1 KB of the receiver's answer (its text: escape it when shown). */
  responseSnippet: string | null;
  nextAttemptAt: string | null;
}

export async function listWebhookEvents(
  db: Queryable,
  organizationId: string,
  options: { limit?: number; before?: string } = {},
): Promise<WebhookEventSummary[]> {
  const limit = Math.min(Math.max(options.limit ?? 25, 1), 100);
  const before = options.before && UUID_PATTERN.test(options.before) ? options.before : null;
  const { rows } = await db.query<{
    id: string;
    kind: string;
    check_id: string | null;
    state: WebhookEventSummary['state'];
    attempts: number;
    created_at: Date;
    delivered_at: Date | null;
    next_attempt_at: Date;
    response_status: number | null;
    error: string | null;
    latency_ms: number | null;
  }>(
    `SELECT e.id, e.kind, e.check_id, e.state, e.attempts, e.created_at, e.delivered_at, e.next_attempt_at,
            a.response_status, a.error, a.latency_ms
       FROM webhook_events e
       LEFT JOIN LATERAL (SELECT response_status, error, latency_ms FROM webhook_attempts
                           WHERE event_id = e.id ORDER BY attempt_number DESC LIMIT 1) a ON true
      WHERE e.organization_id = $1 AND ($2::text IS NULL OR e.id < $2)
      ORDER BY e.id DESC LIMIT $3`,
    [organizationId, before, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    checkId: r.check_id,
    state: r.state,
    attempts: r.attempts,
    createdAt: r.created_at.toISOString(),
    deliveredAt: r.delivered_at?.toISOString() ?? null,
    nextAttemptAt: r.state === 'pending' ? r.next_attempt_at.toISOString() : null,
    lastStatus: r.response_status,
    lastError: r.error,
    lastLatencyMs: r.latency_ms,
  }));
}

export async function listWebhookAttempts(
  db: Queryable,
  organizationId: string,
  eventId: string,
): Promise<WebhookAttempt[] | undefined> {
  if (!UUID_PATTERN.test(eventId)) return undefined;
  const owned = await db.query('SELECT 1 FROM webhook_events WHERE id = $1 AND organization_id = $2', [
    eventId,
    organizationId,
  ]);
  if (!owned.rows.length) return undefined;
  const { rows } = await db.query<{
    attempt_number: number;
    started_at: Date;
    outcome: string;
    response_status: number | null;
    latency_ms: number | null;
    error: string | null;
    response_snippet: string | null;
    next_attempt_at: Date | null;
  }>(
    `SELECT attempt_number, started_at, outcome, response_status, latency_ms, error, response_snippet, next_attempt_at
       FROM webhook_attempts WHERE event_id = $1 ORDER BY attempt_number`,
    [eventId],
  );
  return rows.map((r) => ({
    attemptNumber: r.attempt_number,
    startedAt: r.started_at.toISOString(),
    outcome: r.outcome,
    responseStatus: r.response_status,
    latencyMs: r.latency_ms,
    error: r.error,
    responseSnippet: r.response_snippet,
    nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
  }));
}

/** Manual resend: the same event (same id, same bytes) becomes due now; the dispatcher sends a new attempt. */
export async function resendWebhookEvent(
  db: Queryable,
  organizationId: string,
  eventId: string,
): Promise<boolean> {
  if (!UUID_PATTERN.test(eventId)) return false;
  const { rowCount } = await db.query(
    `UPDATE webhook_events e SET state = 'pending', next_attempt_at = now(), locked_until = NULL, locked_by = NULL,
            url = coalesce(o.webhook_url, e.url)
       FROM organizations o
      WHERE e.id = $1 AND e.organization_id = $2 AND o.id = e.organization_id`,
    [eventId, organizationId],
  );
  if (rowCount === 1) await db.query('SELECT pg_notify($1, $2)', [WEBHOOKS_CHANNEL, '']);
  return rowCount === 1;
}

/** A test event: a body shaped like a completed check, clearly marked, queued for delivery now. */
export async function queueTestEvent(
  db: Queryable,
  organizationId: string,
): Promise<{ eventId: string } | { error: string }> {
  const { rows } = await db.query<{ webhook_url: string | null }>(
    'SELECT webhook_url FROM organizations WHERE id = $1',
    [organizationId],
  );
  const url = rows[0]?.webhook_url;
  if (!url) return { error: 'Set a webhook URL first.' };
  const eventId = uuidv7();
  const body = JSON.stringify({
    id: uuidv7(),
    status: 'COMPLETED',
    tradingPartnerServiceId: 'SANDBOX',
    benefits: [],
    warnings: [
      {
        code: 'TEST_EVENT',
        description: 'This is a test event sent from the provider portal; it belongs to no check.',
      },
    ],
  });
  await db.query(
    `INSERT INTO webhook_events (id, organization_id, check_id, kind, body, url) VALUES ($1, $2, NULL, 'test', $3, $4)`,
    [eventId, organizationId, body, url],
  );
  await db.query('SELECT pg_notify($1, $2)', [WEBHOOKS_CHANNEL, '']);
  return { eventId };
}
