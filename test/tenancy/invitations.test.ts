/**
 * Invitation rules on the store the tests run on (PGlite, or PostgreSQL with DATABASE_URL): at most
 * MAX_OPEN_INVITATIONS open at once, an address invited again keeps one invitation, and two acceptances of
 * one link make one account.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { prefixedId } from '../../src/ids.ts';
import { countOpenInvitations, insertInvitation } from '../../src/store/invitations.ts';
import { acceptAsNewAccount, inviteToTeam, MAX_OPEN_INVITATIONS } from '../../src/tenancy/invitations.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { PortalUserError } from '../../src/tenancy/users.ts';
import { openTestStore, type TestStore } from '../helpers/store.ts';

let store: TestStore;
const tokenKey = randomBytes(32);
before(async () => {
  store = await openTestStore();
});
after(() => store.close());

test(`an organization holds at most ${MAX_OPEN_INVITATIONS} open invitations; a repeat address replaces its own`, async () => {
  const { db } = store;
  const org = (await createOrganization(db, 'Busy Clinic')).id;
  for (let i = 1; i < MAX_OPEN_INVITATIONS; i++) {
    const row = { id: prefixedId('inv'), organizationId: org, role: 'member', tokenHash: prefixedId('tok') };
    await insertInvitation(db, { ...row, email: `p${i}@busy.example`, ttlMs: 60_000 });
  }
  await inviteToTeam(db, tokenKey, { organizationId: org, email: 'last@busy.example', role: 'member' });
  assert.equal(await countOpenInvitations(db, org), MAX_OPEN_INVITATIONS);
  await assert.rejects(
    inviteToTeam(db, tokenKey, { organizationId: org, email: 'one-more@busy.example', role: 'member' }),
    (err) => err instanceof PortalUserError && /200 open invitations/.test(err.message),
  );
  await inviteToTeam(db, tokenKey, { organizationId: org, email: 'LAST@busy.example', role: 'owner' });
  assert.equal(await countOpenInvitations(db, org), MAX_OPEN_INVITATIONS, 'replaced, not added');
});

test('two acceptances of one link at once make one account', async () => {
  const { db } = store;
  const org = (await createOrganization(db, 'Race Clinic')).id;
  const { invitationPath } = await inviteToTeam(db, tokenKey, {
    organizationId: org,
    email: 'racer@race.example',
    role: 'member',
  });
  const token = invitationPath.split('/').pop()!;
  const outcomes = await Promise.all([1, 2, 3].map(() => acceptAsNewAccount(db, tokenKey, token, 'hash')));
  assert.deepEqual(outcomes.map((o) => o.kind).sort(), ['gone', 'gone', 'joined']);
  const { rows } = await db.query("SELECT 1 FROM users WHERE email = 'racer@race.example'");
  assert.equal(rows.length, 1);
});
