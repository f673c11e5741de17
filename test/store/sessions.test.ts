/** src/store/sessions.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prefixedId } from '../../src/ids.ts';
import { updateTimeZone } from '../../src/store/organizations.ts';
import {
  deleteExpiredSessions,
  deleteSession,
  deleteUserSessions,
  findLiveSession,
  insertSession,
  updateSessionExpiry,
} from '../../src/store/sessions.ts';
import { insertUser } from '../../src/store/users.ts';
import { newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

async function newUser(organizationId: string) {
  const user = {
    id: prefixedId('usr'),
    organizationId,
    email: `${prefixedId('u').toLowerCase()}@clinic.example.test`,
    role: 'member',
  };
  await insertUser(store.db, user);
  return user;
}

test('a live session is read with its user and organization until it expires or is deleted', async () => {
  const { db } = store;
  const org = await newOrganization(db, 'Session Clinic');
  await updateTimeZone(db, org, 'America/Denver');
  const user = await newUser(org);
  const idHash = prefixedId('sess');
  await insertSession(db, { idHash, userId: user.id, csrfToken: 'csrf-1', idleMs: 60_000 });
  const live = await findLiveSession(db, idHash);
  assert.ok(live);
  const { expiresAt, createdAt, ...rest } = live;
  assert.deepEqual(rest, {
    userId: user.id,
    organizationId: org,
    organizationName: 'Session Clinic',
    organizationTimeZone: 'America/Denver',
    email: user.email,
    role: 'member',
    csrfToken: 'csrf-1',
  });
  assert.ok(createdAt instanceof Date);
  assert.ok(expiresAt.getTime() > Date.now() + 50_000, 'idle expiry about a minute ahead');
  await updateSessionExpiry(db, idHash, new Date(Date.now() - 1000));
  assert.equal(await findLiveSession(db, idHash), undefined, 'expired');
  await updateSessionExpiry(db, idHash, new Date(Date.now() + 60_000));
  assert.ok(await findLiveSession(db, idHash));
  await deleteSession(db, idHash);
  assert.equal(await findLiveSession(db, idHash), undefined, 'deleted');
});

test("expired sessions are deleted (all, or a user's on sign-in); a user's sessions all at once", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const user = await newUser(org);
  const other = await newUser(org);
  const expired = prefixedId('sess');
  await insertSession(db, { idHash: expired, userId: user.id, csrfToken: 'c', idleMs: 60_000 });
  await updateSessionExpiry(db, expired, new Date(Date.now() - 1000));
  const live = prefixedId('sess');
  await insertSession(db, { idHash: live, userId: user.id, csrfToken: 'c', idleMs: 60_000 });
  const count = async () =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [user.id]))
      .rows[0]!.n;
  assert.equal(await count(), 1, "the user's expired session went on the way in");
  await updateSessionExpiry(db, live, new Date(Date.now() - 1000));
  const otherLive = prefixedId('sess');
  await insertSession(db, { idHash: otherLive, userId: other.id, csrfToken: 'c', idleMs: 60_000 });
  assert.ok((await deleteExpiredSessions(db)) >= 1);
  assert.equal(await count(), 0);
  assert.ok(await findLiveSession(db, otherLive), 'a live session stays');
  await insertSession(db, { idHash: prefixedId('sess'), userId: other.id, csrfToken: 'c', idleMs: 60_000 });
  assert.equal(await deleteUserSessions(db, other.id), 2);
  assert.equal(await findLiveSession(db, otherLive), undefined);
});
