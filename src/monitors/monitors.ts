/**
 * Monitors (issue 17 section 3) as the API and the portal use them: creating one from a validated body,
 * listing, reading with its latest runs, pausing, resuming and deleting. Always scoped by organization:
 * another organization's monitor reads as absent. The runs themselves are created by the scheduler
 * (runs.ts).
 */

import { IDEMPOTENCY_WINDOW_MS, insertIdempotently, requestHash } from '../checks/idempotency.ts';
import type { PayerLookup } from '../checks/intake.ts';
import { type FieldProblem, formatProblems } from '../checks/request.ts';
import { scheduleZone } from '../checks/zoned-dates.ts';
import type { CheckStatus, VerdictStatus } from '../contract/check-response.ts';
import type { Monitor, MonitorDetail, MonitorPage, MonitorStatus } from '../contract/monitor.ts';
import { uuidv7 } from '../ids.ts';
import { MONITORS_CHANNEL, wake } from '../store/channels.ts';
import type { Db, OwnedLookup, Queryable } from '../store/db.ts';
import {
  deleteMonitor,
  findMonitor,
  findMonitorByIdempotencyKey,
  insertMonitor,
  type MonitorRow,
  releaseMonitorIdempotencyKey,
  selectMonitorPage,
  selectMonitorRuns,
  updateMonitorStatus,
} from '../store/monitors.ts';
import { findTimeZone } from '../store/organizations.ts';
import { validateMonitorRequest } from './request.ts';
import { firstRunAt } from './schedule.ts';

export const MONITOR_ID_PATTERN = /^mon_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** How many of its latest runs a monitor is read with. */
export const MONITOR_RUNS_SHOWN = 20;

export type CreateMonitorResult =
  | { ok: true; monitor: Monitor; replayed: boolean }
  | { ok: false; problems: FieldProblem[]; message: string }
  | { ok: false; overLimit: number }
  | { ok: false; conflict: string };

export interface CreateMonitorOptions {
  /** MONITOR_MAX_PER_ORGANIZATION. */
  maxPerOrganization: number;
  /** The payer directory (the intake's canonical ids and member id rules). */
  payers?: PayerLookup;
  /** The Idempotency-Key header, as for a submit (idempotency.ts). */
  idempotencyKey?: string;
  now?: Date;
}

export async function createMonitor(
  db: Db,
  organizationId: string,
  body: unknown,
  options: CreateMonitorOptions,
): Promise<CreateMonitorResult> {
  const now = options.now ?? new Date();
  // "Today" and "the day before" are the organization's (UTC when it has not set a zone).
  const zone = scheduleZone((await findTimeZone(db, organizationId))?.timeZone);
  const valid = validateMonitorRequest(body, { now, zone, payers: options.payers });
  if (!valid.ok) return { ok: false, problems: valid.problems, message: formatProblems(valid.problems) };
  const request = valid.request;
  const key = options.idempotencyKey ?? null;
  const hash = key === null ? null : requestHash(body);
  // Without its id: each insert attempt takes a fresh one (after a released key, it is a new monitor).
  const row = {
    organizationId,
    tradingPartnerServiceId: request.tradingPartnerServiceId,
    request,
    everyDays: 'everyDays' in valid.schedule ? valid.schedule.everyDays : null,
    dates: 'dates' in valid.schedule ? valid.schedule.dates : null,
    nextRunAt: firstRunAt(valid.schedule, now, zone),
    // Kept for the runs: each run's check carries them (its REQUEST_CORRECTED warning).
    requestCorrections: valid.corrections.length ? valid.corrections : null,
    // The time the answer shows is the one stored.
    createdAt: now,
  };
  /** The new monitor; 'overLimit' at the limit; undefined when the key is taken (nothing written). */
  const insert = async (): Promise<Monitor | 'overLimit' | undefined> => {
    const fresh = { ...row, id: `mon_${uuidv7(now.getTime())}` };
    if (
      await insertMonitor(
        db,
        { ...fresh, idempotencyKey: key, requestHash: hash },
        options.maxPerOrganization,
      )
    ) {
      // The first run may be due now: the scheduler need not wait for its next poll.
      await wake(db, MONITORS_CHANNEL);
      return monitorOf({ ...fresh, status: 'active', checkedThrough: null, lastRunAt: null, runs: 0 });
    }
    // Refused for the key or for the limit: only a taken key has a holder.
    if (key !== null && (await findMonitorByIdempotencyKey(db, organizationId, key, IDEMPOTENCY_WINDOW_MS))) {
      return undefined;
    }
    return 'overLimit';
  };
  if (key === null || hash === null) {
    const monitor = await insert();
    return monitor === undefined || monitor === 'overLimit'
      ? { ok: false, overLimit: options.maxPerOrganization }
      : { ok: true, monitor, replayed: false };
  }
  const settled = await insertIdempotently(hash, {
    insert,
    holder: () => findMonitorByIdempotencyKey(db, organizationId, key, IDEMPOTENCY_WINDOW_MS),
    release: (holder) => releaseMonitorIdempotencyKey(db, holder.id, key),
    // The monitor as it is now (it may have run, or been paused, since it was created).
    replay: async (holder) => monitorOf(holder),
  });
  if (!settled.ok) return settled;
  if (settled.value === 'overLimit') return { ok: false, overLimit: options.maxPerOrganization };
  return { ok: true, monitor: settled.value, replayed: settled.replayed };
}

