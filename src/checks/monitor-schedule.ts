/**
 * When a monitor runs (pure: a monitor and the time in, a plan out). The scheduler asks this inside the
 * transaction that holds the monitor row (src/checks/monitor-runs.ts), with the database's clock.
 *
 * - `every` N days: the first run at creation, then every N days from the first one. A run missed while no
 *   worker was running (downtime, a long pause) runs once, and the next falls on the schedule after now:
 *   never one run per missed period.
 * - `dates`: each appointment is checked once, with that date of service, from 00:00 the day before in the
 *   organization's time zone (organizations.time_zone, UTC when unset), so the front desk has the answer
 *   the day before the visit, whatever side of UTC it is on. An appointment already in the past (in that
 *   zone) when its run comes (the service was down, the monitor paused) is skipped: checking it helps no one.
 */

const DAY_MS = 86_400_000;

/** YYYYMMDD of the UTC day of `t`. */
export function utcDate8(t: Date): string {
  return t.toISOString().slice(0, 10).replaceAll('-', '');
}

/**
 * The zone monitors of an organization are scheduled in: its own (an IANA name, set in the portal) when it
 * is one this runtime knows, else UTC (unset, or a name a newer or older tz database does not have: a
 * monitor must still run).
 */
export function scheduleZone(timeZone: string | null | undefined): string {
  if (!timeZone) return 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return timeZone;
  } catch {
    return 'UTC';
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock fields of `t` in `zone` (a 24-hour clock). */
function wallClock(t: Date, zone: string) {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  const part = (type: string) => Number(format.formatToParts(t).find((p) => p.type === type)?.value);
  return {
    year: part('year'),
    month: part('month'),
    day: part('day'),
    hour: part('hour'),
    minute: part('minute'),
    second: part('second'),
  };
}

/** How far `zone`'s wall clock is ahead of UTC at `t`, in ms (negative west of Greenwich). */
function zoneOffset(t: Date, zone: string): number {
  const w = wallClock(t, zone);
  const wall = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return wall - Math.floor(t.getTime() / 1000) * 1000;
}

/** YYYYMMDD of the day `t` falls on in `zone`. */
export function zonedDate8(t: Date, zone: string): string {
  const w = wallClock(t, zone);
  return `${w.year}${String(w.month).padStart(2, '0')}${String(w.day).padStart(2, '0')}`;
}

/**
 * The first instant of the day `date` (YYYYMMDD) in `zone`: 00:00 there, or (where a daylight-saving
 * change skips midnight) the first wall-clock time that exists that day.
 */
export function startOfDay(date: string, zone: string): Date {
  const midnight = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(4, 6)) - 1, Number(date.slice(6, 8)));
  // The offset at the guess, then at the result: the second pass settles a change of offset in between.
  let t = midnight - zoneOffset(new Date(midnight), zone);
  t = midnight - zoneOffset(new Date(t), zone);
  // A skipped midnight (west of Greenwich) lands the second pass an hour early, on the day before, where the
  // offset is still the old one: with it, the result is the instant the clock jumps, the day's first.
  if (zonedDate8(new Date(t), zone) < date) t = midnight - zoneOffset(new Date(t), zone);
  return new Date(t);
}

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
