/** src/store/queue/purge-monitors.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { insertMonitor } from '../../../src/store/monitors.ts';
import { deleteExpiredCompletedMonitors } from '../../../src/store/queue/purge-monitors.ts';
import { JANE_REQUEST, newOrganization, openTestStore, type TestStore } from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

async function monitor(
  organizationId: string,
  status: string,
  lastRunDaysAgo: number | null,
  createdDaysAgo: number,
) {
  const id = `mon_${uuidv7()}`;
  const day = 86_400_000;
  await insertMonitor(
    store.db,
    {
      id,
      organizationId,
      tradingPartnerServiceId: 'SANDBOX',
      request: JANE_REQUEST,
      everyDays: null,
      dates: ['20260101'],
      nextRunAt: null,
      requestCorrections: null,
      createdAt: new Date(Date.now() - createdDaysAgo * day),
      idempotencyKey: null,
      requestHash: null,
    },
    100,
  );
  await store.db.query('UPDATE monitors SET status = $2, last_run_at = $3 WHERE id = $1', [
    id,
    status,
    lastRunDaysAgo === null ? null : new Date(Date.now() - lastRunDaysAgo * day),
  ]);
  return id;
}

test('completed monitors idle past retention are deleted, in batches; others stay', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const ranLongAgo = await monitor(org, 'completed', 40, 100);
  const neverRan = await monitor(org, 'completed', null, 40);
  const ranLately = await monitor(org, 'completed', 5, 100);
  const active = await monitor(org, 'active', 40, 100);
  const first = await db.transaction((tx) => deleteExpiredCompletedMonitors(tx, 30, 1));
  const second = await db.transaction((tx) => deleteExpiredCompletedMonitors(tx, 30, 10));
  assert.equal(first.length, 1);
  assert.deepEqual([...first, ...second].map((r) => r.id).sort(), [ranLongAgo, neverRan].sort());
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM monitors WHERE organization_id = $1 ORDER BY id',
    [org],
  );
  assert.deepEqual(rows.map((r) => r.id).sort(), [ranLately, active].sort());
});
