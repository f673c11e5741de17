/** src/store/monitors.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import {
  deleteMonitor,
  findMonitor,
  findMonitorByIdempotencyKey,
  insertMonitor,
  type NewMonitor,
  releaseMonitorIdempotencyKey,
  selectMonitorPage,
  selectMonitorRuns,
  updateMonitorStatus,
} from '../../src/store/monitors.ts';
import { insertMonitorRunCheck } from '../../src/store/queue/claim-monitors.ts';
import { JANE_REQUEST, newOrganization, openTestStore, orderedId, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const newMonitor = (organizationId: string, over: Partial<NewMonitor> = {}): NewMonitor => ({
  id: `mon_${uuidv7()}`,
  organizationId,
  tradingPartnerServiceId: 'SANDBOX',
  request: JANE_REQUEST,
  everyDays: 30,
  dates: null,
  nextRunAt: new Date('2026-12-01T09:00:00Z'),
  requestCorrections: null,
  createdAt: new Date(),
  idempotencyKey: null,
  requestHash: null,
  ...over,
});

test('a monitor is read back as created, by its organization only', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const corrections = [
    { field: 'subscriber.lastName', code: 'NAME_PUNCTUATION_REMOVED', description: 'removed' },
  ];
  const monitor = newMonitor(org, {
    everyDays: null,
    dates: ['20261201', '20261215'],
    requestCorrections: corrections,
  });
  assert.equal(await insertMonitor(db, monitor, 10), true);
  const { idempotencyKey: _k, requestHash: _h, ...expected } = monitor;
  assert.deepEqual(await findMonitor(db, org, monitor.id), {
    ...expected,
    status: 'active',
    checkedThrough: null,
    lastRunAt: null,
    runs: 0,
  });
  assert.equal(await findMonitor(db, await newOrganization(db), monitor.id), undefined);
});

test('the per-organization limit and the idempotency key refuse a create; a released key is free', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  assert.equal(await insertMonitor(db, newMonitor(org), 2), true);
  const keyed = newMonitor(org, { idempotencyKey: 'mon-key', requestHash: 'h1' });
  assert.equal(await insertMonitor(db, keyed, 2), true);
  assert.equal(await insertMonitor(db, newMonitor(org), 2), false, 'over the limit');
  assert.equal(
    await insertMonitor(db, newMonitor(org, { idempotencyKey: 'mon-key' }), 10),
    false,
    'key taken',
  );
  const holder = await findMonitorByIdempotencyKey(db, org, 'mon-key', 60_000);
  assert.equal(holder?.id, keyed.id);
  assert.equal(holder?.requestHash, 'h1');
  assert.equal(holder?.expired, false);
  await releaseMonitorIdempotencyKey(db, keyed.id, 'mon-key');
  assert.equal(await findMonitorByIdempotencyKey(db, org, 'mon-key', 60_000), undefined);
});

test('pages newest first; pause and resume, but not a completed monitor; delete', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const older = newMonitor(org);
  await insertMonitor(db, older, 10);
  await new Promise((r) => setTimeout(r, 2));
  const newer = newMonitor(org);
  await insertMonitor(db, newer, 10);
  assert.deepEqual(
    (await selectMonitorPage(db, org, { limit: 10 })).map((m) => m.id),
    [newer.id, older.id],
  );
  assert.deepEqual(
    (await selectMonitorPage(db, org, { limit: 10, before: newer.id })).map((m) => m.id),
    [older.id],
  );
  assert.equal((await updateMonitorStatus(db, org, older.id, 'paused'))?.status, 'paused');
  assert.equal((await updateMonitorStatus(db, org, older.id, 'active'))?.status, 'active');
  assert.equal(await updateMonitorStatus(db, await newOrganization(db), older.id, 'paused'), undefined);
  await db.query("UPDATE monitors SET status = 'completed' WHERE id = $1", [newer.id]);
  assert.equal(await updateMonitorStatus(db, org, newer.id, 'active'), undefined, 'completed stays');
  assert.equal(await deleteMonitor(db, await newOrganization(db), older.id), false);
  assert.equal(await deleteMonitor(db, org, older.id), true);
  assert.equal(await findMonitor(db, org, older.id), undefined);
});

test("a monitor's runs, newest first, with each run's date of service", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const monitor = newMonitor(org);
  await insertMonitor(db, monitor, 10);
  const runs: string[] = [];
  for (const dateOfService of ['20261201', '20261215']) {
    const id = orderedId();
    runs.push(id);
    await insertMonitorRunCheck(db, {
      id,
      organizationId: org,
      tradingPartnerServiceId: 'SANDBOX',
      request: { ...JANE_REQUEST, encounter: { dateOfService } },
      monitorId: monitor.id,
      requestCorrections: null,
    });
  }
  const listed = await selectMonitorRuns(db, monitor.id, 10);
  assert.deepEqual(
    listed.map((r) => [r.id, r.status, r.verdict, r.dateOfService]),
    [
      [runs[1], 'IN_PROGRESS', null, '20261215'],
      [runs[0], 'IN_PROGRESS', null, '20261201'],
    ],
  );
  assert.ok(listed[0]!.createdAt instanceof Date);
  assert.equal((await selectMonitorRuns(db, monitor.id, 1)).length, 1);
  await deleteMonitor(db, org, monitor.id);
  const { rows } = await db.query<{ monitor_id: string | null }>(
    'SELECT monitor_id FROM checks WHERE id = ANY($1)',
    [runs],
  );
  assert.deepEqual(
    rows.map((r) => r.monitor_id),
    [null, null],
    'its checks stay, unlinked',
  );
});
