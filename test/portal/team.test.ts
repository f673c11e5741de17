/**
 * Settings > Team for owners (issue 16 section 6): the sign-in page tells a locked-out user to ask an owner
 * for a new link, so an owner can give one, change roles and remove people; never themselves, never the
 * last owner, never another organization's users.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { changeRole } from '../../src/tenancy/team.ts';
import {
  csrfToken,
  type PortalClient,
  type PortalHarness,
  signIn,
  signInWithLink,
  startPortal,
} from './helpers.ts';

const TEAM = '/portal/settings/team';
let h: PortalHarness;
let owner: PortalClient;

async function userId(email: string): Promise<string> {
  const { rows } = await h.service.store.db.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [
    email,
  ]);
  return rows[0]!.id;
}

/** Invites someone through the team page and lets them set their password through the link. */
async function invite(email: string, role: 'owner' | 'member' = 'member'): Promise<PortalClient> {
  const res = await owner.submit(TEAM, `${TEAM}/invite`, { email, role });
  assert.equal(res.status, 201);
  const url = /id="invite-link"[^>]*value="([^"]+)"/.exec(res.text)![1]!;
  return signInWithLink(h.url, new URL(url).pathname, `${email} passphrase`);
}

async function post(client: PortalClient, action: string, fields: Record<string, string> = {}) {
  return client.post(action, { ...fields, _csrf: csrfToken((await client.get(TEAM)).text) });
}

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

test('the sign-in page points at what an owner can do in the portal', async () => {
  const page = await fetch(`${h.url}/portal/login`).then((r) => r.text());
  assert.match(
    page,
    /Ask an owner of your organization for a new sign-in link \(they make\s+one under Team, “New sign-in link”\)/,
  );
});

test('an owner gives a member a new sign-in link: it works once, and older links stop working', async () => {
  await invite('front@demo-clinic.example');
  const id = await userId('front@demo-clinic.example');
  const older = await issuePasswordResetLink(
    h.service.store.db,
    h.service.keys.tokenKey,
    'front@demo-clinic.example',
  );
  const res = await post(owner, `${TEAM}/${id}/link`);
  assert.equal(res.status, 200);
  assert.match(res.text, /New sign-in link for front@demo-clinic\.example/);
  assert.match(res.text, /within 1 day/, 'a password reset link: 24 hours');
  const url = /id="relink-link"[^>]*value="([^"]+)"/.exec(res.text)![1]!;
  const fresh = await signInWithLink(h.url, new URL(url).pathname, 'a brand new passphrase');
  assert.match((await fresh.get('/portal/checks')).text, /front@demo-clinic\.example/);
  const stale = await fetch(`${h.url}${older.loginPath}`, { redirect: 'manual' });
  assert.doesNotMatch(await stale.text(), /name="password"/, 'the older link no longer works');
  await signIn(h.url, 'front@demo-clinic.example', 'a brand new passphrase');
});

test('an owner makes a member an owner and back; the change applies on their next page', async () => {
  const member = await invite('billing@demo-clinic.example');
  const id = await userId('billing@demo-clinic.example');
  assert.equal((await member.get(TEAM)).status, 403);
  const promoted = await post(owner, `${TEAM}/${id}/role`, { role: 'owner' });
  assert.equal(promoted.status, 303);
  assert.equal(promoted.location, `${TEAM}?notice=role-changed`);
  assert.match((await owner.get(promoted.location!)).text, /Role changed/);
  assert.equal((await member.get(TEAM)).status, 200, 'now an owner');
  assert.equal((await post(owner, `${TEAM}/${id}/role`, { role: 'member' })).status, 303);
  assert.equal((await member.get(TEAM)).status, 403, 'a member again');
});

test('removing someone asks first, signs them out at once and voids their links', async () => {
  const leaver = await invite('leaver@demo-clinic.example');
  const id = await userId('leaver@demo-clinic.example');
  const link = await issuePasswordResetLink(
    h.service.store.db,
    h.service.keys.tokenKey,
    'leaver@demo-clinic.example',
  );
  const confirm = await owner.get(`${TEAM}/${id}/remove`);
  assert.equal(confirm.status, 200);
  assert.match(confirm.text, /Remove leaver@demo-clinic\.example\?/);
  const removed = await owner.post(`${TEAM}/${id}/remove`, { _csrf: csrfToken(confirm.text) });
  assert.equal(removed.status, 303);
  assert.equal(removed.location, `${TEAM}?notice=user-removed`);
  assert.doesNotMatch((await owner.get(TEAM)).text, /leaver@demo-clinic\.example/);
  const after = await leaver.get('/portal/checks');
  assert.equal(after.status, 303, 'signed out');
  const stale = await fetch(`${h.url}${link.loginPath}`, { redirect: 'manual' });
  assert.doesNotMatch(await stale.text(), /name="password"/);
});

test('an owner cannot act on themselves, and the last owner cannot be demoted or removed', async () => {
  const me = await userId(h.ownerEmail);
  const team = await owner.get(TEAM);
  assert.doesNotMatch(team.text, new RegExp(`action="${TEAM}/${me}/`), 'no actions on your own row');
  for (const action of ['role', 'remove', 'link']) {
    const res = await post(owner, `${TEAM}/${me}/${action}`, { role: 'member' });
    assert.equal(res.status, 400, action);
    assert.match(res.text, /cannot change or remove your own account|at least one owner/);
  }
  assert.equal((await owner.get(`${TEAM}/${me}/remove`)).status, 404);
  // Two owners demoting each other at once: the lock on the owners lets only one through.
  await invite('second-owner@demo-clinic.example', 'owner');
  const secondId = await userId('second-owner@demo-clinic.example');
  const db = h.service.store.db;
  const org = h.organizationId;
  const results = await Promise.allSettled([
    changeRole(db, { organizationId: org, actorId: me, userId: secondId, role: 'member' }),
    changeRole(db, { organizationId: org, actorId: secondId, userId: me, role: 'member' }),
  ]);
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM users WHERE organization_id = $1 AND role = 'owner'",
    [org],
  );
  assert.equal(rows[0]!.n, 1, 'one owner left');
});

test("another organization's owner cannot touch our team", async () => {
  const db = h.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, { organizationId: other.id, email: 'owner@other.example', role: 'owner' });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@other.example');
  const stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');
  const ours = await userId('front@demo-clinic.example');
  for (const action of ['role', 'remove', 'link']) {
    const res = await post(stranger, `${TEAM}/${ours}/${action}`, { role: 'owner' });
    assert.equal(res.status, 400, action);
    assert.match(res.text, /No such user in this organization/);
    assert.doesNotMatch(res.text, /front@demo-clinic/);
  }
  assert.equal((await stranger.get(`${TEAM}/${ours}/remove`)).status, 404);
  const { rows } = await db.query<{ role: string }>('SELECT role FROM users WHERE id = $1', [ours]);
  assert.equal(rows[0]!.role, 'member');
});
