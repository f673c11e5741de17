/** src/store/queue/release-check.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { releaseCheck } from '../../../src/store/queue/release-check.ts';
import {
  claimedCheck,
  newOrganization,
  openTestStore,
  queueState,
  type TestStore,
} from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

test('a released check is unleased and its attempt refunded; another worker cannot release it', async () => {
  const { db } = store;
  const id = await claimedCheck(db, await newOrganization(db), 'worker-a');
  assert.equal((await queueState(db, id)).attempts, 1);
  await releaseCheck(db, id, 'worker-b');
  assert.equal((await queueState(db, id)).locked_by, 'worker-a', 'not the holder: nothing changes');
  await releaseCheck(db, id, 'worker-a');
  const state = await queueState(db, id);
  assert.deepEqual(
    [state.status, state.attempts, state.locked_by, state.locked_until],
    ['IN_PROGRESS', 0, null, null],
  );
});
