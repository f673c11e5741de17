/**
 * Invitations as records of their own (issue 26 item 10): the answer to an invitation, the team list and the
 * page its link opens are the same whether or not the address has an account in another organization; the
 * link joins a new address (a password chosen) and an existing account (its password: the account moves);
 * a used, expired or withdrawn link fails with a page that says so; another organization neither sees nor
 * manages the invitation.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { findUserByEmail } from '../../src/tenancy/users.ts';
import {
  csrfToken,
  PortalClient,
  type PortalHarness,
  signIn,
  signInWithLink,
  startPortal,
} from './helpers.ts';

const TEAM = '/portal/settings/team';
let h: PortalHarness;
let owner: PortalClient;
before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

/** Another organization with a signed-in owner whose password is `password`. */
async function otherOrganization(name: string, email: string, password = `${email} passphrase`) {
  const db = h.service.store.db;
  const org = await createOrganization(db, name);
  await createPortalUser(db, { organizationId: org.id, email, role: 'owner' });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, email);
  return { org, client: await signInWithLink(h.url, link.loginPath, password), password };
}

const invite = (email: string, role = 'member', by = owner) =>
  by.submit(TEAM, `${TEAM}/invite`, { email, role });

/** The invitation link's path on a team page. */
const linkOf = (text: string) => new URL(/id="invite-link"[^>]*value="([^"]+)"/.exec(text)![1]!).pathname;

