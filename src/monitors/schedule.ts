/**
 * When a monitor runs (pure: a monitor and the time in, a plan out). The scheduler asks this inside the
 * transaction that holds the monitor row (src/monitors/runs.ts), with the database's clock.
 *
 * - `every` N days: the first run at creation, then every N days from the first one. A run missed while no
 *   worker was running (downtime, a long pause) runs once, and the next falls on the schedule after now:
 *   never one run per missed period.
 * - `dates`: each appointment is checked once, with that date of service, from 00:00 the day before in the
 *   organization's time zone (organizations.time_zone, UTC when unset), so the front desk has the answer
 *   the day before the visit, whatever side of UTC it is on. An appointment already in the past (in that
 *   zone) when its run comes (the service was down, the monitor paused) is skipped: checking it helps no one.
 */
import { startOfDay, utcDate8, zonedDate8 } from '../checks/zoned-dates.ts';

const DAY_MS = 86_400_000;

/** When the run for an appointment on `date` (YYYYMMDD) is due: 00:00 the day before, in `zone`. */
export function runTimeOf(date: string, zone = 'UTC'): Date {
  const day = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8)));
  return startOfDay(utcDate8(new Date(day - DAY_MS)), zone);
}

export interface ScheduledMonitor {
  everyDays: number | null;
  /** YYYYMMDD, ascending. */
  dates: string[] | null;
  checkedThrough: string | null;
  nextRunAt: Date | null;
}

/** What follows a run: when the next one is due, and the monitor's new state. */
export interface AfterRun {
  nextRunAt: Date | null;
  checkedThrough: string | null;
  completed: boolean;
}

export type RunPlan =
  /** Create a check now (with this date of service, for an appointment), then move on as `after` says. */
  | { kind: 'run'; dateOfService?: string; after: AfterRun }
  /** Nothing is due yet (a paused `dates` monitor resumed early): only move `next_run_at`. */
  | { kind: 'wait'; nextRunAt: Date }
  /** No appointment left to check: the monitor is completed without a run. */
  | { kind: 'complete' };

/** The first due time of a new monitor; `zone` as scheduleZone() gives it. */
export function firstRunAt(
  schedule: { everyDays: number } | { dates: string[] },
  now: Date,
  zone = 'UTC',
): Date {
  return 'everyDays' in schedule ? now : runTimeOf(schedule.dates[0]!, zone);
}

/** What to do with a monitor whose `next_run_at` has come, at `now`; `zone` as scheduleZone() gives it. */
export function planRun(monitor: ScheduledMonitor, now: Date, zone = 'UTC'): RunPlan {
  if (monitor.everyDays !== null) {
    const period = monitor.everyDays * DAY_MS;
    const due = (monitor.nextRunAt ?? now).getTime();
    // The first scheduled time after now: one run however many periods were missed.
    const missed = Math.max(0, Math.floor((now.getTime() - due) / period));
    return {
      kind: 'run',
      after: {
        nextRunAt: new Date(due + (missed + 1) * period),
        checkedThrough: monitor.checkedThrough,
        completed: false,
      },
    };
  }
  const today = zonedDate8(now, zone);
  const left = (monitor.dates ?? []).filter(
    (d) => d >= today && (monitor.checkedThrough === null || d > monitor.checkedThrough),
  );
  const [date, ...rest] = left;
  if (date === undefined) return { kind: 'complete' };
  const runAt = runTimeOf(date, zone);
  if (runAt > now) return { kind: 'wait', nextRunAt: runAt };
  return {
    kind: 'run',
    dateOfService: date,
    after: {
      nextRunAt: rest[0] === undefined ? null : runTimeOf(rest[0], zone),
      checkedThrough: date,
      completed: rest.length === 0,
    },
  };
}
