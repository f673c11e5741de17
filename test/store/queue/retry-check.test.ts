/** src/store/queue/retry-check.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { scheduleRetry } from '../../../src/store/queue/retry-check.ts';
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

test('a retry unleases the check, due later, with its reason; the attempt counts', async () => {
  const { db } = store;
  const id = await claimedCheck(db, await newOrganization(db), 'worker-a');
  const started = Date.now();
  assert.equal(await scheduleRetry(db, id, 'worker-a', 60_000, 'payer timeout'), true);
  const state = await queueState(db, id);
  assert.deepEqual(
    [state.status, state.attempts, state.locked_by, state.last_error],
    ['IN_PROGRESS', 1, null, 'payer timeout'],
  );
  assert.ok(state.next_attempt_at.getTime() >= started + 50_000, 'due about a minute later');
});

test('a refunded retry does not spend the attempt; a worker that lost the lease changes nothing', async () => {
  const { db } = store;
  const id = await claimedCheck(db, await newOrganization(db), 'worker-a');
  assert.equal(await scheduleRetry(db, id, 'worker-b', 1000, 'not mine'), false);
  assert.equal((await queueState(db, id)).locked_by, 'worker-a');
  assert.equal(await scheduleRetry(db, id, 'worker-a', 1000, 'breaker open', 'refunded'), true);
  assert.equal((await queueState(db, id)).attempts, 0);
  assert.equal(await scheduleRetry(db, id, 'worker-a', 1000, 'again'), false, 'no longer leased');
});
