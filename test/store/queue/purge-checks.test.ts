/** src/store/queue/purge-checks.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { purgeExpiredCheckBatch } from '../../../src/store/queue/purge-checks.ts';
import {
  markFinished,
  newCheck,
  newOrganization,
  openTestStore,
  type TestStore,
} from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

async function finished(organizationId: string, daysAgo: number, body: Record<string, unknown> = {}) {
  const id = await newCheck(store.db, organizationId);
  await markFinished(store.db, id, { status: 'FAILED', ...body });
  await store.db.query(
    `UPDATE checks SET completed_at = now() - $2 * interval '1 day', patient_key = 'p', reuse_key = 'r',
            coverage_changes = '[]'::jsonb WHERE id = $1`,
    [id, daysAgo],
  );
  return id;
}

test('finished checks past retention keep only codes; errors lose their location; in batches, once', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const old = await finished(org, 40, {
    errors: [{ code: 'AAA:72', description: 'Invalid member id', location: 'subscriber.memberId' }],
  });
  const older = await finished(org, 50);
  const recent = await finished(org, 5);
  const running = await newCheck(db, org);
  const first = await db.transaction((tx) => purgeExpiredCheckBatch(tx, 30, 1));
  assert.deepEqual(first, [{ id: older }], 'oldest first, one batch');
  const second = await db.transaction((tx) => purgeExpiredCheckBatch(tx, 30, 10));
  assert.deepEqual(second, [{ id: old }]);
  assert.deepEqual(await db.transaction((tx) => purgeExpiredCheckBatch(tx, 30, 10)), [], 'purged once');
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT id, request, result, purged_at IS NOT NULL AS purged, patient_key, reuse_key, coverage_changes
       FROM checks WHERE id = ANY($1)`,
    [[old, recent, running]],
  );
  const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
  assert.deepEqual(byId[old]!.request, { tradingPartnerServiceId: 'SANDBOX' });
  assert.deepEqual(JSON.parse(byId[old]!.result as string), {
    id: old,
    status: 'FAILED',
    tradingPartnerServiceId: 'SANDBOX',
    errors: [{ code: 'AAA:72', description: 'Invalid member id' }],
    warnings: [
      {
        code: 'PURGED',
        description:
          'Details of this check were deleted after the retention period; only its status and codes remain.',
      },
    ],
  });
  assert.deepEqual(
    [byId[old]!.purged, byId[old]!.patient_key, byId[old]!.reuse_key, byId[old]!.coverage_changes],
    [true, null, null, null],
  );
  assert.equal(byId[recent]!.purged, false);
  assert.equal(byId[running]!.purged, false);
});
