/** src/store/check-history.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CoverageChange } from '../../src/contract/webhook-events.ts';
import {
  findCoverageHistory,
  findPreviousCompletedCheck,
  findReusableCheck,
  recordCoverageChanges,
} from '../../src/store/check-history.ts';
import { markFinished, newCheck, newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

/** A completed check that asked the payer, finished `hoursAgo`, with its identity hashes. */
async function answered(organizationId: string, hoursAgo: number, keys = { patient: 'p1', reuse: 'r1' }) {
  const { db } = store;
  const id = await newCheck(db, organizationId);
  await markFinished(db, id, { status: 'COMPLETED' });
  await db.query(
    `UPDATE checks SET patient_key = $2, reuse_key = $3, completed_at = now() - $4 * interval '1 hour'
      WHERE id = $1`,
    [id, keys.patient, keys.reuse, hoursAgo],
  );
  return id;
}

test('the reusable check is the newest answered one within the window, of the organization', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const older = await answered(org, 5);
  const newer = await answered(org, 2);
  const found = await findReusableCheck(db, org, 'r1', 3);
  assert.equal(found?.id, newer);
  assert.deepEqual(JSON.parse(found!.result!), { id: newer, status: 'COMPLETED' });
  assert.ok(found?.completedAt instanceof Date);
  assert.equal(await findReusableCheck(db, org, 'r1', 1), undefined, 'none within an hour');
  assert.equal(await findReusableCheck(db, org, 'r2', 24), undefined, 'another question');
  assert.equal(await findReusableCheck(db, await newOrganization(db), 'r1', 24), undefined);
  // A check that reused another's answer is no source of reuse; a purged one has no answer left.
  await db.query('UPDATE checks SET reused_from = $2 WHERE id = $1', [newer, older]);
  assert.equal((await findReusableCheck(db, org, 'r1', 24))?.id, older);
  await db.query('UPDATE checks SET purged_at = now() WHERE id = $1', [older]);
  assert.equal(await findReusableCheck(db, org, 'r1', 24), undefined);
});

test("the previous completed check of the patient is the newest that finished before this one, read in the finisher's transaction", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const earlier = await answered(org, 48);
  const latest = await answered(org, 0);
  assert.equal(
    (await db.transaction((tx) => findPreviousCompletedCheck(tx, org, 'p1', latest)))?.id,
    earlier,
  );
  // A check that finished later is never the previous one (the chain runs in completion order).
  assert.equal(await findPreviousCompletedCheck(db, org, 'p1', earlier), undefined);
  assert.equal(await findPreviousCompletedCheck(db, org, 'p2', latest), undefined);
});

test('coverage changes are recorded on the later check and shown on both', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const earlier = await answered(org, 48);
  const later = await answered(org, 0);
  const changes: CoverageChange[] = [
    { kind: 'PLAN_STATUS', field: 'planActive', before: true, after: false },
  ];
  assert.deepEqual(await findCoverageHistory(db, org, later), { later: [] });
  await recordCoverageChanges(db, later, earlier, changes);
  const onLater = await findCoverageHistory(db, org, later);
  assert.equal(onLater.since?.id, earlier);
  assert.deepEqual(onLater.since?.coverageChanges, changes);
  assert.ok(onLater.since?.completedAt instanceof Date);
  assert.deepEqual(onLater.later, []);
  const onEarlier = await findCoverageHistory(db, org, earlier);
  assert.equal(onEarlier.since, undefined);
  assert.deepEqual(
    onEarlier.later.map((r) => [r.id, r.coverageChanges]),
    [[later, changes]],
  );
  assert.deepEqual(await findCoverageHistory(db, await newOrganization(db), later), { later: [] });
});
