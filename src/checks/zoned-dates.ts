/**
 * Days in a time zone: which day an instant falls on in an organization's zone (organizations.time_zone,
 * UTC when unset) and when that day starts. Monitors schedule by them and the portal's checks list filters
 * by them, so both read "today" the same way.
 */

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
