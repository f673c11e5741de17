/**
 * The monitor scheduler: a small loop in each worker process that turns due monitors into checks
 * (src/monitors/runs.ts). Several processes may run it on one database: the claim's row locks make
 * each run happen once. It wakes on a timer (MONITOR_POLL_MS, or sooner when the next monitor is due
 * sooner) and on a NOTIFY when a monitor is created or resumed, so a first run due now starts at once.
 */
import type { Logger } from 'pino';
import { MONITORS_CHANNEL } from '../store/channels.ts';
import type { Db } from '../store/db.ts';
import { createFaultReporter } from '../store/faults.ts';
import { nextMonitorDueIn } from '../store/queue/claim-monitors.ts';
import { Nap } from '../workers/nap.ts';
import { MONITORS_PER_TRANSACTION, runDueMonitors } from './runs.ts';

export interface MonitorSchedulerOptions {
  db: Db;
  log: Logger;
  /** MONITOR_POLL_MS: the longest sleep between two looks. */
  pollMs: number;
  /** Monitors per transaction (tests make it small to exercise the loop). */
  batchSize?: number;
  /** The connection a payer is asked through first ('' without one), stored on each run's check. */
  connectionOf?: (tradingPartnerServiceId: string) => string;
}

export class MonitorScheduler {
  private running = false;
  private loopDone: Promise<void> | undefined;
  private readonly nap = new Nap();
  private unlisten: (() => Promise<void>) | undefined;
  private readonly reportFault: (err: unknown, what: string) => boolean;

  constructor(private readonly opts: MonitorSchedulerOptions) {
    this.reportFault = createFaultReporter(opts.log);
  }

  async start(): Promise<void> {
    this.running = true;
    this.unlisten = await this.opts.db.listen(MONITORS_CHANNEL, () => this.wake());
    this.loopDone = this.loop();
  }

  wake(): void {
    this.nap.wake();
  }

  /** Stops looking; a transaction in progress finishes (it is short) before this resolves. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.unlisten?.().catch(() => {});
    await this.loopDone;
  }

  /** Creates every run due now; returns how many checks it created. */
  async runDue(): Promise<number> {
    let runs = 0;
    const size = this.opts.batchSize ?? MONITORS_PER_TRANSACTION;
    for (;;) {
      const done = await runDueMonitors(this.opts.db, size, this.opts.connectionOf);
      runs += done.runs;
      if (done.handled < size || !this.running) return runs;
    }
  }

  private async loop(): Promise<void> {
    while (this.running) {
      this.nap.begin();
      let waitMs = this.opts.pollMs;
      try {
        const runs = await this.runDue();
        if (runs) this.opts.log.info({ runs }, 'monitor runs created');
        const due = await nextMonitorDueIn(this.opts.db);
        if (due !== undefined) waitMs = Math.min(waitMs, Math.max(10, due));
      } catch (err) {
        if (!this.reportFault(err, 'running due monitors')) {
          this.opts.log.warn({ err }, 'running due monitors failed; will retry');
        }
      }
      if (this.running) await this.nap.sleep(waitMs);
    }
  }
}
