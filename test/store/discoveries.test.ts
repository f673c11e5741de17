/** src/store/discoveries.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import {
  countDiscoveryInquiriesToday,
  findDiscovery,
  insertDiscoveryWithInquiries,
} from '../../src/store/discoveries.ts';
import { JANE_REQUEST, newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const { memberId: _, ...subscriber } = JANE_REQUEST.subscriber;
const inquiries = (n: number) =>
  Array.from({ length: n }, () => ({
    id: uuidv7(),
    tradingPartnerServiceId: 'SANDBOX',
    request: { ...JANE_REQUEST, subscriber },
    requestCorrections: null,
  }));

test('a discovery and its inquiries: interactive, never reused, linked, without a member id', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const id = uuidv7();
  assert.deepEqual(
    await insertDiscoveryWithInquiries(db, { id, organizationId: org, dailyCap: 10 }, inquiries(2)),
    {
      ok: true,
    },
  );
  const row = await findDiscovery(db, org, id);
  assert.deepEqual([row?.status, row?.asked, row?.answered, row?.pending], ['IN_PROGRESS', 2, 0, 2]);
  const { rows } = await db.query<{ priority: number; reuse_within_hours: number; member: string | null }>(
    `SELECT priority, reuse_within_hours, request->'subscriber'->>'memberId' AS member FROM checks WHERE discovery_id = $1`,
    [id],
  );
  assert.deepEqual(rows, [
    { priority: 0, reuse_within_hours: 0, member: null },
    { priority: 0, reuse_within_hours: 0, member: null },
  ]);
  assert.equal(
    await findDiscovery(db, await newOrganization(db, 'Other'), id),
    undefined,
    "another organization's",
  );
});

test('the daily cap counts payers asked per organization, and holds for inserts racing', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const other = await newOrganization(db, 'Other');
  const insert = (organizationId: string, n: number) =>
    insertDiscoveryWithInquiries(db, { id: uuidv7(), organizationId, dailyCap: 10 }, inquiries(n));
  const raced = await Promise.all(Array.from({ length: 6 }, () => insert(org, 3)));
  assert.equal(raced.filter((r) => r.ok).length, 3, '3 × 3 fit in 10; a fourth would not');
  assert.equal(await countDiscoveryInquiriesToday(db, org), 9);
  assert.deepEqual(await insert(org, 2), { ok: false, askedToday: 9 });
  assert.deepEqual(await insert(org, 1), { ok: true });
  assert.deepEqual(await insert(other, 10), { ok: true }, 'each organization has its own count');
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM checks WHERE organization_id = $1',
    [org],
  );
  assert.equal(rows[0]!.n, 10, 'a refused discovery wrote no inquiry');
});