/** A page with what differs between two invitations (the address, the link's token, times) blanked out. */
const shape = (text: string, email: string) =>
  text
    .replaceAll(email, 'EMAIL')
    .replace(/\/portal\/invitations\/[0-9A-Za-z]{40}/g, 'LINK')
    .replace(/inv_[0-9A-Za-z]+/g, 'ID')
    .replace(/name="_csrf" value="[^"]+"/g, 'CSRF')
    .replace(/\d{4}-\d\d-\d\d[^<"]*/g, 'TIME');

async function invitationId(email: string): Promise<string> {
  const { rows } = await h.service.store.db.query<{ id: string }>(
    'SELECT id FROM invitations WHERE email = $1 AND accepted_at IS NULL',
    [email],
  );
  return rows[0]!.id;
}

test('an address with an account elsewhere gets the same answer, listing and link page as a new one', async () => {
  const elsewhere = await otherOrganization('Elsewhere Clinic', 'taken@elsewhere.example');
  // Each answer is read with the team as it was plus the one person invited (withdrawn again after).
  const answer = async (email: string) => {
    const res = await invite(email);
    const list = await owner.get(TEAM);
    const id = await invitationId(email.toLowerCase());
    await owner.post(`${TEAM}/invitations/${id}/withdraw`, { _csrf: csrfToken(list.text) });
    return res;
  };
  const takenAnswer = await answer('Taken@Elsewhere.example');
  const freshAnswer = await answer('fresh@elsewhere.example');
  assert.equal(takenAnswer.status, 201);
  assert.equal(freshAnswer.status, 201);
  assert.doesNotMatch(takenAnswer.text, /already on your team|already has/);
  assert.equal(
    shape(takenAnswer.text, 'taken@elsewhere.example'),
    shape(freshAnswer.text, 'fresh@elsewhere.example'),
  );

  const taken = await invite('taken@elsewhere.example');
  const fresh = await invite('fresh@elsewhere.example');
  // After a reload both are on the team list, as invited, alike.
  const list = (await owner.get(TEAM)).text;
  const row = (email: string) =>
    shape(new RegExp(`<tr><th scope="row">${email}</th>.*?</tr>`, 's').exec(list)?.[0] ?? 'missing', email);
  assert.match(row('taken@elsewhere.example'), /<td>Member<\/td><td>Invited \(link valid until/);
  assert.equal(row('taken@elsewhere.example'), row('fresh@elsewhere.example'));

  // The link's page is the same too, to anyone who opens it (the inviter included).
  const opened = async (text: string, email: string) => {
    const page = await new PortalClient(h.url).get(linkOf(text));
    assert.equal(page.status, 200);
    return shape(page.text, email);
  };
  assert.equal(
    await opened(taken.text, 'taken@elsewhere.example'),
    await opened(fresh.text, 'fresh@elsewhere.example'),
  );
  // Inviting changed nothing for the existing account.
  const account = await findUserByEmail(h.service.store.db, 'taken@elsewhere.example');
  assert.equal(account?.organizationId, elsewhere.org.id);
  assert.equal((await elsewhere.client.get('/portal/checks')).status, 200);
});

test('a new address: the link sets a password, joins the team and signs in; used again, it says so', async () => {
  const res = await invite('newcomer@demo-clinic.example', 'owner');
  const link = linkOf(res.text);
  const joined = await signInWithLink(h.url, link, 'newcomer passphrase one');
  const checks = await joined.get('/portal/checks');
  assert.match(checks.text, /Demo Clinic/);
  assert.match(checks.text, /newcomer@demo-clinic\.example/);
  assert.equal((await joined.get(TEAM)).status, 200, 'joined as an owner');
  const list = (await owner.get(TEAM)).text;
  assert.match(list, /newcomer@demo-clinic\.example<\/th><td>Owner<\/td><td>Signed up<\/td>/);
  assert.equal(
    (list.match(/newcomer@demo-clinic\.example<\/th>/g) ?? []).length,
    1,
    'no invitation row left',
  );

  const again = await new PortalClient(h.url).get(link);
  assert.equal(again.status, 410);
  assert.match(again.text, /This invitation no longer works/);
  const reused = await new PortalClient(h.url).submit('/portal/login', link, {
    password: 'another passphrase 2',
    confirm: 'another passphrase 2',
  });
  assert.equal(reused.status, 410);
  await signIn(h.url, 'newcomer@demo-clinic.example', 'newcomer passphrase one');
});

test('an existing account: its password joins the team, it leaves the other organization, its old ways in end', async () => {
  const db = h.service.store.db;
  const other = await otherOrganization('Moving Clinic', 'mover@moving.example');
  await createPortalUser(db, { organizationId: other.org.id, email: 'stays@moving.example', role: 'owner' });
  const stale = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'mover@moving.example');
  const link = linkOf((await invite('mover@moving.example')).text);

  const c = new PortalClient(h.url);
  const wrong = await c.submit(link, `${link}/existing`, { 'account-password': 'not the password at all' });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /The password is incorrect\./);
  const asNew = await c.submit(link, link, {
    password: 'a takeover passphrase',
    confirm: 'a takeover passphrase',
  });
  assert.equal(asNew.status, 400, 'a new password never replaces an existing account’s');
  assert.match(asNew.text, /already has a portal account: enter its password below/);
  assert.equal((await findUserByEmail(db, 'mover@moving.example'))?.organizationId, other.org.id);

  const ok = await c.submit(link, `${link}/existing`, { 'account-password': other.password });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, '/portal/checks?notice=joined');
  const checks = await c.get('/portal/checks?notice=joined');
  assert.match(checks.text, /Demo Clinic/);
  assert.match(checks.text, /You joined the team/);
  const moved = await findUserByEmail(db, 'mover@moving.example');
  assert.equal(moved?.organizationId, h.organizationId);
  assert.equal(moved?.role, 'member');
  assert.match(
    (await owner.get(TEAM)).text,
    /mover@moving\.example<\/th><td>Member<\/td><td>Signed up<\/td>/,
  );
  // The session and the link from the organization it left no longer work.
  assert.equal((await other.client.get('/portal/checks')).status, 303);
  assert.equal((await new PortalClient(h.url).get(stale.loginPath)).status, 410);
  assert.equal((await new PortalClient(h.url).get(link)).status, 410, 'the invitation is used');
});

test('the only owner of an organization cannot leave it by accepting; the invitation stays open', async () => {
  const other = await otherOrganization('Solo Clinic', 'solo@solo.example');
  const link = linkOf((await invite('solo@solo.example')).text);
  const c = new PortalClient(h.url);
  const refused = await c.submit(link, `${link}/existing`, { 'account-password': other.password });
  assert.equal(refused.status, 400);
  assert.match(refused.text, /You are the only owner of the organization your account is in now/);
  assert.equal(
    (await findUserByEmail(h.service.store.db, 'solo@solo.example'))?.organizationId,
    other.org.id,
  );
  assert.equal((await c.get(link)).status, 200);
});

