/** src/store/queue/finish-check.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { updateWebhookUrl } from '../../../src/store/organizations.ts';
import { finishClaimedCheck } from '../../../src/store/queue/finish-check.ts';
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

const completion = (id: string, organizationId: string, workerId: string) => ({
  id,
  organizationId,
  workerId,
  status: 'COMPLETED' as const,
  body: JSON.stringify({ id, status: 'COMPLETED', verdict: { status: 'ACTIVE' } }),
  outcomeCode: 'COMPLETED',
  eventId: uuidv7(),
  patientKey: 'p1',
  reuseKey: 'r1',
});

const events = async (checkId: string) =>
  (
    await store.db.query<{ id: string; kind: string; body: string; url: string }>(
      'SELECT id, kind, body, url FROM webhook_events WHERE check_id = $1',
      [checkId],
    )
  ).rows;

test('the lease holder finishes a check once: result, verdict from the body, keys; and its event', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await updateWebhookUrl(db, org, 'https://hooks.example.test/one');
  const id = await claimedCheck(db, org, 'worker-a');
  assert.equal(await db.transaction((tx) => finishClaimedCheck(tx, completion(id, org, 'worker-b'))), false);
  assert.equal((await queueState(db, id)).status, 'IN_PROGRESS', 'another worker wrote nothing');
  const done = completion(id, org, 'worker-a');
  assert.ok(await db.transaction((tx) => finishClaimedCheck(tx, done)));
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT status, result, outcome_code, verdict, locked_by, patient_key, reuse_key, reused_from,
            completed_at IS NOT NULL AS completed
       FROM checks WHERE id = $1`,
    [id],
  );
  assert.deepEqual(rows[0], {
    status: 'COMPLETED',
    result: done.body,
    outcome_code: 'COMPLETED',
    verdict: 'ACTIVE',
    locked_by: null,
    patient_key: 'p1',
    reuse_key: 'r1',
    reused_from: null,
    completed: true,
  });
  assert.deepEqual(await events(id), [
    {
      id: done.eventId,
      kind: 'eligibility.completed',
      body: done.body,
      url: 'https://hooks.example.test/one',
    },
  ]);
  assert.equal(await db.transaction((tx) => finishClaimedCheck(tx, { ...done, eventId: uuidv7() })), false);
  assert.equal((await events(id)).length, 1, 'finished once');
});

test('without a webhook URL the check finishes and no event is written', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const id = await claimedCheck(db, org, 'worker-a');
  assert.ok(await db.transaction((tx) => finishClaimedCheck(tx, completion(id, org, 'worker-a'))));
  assert.equal((await queueState(db, id)).status, 'COMPLETED');
  assert.deepEqual(await events(id), []);
});
