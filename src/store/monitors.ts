/**
 * The `monitors` table outside the scheduler: creating, listing, reading, pausing and deleting a monitor,
 * and a monitor's latest runs (its checks). The scheduler's claim and run statements are in
 * src/store/queue/claim-monitors.ts; row typing as described at the top of organizations.ts.
 */
import { lockForTransaction } from './advisory-lock.ts';
import {
  type Db,
  firstRow,
  idempotencyKeyStatements,
  organizationPageLookup,
  ownedRowLookup,
  type Queryable,
} from './db.ts';
import type { checks, monitors } from './schema.ts';

/** A monitor as read (its Idempotency-Key and body hash are read only to settle a create). */
export type MonitorRow = Omit<typeof monitors.$inferSelect, 'idempotencyKey' | 'requestHash'>;
type CheckRow = typeof checks.$inferSelect;

/** Every column, aliased to its drizzle key. */
export const MONITOR_COLUMNS = `id, organization_id AS "organizationId", status,
  trading_partner_service_id AS "tradingPartnerServiceId", request, every_days AS "everyDays", dates,
  checked_through AS "checkedThrough", next_run_at AS "nextRunAt", last_run_at AS "lastRunAt", runs,
  request_corrections AS "requestCorrections", created_at AS "createdAt"`;

/** What a monitor's runs are made from: whose it is, the check it repeats, and when it is due. */
export type MonitorPlan = Pick<
  MonitorRow,
  | 'id'
  | 'organizationId'
  | 'tradingPartnerServiceId'
  | 'request'
  | 'everyDays'
  | 'dates'
  | 'nextRunAt'
  | 'requestCorrections'
>;

export type NewMonitor = MonitorPlan &
  Pick<MonitorRow, 'createdAt'> & { idempotencyKey: string | null; requestHash: string | null };

/**
 * Inserts an active monitor unless the organization already has `limit` monitors or (with an Idempotency-Key)
 * already has a monitor with that key; false (nothing written) then. The count and the insert run in one
 * transaction holding the organization's `monitors.cap` advisory lock (advisory-lock.ts), so the limit is
 * exact under concurrent creates in any number of processes (issue 26). The unique index decides races on
 * the key.
 */
export async function insertMonitor(db: Db, monitor: NewMonitor, limit: number): Promise<boolean> {
  // The count and the insert under one lock per organization: without it, concurrent creates (READ
  // COMMITTED) each count the rows committed before they began and all pass a cap of a few slots.
  return db.transaction(async (tx) => {
    await lockForTransaction(tx, 'monitors.cap', monitor.organizationId);
    return insertUnderCap(tx, monitor, limit);
  });
}

async function insertUnderCap(db: Queryable, monitor: NewMonitor, limit: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO monitors (id, organization_id, trading_partner_service_id, request, every_days, dates, next_run_at,
                           created_at, idempotency_key, request_hash, request_corrections)
     SELECT $1, $2, $3, $4, $5, $6, $7, $9, $10, $11, $12::jsonb
      WHERE (SELECT count(*) FROM monitors WHERE organization_id = $2) < $8
     ON CONFLICT (organization_id, idempotency_key) DO NOTHING`,
    [
      monitor.id,
      monitor.organizationId,
      monitor.tradingPartnerServiceId,
      monitor.request,
      monitor.everyDays,
      monitor.dates,
      monitor.nextRunAt,
      limit,
      monitor.createdAt,
      monitor.idempotencyKey,
      monitor.requestHash,
      // As JSON text: the drivers would send a JS array as a PostgreSQL array.
      monitor.requestCorrections == null ? null : JSON.stringify(monitor.requestCorrections),
    ],
  );
  return rowCount === 1;
}

const idempotencyKeys = idempotencyKeyStatements<MonitorRow & { requestHash: string | null }>(
  'monitors',
  `${MONITOR_COLUMNS}, request_hash AS "requestHash"`,
);
/** The monitor holding an Idempotency-Key, and whether the key is older than `windowMs`. */
export const findMonitorByIdempotencyKey = idempotencyKeys.findHolder;
/** Frees an expired Idempotency-Key for reuse (unless another request freed it already). */
export const releaseMonitorIdempotencyKey = idempotencyKeys.release;

/** A monitor of an organization (another organization's reads as absent). */
export const findMonitor = ownedRowLookup<MonitorRow>('monitors', MONITOR_COLUMNS);

/** Up to `limit` monitors of an organization, newest first, older than the cursor `before` (an id). */
export const selectMonitorPage = organizationPageLookup<MonitorRow>('monitors', MONITOR_COLUMNS);

export type MonitorRunRow = Pick<CheckRow, 'id' | 'status' | 'verdict' | 'createdAt'> & {
  dateOfService: string | null;
};

/** The latest `limit` checks of a monitor, newest first (ids are time-ordered). */
export async function selectMonitorRuns(
  db: Queryable,
  monitorId: string,
  limit: number,
): Promise<MonitorRunRow[]> {
  const { rows } = await db.query<MonitorRunRow>(
    `SELECT id, status, verdict, created_at AS "createdAt",
            request->'encounter'->>'dateOfService' AS "dateOfService"
       FROM checks WHERE monitor_id = $1 ORDER BY id DESC LIMIT $2`,
    [monitorId, limit],
  );
  return rows;
}

/**
 * Pauses an active monitor or makes a paused one active again; a completed monitor is left as it is. Its
 * `next_run_at` stays: a monitor resumed after its due time runs once at the next poll (a missed run runs
 * once, see claim-monitors.ts). Returns the row as it now is; undefined when there is no such monitor of
 * the organization that is not completed.
 */
export const updateMonitorStatus = (
  db: Queryable,
  organizationId: string,
  id: string,
  status: 'active' | 'paused',
) =>
  firstRow<MonitorRow>(
    db,
    `UPDATE monitors SET status = $3 WHERE id = $1 AND organization_id = $2 AND status <> 'completed'
      RETURNING ${MONITOR_COLUMNS}`,
    [id, organizationId, status],
  );

/**
 * Deletes a monitor (and with it the PHI it holds); its checks stay, no longer linked (ON DELETE SET NULL).
 * False when it is not the organization's. A run being created at the same moment holds the row locked:
 * the delete waits for it, so the check of that run exists and is unlinked too.
 */
export async function deleteMonitor(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM monitors WHERE id = $1 AND organization_id = $2', [
    id,
    organizationId,
  ]);
  return rowCount === 1;
}
