/**
 * "The day before" in the organization's time zone: the schedule's arithmetic (pure, at fixed instants, in
 * zones 14 and 11 hours either side of UTC and across daylight-saving changes), then a monitor created and
 * re-planned by the scheduler with the zone read from the organization.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { scheduleZone, startOfDay } from '../../src/checks/zoned-dates.ts';
import { createMonitor } from '../../src/monitors/monitors.ts';
import { validateMonitorRequest } from '../../src/monitors/request.ts';
import { runDueMonitors } from '../../src/monitors/runs.ts';
import { planRun, runTimeOf } from '../../src/monitors/schedule.ts';
import { updateTimeZone } from '../../src/store/organizations.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { dayFromToday, monitorBody } from '../helpers/monitors.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const KIRITIMATI = 'Pacific/Kiritimati'; // UTC+14 all year
const PAGO_PAGO = 'Pacific/Pago_Pago'; // UTC-11 all year
const at = (iso: string) => new Date(iso);
/** 00:00 UTC of a YYYYMMDD day, in ms. */
const utcMidnight = (d: string) => Date.UTC(+d.slice(0, 4), +d.slice(4, 6) - 1, +d.slice(6, 8));

test('the run is due at 00:00 the day before in the zone, 14 hours either side of UTC', () => {
  assert.equal(runTimeOf('20260110').toISOString(), '2026-01-09T00:00:00.000Z');
  assert.equal(runTimeOf('20260110', 'UTC').toISOString(), '2026-01-09T00:00:00.000Z');
  assert.equal(runTimeOf('20260110', KIRITIMATI).toISOString(), '2026-01-08T10:00:00.000Z');
  assert.equal(runTimeOf('20260110', PAGO_PAGO).toISOString(), '2026-01-09T11:00:00.000Z');
  assert.equal(runTimeOf('20260110', 'Asia/Kolkata').toISOString(), '2026-01-08T18:30:00.000Z');
  // Across a month and a year end.
  assert.equal(runTimeOf('20270101', KIRITIMATI).toISOString(), '2026-12-30T10:00:00.000Z');
  assert.equal(runTimeOf('20260301', PAGO_PAGO).toISOString(), '2026-02-28T11:00:00.000Z');
});

test('daylight saving: the offset of the day itself, and a skipped midnight starts the day when the clock jumps', () => {
  // New York: EDT from 8 March 2026, EST from 1 November 2026.
  assert.equal(runTimeOf('20260310', 'America/New_York').toISOString(), '2026-03-09T04:00:00.000Z');
  assert.equal(runTimeOf('20260306', 'America/New_York').toISOString(), '2026-03-05T05:00:00.000Z');
  assert.equal(runTimeOf('20261103', 'America/New_York').toISOString(), '2026-11-02T05:00:00.000Z');
  // Beirut jumps from 00:00 to 01:00 on 29 March 2026 (UTC+2 to +3): the day starts at 01:00, 22:00 UTC.
  assert.equal(startOfDay('20260329', 'Asia/Beirut').toISOString(), '2026-03-28T22:00:00.000Z');
  // Santiago jumps from 00:00 to 01:00 on 6 September 2026 (UTC-4 to -3): the day starts at 04:00 UTC.
  assert.equal(startOfDay('20260906', 'America/Santiago').toISOString(), '2026-09-06T04:00:00.000Z');
  assert.equal(startOfDay('20260905', 'America/Santiago').toISOString(), '2026-09-05T04:00:00.000Z');
});

test('an unknown or unset zone schedules in UTC', () => {
  assert.equal(scheduleZone(null), 'UTC');
  assert.equal(scheduleZone(undefined), 'UTC');
  assert.equal(scheduleZone('Mars/Olympus_Mons'), 'UTC');
  assert.equal(scheduleZone(KIRITIMATI), KIRITIMATI);
});

test("'today' is the zone's: an appointment whose day has begun there is skipped, and refused at creation", () => {
  const m = { everyDays: null, dates: ['20260110', '20260112'], checkedThrough: null, nextRunAt: null };
  // 11:00 UTC on 10 January is 01:00 on 11 January in Kiritimati: the 10th is past there, not in UTC.
  const now = at('2026-01-10T11:00:00Z');
  const utc = planRun(m, now, 'UTC');
  assert.equal(utc.kind === 'run' && utc.dateOfService, '20260110');
  const there = planRun(m, now, KIRITIMATI);
  assert.equal(there.kind, 'run');
  assert.equal(there.kind === 'run' && there.dateOfService, '20260112', 'the 10th is skipped');
  // The 12th's run in Pago Pago is not due yet (00:00 on the 11th there is 11:00 UTC on the 11th).
  assert.deepEqual(planRun({ ...m, checkedThrough: '20260110' }, now, PAGO_PAGO), {
    kind: 'wait',
    nextRunAt: at('2026-01-11T11:00:00Z'),
  });

  const body = monitorBody({ dates: ['20260110'] });
  assert.ok(validateMonitorRequest(body, { now, zone: 'UTC' }).ok, 'today in UTC');
  assert.ok(validateMonitorRequest(body, { now, zone: PAGO_PAGO }).ok, 'still the 10th in Pago Pago');
  const refused = validateMonitorRequest(body, { now, zone: KIRITIMATI });
  assert.equal(refused.ok, false);
  assert.deepEqual(!refused.ok && refused.problems, [
    { field: 'dates[0]', problem: 'is in the past: a monitor checks appointments from today on' },
  ]);
});

let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

test("a monitor's runs are due in its organization's zone, and the scheduler re-plans with the zone it has now", async () => {
  const db = svc.service.store.db;
  const org = await createOrganization(db, 'Kiritimati Clinic');
  await updateTimeZone(db, org.id, KIRITIMATI);
  const date = dayFromToday(10);
  const created = await createMonitor(db, org.id, monitorBody({ dates: [date] }), { maxPerOrganization: 10 });
  assert.ok(created.ok);
  assert.equal(Date.parse(created.monitor.nextRunAt!), utcMidnight(date) - DAY_MS - 14 * HOUR_MS);

  // An organization without a zone: 00:00 UTC, as before.
  const plain = await createMonitor(db, svc.organizationId, monitorBody({ dates: [date] }), {
    maxPerOrganization: 10,
  });
  assert.ok(plain.ok);
  assert.equal(Date.parse(plain.monitor.nextRunAt!), utcMidnight(date) - DAY_MS);

  // The organization moves to Pago Pago; when the old due time comes, the run waits for 00:00 there.
  await updateTimeZone(db, org.id, PAGO_PAGO);
  await db.query("UPDATE monitors SET next_run_at = now() - interval '1 minute' WHERE id = $1", [
    created.monitor.id,
  ]);
  await runDueMonitors(db);
  const { rows } = await db.query<{ nextRunAt: Date; runs: number; checks: number }>(
    `SELECT next_run_at AS "nextRunAt", runs, (SELECT count(*)::int FROM checks WHERE monitor_id = m.id) AS checks
       FROM monitors m WHERE id = $1`,
    [created.monitor.id],
  );
  assert.equal(new Date(rows[0]!.nextRunAt).getTime(), utcMidnight(date) - DAY_MS + 11 * HOUR_MS);
  assert.equal(rows[0]!.runs, 0);
  assert.equal(rows[0]!.checks, 0, 'no check before its time in the new zone');
});
