/** src/store/queue/claim.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { uuidv7 } from '../../../src/ids.ts';
import { insertBatchWithChecks } from '../../../src/store/batches.ts';
import { insertCheck } from '../../../src/store/checks.ts';
import { claimDue, claimDueChecks, nextDueIn, QUEUES } from '../../../src/store/queue/claim.ts';
import { insertTestEvent } from '../../../src/store/webhook-events.ts';
import {
  JANE_REQUEST,
  newCheck,
  newOrganization,
  openTestStore,
  orderedId,
  type TestStore,
} from '../../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const LEASE = 60_000;

test('due checks are leased oldest first with their attempt counted; a leased check waits for its lease to lapse', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  assert.equal(await nextDueIn(db, QUEUES.checks), undefined, 'nothing pending');
  const first = await newCheck(db, org);
  const second = await newCheck(db, org);
  assert.equal(await nextDueIn(db, QUEUES.checks), 0, 'due now');
  const claimed = await claimDue(db, QUEUES.checks, ['id', 'organizationId', 'attempts', 'request'], {
    workerId: 'worker-a',
    limit: 1,
    leaseMs: LEASE,
  });
  assert.deepEqual(claimed, [{ id: first, organizationId: org, attempts: 1, request: JANE_REQUEST }]);
  const rest = await claimDue(db, QUEUES.checks, ['id'], { workerId: 'worker-b', limit: 10, leaseMs: LEASE });
  assert.deepEqual(rest, [{ id: second }], 'the leased one is skipped');
  assert.deepEqual(
    await claimDue(db, QUEUES.checks, ['id'], { workerId: 'worker-c', limit: 10, leaseMs: LEASE }),
    [],
  );
  const waits = await nextDueIn(db, QUEUES.checks);
  assert.ok(waits !== undefined && waits > 50_000, 'until the first lease lapses');
  // worker-a crashed: once its lease lapses another worker takes the check over, a second attempt.
  await db.query("UPDATE checks SET locked_until = now() - interval '1 second' WHERE id = $1", [first]);
  const taken = await claimDue(db, QUEUES.checks, ['id', 'attempts', 'lockedBy'], {
    workerId: 'worker-c',
    limit: 10,
    leaseMs: LEASE,
  });
  assert.deepEqual(taken, [{ id: first, attempts: 2, lockedBy: 'worker-c' }]);
  await db.query("UPDATE checks SET status = 'COMPLETED' WHERE organization_id = $1", [org]);
});

test('the webhook queue is claimed the same way', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const id = uuidv7();
  await insertTestEvent(db, { id, organizationId: org, body: '{}', url: 'https://h.example.test' });
  assert.equal(await nextDueIn(db, QUEUES.webhookEvents), 0);
  assert.deepEqual(
    await claimDue(db, QUEUES.webhookEvents, ['id', 'url', 'attempts'], {
      workerId: 'd',
      limit: 10,
      leaseMs: LEASE,
    }),
    [{ id, url: 'https://h.example.test', attempts: 1 }],
  );
  assert.deepEqual(
    await claimDue(db, QUEUES.webhookEvents, ['id'], { workerId: 'e', limit: 10, leaseMs: LEASE }),
    [],
  );
});

test('interactive checks go first; background checks are shared across organizations', async () => {
  const { db } = store;
  const orgs = [await newOrganization(db), await newOrganization(db)];
  for (const org of orgs) {
    const items = Array.from({ length: 3 }, (_, i) => ({
      id: uuidv7(),
      tradingPartnerServiceId: 'SANDBOX',
      request: JANE_REQUEST,
      batchIndex: i + 1,
    }));
    const batch = {
      id: uuidv7(),
      organizationId: org,
      name: null,
      rejected: 0,
      idempotencyKey: null,
      requestHash: null,
    };
    await insertBatchWithChecks(db, batch, items);
  }
  const single = await newCheck(db, orgs[1]!);
  const claimed = await claimDueChecks(db, ['id', 'organizationId', 'priority'], {
    workerId: 'worker-a',
    limit: 5,
    backgroundLimit: 4,
    leaseMs: LEASE,
  });
  assert.deepEqual(claimed[0], { id: single, organizationId: orgs[1], priority: 0 });
  const background = claimed.slice(1);
  assert.equal(background.length, 4);
  assert.ok(background.every((c) => c.priority === 1));
  for (const org of orgs)
    assert.equal(background.filter((c) => c.organizationId === org).length, 2, 'an equal share');
});

test("an organization's turn rotates across its connections; a saturated connection is skipped", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const through = async (connection: string) => {
    const id = orderedId();
    await insertCheck(db, {
      id,
      organizationId: org,
      tradingPartnerServiceId: JANE_REQUEST.tradingPartnerServiceId,
      request: JANE_REQUEST,
      connection,
    });
    return id;
  };
  // A flood through one clearinghouse account, then a single check through another, submitted last.
  const flood = [];
  for (let i = 0; i < 6; i++) flood.push(await through('big'));
  const other = await through('other');
  const claim = (limit: number, skipConnections?: string[]) =>
    claimDueChecks(db, ['id'], {
      workerId: 'worker-a',
      limit,
      backgroundLimit: 0,
      leaseMs: LEASE,
      ...(skipConnections ? { skipConnections } : {}),
    });
  const firstTwo = (await claim(2)).map((c) => c.id);
  assert.equal(firstTwo.length, 2);
  assert.ok(firstTwo.includes(other), 'the other connection is not queued behind the flood');
  assert.ok(firstTwo.includes(flood[0]!), "and the flood's oldest goes with it");
  const another = await through('other');
  assert.deepEqual(
    (await claim(10, ['big'])).map((c) => c.id),
    [another],
    'a connection the worker has enough of is left for later',
  );
  assert.deepEqual(
    (await claim(10)).map((c) => c.id).sort(),
    flood.slice(1).sort(),
    'and claimed once it is not skipped',
  );
});
