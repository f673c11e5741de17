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
import type { Db } from '../store/db.ts';
import {
  type ClaimedWebhookSettings,
  claimDueWebhookEvents,
  nextDueIn,
  QUEUES,
} from '../store/queue/claim.ts';
import { type DeliveryState, recordDeliveryAttempt } from '../store/queue/finish-delivery.ts';
import type { webhookEvents } from '../store/schema.ts';
import { sendWebhook } from '../webhooks/send.ts';
import { openWebhookSettings } from '../webhooks/settings.ts';
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

const CLAIMED_EVENT = ['id', 'organizationId', 'kind', 'body', 'url', 'attempts', 'createdAt'] as const;
type ClaimedEvent = Pick<typeof webhookEvents.$inferSelect, (typeof CLAIMED_EVENT)[number]> &
  ClaimedWebhookSettings;

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
      claim: (limit) =>
        claimDueWebhookEvents(opts.db, CLAIMED_EVENT, {
          workerId: opts.dispatcherId,
          limit,
          leaseMs,
        }),
      handle: (row, signal) => this.deliver(row, signal),
      nextDueIn: () => nextDueIn(opts.db, QUEUES.webhookEvents),
    });
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  stop(graceMs = 10_000): Promise<void> {
    return this.runner.stop(graceMs);
  }

  private async deliver(event: ClaimedEvent, signal: AbortSignal): Promise<void> {
    const { box, log } = this.opts;
    // The organization's settings as the claim read them (one statement for the claim and the settings).
    const settings = openWebhookSettings(box, event);
    const url = settings.url;
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
      eventType: event.kind,
      timestamp,
      body: event.body,
      secret: settings.secret ?? undefined,
      previousSecret: settings.previousSecret ?? undefined,
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
    const deliveryLatencyMs = state === 'delivered' ? Date.now() - event.createdAt.getTime() : undefined;
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
    state: DeliveryState,
    nextDelayMs: number | null,
  ): Promise<void> {
    // false: lease lost, the dispatcher that took over records its own attempt
    await recordDeliveryAttempt(
      this.opts.db,
      { eventId: event.id, dispatcherId: this.opts.dispatcherId },
      state,
      nextDelayMs,
      {
        id: uuidv7(),
        eventId: event.id,
        attemptNumber: event.attempts,
        outcome: result.outcome,
        responseStatus: result.status ?? null,
        latencyMs: Math.round(result.latencyMs),
        error: result.error ?? null,
        responseSnippet: result.responseSnippet ?? null,
      },
    );
  }
}