/** The monitor as the API shows it. */
export function monitorOf(row: MonitorRow): Monitor {
  const request = row.request;
  return {
    id: row.id,
    status: row.status as MonitorStatus,
    tradingPartnerServiceId: row.tradingPartnerServiceId,
    provider: request.provider,
    subscriber: request.subscriber,
    ...(request.encounter?.serviceTypeCodes
      ? { encounter: { serviceTypeCodes: request.encounter.serviceTypeCodes } }
      : {}),
    every: row.everyDays,
    dates: row.dates,
    ...(Array.isArray(row.requestCorrections) && row.requestCorrections.length
      ? { requestCorrections: row.requestCorrections }
      : {}),
    nextRunAt: row.nextRunAt?.toISOString() ?? null,
    lastRunAt: row.lastRunAt?.toISOString() ?? null,
    runCount: row.runs,
    createdAt: row.createdAt.toISOString(),
  };
}

export const readMonitor: OwnedLookup<MonitorDetail> = async (db, organizationId, id) => {
  if (!MONITOR_ID_PATTERN.test(id)) return undefined;
  const row = await findMonitor(db, organizationId, id);
  if (!row) return undefined;
  const runs = await selectMonitorRuns(db, row.id, MONITOR_RUNS_SHOWN);
  return {
    ...monitorOf(row),
    runs: runs.map((r) => ({
      checkId: r.id,
      status: r.status as CheckStatus,
      verdict: (r.verdict as VerdictStatus | null) ?? null,
      dateOfService: r.dateOfService,
      createdAt: r.createdAt.toISOString(),
    })),
  };
};

/** A page of an organization's monitors, newest first; `after` is the `next` of the previous page. */
export async function listMonitors(
  db: Queryable,
  organizationId: string,
  page: { after?: string; limit: number },
): Promise<MonitorPage> {
  const before = page.after && MONITOR_ID_PATTERN.test(page.after) ? page.after : undefined;
  const rows = await selectMonitorPage(db, organizationId, { before, limit: page.limit + 1 });
  const monitors = rows.slice(0, page.limit).map(monitorOf);
  return { monitors, next: rows.length > page.limit ? monitors.at(-1)!.id : null };
}

export type SetMonitorStatusResult =
  | { ok: true; monitor: Monitor }
  | { ok: false; notFound: true }
  | { ok: false; completed: true };

/** Pauses or resumes a monitor; a completed one cannot change (it has no appointment left). */
export async function setMonitorStatus(
  db: Queryable,
  organizationId: string,
  id: string,
  status: 'active' | 'paused',
): Promise<SetMonitorStatusResult> {
  if (!MONITOR_ID_PATTERN.test(id)) return { ok: false, notFound: true };
  const row = await updateMonitorStatus(db, organizationId, id, status);
  if (row) {
    if (status === 'active') await wake(db, MONITORS_CHANNEL);
    return { ok: true, monitor: monitorOf(row) };
  }
  const existing = await findMonitor(db, organizationId, id);
  return existing ? { ok: false, completed: true } : { ok: false, notFound: true };
}

/** Deletes a monitor; false when the organization has no such monitor. Its past checks stay. */
export async function removeMonitor(db: Queryable, organizationId: string, id: string): Promise<boolean> {
  if (!MONITOR_ID_PATTERN.test(id)) return false;
  return deleteMonitor(db, organizationId, id);
}
