/** src/store/queue/finish-discovery-item.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { insertDiscoveryWithInquiries } from '../../../src/store/discoveries.ts';
import { updateWebhookUrl } from '../../../src/store/organizations.ts';
import {
  countDiscoveryItemFinished,
  insertDiscoveryCompletedEvent,
} from '../../../src/store/queue/finish-discovery-item.ts';
import { JANE_REQUEST, newOrganization, openTestStore, type TestStore } from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

/** A discovery of `size` inquiries (demographic: no member id). */
async function newDiscovery(organizationId: string, size: number) {
  const id = uuidv7();
  const { memberId: _, ...subscriber } = JANE_REQUEST.subscriber;
  const inquiries = Array.from({ length: size }, () => ({
    id: uuidv7(),
    tradingPartnerServiceId: 'SANDBOX',
    request: { ...JANE_REQUEST, subscriber },
    requestCorrections: null,
  }));
  const inserted = await insertDiscoveryWithInquiries(
    store.db,
    { id, organizationId, dailyCap: 1000 },
    inquiries,
  );
  assert.deepEqual(inserted, { ok: true });
  return id;
}

test('each finished inquiry is counted; only the last returns the completed discovery', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const discoveryId = await newDiscovery(org, 3);
  const finish = (status: 'COMPLETED' | 'FAILED') =>
    db.transaction((tx) => countDiscoveryItemFinished(tx, { discoveryId, status }));
  assert.equal(await finish('FAILED'), undefined);
  assert.equal(await finish('COMPLETED'), undefined);
  const last = await finish('FAILED');
  assert.ok(last);
  assert.deepEqual(
    [last.id, last.status, last.asked, last.answered, last.found, last.pending],
    [discoveryId, 'COMPLETED', 3, 3, 1, 0],
  );
  assert.ok(last.completedAt instanceof Date);
  assert.equal(await finish('COMPLETED'), undefined, 'nothing left to count');
});

test('inquiries finishing at once: exactly one of them completes the discovery', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const discoveryId = await newDiscovery(org, 8);
  const results = await Promise.all(
    Array.from({ length: 8 }, () =>
      db.transaction((tx) => countDiscoveryItemFinished(tx, { discoveryId, status: 'FAILED' })),
    ),
  );
  assert.equal(results.filter(Boolean).length, 1);
});

test('the discovery.completed event is written only to a URL, once per discovery', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const discoveryId = await newDiscovery(org, 1);
  const write = () =>
    db.transaction((tx) =>
      insertDiscoveryCompletedEvent(tx, { id: uuidv7(), organizationId: org, discoveryId, body: '{}' }),
    );
  const events = async () =>
    (
      await db.query<{ kind: string }>('SELECT kind FROM webhook_events WHERE discovery_id = $1', [
        discoveryId,
      ])
    ).rows;
  await write();
  assert.deepEqual(await events(), []);
  await updateWebhookUrl(db, org, 'https://hooks.example.test/one');
  await write();
  await write();
  assert.deepEqual(await events(), [{ kind: 'discovery.completed' }]);
});
