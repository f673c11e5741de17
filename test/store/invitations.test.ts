/** src/store/invitations.ts on the store of this test run (PGlite, or PostgreSQL with DATABASE_URL). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { prefixedId } from '../../src/ids.ts';
import {
  acceptInvitationRow,
  countOpenInvitations,
  deleteOpenInvitation,
  deleteOpenInvitationsFor,
  findLiveInvitation,
  insertInvitation,
  renewInvitation,
  selectOpenInvitations,
} from '../../src/store/invitations.ts';
import { newOrganization, openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

async function invitation(organizationId: string, over: { email?: string; ttlMs?: number } = {}) {
  const row = {
    id: prefixedId('inv'),
    organizationId,
    email: over.email ?? `${prefixedId('i').toLowerCase()}@clinic.example.test`,
    role: 'member',
    tokenHash: prefixedId('tok'),
  };
  await insertInvitation(store.db, { ...row, ttlMs: over.ttlMs ?? 60_000 });
  return row;
}

test('an invitation is found by its token hash with its organization, and accepted once', async () => {
  const { db } = store;
  const org = await newOrganization(db, 'Invitation Clinic');
  const inv = await invitation(org);
  const { tokenHash: _t, ...shown } = inv;
  assert.deepEqual(await findLiveInvitation(db, inv.tokenHash), {
    ...shown,
    organizationName: 'Invitation Clinic',
  });
  assert.deepEqual(await acceptInvitationRow(db, inv.tokenHash), shown);
  assert.equal(await acceptInvitationRow(db, inv.tokenHash), undefined, 'accepted already');
  assert.equal(await findLiveInvitation(db, inv.tokenHash), undefined);
  assert.deepEqual(await selectOpenInvitations(db, org), [], 'an accepted invitation is no longer listed');
});

test('an expired invitation is neither found nor accepted, but listed until renewed', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const inv = await invitation(org, { ttlMs: -1000 });
  assert.equal(await findLiveInvitation(db, inv.tokenHash), undefined);
  assert.equal(await acceptInvitationRow(db, inv.tokenHash), undefined);
  assert.deepEqual(
    (await selectOpenInvitations(db, org)).map((r) => r.id),
    [inv.id],
  );
  assert.equal(await countOpenInvitations(db, org), 1);
  assert.deepEqual(await renewInvitation(db, org, inv.id, { tokenHash: 'tok_new', ttlMs: 60_000 }), {
    email: inv.email,
    role: 'member',
  });
  assert.equal(await findLiveInvitation(db, inv.tokenHash), undefined, 'the old link stays dead');
  assert.equal((await findLiveInvitation(db, 'tok_new'))?.id, inv.id);
});

test('another organization can neither renew nor withdraw an invitation', async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const other = await newOrganization(db);
  const inv = await invitation(org);
  assert.equal(
    await renewInvitation(db, other, inv.id, { tokenHash: 'tok_theirs', ttlMs: 60_000 }),
    undefined,
  );
  assert.equal(await deleteOpenInvitation(db, other, inv.id), false);
  assert.deepEqual(await selectOpenInvitations(db, other), []);
  assert.equal((await findLiveInvitation(db, inv.tokenHash))?.id, inv.id);
  assert.equal(await deleteOpenInvitation(db, org, inv.id), true);
  assert.equal(await findLiveInvitation(db, inv.tokenHash), undefined);
});

test("an address's open invitations are deleted together, in its organization only, accepted ones kept", async () => {
  const { db } = store;
  const org = await newOrganization(db);
  const other = await newOrganization(db);
  const email = 'same@clinic.example.test';
  const accepted = await invitation(org, { email });
  await acceptInvitationRow(db, accepted.tokenHash);
  await invitation(org, { email });
  const theirs = await invitation(other, { email });
  await deleteOpenInvitationsFor(db, org, email);
  assert.equal(await countOpenInvitations(db, org), 0);
  assert.deepEqual(
    (await selectOpenInvitations(db, other)).map((r) => r.id),
    [theirs.id],
  );
  const { rows } = await db.query('SELECT 1 FROM invitations WHERE id = $1', [accepted.id]);
  assert.equal(rows.length, 1);
});
