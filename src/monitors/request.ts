/**
 * Validating a monitor body (contract/monitor.ts): the check fields go through the intake of a single
 * submit (src/checks/intake.ts: same repairs, same messages, the payer's canonical id), and the schedule is
 * checked here. Every problem is reported at once, and no submitted value is echoed (it may be PHI).
 */

import { type PayerLookup, takeIn } from '../checks/intake.ts';
import { type FieldProblem, parseDate8 } from '../checks/request.ts';
import { zonedDate8 } from '../checks/zoned-dates.ts';
import type { EligibilityCheckRequest } from '../contract/check-request.ts';
import type { RequestCorrection } from '../contract/check-response.ts';
import { MAX_MONITOR_DATES, MAX_MONITOR_EVERY_DAYS } from '../contract/monitor.ts';

export type MonitorSchedule = { everyDays: number } | { dates: string[] };

export type ValidatedMonitor =
  | {
      ok: true;
      request: EligibilityCheckRequest;
      schedule: MonitorSchedule;
      /** The repairs made to the check fields (empty: none), as a submit reports them. */
      corrections: RequestCorrection[];
    }
  | { ok: false; problems: FieldProblem[] };

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `every`: a whole number of days in range. */
function everyProblem(every: unknown): FieldProblem | undefined {
  if (typeof every === 'number' && Number.isInteger(every) && every >= 1 && every <= MAX_MONITOR_EVERY_DAYS) {
    return undefined;
  }
  return {
    field: 'every',
    problem: `must be a whole number of days from 1 to ${MAX_MONITOR_EVERY_DAYS}, e.g. 30`,
  };
}

/** `dates`: real appointment dates, today or later, as YYYYMMDD (ascending, each once); or the problems. */
function readDates(dates: unknown, today: string): { dates: string[] } | { problems: FieldProblem[] } {
  if (!Array.isArray(dates) || dates.length < 1 || dates.length > MAX_MONITOR_DATES) {
    return {
      problems: [
        {
          field: 'dates',
          problem: `must be a list of 1 to ${MAX_MONITOR_DATES} appointment dates, e.g. ["20260301"] or ["2026-03-01"]`,
        },
      ],
    };
  }
  const problems: FieldProblem[] = [];
  const read = new Set<string>();
  dates.forEach((value, i) => {
    const field = `dates[${i}]`;
    const text = typeof value === 'string' ? value.replace(/^(\d{4})-(\d{2})-(\d{2})$/, '$1$2$3') : '';
    if (!/^\d{8}$/.test(text)) {
      problems.push({ field, problem: 'must be a date written YYYYMMDD or YYYY-MM-DD, e.g. 20260301' });
    } else if (!parseDate8(text)) {
      problems.push({ field, problem: 'is not a real date: write it YYYYMMDD, e.g. 20260301' });
    } else if (text < today) {
      problems.push({ field, problem: 'is in the past: a monitor checks appointments from today on' });
    } else if (text > '20991231') {
      problems.push({ field, problem: 'must be no later than 20991231' });
    } else {
      read.add(text);
    }
  });
  return problems.length ? { problems: problems.slice(0, 3) } : { dates: [...read].sort() };
}

export function validateMonitorRequest(
  body: unknown,
  options: {
    now: Date;
    /** The payer directory (the intake's canonical ids and member id rules). */
    payers?: PayerLookup;
    /** The zone whose today the dates are checked against (scheduleZone()); default UTC. */
    zone?: string;
  },
): ValidatedMonitor {
  if (!isRecord(body)) return { ok: false, problems: [{ field: 'body', problem: 'must be a JSON object' }] };
  const { every, dates, ...check } = body;
  const problems: FieldProblem[] = [];
  const encounter = check.encounter;
  if (isRecord(encounter) && 'dateOfService' in encounter) {
    problems.push({
      field: 'encounter.dateOfService',
      problem:
        'is set by the schedule: leave it out (an `every` monitor checks the day it runs, a `dates` monitor each appointment date)',
    });
  }
  if (isRecord(encounter) && 'charges' in encounter) {
    problems.push({
      field: 'encounter.charges',
      problem:
        'is not taken by a monitor: ask for an estimate on a finished run (POST /api/eligibility/{id}/estimate)',
    });
  }
  // A monitor's runs always ask the payer: a reuse window has no meaning here.
  const taken = takeIn(check, { payers: options.payers, now: options.now, allowReuse: false });
  if (!taken.ok) problems.push(...taken.problems);
  let schedule: MonitorSchedule | undefined;
  if (every !== undefined && dates !== undefined) {
    problems.push({ field: 'body', problem: 'must have either every or dates, not both' });
  } else if (every !== undefined) {
    const problem = everyProblem(every);
    if (problem) problems.push(problem);
    else schedule = { everyDays: every as number };
  } else if (dates !== undefined) {
    const read = readDates(dates, zonedDate8(options.now, options.zone ?? 'UTC'));
    if ('problems' in read) problems.push(...read.problems);
    else schedule = read;
  } else {
    problems.push({
      field: 'body',
      problem: 'needs a schedule: every (days, e.g. 30) or dates (appointment dates, e.g. ["20260301"])',
    });
  }
  if (problems.length || !schedule || !taken.ok) return { ok: false, problems };
  return { ok: true, request: taken.request, schedule, corrections: taken.corrections };
}
