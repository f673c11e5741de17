/** src/store/queue/claim-monitors.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { insertMonitor, type NewMonitor } from '../../../src/store/monitors.ts';
import { updateEligibilityEnabled, updateTimeZone } from '../../../src/store/organizations.ts';
import {
  advanceMonitor,
  claimDueMonitors,
  insertMonitorRunCheck,
  nextMonitorDueIn,
} from '../../../src/store/queue/claim-monitors.ts';
import { JANE_REQUEST, newOrganization, openTestStore, type TestStore } from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

async function monitor(organizationId: string, nextRunAt: Date, over: Partial<NewMonitor> = {}) {
  const row: NewMonitor = {
    id: `mon_${uuidv7()}`,
    organizationId,
    tradingPartnerServiceId: 'SANDBOX',
    request: JANE_REQUEST,
    everyDays: 7,
    dates: null,
    nextRunAt,
    requestCorrections: null,
    createdAt: new Date(),
    idempotencyKey: null,
    requestHash: null,
    ...over,
  };
  await insertMonitor(store.db, row, 100);
  return row;
}
const ago = (ms: number) => new Date(Date.now() - ms);

test('due active monitors of enabled organizations are claimed oldest due first, with the time zone', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await updateTimeZone(db, org, 'America/Chicago');
  const disabled = await newOrganization(db);
  await updateEligibilityEnabled(db, disabled, false);
  const later = await monitor(org, ago(1000));
  const earlier = await monitor(org, ago(60_000));
  await monitor(disabled, ago(60_000));
  await monitor(org, new Date(Date.now() + 3600_000));
  const paused = await monitor(org, ago(60_000));
  await db.query("UPDATE monitors SET status = 'paused' WHERE id = $1", [paused.id]);
  const { now, monitors } = await db.transaction((tx) => claimDueMonitors(tx, 10));
  assert.ok(now instanceof Date);
  assert.deepEqual(
    monitors.map((m) => m.id),
    [earlier.id, later.id],
  );
  assert.deepEqual(monitors[0], {
    id: earlier.id,
    organizationId: org,
    tradingPartnerServiceId: 'SANDBOX',
    request: JANE_REQUEST,
    everyDays: 7,
    dates: null,
    checkedThrough: null,
    nextRunAt: earlier.nextRunAt,
    requestCorrections: null,
    timeZone: 'America/Chicago',
  });
  assert.equal((await db.transaction((tx) => claimDueMonitors(tx, 1))).monitors.length, 1, 'up to the limit');
  const ms = await nextMonitorDueIn(db);
  assert.ok(ms !== undefined && ms > 3500_000 && ms <= 3600_000, 'the future one; due ones do not count');
});

test('a run creates its background check and advances the monitor in the same transaction', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const corrections = [{ field: 'subscriber.lastName', code: 'NAME_SUFFIX_MOVED', description: 'moved' }];
  const due = await monitor(org, ago(1000), { requestCorrections: corrections });
  const checkId = uuidv7();
  const next = new Date(Date.now() + 7 * 86_400_000);
  await db.transaction(async (tx) => {
    const { monitors } = await claimDueMonitors(tx, 100);
    const claimed = monitors.find((m) => m.id === due.id)!;
    await insertMonitorRunCheck(tx, {
      id: checkId,
      organizationId: org,
      tradingPartnerServiceId: claimed.tradingPartnerServiceId,
      request: claimed.request,
      monitorId: claimed.id,
      requestCorrections: claimed.requestCorrections,
    });
    await advanceMonitor(tx, claimed.id, {
      nextRunAt: next,
      checkedThrough: null,
      completed: false,
      ran: true,
    });
  });
  const { rows: checks } = await db.query<Record<string, unknown>>(
    'SELECT status, priority, monitor_id, request, request_corrections FROM checks WHERE id = $1',
    [checkId],
  );
  assert.deepEqual(checks[0], {
    status: 'IN_PROGRESS',
    priority: 1,
    monitor_id: due.id,
    request: JANE_REQUEST,
    request_corrections: corrections,
  });
  const state = async () =>
    (
      await db.query<{
        status: string;
        runs: number;
        next_run_at: Date | null;
        ran: boolean;
        checked_through: string;
      }>(
        'SELECT status, runs, next_run_at, last_run_at IS NOT NULL AS ran, checked_through FROM monitors WHERE id = $1',
        [due.id],
      )
    ).rows[0]!;
  assert.deepEqual(await state(), {
    status: 'active',
    runs: 1,
    next_run_at: next,
    ran: true,
    checked_through: null,
  });
  await advanceMonitor(db, due.id, {
    nextRunAt: null,
    checkedThrough: '20261201',
    completed: true,
    ran: false,
  });
  assert.deepEqual(await state(), {
    status: 'completed',
    runs: 1,
    next_run_at: null,
    ran: true,
    checked_through: '20261201',
  });
});
