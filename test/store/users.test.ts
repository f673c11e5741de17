/** src/store/users.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prefixedId } from '../../src/ids.ts';
import {
  deleteUser,
  emailTaken,
  findOrganizationUser,
  findUserRowByEmail,
  insertUser,
  insertUserIfNew,
  lockOwners,
  moveUser,
  selectUsers,
  updatePasswordHash,
  updateUserRole,
} from '../../src/store/users.ts';
import { newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const email = () => `${prefixedId('u').toLowerCase()}@clinic.example.test`;

test('a user is found by email and within its organization only, with its password hash once set', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const user = { id: prefixedId('usr'), organizationId: org, email: email(), role: 'owner' };
  await insertUser(db, user);
  assert.equal(await emailTaken(db, user.email), true);
  assert.equal(await emailTaken(db, email()), false);
  assert.deepEqual(await findUserRowByEmail(db, user.email), { ...user, passwordHash: null });
  await updatePasswordHash(db, user.id, 'scrypt$hash');
  assert.deepEqual(await findOrganizationUser(db, org, user.id), { ...user, passwordHash: 'scrypt$hash' });
  assert.equal(await findOrganizationUser(db, await newOrganization(db), user.id), undefined);
  assert.equal(await findUserRowByEmail(db, email()), undefined);
});

test("an organization's users oldest first; owners locked; role change and delete scoped to it", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const other = await newOrganization(db);
  const owner = { id: prefixedId('usr'), organizationId: org, email: email(), role: 'owner' };
  const member = { id: prefixedId('usr'), organizationId: org, email: email(), role: 'member' };
  await insertUser(db, owner);
  await new Promise((r) => setTimeout(r, 5));
  await insertUser(db, member);
  await insertUser(db, { id: prefixedId('usr'), organizationId: other, email: email(), role: 'owner' });
  const listed = await selectUsers(db, org);
  assert.ok(listed.every((u) => u.createdAt instanceof Date));
  assert.deepEqual(
    listed.map(({ createdAt: _createdAt, ...u }) => u),
    [
      { ...owner, passwordHash: null },
      { ...member, passwordHash: null },
    ],
  );
  assert.deepEqual(await db.transaction((tx) => lockOwners(tx, org)), [{ id: owner.id }]);
  assert.equal(await updateUserRole(db, other, member.id, 'owner'), false);
  assert.equal(await updateUserRole(db, org, member.id, 'owner'), true);
  assert.deepEqual((await lockOwners(db, org)).map((u) => u.id).sort(), [owner.id, member.id].sort());
  assert.equal(await deleteUser(db, other, member.id), false);
  assert.equal(await deleteUser(db, org, member.id), true);
  assert.deepEqual(
    (await selectUsers(db, org)).map((u) => u.id),
    [owner.id],
  );
});

test('a user with a password is made unless the email has an account; an account moves organization', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const other = await newOrganization(db);
  const user = {
    id: prefixedId('usr'),
    organizationId: org,
    email: email(),
    role: 'owner',
    passwordHash: 'h1',
  };
  assert.equal(await insertUserIfNew(db, user), true);
  assert.equal(await insertUserIfNew(db, { ...user, id: prefixedId('usr'), organizationId: other }), false);
  assert.equal((await findUserRowByEmail(db, user.email))?.id, user.id);
  assert.equal(await moveUser(db, user.id, other, 'member'), true);
  assert.deepEqual(await findUserRowByEmail(db, user.email), {
    ...user,
    organizationId: other,
    role: 'member',
  });
  assert.equal(await findOrganizationUser(db, org, user.id), undefined);
});
