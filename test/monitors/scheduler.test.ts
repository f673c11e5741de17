/**
 * The monitor scheduler: the schedule's rules (pure), each due run created once by two schedulers on one
 * database (two pools on PostgreSQL, like two worker processes), a paused monitor never runs, a run missed
 * during downtime runs once, and monitors survive a restart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { createMonitor, readMonitor, setMonitorStatus } from '../../src/monitors/monitors.ts';
import { runDueMonitors } from '../../src/monitors/runs.ts';
import { planRun, runTimeOf } from '../../src/monitors/schedule.ts';
import { MonitorScheduler } from '../../src/monitors/scheduler.ts';
import { startService } from '../../src/server.ts';
import type { Db } from '../../src/store/db.ts';
import { openStore, type Store } from '../../src/store/open.ts';
import { eventually } from '../helpers/eventually.ts';
import { dayFromToday, monitorBody } from '../helpers/monitors.ts';
import {
  dropTestSchema,
  LogCapture,
  startTestService,
  type TestService,
  testConfig,
} from '../helpers/service.ts';

const DAY_MS = 86_400_000;
let svc: TestService;
before(async () => {
  svc = await startTestService({ roles: { api: true, worker: false } });
});
after(() => svc.stop());

async function newMonitor(schedule: { every: number } | { dates: string[] }, db: Db = svc.service.store.db) {
  const created = await createMonitor(db, svc.organizationId, monitorBody(schedule), {
    maxPerOrganization: 1000,
  });
  assert.ok(created.ok);
  return created.monitor.id;
}

const checksOf = async (id: string, db: Db = svc.service.store.db) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM checks WHERE monitor_id = $1', [id]))
    .rows[0]!.n;

test('every N days: a run missed for ten periods runs once, and the next falls on the schedule after now', () => {
  const due = new Date('2026-01-01T08:00:00Z');
  const now = new Date('2026-01-11T09:30:00Z');
  const plan = planRun({ everyDays: 1, dates: null, checkedThrough: null, nextRunAt: due }, now);
  assert.equal(plan.kind, 'run');
  assert.equal(plan.kind === 'run' && plan.after.nextRunAt?.toISOString(), '2026-01-12T08:00:00.000Z');
  const onTime = planRun({ everyDays: 7, dates: null, checkedThrough: null, nextRunAt: due }, due);
  assert.equal(onTime.kind === 'run' && onTime.after.nextRunAt?.toISOString(), '2026-01-08T08:00:00.000Z');
});

test('dates: from 00:00 UTC the day before; past appointments skipped; waits; completes after the last', () => {
  const dates = ['20260110', '20260120', '20260130'];
  const at = (iso: string) => new Date(iso);
  const m = { everyDays: null, dates, checkedThrough: null, nextRunAt: runTimeOf('20260110') };
  assert.equal(runTimeOf('20260110').toISOString(), '2026-01-09T00:00:00.000Z');
  const first = planRun(m, at('2026-01-09T00:00:01Z'));
  assert.deepEqual(first, {
    kind: 'run',
    dateOfService: '20260110',
    after: { nextRunAt: at('2026-01-19T00:00:00Z'), checkedThrough: '20260110', completed: false },
  });
  // Down (or paused) past the 20th: that appointment is skipped, the 30th is next.
  const late = planRun({ ...m, checkedThrough: '20260110' }, at('2026-01-25T12:00:00Z'));
  assert.deepEqual(late, { kind: 'wait', nextRunAt: at('2026-01-29T00:00:00Z') });
  const last = planRun({ ...m, checkedThrough: '20260120' }, at('2026-01-29T06:00:00Z'));
  assert.deepEqual(last.kind === 'run' && last.after, {
    nextRunAt: null,
    checkedThrough: '20260130',
    completed: true,
  });
  assert.deepEqual(planRun({ ...m, checkedThrough: '20260120' }, at('2026-02-01T00:00:00Z')), {
    kind: 'complete',
  });
});

test('two schedulers on one database (two pools on PostgreSQL): every due monitor runs exactly once', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 24; i++) ids.push(await newMonitor({ every: 1 }));
  // A second store handle: on PostgreSQL its own pool, as another worker process has; PGlite has one.
  let second: Store | undefined;
  if (svc.config.databaseUrl) second = await openStore(svc.config);
  const log = createLogger('silent');
  const schedulers = [svc.service.store.db, second?.db ?? svc.service.store.db].map(
    (db) => new MonitorScheduler({ db, log, pollMs: 20, batchSize: 2 }),
  );
  try {
    await Promise.all(schedulers.map((s) => s.start()));
    // Both keep polling while every monitor is taken and advanced by one of them.
    await eventually(async () => {
      const { rows } = await svc.service.store.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM monitors WHERE id = ANY($1) AND runs = 1',
        [ids],
      );
      return rows[0]!.n === ids.length;
    });
    // More rounds: nothing else is due, so nothing more is created by either.
    await Promise.all(schedulers.map((s) => s.runDue()));
  } finally {
    await Promise.all(schedulers.map((s) => s.stop()));
    await second?.close();
  }
  const { rows } = await svc.service.store.db.query<{ monitorId: string; n: number }>(
    'SELECT monitor_id AS "monitorId", count(*)::int AS n FROM checks WHERE monitor_id = ANY($1) GROUP BY monitor_id',
    [ids],
  );
  assert.equal(rows.length, ids.length, 'every monitor ran');
  assert.deepEqual(
    rows.filter((r) => r.n !== 1),
    [],
    'no monitor ran twice',
  );
});

test('a paused monitor never runs, even long overdue; resumed, it runs once', async () => {
  const db = svc.service.store.db;
  const id = await newMonitor({ every: 2 });
  assert.ok((await setMonitorStatus(db, svc.organizationId, id, 'paused')).ok);
  await db.query(`UPDATE monitors SET next_run_at = now() - interval '9 days' WHERE id = $1`, [id]);
  await runDueMonitors(db);
  assert.equal(await checksOf(id), 0);
  assert.ok((await setMonitorStatus(db, svc.organizationId, id, 'active')).ok);
  await runDueMonitors(db);
  await runDueMonitors(db);
  assert.equal(await checksOf(id), 1, 'one run for all the missed periods');
  const m = await readMonitor(db, svc.organizationId, id);
  const next = Date.parse(m!.nextRunAt!) - Date.now();
  assert.ok(next > 0 && next <= 2 * DAY_MS, `next run within one period from now (${next} ms)`);
});

test('a dates monitor checks each appointment once with its date, then completes', async () => {
  const db = svc.service.store.db;
  const dates = [dayFromToday(0), dayFromToday(1)];
  const id = await newMonitor({ dates });
  // Both appointments' runs are due (their day-before has come): one run each, in date order.
  for (let i = 0; i < 3; i++) await runDueMonitors(db);
  const m = await readMonitor(db, svc.organizationId, id);
  assert.deepEqual(
    m!.runs.map((r) => r.dateOfService),
    [dates[1], dates[0]],
  );
  assert.equal(m!.status, 'completed');
  assert.equal(m!.nextRunAt, null);
  const resumed = await setMonitorStatus(db, svc.organizationId, id, 'active');
  assert.deepEqual(resumed, { ok: false, completed: true });
});

test('monitors survive a restart: a new process on the same store runs the one that came due', async () => {
  const config = testConfig({ monitorPollMs: 50 });
  const options = {
    roles: { api: false, worker: true },
    logDestination: new LogCapture(),
    skipBootstrap: true,
  };
  let service = await startService(config, options);
  try {
    const orgId = (await service.store.db.query<{ id: string }>('SELECT id FROM organizations LIMIT 1'))
      .rows[0]?.id;
    const { createOrganization } = await import('../../src/tenancy/organizations.ts');
    const org = orgId ?? (await createOrganization(service.store.db, 'Restart Clinic')).id;
    const created = await createMonitor(service.store.db, org, monitorBody({ dates: [dayFromToday(30)] }), {
      maxPerOrganization: 10,
    });
    assert.ok(created.ok);
    await service.stop();
    service = await startService(config, options);
    const kept = await readMonitor(service.store.db, org, created.monitor.id);
    assert.equal(kept?.status, 'active');
    assert.equal(kept?.runCount, 0);
    // The appointment moves to tomorrow: its run is due, and the restarted scheduler makes it.
    await service.store.db.query(`UPDATE monitors SET dates = $2, next_run_at = now() WHERE id = $1`, [
      created.monitor.id,
      [dayFromToday(1)],
    ]);
    service.scheduler!.wake();
    await eventually(async () => (await checksOf(created.monitor.id, service.store.db)) === 1);
  } finally {
    await service.stop();
    await dropTestSchema(config);
    rmSync(config.dataDir, { recursive: true, force: true });
  }
});
