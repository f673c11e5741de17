/**
 * The organization's providers list on the store the tests run on (PGlite, or PostgreSQL with DATABASE_URL):
 * exactly one default while the list is not empty, an NPI listed once, at most MAX_PROVIDERS, and changes made
 * at the same time all kept (each holds the organization's row while it reads and writes the list).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, test } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { openStore, type Store } from '../../src/store/open.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import {
  addProvider,
  listProviders,
  MAX_PROVIDERS,
  removeProvider,
  setDefaultProvider,
} from '../../src/tenancy/providers.ts';
import { dropTestSchema, testConfig } from '../helpers/service.ts';

const config = testConfig();
let store: Store;
let db: Db;
before(async () => {
  store = await openStore(config);
  db = store.db;
});
after(async () => {
  await store.close();
  await dropTestSchema(config);
  rmSync(config.dataDir, { recursive: true, force: true });
});

/** `count` distinct 10-digit NPIs (the list keeps the shape; the check digit is the portal's rule). */
const npis = (count: number, from = 1_000_000_000) =>
  Array.from({ length: count }, (_, i) => String(from + i));

test('one default while the list is not empty; an NPI once; another organization untouched', async () => {
  const org = await createOrganization(db, 'Providers A');
  const other = await createOrganization(db, 'Providers B');
  assert.deepEqual(await listProviders(db, org.id), []);
  assert.deepEqual(await addProvider(db, org.id, { name: ' Clinic ', npi: '1234567893', isDefault: false }), {
    ok: true,
  });
  await addProvider(db, org.id, { name: 'Dr Park', npi: '9876543213', isDefault: true });
  await addProvider(db, org.id, { name: 'Dr Lee', npi: '1111111112', isDefault: false });
  assert.deepEqual(await addProvider(db, org.id, { name: 'Again', npi: '1111111112', isDefault: false }), {
    ok: false,
    reason: 'duplicate',
  });
  assert.deepEqual(await listProviders(db, org.id), [
    { name: 'Clinic', npi: '1234567893', isDefault: false },
    { name: 'Dr Park', npi: '9876543213', isDefault: true },
    { name: 'Dr Lee', npi: '1111111112', isDefault: false },
  ]);
  assert.deepEqual(await setDefaultProvider(db, org.id, '1111111112'), { ok: true });
  assert.deepEqual(await removeProvider(db, org.id, '1111111112'), { ok: true });
  assert.deepEqual(
    (await listProviders(db, org.id)).map((p) => [p.npi, p.isDefault]),
    [
      ['1234567893', true],
      ['9876543213', false],
    ],
    'removing the default makes the first remaining one the default',
  );
  assert.deepEqual(await removeProvider(db, org.id, '1111111112'), { ok: false, reason: 'unknown' });
  assert.deepEqual(await setDefaultProvider(db, other.id, '1234567893'), { ok: false, reason: 'unknown' });
  assert.deepEqual(await listProviders(db, other.id), []);
  assert.deepEqual(await addProvider(db, 'org_missing', { name: 'X', npi: '1234567893', isDefault: false }), {
    ok: false,
    reason: 'unknown',
  });
  assert.throws(() => addProvider(db, org.id, { name: '', npi: '1234567893', isDefault: false }), RangeError);
  assert.throws(() => addProvider(db, org.id, { name: 'X', npi: '12345', isDefault: false }), RangeError);
});

test('changes made at the same time are all kept, up to the limit', async () => {
  const org = await createOrganization(db, 'Providers C');
  const all = npis(MAX_PROVIDERS + 2);
  const results = await Promise.all(
    all.map((npi) => addProvider(db, org.id, { name: `P ${npi}`, npi, isDefault: false })),
  );
  assert.equal(results.filter((r) => r.ok).length, MAX_PROVIDERS);
  assert.deepEqual(
    results.filter((r) => !r.ok),
    [
      { ok: false, reason: 'full' },
      { ok: false, reason: 'full' },
    ],
  );
  const listed = await listProviders(db, org.id);
  assert.equal(listed.length, MAX_PROVIDERS);
  assert.equal(new Set(listed.map((p) => p.npi)).size, MAX_PROVIDERS);
  assert.equal(listed.filter((p) => p.isDefault).length, 1);
});
