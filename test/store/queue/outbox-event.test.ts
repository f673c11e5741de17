/** src/store/queue/outbox-event.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { updateWebhookEventTypes, updateWebhookUrl } from '../../../src/store/organizations.ts';
import { insertOutboxEvent } from '../../../src/store/queue/outbox-event.ts';
import { newCheck, newOrganization, openTestStore, type TestStore } from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const event = (organizationId: string, subjectId: string, kind = 'eligibility.completed') => ({
  id: uuidv7(),
  organizationId,
  kind,
  subject: 'check_id' as const,
  subjectId,
  body: '{"n":1}',
});
const count = async (checkId: string) =>
  (
    await store.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_events WHERE check_id = $1', [
      checkId,
    ])
  ).rows[0]!.n;

test("an event is written to the organization's URL, once per subject and type", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const checkId = await newCheck(db, org);
  await insertOutboxEvent(db, event(org, checkId));
  assert.equal(await count(checkId), 0, 'no URL: clients poll');
  await updateWebhookUrl(db, org, 'https://hooks.example.test/one');
  const first = event(org, checkId);
  await insertOutboxEvent(db, first);
  await insertOutboxEvent(db, event(org, checkId));
  const { rows } = await db.query<{ id: string; url: string; state: string; organization_id: string }>(
    'SELECT id, url, state, organization_id FROM webhook_events WHERE check_id = $1',
    [checkId],
  );
  assert.deepEqual(rows, [
    { id: first.id, url: 'https://hooks.example.test/one', state: 'pending', organization_id: org },
  ]);
  await insertOutboxEvent(db, event(org, checkId, 'coverage.changed'));
  assert.equal(await count(checkId), 2, 'another type of the same check');
});

test('only the event types the endpoint takes are written', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  await updateWebhookUrl(db, org, 'https://hooks.example.test/one');
  await updateWebhookEventTypes(db, org, ['coverage.changed']);
  const checkId = await newCheck(db, org);
  await insertOutboxEvent(db, event(org, checkId));
  assert.equal(await count(checkId), 0);
  await insertOutboxEvent(db, event(org, checkId, 'coverage.changed'));
  assert.equal(await count(checkId), 1);
});
