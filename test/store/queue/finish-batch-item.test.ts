/** src/store/queue/finish-batch-item.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { insertBatchWithChecks } from '../../../src/store/batches.ts';
import { updateWebhookUrl } from '../../../src/store/organizations.ts';
import {
  countBatchItemFinished,
  insertBatchCompletedEvent,
} from '../../../src/store/queue/finish-batch-item.ts';
import { JANE_REQUEST, newOrganization, openTestStore, type TestStore } from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

async function newBatch(organizationId: string, size: number) {
  const id = uuidv7();
  const items = Array.from({ length: size }, (_, i) => ({
    id: uuidv7(),
    tradingPartnerServiceId: 'SANDBOX',
    request: JANE_REQUEST,
    batchIndex: i + 1,
  }));
  const batch = { id, organizationId, name: null, rejected: 0, idempotencyKey: null, requestHash: null };
  await insertBatchWithChecks(store.db, batch, items);
  return id;
}

test('each finished item is counted by status and verdict; only the last returns the completed batch', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const batchId = await newBatch(org, 3);
  const finish = (status: 'COMPLETED' | 'FAILED', verdict?: string) =>
    db.transaction((tx) => countBatchItemFinished(tx, { batchId, status, verdict }));
  assert.equal(await finish('COMPLETED', 'ACTIVE'), undefined);
  assert.equal(await finish('FAILED', 'FAILED'), undefined);
  const last = await finish('COMPLETED', 'INACTIVE');
  assert.ok(last);
  assert.deepEqual(
    [
      last.id,
      last.total,
      last.pending,
      last.completed,
      last.failed,
      last.active,
      last.inactive,
      last.undetermined,
    ],
    [batchId, 3, 0, 2, 1, 1, 1, 0],
  );
  assert.ok(last.completedAt instanceof Date);
  assert.equal(await finish('COMPLETED', 'ACTIVE'), undefined, 'nothing left to count');
});

test('the batch.completed event is written only to a URL, once per batch', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const batchId = await newBatch(org, 1);
  const write = () =>
    db.transaction((tx) =>
      insertBatchCompletedEvent(tx, { id: uuidv7(), organizationId: org, batchId, body: '{}' }),
    );
  const events = async () =>
    (await db.query<{ kind: string }>('SELECT kind FROM webhook_events WHERE batch_id = $1', [batchId])).rows;
  await write();
  assert.deepEqual(await events(), []);
  await updateWebhookUrl(db, org, 'https://hooks.example.test/one');
  await write();
  await write();
  assert.deepEqual(await events(), [{ kind: 'batch.completed' }]);
});
