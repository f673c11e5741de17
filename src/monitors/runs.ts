/**
 * Creating the runs of due monitors: in ONE transaction, lock the due monitors (FOR UPDATE SKIP LOCKED),
 * create each run's check, and advance each monitor (src/store/queue/claim-monitors.ts says why a run
 * happens once across processes). Each run is an ordinary check: the worker runs it, its webhook and
 * audit row are those of any check, and it never reuses an earlier result (it is inserted directly, never
 * through a submit's `reuseWithinHours`).
 */

import { scheduleZone } from '../checks/zoned-dates.ts';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import { uuidv7 } from '../ids.ts';
import { CHECKS_CHANNEL, wake } from '../store/channels.ts';
import type { Db } from '../store/db.ts';
import { advanceMonitor, claimDueMonitors, insertMonitorRunCheck } from '../store/queue/claim-monitors.ts';
import { planRun } from './schedule.ts';

/** Monitors handled per transaction: small enough to stay well within one transaction's time budget. */
export const MONITORS_PER_TRANSACTION = 50;

/** The check body of a run: the monitor's, with the appointment date as the date of service. */
function runRequest(request: EligibilityCheckRequest, dateOfService: string | undefined) {
  return dateOfService ? { ...request, encounter: { ...request.encounter, dateOfService } } : request;
}

/**
 * Handles up to `limit` due monitors; returns how many were handled (runs, waits and completions), so the
 * caller goes on while a full batch came back. Wakes the check workers when it created checks.
 */
export async function runDueMonitors(
  db: Db,
  limit = MONITORS_PER_TRANSACTION,
  connectionOf: (tradingPartnerServiceId: string) => string = () => '',
): Promise<{ handled: number; runs: number }> {
  return db.transaction(async (tx) => {
    const { now, monitors } = await claimDueMonitors(tx, limit);
    let runs = 0;
    for (const monitor of monitors) {
      const plan = planRun(monitor, now, scheduleZone(monitor.timeZone));
      if (plan.kind === 'run') {
        await insertMonitorRunCheck(tx, {
          id: uuidv7(),
          organizationId: monitor.organizationId,
          tradingPartnerServiceId: monitor.tradingPartnerServiceId,
          connection: connectionOf(monitor.tradingPartnerServiceId),
          request: runRequest(monitor.request, plan.dateOfService),
          monitorId: monitor.id,
          requestCorrections: monitor.requestCorrections,
        });
        await advanceMonitor(tx, monitor.id, { ...plan.after, ran: true });
        runs++;
      } else if (plan.kind === 'wait') {
        await advanceMonitor(tx, monitor.id, {
          nextRunAt: plan.nextRunAt,
          checkedThrough: monitor.checkedThrough,
          completed: false,
          ran: false,
        });
      } else {
        await advanceMonitor(tx, monitor.id, {
          nextRunAt: null,
          checkedThrough: monitor.checkedThrough,
          completed: true,
          ran: false,
        });
      }
    }
    // Sent on commit (channels.ts): the workers never look before the checks are visible.
    if (runs) await wake(tx, CHECKS_CHANNEL);
    return { handled: monitors.length, runs };
  });
}
