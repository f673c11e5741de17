/**
 * The delivery log an organization can read: events (one per finished check, plus test events) and every
 * attempt with its time, response status, latency, error and next retry. Organization-scoped throughout.
 */
import { UUID_PATTERN, uuidv7 } from '../ids.ts';
import { WEBHOOKS_CHANNEL, wake } from '../store/channels.ts';
import type { Queryable } from '../store/db.ts';
import { findWebhookColumns } from '../store/organizations.ts';
import { selectAttempts } from '../store/webhook-attempts.ts';
import {
  eventBelongsTo,
  insertTestEvent,
  makeEventDueNow,
  selectEventPage,
} from '../store/webhook-events.ts';

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
  const rows = await selectEventPage(db, organizationId, { before, limit });
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    checkId: r.checkId,
    state: r.state as WebhookEventSummary['state'],
    attempts: r.attempts,
    createdAt: r.createdAt.toISOString(),
    deliveredAt: r.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: r.state === 'pending' ? r.nextAttemptAt.toISOString() : null,
    lastStatus: r.lastStatus,
    lastError: r.lastError,
    lastLatencyMs: r.lastLatencyMs,
  }));
}

export async function listWebhookAttempts(
  db: Queryable,
  organizationId: string,
  eventId: string,
): Promise<WebhookAttempt[] | undefined> {
  if (!UUID_PATTERN.test(eventId)) return undefined;
  if (!(await eventBelongsTo(db, organizationId, eventId))) return undefined;
  const rows = await selectAttempts(db, eventId);
  return rows.map((r) => ({
    attemptNumber: r.attemptNumber,
    startedAt: r.startedAt.toISOString(),
    outcome: r.outcome,
    responseStatus: r.responseStatus,
    latencyMs: r.latencyMs,
    error: r.error,
    responseSnippet: r.responseSnippet,
    nextAttemptAt: r.nextAttemptAt?.toISOString() ?? null,
  }));
}

/** Manual resend: the same event (same id, same bytes) becomes due now; the dispatcher sends a new attempt. */
export async function resendWebhookEvent(
  db: Queryable,
  organizationId: string,
  eventId: string,
): Promise<boolean> {
  if (!UUID_PATTERN.test(eventId)) return false;
  const due = await makeEventDueNow(db, organizationId, eventId);
  if (due) await wake(db, WEBHOOKS_CHANNEL);
  return due;
}

/** The warning that marks the portal's test event as one (docs/warnings.md). */
export const TEST_EVENT_WARNING_CODE = 'TEST_EVENT';

/** A test event: a body shaped like a completed check, clearly marked, queued for delivery now. */
export async function queueTestEvent(
  db: Queryable,
  organizationId: string,
): Promise<{ eventId: string } | { error: string }> {
  const url = (await findWebhookColumns(db, organizationId))?.webhookUrl;
  if (!url) return { error: 'Set a webhook URL first.' };
  const eventId = uuidv7();
  const body = JSON.stringify({
    id: uuidv7(),
    status: 'COMPLETED',
    tradingPartnerServiceId: 'SANDBOX',
    benefits: [],
    warnings: [
      {
        code: TEST_EVENT_WARNING_CODE,
        description: 'This is a test event sent from the provider portal; it belongs to no check.',
      },
    ],
  });
  await insertTestEvent(db, { id: eventId, organizationId, body, url });
  await wake(db, WEBHOOKS_CHANNEL);
  return { eventId };
}
