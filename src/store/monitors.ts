/**
 * The `monitors` table outside the scheduler: creating, listing, reading, pausing and deleting a monitor,
 * and a monitor's latest runs (its checks). The scheduler's claim and run statements are in
 * src/store/queue/claim-monitors.ts; statements are typed as described in typed.ts.
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
import { checks, monitors } from './schema.ts';
import { columns, joinColumns, type RowOf, sqlOf } from './typed.ts';

/** Every column but the Idempotency-Key and body hash (read only to settle a create), by drizzle key. */
export const MONITOR_COLUMNS = columns(monitors, [
  'id',
  'organizationId',
  'status',
  'tradingPartnerServiceId',
  'request',
  'everyDays',
  'dates',
  'checkedThrough',
  'nextRunAt',
  'lastRunAt',
  'runs',
  'requestCorrections',
  'createdAt',
]);

/** A monitor as read. */
export type MonitorRow = RowOf<typeof MONITOR_COLUMNS>;

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
const INSERT = sqlOf`INSERT INTO ${monitors} (${monitors.id}, ${monitors.organizationId}, ${monitors.tradingPartnerServiceId}, ${monitors.request}, ${monitors.everyDays}, ${monitors.dates}, ${monitors.nextRunAt},
                           ${monitors.createdAt}, ${monitors.idempotencyKey}, ${monitors.requestHash}, ${monitors.requestCorrections})
     SELECT $1, $2, $3, $4, $5, $6, $7, $9, $10, $11, $12::jsonb
      WHERE (SELECT count(*) FROM ${monitors} WHERE ${monitors.organizationId} = $2) < $8
     ON CONFLICT (${monitors.organizationId}, ${monitors.idempotencyKey}) DO NOTHING`;

export async function insertMonitor(db: Db, monitor: NewMonitor, limit: number): Promise<boolean> {
  // The count and the insert under one lock per organization: without it, concurrent creates (READ
  // COMMITTED) each count the rows committed before they began and all pass a cap of a few slots.
  return db.transaction(async (tx) => {
    await lockForTransaction(tx, 'monitors.cap', monitor.organizationId);
    return insertUnderCap(tx, monitor, limit);
  });
}

async function insertUnderCap(db: Queryable, monitor: NewMonitor, limit: number): Promise<boolean> {
  const { rowCount } = await db.query(INSERT, [
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
  ]);
  return rowCount === 1;
}

const idempotencyKeys = idempotencyKeyStatements(
  monitors,
  joinColumns(MONITOR_COLUMNS, columns(monitors, ['requestHash'])),
);
/** The monitor holding an Idempotency-Key, and whether the key is older than `windowMs`. */
export const findMonitorByIdempotencyKey = idempotencyKeys.findHolder;
/** Frees an expired Idempotency-Key for reuse (unless another request freed it already). */
export const releaseMonitorIdempotencyKey = idempotencyKeys.release;

/** A monitor of an organization (another organization's reads as absent). */
export const findMonitor = ownedRowLookup(monitors, MONITOR_COLUMNS);

/** Up to `limit` monitors of an organization, newest first, older than the cursor `before` (an id). */
export const selectMonitorPage = organizationPageLookup(monitors, MONITOR_COLUMNS);

const RUN = columns(checks, ['id', 'status', 'verdict', 'createdAt']);
export type MonitorRunRow = RowOf<typeof RUN> & { dateOfService: string | null };
const SELECT_RUNS = sqlOf`SELECT ${RUN},
            ${checks.request}->'encounter'->>'dateOfService' AS "dateOfService"
       FROM ${checks} WHERE ${checks.monitorId} = $1 ORDER BY ${checks.id} DESC LIMIT $2`;

/** The latest `limit` checks of a monitor, newest first (ids are time-ordered). */
export async function selectMonitorRuns(
  db: Queryable,
  monitorId: string,
  limit: number,
): Promise<MonitorRunRow[]> {
  const { rows } = await db.query<MonitorRunRow>(SELECT_RUNS, [monitorId, limit]);
  return rows;
}

const UPDATE_STATUS = sqlOf`UPDATE ${monitors} SET ${monitors.status} = $3 WHERE ${monitors.id} = $1 AND ${monitors.organizationId} = $2 AND ${monitors.status} <> 'completed'
      RETURNING ${MONITOR_COLUMNS}`;

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
) => firstRow<MonitorRow>(db, UPDATE_STATUS, [id, organizationId, status]);

/**
 * Deletes a monitor (and with it the PHI it holds); its checks stay, no longer linked (ON DELETE SET NULL).
 * False when it is not the organization's. A run being created at the same moment holds the row locked:
 * the delete waits for it, so the check of that run exists and is unlinked too.
 */
const DELETE = sqlOf`DELETE FROM ${monitors} WHERE ${monitors.id} = $1 AND ${monitors.organizationId} = $2`;

export async function deleteMonitor(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(DELETE, [id, organizationId]);
  return rowCount === 1;
}
