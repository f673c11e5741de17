/** src/store/api-keys.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prefixedId } from '../../src/ids.ts';
import {
  findActiveKeyByPrefix,
  insertApiKey,
  markApiKeyRevoked,
  selectApiKeys,
  touchApiKeys,
} from '../../src/store/api-keys.ts';
import { updateEligibilityEnabled } from '../../src/store/organizations.ts';
import { newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

const newKey = (organizationId: string, name: string) => ({
  id: prefixedId('key'),
  organizationId,
  name,
  prefix: `elig_test_${prefixedId('p').slice(2, 10)}`,
  hash: `hash-of-${name}`,
  scopes: ['eligibility:write', 'eligibility:read'],
});

test('a stored key is found by its prefix with its organization switch, until it is revoked', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const key = newKey(org, 'server');
  const { createdAt } = await insertApiKey(db, key);
  assert.ok(createdAt instanceof Date);
  assert.deepEqual(await findActiveKeyByPrefix(db, key.prefix), {
    id: key.id,
    organizationId: org,
    hash: key.hash,
    scopes: key.scopes,
    eligibilityEnabled: true,
  });
  await updateEligibilityEnabled(db, org, false);
  assert.equal((await findActiveKeyByPrefix(db, key.prefix))?.eligibilityEnabled, false);
  assert.equal(await markApiKeyRevoked(db, 'org_other', key.id), false, "another organization's key");
  assert.equal(await markApiKeyRevoked(db, org, key.id), true);
  assert.equal(await markApiKeyRevoked(db, org, key.id), false, 'already revoked');
  assert.equal(await findActiveKeyByPrefix(db, key.prefix), undefined);
});

test("an organization's keys are listed newest first, without hashes, with last use and revocation", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const other = await newOrganization(db);
  const older = newKey(org, 'older');
  const newer = newKey(org, 'newer');
  await insertApiKey(db, older);
  await new Promise((r) => setTimeout(r, 5));
  await insertApiKey(db, newer);
  await insertApiKey(db, newKey(other, 'elsewhere'));
  await touchApiKeys(db, []);
  await touchApiKeys(db, [older.id]);
  await markApiKeyRevoked(db, org, newer.id);
  const listed = await selectApiKeys(db, org);
  assert.deepEqual(
    listed.map((k) => k.id),
    [newer.id, older.id],
  );
  assert.ok(listed.every((k) => !('hash' in k)));
  assert.deepEqual(Object.keys(listed[0]!).sort(), [
    'createdAt',
    'id',
    'lastUsedAt',
    'name',
    'organizationId',
    'prefix',
    'revokedAt',
    'scopes',
  ]);
  assert.ok(listed[0]!.revokedAt instanceof Date && listed[0]!.lastUsedAt === null);
  assert.ok(listed[1]!.lastUsedAt instanceof Date && listed[1]!.revokedAt === null);
  assert.deepEqual(listed[1]!.scopes, older.scopes);
});
