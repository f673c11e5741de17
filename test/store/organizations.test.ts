/** src/store/organizations.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  clearWebhookSecrets,
  countOrganizations,
  findReuseWithinHours,
  findTimeZone,
  findWebhookColumns,
  listOrganizations,
  lockFirstStart,
  organizationExists,
  rollWebhookSecretColumns,
  updateEligibilityEnabled,
  updateReuseWithinHours,
  updateTimeZone,
  updateWebhookEventTypes,
  updateWebhookSecret,
  updateWebhookUrl,
} from '../../src/store/organizations.ts';
import { newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

test('an inserted organization exists, is counted and listed oldest first with checks enabled', async () => {
  const { db } = store;
  const before = await countOrganizations(db);
  const first = await newOrganization(db, 'First Clinic');
  const second = await newOrganization(db, 'Second Clinic');
  assert.equal(await countOrganizations(db), before + 2);
  assert.equal(await organizationExists(db, first), true);
  assert.equal(await organizationExists(db, 'org_missing'), false);
  await updateEligibilityEnabled(db, second, false);
  const listed = (await listOrganizations(db)).filter((o) => o.id === first || o.id === second);
  assert.deepEqual(listed, [
    { id: first, name: 'First Clinic', eligibilityEnabled: true },
    { id: second, name: 'Second Clinic', eligibilityEnabled: false },
  ]);
});

test('the first-start lock is taken inside a transaction', async () => {
  const { db } = store;
  assert.equal(
    await db.transaction(async (tx) => {
      await lockFirstStart(tx);
      return countOrganizations(tx);
    }),
    await countOrganizations(db),
  );
});

test('time zone and reuse window are read back as set, and absent for no organization', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  assert.deepEqual(await findTimeZone(db, org), { timeZone: null });
  assert.deepEqual(await findReuseWithinHours(db, org), { reuseWithinHours: null });
  await updateTimeZone(db, org, 'America/Chicago');
  await updateReuseWithinHours(db, org, 24);
  assert.deepEqual(await findTimeZone(db, org), { timeZone: 'America/Chicago' });
  assert.deepEqual(await findReuseWithinHours(db, org), { reuseWithinHours: 24 });
  assert.equal(await findTimeZone(db, 'org_missing'), undefined);
  assert.equal(await findReuseWithinHours(db, 'org_missing'), undefined);
});

test('webhook URL, event types and secrets: set, rolled with an overlap, cleared', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  assert.deepEqual(await findWebhookColumns(db, org), {
    webhookUrl: null,
    webhookSecret: null,
    webhookPreviousSecret: null,
    webhookPreviousSecretExpiresAt: null,
    webhookEventTypes: null,
  });
  assert.equal(await rollWebhookSecretColumns(db, org, 'sealed-2', 60_000), false, 'no secret to roll');
  await updateWebhookUrl(db, org, 'https://hooks.example.test/elig');
  await updateWebhookEventTypes(db, org, ['eligibility.completed', 'batch.completed']);
  await updateWebhookSecret(db, org, 'sealed-1');
  const started = Date.now();
  assert.equal(await rollWebhookSecretColumns(db, org, 'sealed-2', 60_000), true);
  const rolled = await findWebhookColumns(db, org);
  assert.equal(rolled?.webhookUrl, 'https://hooks.example.test/elig');
  assert.deepEqual(rolled?.webhookEventTypes, ['eligibility.completed', 'batch.completed']);
  assert.equal(rolled?.webhookSecret, 'sealed-2');
  assert.equal(rolled?.webhookPreviousSecret, 'sealed-1');
  const expires = rolled?.webhookPreviousSecretExpiresAt?.getTime() ?? 0;
  assert.ok(expires > started + 50_000 && expires < Date.now() + 70_000, 'expires about a minute from now');
  await clearWebhookSecrets(db, org);
  await updateWebhookUrl(db, org, null);
  await updateWebhookEventTypes(db, org, null);
  assert.deepEqual(await findWebhookColumns(db, org), {
    webhookUrl: null,
    webhookSecret: null,
    webhookPreviousSecret: null,
    webhookPreviousSecretExpiresAt: null,
    webhookEventTypes: null,
  });
  assert.equal(await findWebhookColumns(db, 'org_missing'), undefined);
});
