/**
 * Retention: after RETENTION_DAYS, a finished check keeps its id, status, times, payer id and outcome codes;
 * the request (names, date of birth, member id), the result body with the raw X12, and its webhook event
 * bodies are replaced. A completed monitor is deleted RETENTION_DAYS after its last run (its checks stay).
 * Runs in the worker, in small batches, safe with several workers (SKIP LOCKED). Each round also deletes the
 * sign-in throttle's forgotten rows and the payer scorecard's hours older than STATS_KEPT_DAYS.
 */
import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import { createFaultReporter } from '../store/faults.ts';
import { pruneLoginAttempts } from '../store/login-attempts.ts';
import { prunePayerCallStats, STATS_KEPT_DAYS } from '../store/payer-call-stats.ts';
import { purgeExpiredCheckBatch } from '../store/queue/purge-checks.ts';
import { deleteExpiredCompletedMonitors } from '../store/queue/purge-monitors.ts';
import { clearResponseSnippets } from '../store/webhook-attempts.ts';
import { purgeEventBodies } from '../store/webhook-events.ts';

const BATCH = 500;

/** Purges one batch; returns how many checks it purged. */
export async function purgeExpiredChecks(db: Db, retentionDays: number): Promise<number> {
  return db.transaction(async (tx) => {
    const rows = await purgeExpiredCheckBatch(tx, retentionDays, BATCH);
    if (rows.length) {
      const ids = rows.map((r) => r.id);
      await purgeEventBodies(tx, ids);
      // Receivers may echo the body they were sent: their answers go with it.
      await clearResponseSnippets(tx, ids);
    }
    return rows.length;
  });
}

/**
 * Deletes one batch of completed monitors whose last run is older than the retention period (their patient
 * details go with them); returns how many.
 */
export async function purgeCompletedMonitors(db: Db, retentionDays: number): Promise<number> {
  return db.transaction(
    async (tx) => (await deleteExpiredCompletedMonitors(tx, retentionDays, BATCH)).length,
  );
}

/**
 * Runs the purge every `intervalMs` until stopped. A backlog (say, after lowering RETENTION_DAYS) is worked
 * off batch after batch with a pause between them, so the purge never hogs the database, and stopping
 * waits for one batch at most.
 */
export function startRetention(
  db: Db,
  log: Logger,
  retentionDays: number,
  intervalMs = 60_000,
  pauseMs = 100,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const reportFault = createFaultReporter(log);
  let endPause: (() => void) | undefined;
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, pauseMs);
      endPause = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const tick = () => {
    running ??= (async () => {
      try {
        let purged = 0;
        for (let n = BATCH; n === BATCH && !stopped; ) {
          n = await purgeExpiredChecks(db, retentionDays);
          purged += n;
          if (n === BATCH) {
            if (purged % (BATCH * 100) === 0) log.info({ purged }, 'retention purge in progress');
            await pause();
          }
        }
        if (purged) log.info({ purged }, 'retention purge');
        let monitors = 0;
        for (let n = BATCH; n === BATCH && !stopped; ) {
          n = await purgeCompletedMonitors(db, retentionDays);
          monitors += n;
          if (n === BATCH) await pause();
        }
        if (monitors) log.info({ monitors }, 'retention purge of completed monitors');
        // Sign-in throttle rows nobody has touched for an hour are forgotten anyway: drop them.
        if (!stopped) await pruneLoginAttempts(db, new Date());
        // Scorecard hours beyond the longest window anyone can ask for: counts only, but they pile up.
        if (!stopped) await prunePayerCallStats(db, new Date(Date.now() - STATS_KEPT_DAYS * 86_400_000));
      } catch (err) {
        if (!reportFault(err, 'retention purge')) log.warn({ err }, 'retention purge failed; will retry');
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  setTimeout(tick, 1000).unref();
  return async () => {
    stopped = true;
    endPause?.();
    clearInterval(timer);
    await running;
  };
}
