/**
 * The scheduler's statements (src/monitors/runs.ts runs them in ONE transaction): lock the due
 * monitors, create each run's check, advance each monitor.
 *
 * Why a run happens once across several worker processes: `claimDueMonitors` locks the due rows with
 * FOR UPDATE SKIP LOCKED, so two schedulers never hold the same monitor, and the check of a run is
 * inserted and `next_run_at` advanced in the transaction that holds the lock. A scheduler that reaches a
 * row just after another committed re-reads it under the lock (PostgreSQL re-evaluates the WHERE on the
 * newest row version) and finds it no longer due. A scheduler that crashes mid-transaction rolls back both
 * the check and the advance: the run is still due, and happens once, later. There is no lease to expire.
 */
import type { Queryable } from '../db.ts';
import type { MonitorPlan, MonitorRow } from '../monitors.ts';

export type ClaimedMonitor = {
  /** The organization's time zone (null: UTC), which a `dates` monitor's "day before" is in. */
  timeZone: string | null;
} & MonitorPlan &
  Pick<MonitorRow, 'checkedThrough'>;

/**
 * Locks up to `limit` due active monitors (oldest due first) until the caller's transaction ends, with the
 * database's clock (one clock for every process). Monitors of an organization whose eligibility checks are
 * turned off stay due: they run once when it is turned on again.
 */
export async function claimDueMonitors(
  tx: Queryable,
  limit: number,
): Promise<{ now: Date; monitors: ClaimedMonitor[] }> {
  const { rows } = await tx.query<ClaimedMonitor & { now: Date }>(
    `SELECT m.id, m.organization_id AS "organizationId", m.trading_partner_service_id AS "tradingPartnerServiceId",
            m.request, m.every_days AS "everyDays", m.dates, m.checked_through AS "checkedThrough",
            m.next_run_at AS "nextRunAt", m.request_corrections AS "requestCorrections",
            o.time_zone AS "timeZone", now() AS now
       FROM monitors m JOIN organizations o ON o.id = m.organization_id
      WHERE m.status = 'active' AND m.next_run_at <= now() AND o.eligibility_enabled
      ORDER BY m.next_run_at
      LIMIT $1
      FOR UPDATE OF m SKIP LOCKED`,
    [limit],
  );
  if (rows.length === 0) {
    const clock = await tx.query<{ now: Date }>('SELECT now() AS now');
    return { now: clock.rows[0]!.now, monitors: [] };
  }
  return { now: rows[0]!.now, monitors: rows.map(({ now: _now, ...m }) => m) };
}

/**
 * A run's check: an ordinary check, IN_PROGRESS and due now, at background priority (no one is waiting for
 * it, so interactive checks go first, as for batch items; see claim.ts), linked to its monitor.
 */
export async function insertMonitorRunCheck(
  tx: Queryable,
  check: {
    id: string;
    organizationId: string;
    tradingPartnerServiceId: string;
    /** The payer's first connection ('' without one): see checks.connection. */
    connection?: string;
    request: unknown;
    monitorId: string;
    /** The monitor's repairs at creation (as stored: a jsonb array, or null). */
    requestCorrections: unknown;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO checks (id, organization_id, status, trading_partner_service_id, request, priority, monitor_id,
                         request_corrections, connection)
     VALUES ($1, $2, 'IN_PROGRESS', $3, $4, 1, $5, $6::jsonb, $7)`,
    [
      check.id,
      check.organizationId,
      check.tradingPartnerServiceId,
      check.request,
      check.monitorId,
      // As JSON text: the drivers would send a JS array as a PostgreSQL array.
      check.requestCorrections == null ? null : JSON.stringify(check.requestCorrections),
      check.connection ?? '',
    ],
  );
}

/** Moves a claimed monitor on: its next due time and state, and (when it ran) its run count. */
export async function advanceMonitor(
  tx: Queryable,
  id: string,
  next: { nextRunAt: Date | null; checkedThrough: string | null; completed: boolean; ran: boolean },
): Promise<void> {
  await tx.query(
    `UPDATE monitors
        SET next_run_at = $2, checked_through = $3,
            status = CASE WHEN $4::boolean THEN 'completed' ELSE status END,
            runs = runs + CASE WHEN $5::boolean THEN 1 ELSE 0 END,
            last_run_at = CASE WHEN $5::boolean THEN now() ELSE last_run_at END
      WHERE id = $1`,
    [id, next.nextRunAt, next.checkedThrough, next.completed, next.ran],
  );
}

/**
 * Milliseconds until the next active monitor becomes due; undefined when none will. Monitors already due
 * but not claimed (their organization's checks are off) do not count: they would keep the scheduler awake.
 */
export async function nextMonitorDueIn(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ ms: number | null }>(
    `SELECT extract(epoch FROM (min(next_run_at) - now())) * 1000 AS ms FROM monitors WHERE status = 'active' AND next_run_at > now()`,
  );
  const ms = rows[0]?.ms;
  return ms === null || ms === undefined ? undefined : Math.max(0, Number(ms));
}