test('the existing-account form refuses an address without an account exactly like a wrong password', async () => {
  await otherOrganization('Probe Clinic', 'probe-taken@probe.example');
  const attempt = async (email: string) => {
    const link = linkOf((await invite(email)).text);
    const c = new PortalClient(h.url);
    const res = await c.submit(link, `${link}/existing`, { 'account-password': 'guessing a password' });
    return { status: res.status, page: shape(res.text, email) };
  };
  const taken = await attempt('probe-taken@probe.example');
  const fresh = await attempt('probe-new@probe.example');
  assert.equal(taken.status, 401);
  assert.deepEqual(taken, fresh);
});

test('an expired link fails with a page that says so; a new link from the team page works', async () => {
  const link = linkOf((await invite('late@demo-clinic.example')).text);
  await h.service.store.db.query(
    "UPDATE invitations SET expires_at = now() - interval '1 second' WHERE email = 'late@demo-clinic.example'",
  );
  const gone = await new PortalClient(h.url).get(link);
  assert.equal(gone.status, 410);
  assert.match(gone.text, /This invitation no longer works/);
  assert.match(gone.text, /expire after 7 days/);
  const list = await owner.get(TEAM);
  assert.match(list.text, /late@demo-clinic\.example<\/th><td>Member<\/td><td>Invitation expired<\/td>/);

  const id = await invitationId('late@demo-clinic.example');
  const renewed = await owner.post(`${TEAM}/invitations/${id}/link`, { _csrf: csrfToken(list.text) });
  assert.equal(renewed.status, 200);
  const fresh = linkOf(renewed.text);
  assert.notEqual(fresh, link);
  await signInWithLink(h.url, fresh, 'late comer passphrase');
});

test('inviting an address again replaces its link; a withdrawn invitation’s link no longer works', async () => {
  const first = linkOf((await invite('twice@demo-clinic.example')).text);
  const second = linkOf((await invite('twice@demo-clinic.example', 'owner')).text);
  assert.equal((await new PortalClient(h.url).get(first)).status, 410, 'replaced');
  const list = await owner.get(TEAM);
  assert.equal((list.text.match(/twice@demo-clinic\.example<\/th>/g) ?? []).length, 1);
  assert.match(list.text, /twice@demo-clinic\.example<\/th><td>Owner<\/td>/);

  const id = await invitationId('twice@demo-clinic.example');
  const withdrawn = await owner.post(`${TEAM}/invitations/${id}/withdraw`, { _csrf: csrfToken(list.text) });
  assert.equal(withdrawn.status, 303);
  assert.equal(withdrawn.location, `${TEAM}?notice=invitation-withdrawn`);
  assert.doesNotMatch((await owner.get(TEAM)).text, /twice@demo-clinic/);
  const gone = await new PortalClient(h.url).get(second);
  assert.equal(gone.status, 410);
  assert.match(gone.text, /an owner can withdraw one/);
});

test('another organization neither sees nor manages an invitation; members cannot invite', async () => {
  const other = await otherOrganization('Nosy Clinic', 'nosy@nosy.example');
  const link = linkOf((await invite('private@demo-clinic.example')).text);
  const id = await invitationId('private@demo-clinic.example');
  const theirs = await other.client.get(TEAM);
  assert.equal(theirs.status, 200);
  assert.doesNotMatch(theirs.text, /private@demo-clinic/);
  const csrf = csrfToken(theirs.text);
  for (const verb of ['link', 'withdraw']) {
    const res = await other.client.post(`${TEAM}/invitations/${id}/${verb}`, { _csrf: csrf });
    assert.equal(res.status, 404, verb);
    assert.doesNotMatch(res.text, /private@demo-clinic|invitations\/[0-9A-Za-z]{40}/);
  }
  assert.equal((await new PortalClient(h.url).get(link)).status, 200, 'still open and unchanged');

  const member = await signInWithLink(h.url, linkOf((await invite('plain@demo-clinic.example')).text));
  const refused = await member.post(`${TEAM}/invite`, {
    _csrf: csrfToken((await member.get('/portal/checks')).text),
    email: 'friend@demo-clinic.example',
    role: 'owner',
  });
  assert.equal(refused.status, 403);
  const { rows } = await h.service.store.db.query(
    "SELECT 1 FROM invitations WHERE email = 'friend@demo-clinic.example'",
  );
  assert.equal(rows.length, 0);
});
