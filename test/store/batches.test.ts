/** src/store/batches.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../src/ids.ts';
import {
  countPendingBatchChecks,
  findBatch,
  findBatchByIdempotencyKey,
  insertBatchWithChecks,
  listBatches,
  releaseBatchIdempotencyKey,
  selectBatchCheckIds,
  selectBatchItems,
  selectBatchResults,
} from '../../src/store/batches.ts';
import { updateReuseWithinHours } from '../../src/store/organizations.ts';
import {
  JANE_REQUEST,
  markFinished,
  newOrganization,
  openTestStore,
  type TestStore,
} from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const newBatch = (organizationId: string, idempotencyKey: string | null = null) => ({
  id: uuidv7(),
  organizationId,
  name: 'November',
  rejected: 1,
  idempotencyKey,
  requestHash: idempotencyKey ? 'hash' : null,
});
const items = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    id: uuidv7(),
    tradingPartnerServiceId: 'SANDBOX',
    request: JANE_REQUEST,
    batchIndex: i + 1,
  }));

test('a batch and its checks are written together: background priority, counts, items in order', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await updateReuseWithinHours(db, org, 6);
  const batch = newBatch(org);
  const checks = items(3);
  const corrections = [
    { field: 'subscriber.firstName', code: 'NAME_DIACRITICS_FOLDED', description: 'folded' },
  ];
  checks[2] = {
    ...checks[2]!,
    requestCorrections: corrections,
    reuseWithinHours: 0,
  } as (typeof checks)[number];
  assert.equal(await insertBatchWithChecks(db, batch, checks), true);
  const found = await findBatch(db, org, batch.id);
  assert.deepEqual(
    { ...found, createdAt: undefined },
    {
      ...batch,
      total: 3,
      pending: 3,
      completed: 0,
      failed: 0,
      active: 0,
      inactive: 0,
      undetermined: 0,
      createdAt: undefined,
      completedAt: null,
    },
  );
  assert.equal(await findBatch(db, await newOrganization(db), batch.id), undefined);
  assert.equal(await countPendingBatchChecks(db, org), 3);
  const { rows } = await db.query<{
    priority: number;
    reuse: number;
    corrections: unknown;
    request: unknown;
  }>(
    `SELECT priority, reuse_within_hours AS reuse, request_corrections AS corrections, request
       FROM checks WHERE batch_id = $1 ORDER BY batch_index`,
    [batch.id],
  );
  assert.deepEqual(
    rows.map((r) => [r.priority, r.reuse, r.corrections]),
    [
      [1, 6, null],
      [1, 6, null],
      [1, 0, corrections],
    ],
  );
  assert.deepEqual(rows[0]!.request, JANE_REQUEST);
  assert.deepEqual(
    await selectBatchCheckIds(db, batch.id),
    checks.map((c) => ({ id: c.id, batchIndex: c.batchIndex })),
  );
});

test("a batch's items and results page by position and status", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const batch = newBatch(org);
  const checks = items(3);
  await insertBatchWithChecks(db, batch, checks);
  await markFinished(db, checks[1]!.id, { status: 'COMPLETED', verdict: { status: 'INACTIVE' } });
  assert.deepEqual(await selectBatchItems(db, batch.id, { after: 0, limit: 2 }), [
    { id: checks[0]!.id, status: 'IN_PROGRESS', batchIndex: 1, verdict: null },
    { id: checks[1]!.id, status: 'COMPLETED', batchIndex: 2, verdict: 'INACTIVE' },
  ]);
  assert.deepEqual(
    (await selectBatchItems(db, batch.id, { after: 1, limit: 10, status: 'IN_PROGRESS' })).map((i) => i.id),
    [checks[2]!.id],
  );
  const results = await selectBatchResults(db, batch.id, { after: 1, limit: 1 });
  assert.equal(results.length, 1);
  assert.equal(results[0]!.id, checks[1]!.id);
  assert.equal(results[0]!.batchIndex, 2);
  assert.equal(JSON.parse(results[0]!.result!).status, 'COMPLETED');
  assert.deepEqual(await selectBatchResults(db, batch.id, { after: 3, limit: 10 }), []);
});

test('an idempotency key holds one batch until released; batches list newest first', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const first = newBatch(org, 'nov-run');
  assert.equal(await insertBatchWithChecks(db, first, items(1)), true);
  assert.equal(await insertBatchWithChecks(db, newBatch(org, 'nov-run'), items(1)), false);
  const holder = await findBatchByIdempotencyKey(db, org, 'nov-run', 60_000);
  assert.equal(holder?.id, first.id);
  assert.equal(holder?.expired, false);
  assert.equal((await findBatchByIdempotencyKey(db, org, 'nov-run', -1000))?.expired, true);
  await releaseBatchIdempotencyKey(db, first.id, 'nov-run');
  assert.equal(await findBatchByIdempotencyKey(db, org, 'nov-run', 60_000), undefined);
  const second = newBatch(org, 'nov-run');
  assert.equal(await insertBatchWithChecks(db, second, items(1)), true);
  assert.deepEqual(
    (await listBatches(db, org, { limit: 10 })).map((b) => b.id),
    [second.id, first.id],
  );
  assert.deepEqual(
    (await listBatches(db, org, { limit: 10, before: second.id })).map((b) => b.id),
    [first.id],
  );
  assert.deepEqual(await listBatches(db, await newOrganization(db), { limit: 10 }), []);
});
