/**
 * The loop shared by the check worker and the webhook dispatcher: claim due rows (the claim SQL takes a
 * lease with FOR UPDATE SKIP LOCKED), handle them with bounded concurrency, and sleep until a NOTIFY, a
 * freed slot, the next due row, or the polling interval. Stopping lets in-flight work finish for a grace
 * period, then aborts it through `signal` so handlers can release their rows.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import { createFaultReporter } from '../store/faults.ts';
import { Nap } from './nap.ts';

export interface QueueRunnerOptions<Row extends { id: string }> {
  db: Db;
  log: Logger;
  channel: string;
  concurrency: number;
  pollMs: number;
  claim(limit: number): Promise<Row[]>;
  handle(row: Row, signal: AbortSignal): Promise<void>;
  /** Milliseconds until the next row becomes due, if known. */
  nextDueIn?(): Promise<number | undefined>;
}

export class QueueRunner<Row extends { id: string }> {
  private running = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly nap = new Nap();
  private loopDone: Promise<void> | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private readonly shutdown = new AbortController();
  /** While the database is unavailable every claim and many handlers fail: one log line per interval. */
  private readonly reportFault: (err: unknown, what: string) => boolean;

  constructor(private readonly opts: QueueRunnerOptions<Row>) {
    this.reportFault = createFaultReporter(opts.log);
    // Every in-flight handler may listen on the shutdown signal (e.g. while waiting for a payer slot).
    setMaxListeners(opts.concurrency + 16, this.shutdown.signal);
  }

  async start(): Promise<void> {
    this.running = true;
    this.unlisten = await this.opts.db.listen(this.opts.channel, () => this.wake());
    this.loopDone = this.loop();
  }

  wake(): void {
    this.nap.wake();
  }

  get activeCount(): number {
    return this.inFlight.size;
  }

  get signal(): AbortSignal {
    return this.shutdown.signal;
  }

  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.unlisten?.().catch(() => {});
    await this.loopDone;
    const all = Promise.allSettled([...this.inFlight.values()]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    this.shutdown.abort();
    await all;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.nap.begin();
      const free = this.opts.concurrency - this.inFlight.size;
      let claimed: Row[] = [];
      if (free > 0) {
        try {
          claimed = await this.opts.claim(free);
        } catch (err) {
          if (!this.reportFault(err, 'claiming work')) {
            this.opts.log.warn({ err }, 'claiming work failed; will retry');
          }
        }
        for (const row of claimed) this.run(row);
      }
      if (claimed.length > 0 && claimed.length === free) continue;
      await this.idle(free > 0 && claimed.length === 0);
    }
  }

  private async idle(lookAhead: boolean): Promise<void> {
    let waitMs = this.opts.pollMs;
    if (lookAhead && this.opts.nextDueIn) {
      const due = await this.opts.nextDueIn().catch(() => undefined);
      if (due !== undefined) waitMs = Math.min(waitMs, Math.max(5, due));
    }
    if (this.running) await this.nap.sleep(waitMs);
  }

  private run(row: Row): void {
    const task = this.opts
      .handle(row, this.shutdown.signal)
      .catch((err) => {
        if (this.reportFault(err, 'handling a claimed row')) return; // its lease expires: retried later
        this.opts.log.error(
          { err, id: row.id },
          'handling failed; the lease will expire and the row be retried',
        );
      })
      .finally(() => {
        this.inFlight.delete(row.id);
        this.wake();
      });
    this.inFlight.set(row.id, task);
  }
}
