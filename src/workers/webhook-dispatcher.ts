/**
 * The webhook dispatcher: claims due events from the outbox (`webhook_events`) with a lease, sends the
 * stored bytes signed for this attempt, records the attempt, and schedules the next one with backoff.
 *
 * Why this is safe under concurrency: the claim takes rows with FOR UPDATE SKIP LOCKED and stamps a lease
 * in the same statement, so two dispatchers never hold the same event; the result is recorded only while
 * this dispatcher still holds the lease. A crash between sending and recording repeats that one attempt,
 * with the same X-Webhook-Id, after the lease expires: at-least-once delivery, deduplicated by receivers.
 */
import type { Logger } from 'pino';
import { uuidv7 } from '../ids.ts';
import { WEBHOOKS_CHANNEL } from '../store/channels.ts';
import type { Db, Queryable } from '../store/db.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { getWebhookSettings } from '../webhooks/settings.ts';
import { buildWebhookHeaders } from '../webhooks/sign.ts';
import type { SecretBox } from '../webhooks/signing-secrets.ts';
import { QueueRunner } from './queue-runner.ts';

export interface DispatcherOptions {
  db: Db;
  log: Logger;
  box: SecretBox;
  dispatcherId: string;
  allowPrivate: boolean;
  /** Delay before attempt `n + 1` after `n` failed attempts; null = give up. */
  nextDelayMs: (attempt: number) => number | null;
  concurrency?: number;
  pollMs?: number;
  leaseMs?: number;
  timeoutMs?: number;
  userAgent: string;
  onAttempt?: (event: { outcome: string; latencyMs: number; deliveryLatencyMs?: number }) => void;
}

interface ClaimedEvent {
  id: string;
  organization_id: string;
  kind: string;
  body: string;
  url: string;
  attempts: number;
  created_at: Date;
}

async function claimDueEvents(
  db: Queryable,
  dispatcherId: string,
  limit: number,
  leaseMs: number,
): Promise<ClaimedEvent[]> {
  const { rows } = await db.query<ClaimedEvent>(
    `UPDATE webhook_events e
        SET locked_until = now() + $3 * interval '1 millisecond', locked_by = $2, attempts = e.attempts + 1
      WHERE e.id IN (
        SELECT id FROM webhook_events
         WHERE state = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
         ORDER BY next_attempt_at
         LIMIT $1
         FOR UPDATE SKIP LOCKED)
      RETURNING e.id, e.organization_id, e.kind, e.body, e.url, e.attempts, e.created_at`,
    [limit, dispatcherId, leaseMs],
  );
  return rows;
}

export class WebhookDispatcher {
  private readonly runner: QueueRunner<ClaimedEvent>;

  constructor(private readonly opts: DispatcherOptions) {
    const leaseMs = opts.leaseMs ?? 60_000;
    this.runner = new QueueRunner({
      db: opts.db,
      log: opts.log,
      channel: WEBHOOKS_CHANNEL,
      concurrency: opts.concurrency ?? 16,
      pollMs: opts.pollMs ?? 1000,
      claim: (limit) => claimDueEvents(opts.db, opts.dispatcherId, limit, leaseMs),
      handle: (row, signal) => this.deliver(row, signal),
      nextDueIn: async () => {
        const { rows } = await opts.db.query<{ ms: number | null }>(
          `SELECT extract(epoch FROM (min(greatest(next_attempt_at, coalesce(locked_until, next_attempt_at))) - now())) * 1000 AS ms
             FROM webhook_events WHERE state = 'pending'`,
        );
        const ms = rows[0]?.ms;
        return ms === null || ms === undefined ? undefined : Math.max(0, Number(ms));
      },
    });
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  stop(graceMs = 10_000): Promise<void> {
    return this.runner.stop(graceMs);
  }

  private async deliver(event: ClaimedEvent, signal: AbortSignal): Promise<void> {
    const { db, box, log } = this.opts;
    const settings = await getWebhookSettings(db, box, event.organization_id);
    const url = settings?.url ?? null;
    if (!url) {
      await this.record(
        event,
        { outcome: 'cancelled', latencyMs: 0, error: 'No webhook URL is configured any more.' },
        'cancelled',
        null,
      );
      return;
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = buildWebhookHeaders({
      eventId: event.id,
      timestamp,
      body: event.body,
      secret: settings?.secret ?? undefined,
      previousSecret: settings?.previousSecret ?? undefined,
      userAgent: this.opts.userAgent,
    });
    const result = await sendWebhook({
      url,
      body: event.body,
      headers,
      allowPrivate: this.opts.allowPrivate,
      timeoutMs: this.opts.timeoutMs ?? 15_000,
      signal,
    });
    let state: 'pending' | 'delivered' | 'failed';
    let nextDelay: number | null = null;
    if (result.outcome === 'delivered') state = 'delivered';
    else if (result.outcome === 'gone' || event.kind === 'test') state = 'failed';
    else {
      nextDelay = this.opts.nextDelayMs(event.attempts);
      state = nextDelay === null ? 'failed' : 'pending';
    }
    await this.record(event, result, state, nextDelay);
    const deliveryLatencyMs = state === 'delivered' ? Date.now() - event.created_at.getTime() : undefined;
    this.opts.onAttempt?.({ outcome: result.outcome, latencyMs: result.latencyMs, deliveryLatencyMs });
    log.info(
      {
        eventId: event.id,
        attempt: event.attempts,
        outcome: result.outcome,
        status: result.status,
        latencyMs: result.latencyMs,
        nextDelayMs: nextDelay,
      },
      'webhook attempt',
    );
  }

  private async record(
    event: ClaimedEvent,
    result: { outcome: string; status?: number; latencyMs: number; error?: string; responseSnippet?: string },
    state: 'pending' | 'delivered' | 'failed' | 'cancelled',
    nextDelayMs: number | null,
  ): Promise<void> {
    await this.opts.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ next_attempt_at: Date | null }>(
        `UPDATE webhook_events
            SET state = $3, locked_until = NULL, locked_by = NULL,
                next_attempt_at = CASE WHEN $4::bigint IS NULL THEN next_attempt_at ELSE now() + $4 * interval '1 millisecond' END,
                delivered_at = CASE WHEN $3 = 'delivered' THEN now() ELSE delivered_at END
          WHERE id = $1 AND locked_by = $2
          RETURNING CASE WHEN state = 'pending' THEN next_attempt_at END AS next_attempt_at`,
        [event.id, this.opts.dispatcherId, state, nextDelayMs],
      );
      if (!rows.length) return; // lease lost: the dispatcher that took over records its own attempt
      await tx.query(
        `INSERT INTO webhook_attempts (id, event_id, attempt_number, started_at, outcome, response_status, latency_ms, error, next_attempt_at, response_snippet)
         VALUES ($1, $2, $3, now() - $6 * interval '1 millisecond', $4, $5, $6, $7, $8, $9)`,
        [
          uuidv7(),
          event.id,
          event.attempts,
          result.outcome,
          result.status ?? null,
          Math.round(result.latencyMs),
          result.error ?? null,
          rows[0]!.next_attempt_at,
          result.responseSnippet ?? null,
        ],
      );
    });
  }
}
