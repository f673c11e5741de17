/**
 * Retention: after RETENTION_DAYS, a finished check keeps its id, status, times, payer id and outcome codes;
 * the request (names, date of birth, member id), the result body with the raw X12, and its webhook event
 * bodies are replaced. Runs in the worker, in small batches, safe with several workers (SKIP LOCKED). Each
 * round also deletes the sign-in throttle's forgotten rows.
 */
import type { Logger } from 'pino';
import type { Db } from '../store/db.ts';
import { createFaultReporter } from '../store/faults.ts';
import { pruneLoginAttempts } from '../store/login-attempts.ts';

const BATCH = 500;

/** Purges one batch; returns how many checks it purged. */
export async function purgeExpiredChecks(db: Db, retentionDays: number): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string }>(
      `WITH due AS (
         SELECT id FROM checks
          WHERE status <> 'IN_PROGRESS' AND purged_at IS NULL AND completed_at < now() - $1 * interval '1 day'
          ORDER BY completed_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
       UPDATE checks c
          SET request = jsonb_build_object('tradingPartnerServiceId', c.trading_partner_service_id),
              result = json_strip_nulls(json_build_object(
                'id', c.id, 'status', c.status, 'tradingPartnerServiceId', c.trading_partner_service_id,
                'errors', CASE WHEN c.result IS NOT NULL AND (c.result::jsonb) ? 'errors'
                               THEN (SELECT jsonb_agg(e - 'location') FROM jsonb_array_elements((c.result::jsonb)->'errors') e) END,
                'warnings', json_build_array(json_build_object('code', 'PURGED',
                  'description', 'Details of this check were deleted after the retention period; only its status and codes remain.'))
              ))::text,
              purged_at = now()
         FROM due WHERE c.id = due.id
       RETURNING c.id`,
      [retentionDays],
    );
    if (rows.length) {
      await tx.query(
        `UPDATE webhook_events SET body = '{}' WHERE check_id = ANY($1) AND state <> 'pending'`,
        [rows.map((r) => r.id)],
      );
      // Receivers may echo the body they were sent: their answers go with it.
      await tx.query(
        `UPDATE webhook_attempts a SET response_snippet = NULL
           FROM webhook_events e WHERE a.event_id = e.id AND e.check_id = ANY($1) AND a.response_snippet IS NOT NULL`,
        [rows.map((r) => r.id)],
      );
    }
    return rows.length;
  });
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
        // Sign-in throttle rows nobody has touched for an hour are forgotten anyway: drop them.
        if (!stopped) await pruneLoginAttempts(db, new Date());
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
