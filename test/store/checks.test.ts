/** src/store/checks.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import {
  countChecksInProgress,
  findCheck,
  findCheckByIdempotencyKey,
  findCheckResult,
  insertCheck,
  insertCheckUnlessKeyTaken,
  oldestCheckInProgressAgeSeconds,
  releaseIdempotencyKey,
  selectCheckPage,
} from '../../src/store/checks.ts';
import { updateReuseWithinHours } from '../../src/store/organizations.ts';
import {
  JANE_REQUEST,
  markFinished,
  newCheck,
  newOrganization,
  openTestStore,
  type TestStore,
} from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const stored = async (id: string) =>
  (
    await store.db.query<{
      request_corrections: unknown;
      reuse_within_hours: number | null;
      priority: number;
    }>('SELECT request_corrections, reuse_within_hours, priority FROM checks WHERE id = $1', [id])
  ).rows[0];

test('a new check is in progress and read back by its organization only, its request as sent', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const id = await newCheck(db, org);
  assert.deepEqual(await findCheckResult(db, org, id), { status: 'IN_PROGRESS', result: null });
  const check = await findCheck(db, org, id);
  assert.equal(check?.status, 'IN_PROGRESS');
  assert.deepEqual(check?.request, JANE_REQUEST);
  assert.equal(check?.attempts, 0);
  assert.ok(check?.createdAt instanceof Date);
  assert.equal(check?.completedAt, null);
  const other = await newOrganization(db);
  assert.equal(await findCheckResult(db, other, id), undefined);
  assert.equal(await findCheck(db, other, id), undefined);
  await markFinished(db, id, { status: 'COMPLETED' });
  const done = await findCheckResult(db, org, id);
  assert.equal(done?.status, 'COMPLETED');
  assert.deepEqual(JSON.parse(done!.result!), { id, status: 'COMPLETED' });
});

test("a check stores its corrections as a JSON array and its reuse window, else the organization's", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await updateReuseWithinHours(db, org, 12);
  const corrections = [{ field: 'subscriber.lastName', code: 'NAME_SUFFIX_MOVED', description: 'moved' }];
  const own = uuidv7();
  await insertCheck(db, {
    id: own,
    organizationId: org,
    tradingPartnerServiceId: 'SANDBOX',
    request: JANE_REQUEST,
    requestCorrections: corrections,
    reuseWithinHours: 0,
  });
  const inherited = await newCheck(db, org);
  assert.deepEqual(await stored(own), {
    request_corrections: corrections,
    reuse_within_hours: 0,
    priority: 0,
  });
  assert.deepEqual(await stored(inherited), {
    request_corrections: null,
    reuse_within_hours: 12,
    priority: 0,
  });
});

test('an idempotency key is taken once, found with its age, and freed for reuse', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const first = {
    id: uuidv7(),
    organizationId: org,
    tradingPartnerServiceId: 'SANDBOX',
    request: JANE_REQUEST,
  };
  const keyed = { idempotencyKey: 'key-1', requestHash: 'hash-1' };
  assert.equal(await insertCheckUnlessKeyTaken(db, { ...first, ...keyed }), true);
  assert.equal(await insertCheckUnlessKeyTaken(db, { ...first, id: uuidv7(), ...keyed }), false);
  assert.deepEqual(await findCheckByIdempotencyKey(db, org, 'key-1', 60_000), {
    id: first.id,
    requestHash: 'hash-1',
    expired: false,
  });
  assert.equal((await findCheckByIdempotencyKey(db, org, 'key-1', -1000))?.expired, true);
  assert.equal(await findCheckByIdempotencyKey(db, await newOrganization(db), 'key-1', 60_000), undefined);
  await releaseIdempotencyKey(db, first.id, 'key-1');
  assert.equal(await findCheckByIdempotencyKey(db, org, 'key-1', 60_000), undefined);
  assert.equal(await insertCheckUnlessKeyTaken(db, { ...first, id: uuidv7(), ...keyed }), true);
});

test('a page of checks: newest first, filtered, searched by name, member id and birth date, by cursor', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const jane = await newCheck(db, org);
  const john = await newCheck(db, org, {
    ...JANE_REQUEST,
    tradingPartnerServiceId: 'OTHER',
    subscriber: { memberId: 'SBX-1000-002', firstName: 'JOHN', lastName: 'SMITH', dateOfBirth: '19751231' },
  });
  await markFinished(db, jane, { status: 'COMPLETED', verdict: { status: 'ACTIVE' } });
  await newCheck(db, await newOrganization(db)); // another organization's: never listed
  const ids = async (query: Parameters<typeof selectCheckPage>[2]) =>
    (await selectCheckPage(db, org, query)).map((c) => c.id);
  assert.deepEqual(await ids({ limit: 10 }), [john, jane]);
  assert.deepEqual(await ids({ limit: 1 }), [john]);
  assert.deepEqual(await ids({ limit: 10, before: john }), [jane]);
  assert.deepEqual(await ids({ limit: 10, status: 'IN_PROGRESS' }), [john]);
  assert.deepEqual(await ids({ limit: 10, verdict: 'ACTIVE' }), [jane]);
  assert.deepEqual(await ids({ limit: 10, tradingPartnerServiceId: 'OTHER' }), [john]);
  assert.deepEqual(await ids({ limit: 10, createdFrom: new Date(Date.now() + 60_000) }), []);
  assert.deepEqual(await ids({ limit: 10, createdBefore: new Date(Date.now() + 60_000) }), [john, jane]);
  assert.deepEqual(await ids({ limit: 10, search: [{ text: 'JA' }] }), [jane]);
  assert.deepEqual(await ids({ limit: 10, search: [{ text: 'SMI' }] }), [john]);
  assert.deepEqual(await ids({ limit: 10, search: [{ text: '1000002' }] }), [john]);
  assert.deepEqual(await ids({ limit: 10, search: [{ text: '19800115', dateOfBirth: '19800115' }] }), [jane]);
  assert.deepEqual(await ids({ limit: 10, search: [{ text: 'J' }, { text: 'DOE' }] }), [jane]);
  assert.deepEqual(await ids({ limit: 10, search: [{ text: '%' }] }), [], 'LIKE wildcards are literal');
  const [row] = await selectCheckPage(db, org, { limit: 1, before: john });
  assert.deepEqual(
    { ...row, createdAt: undefined, completedAt: undefined },
    {
      id: jane,
      status: 'COMPLETED',
      verdict: 'ACTIVE',
      tradingPartnerServiceId: 'SANDBOX',
      memberId: 'SBX1000001',
      firstName: 'JANE',
      lastName: 'DOE',
      dateOfBirth: '19800115',
      outcomeCode: 'COMPLETED',
      createdAt: undefined,
      completedAt: undefined,
    },
  );
  assert.ok(row!.createdAt instanceof Date && row!.completedAt instanceof Date);
});

test('the queue depth and the age of its oldest check', async () => {
  const { db } = store;
  const depth = await countChecksInProgress(db);
  await newCheck(db, await newOrganization(db));
  assert.equal(await countChecksInProgress(db), depth + 1);
  const age = await oldestCheckInProgressAgeSeconds(db);
  assert.ok(age !== null && age >= 0);
  await db.query("UPDATE checks SET status = 'FAILED' WHERE status = 'IN_PROGRESS'");
  assert.equal(await countChecksInProgress(db), 0);
  assert.equal(await oldestCheckInProgressAgeSeconds(db), null);
});
