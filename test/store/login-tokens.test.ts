/** src/store/login-tokens.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prefixedId } from '../../src/ids.ts';
import {
  deleteUserLoginTokens,
  expireUserLoginTokens,
  findLoginToken,
  insertLoginToken,
  useLoginToken,
} from '../../src/store/login-tokens.ts';
import { insertUser } from '../../src/store/users.ts';
import { newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

async function newUser() {
  const user = {
    id: prefixedId('usr'),
    organizationId: await newOrganization(store.db),
    email: `${prefixedId('u').toLowerCase()}@clinic.example.test`,
    role: 'owner',
  };
  await insertUser(store.db, user);
  return user;
}

test('a token is found with its user and purpose, and used once', async () => {
  const { db } = store;
  const user = await newUser();
  const tokenHash = prefixedId('tok');
  await insertLoginToken(db, { tokenHash, userId: user.id, purpose: 'invite', ttlMs: 60_000 });
  assert.deepEqual(await findLoginToken(db, tokenHash), { ...user, passwordHash: null, purpose: 'invite' });
  assert.deepEqual(await useLoginToken(db, tokenHash), { ...user, purpose: 'invite' });
  assert.equal(await useLoginToken(db, tokenHash), undefined, 'used already');
  assert.equal(await findLoginToken(db, tokenHash), undefined);
  assert.equal(await findLoginToken(db, 'tok_unknown'), undefined);
});

test('an expired token is neither found nor used', async () => {
  const { db } = store;
  const user = await newUser();
  const tokenHash = prefixedId('tok');
  await insertLoginToken(db, { tokenHash, userId: user.id, purpose: 'reset', ttlMs: -1000 });
  assert.equal(await findLoginToken(db, tokenHash), undefined);
  assert.equal(await useLoginToken(db, tokenHash), undefined);
});

test("a user's open links are used up together, and deleted together", async () => {
  const { db } = store;
  const user = await newUser();
  const first = prefixedId('tok');
  const second = prefixedId('tok');
  await insertLoginToken(db, { tokenHash: first, userId: user.id, purpose: 'reset', ttlMs: 60_000 });
  await insertLoginToken(db, { tokenHash: second, userId: user.id, purpose: 'reset', ttlMs: 60_000 });
  await expireUserLoginTokens(db, user.id);
  assert.equal(await findLoginToken(db, first), undefined);
  assert.equal(await findLoginToken(db, second), undefined);
  await deleteUserLoginTokens(db, user.id);
  const { rows } = await db.query('SELECT 1 FROM login_tokens WHERE user_id = $1', [user.id]);
  assert.equal(rows.length, 0);
});
