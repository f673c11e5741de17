/**
 * Signing in: the first-start link, passwords, sessions stored as hashes, expiry, sign-out, invitations and
 * operator reset links, security headers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPortalUser, issuePasswordResetLink, PortalUserError } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import {
  csrfToken,
  PortalClient,
  type PortalHarness,
  signIn,
  signInWithLink,
  startPortal,
  TEST_PASSWORD,
} from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;

before(async () => {
  h = await startPortal();
});
after(() => h.stop());

test('portal pages carry a strict CSP and the other security headers', async () => {
  const res = await new PortalClient(h.url).get('/portal/login');
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ]) {
    assert.ok(csp.split('; ').includes(directive), `CSP lacks ${directive}: ${csp}`);
  }
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  // No inline script or style anywhere: the page loads one stylesheet and one script from this origin.
  assert.doesNotMatch(res.text, /<script>|<style|style="/);
  assert.match(res.text, /<link rel="stylesheet" href="\/portal\/assets\/portal\.css/);
});

test('the JSON API keeps its own behaviour: no portal headers, no form parsing', async () => {
  const res = await fetch(`${h.url}/api/eligibility`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Key ${h.apiKey}` },
    body: 'a=b',
  });
  assert.notEqual(res.status, 202);
  assert.equal(res.headers.get('content-security-policy'), null);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
});

test('the stylesheet and script are served by the app', async () => {
  const c = new PortalClient(h.url);
  const css = await c.get('/portal/assets/portal.css');
  assert.equal(css.status, 200);
  assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
  assert.doesNotMatch(css.text, /@import|url\(https?:/);
  const js = await c.get('/portal/assets/portal.js');
  assert.equal(js.status, 200);
  assert.match(js.headers.get('content-type') ?? '', /javascript/);
  assert.equal((await c.get('/portal/assets/nope.js')).status, 404);
});

test('signed-out visitors are sent to the sign-in page, with only portal paths as the return address', async () => {
  const c = new PortalClient(h.url);
  const res = await c.get('/portal/checks');
  assert.equal(res.status, 303);
  assert.equal(res.location, '/portal/login?next=%2Fportal%2Fchecks');
  const page = await c.get('/portal/login?next=https://evil.example/');
  assert.match(page.text, /name="next" value="\/portal\/checks"/);
});

test('the first-start link refuses a weak password without using up the link', async () => {
  const c = new PortalClient(h.url);
  const form = await c.get(h.loginPath);
  assert.equal(form.status, 200);
  assert.match(form.text, /owner@demo-clinic\.example/);
  const weak = await c.post(h.loginPath, {
    _csrf: csrfToken(form.text),
    password: 'short',
    confirm: 'short',
  });
  assert.equal(weak.status, 400);
  assert.match(weak.text, /at least 12 characters/);
  const mismatch = await c.post(h.loginPath, {
    _csrf: csrfToken(form.text),
    password: TEST_PASSWORD,
    confirm: `${TEST_PASSWORD}!`,
  });
  assert.equal(mismatch.status, 400);
  assert.match(mismatch.text, /do not match/);
  assert.equal((await c.get(h.loginPath)).status, 200, 'the link still works');
});

test('the first-start link sets a password, signs in once, then never works again', async () => {
  owner = await signInWithLink(h.url, h.loginPath);
  const cookieLine = owner.lastSetCookie.find((l) => l.startsWith('elig_session='));
  assert.ok(cookieLine, 'session cookie set');
  assert.match(cookieLine, /HttpOnly/i);
  assert.match(cookieLine, /SameSite=Lax/i);
  assert.match(cookieLine, /Path=\//);
  assert.doesNotMatch(cookieLine, /Secure/i, 'no Secure flag without secureCookies');
  const checks = await owner.get('/portal/checks');
  assert.equal(checks.status, 200);
  assert.match(checks.text, /Demo Clinic/);
  // The store keeps only a hash of the cookie value.
  const value = owner.cookies.get('elig_session')!;
  const { rows } = await h.service.store.db.query<{ id_hash: string }>('SELECT id_hash FROM sessions');
  assert.ok(rows.length >= 1);
  assert.ok(rows.every((r) => r.id_hash !== value && !r.id_hash.includes(value)));
  // The password is stored as argon2id.
  const users = await h.service.store.db.query<{ password_hash: string }>(
    'SELECT password_hash FROM users WHERE email = $1',
    [h.ownerEmail],
  );
  assert.match(users.rows[0]!.password_hash, /^\$argon2id\$/);
  const again = await new PortalClient(h.url).get(h.loginPath);
  assert.equal(again.status, 410);
  assert.match(again.text, /no longer works/);
});

test('email and password sign-in; wrong password answers 401 with a generic message', async () => {
  const c = new PortalClient(h.url);
  const wrong = await c.submit('/portal/login', '/portal/login', {
    email: h.ownerEmail,
    password: 'wrong password!!',
  });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /Email or password is incorrect/);
  const unknown = await c.submit('/portal/login', '/portal/login', {
    email: 'nobody@demo-clinic.example',
    password: TEST_PASSWORD,
  });
  assert.equal(unknown.status, 401);
  assert.match(unknown.text, /Email or password is incorrect/);
  const ok = await c.submit('/portal/login', '/portal/login', {
    email: 'OWNER@demo-clinic.example ',
    password: TEST_PASSWORD,
    next: '/portal/settings/api-keys',
  });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, '/portal/settings/api-keys');
  assert.equal((await c.get('/portal/settings/api-keys')).status, 200);
  for (const home of ['/portal', '/portal/']) assert.equal((await c.get(home)).location, '/portal/checks');
  const missing = await c.get('/portal/no-such-page');
  assert.equal(missing.status, 404);
  assert.match(missing.text, /Page not found/);
});

test('sign-out ends the session on the server', async () => {
  const c = await signIn(h.url, h.ownerEmail);
  const stolen = c.cookies.get('elig_session')!;
  const res = await c.submit('/portal/checks', '/portal/logout', {});
  assert.equal(res.status, 303);
  assert.equal(res.location, '/portal/login?notice=signed-out');
  assert.equal(c.cookies.has('elig_session'), false, 'cookie cleared');
  // Replaying the old cookie value does not work either.
  const replay = new PortalClient(h.url);
  replay.cookies.set('elig_session', stolen);
  assert.equal((await replay.get('/portal/checks')).status, 303);
});

test('an expired session no longer signs in', async () => {
  const c = await signIn(h.url, h.ownerEmail);
  assert.equal((await c.get('/portal/checks')).status, 200);
  await h.service.store.db.query("UPDATE sessions SET expires_at = now() - interval '1 second'");
  assert.equal((await c.get('/portal/checks')).status, 303);
  owner = await signIn(h.url, h.ownerEmail);
});

test('owners invite members; members cannot open settings', async () => {
  const page = await owner.submit('/portal/settings/team', '/portal/settings/team/invite', {
    email: 'Frontdesk@Demo-Clinic.example',
    role: 'member',
  });
  assert.equal(page.status, 201);
  const link = /value="(http:\/\/[^"]+\/portal\/invitations\/[0-9A-Za-z]{40})"/.exec(page.text)?.[1];
  assert.ok(link, 'invitation link shown');
  const path = new URL(link).pathname;
  const member = await signInWithLink(h.url, path, 'front desk passphrase 1');
  const dup = await owner.submit('/portal/settings/team', '/portal/settings/team/invite', {
    email: 'frontdesk@demo-clinic.example',
    role: 'owner',
  });
  assert.equal(dup.status, 400);
  assert.match(dup.text, /already on your team/);

  assert.equal((await member.get('/portal/checks')).status, 200);
  const settings = await member.get('/portal/settings/api-keys');
  assert.equal(settings.status, 403);
  assert.match(settings.text, /Only an owner/);
  const nav = await member.get('/portal/checks');
  assert.doesNotMatch(nav.text, /href="\/portal\/settings\/api-keys"/);
  const post = await member.post('/portal/settings/api-keys', {
    _csrf: csrfToken(nav.text),
    name: 'sneaky',
    scopes: 'eligibility:read',
  });
  assert.equal(post.status, 403);
  const { rows } = await h.service.store.db.query("SELECT 1 FROM api_keys WHERE name = 'sneaky'");
  assert.equal(rows.length, 0);
});

test('operator functions: createPortalUser and issuePasswordResetLink', async () => {
  const db = h.service.store.db;
  const other = await createOrganization(db, 'Reset Clinic');
  const user = await createPortalUser(db, {
    organizationId: other.id,
    email: 'Biller@reset.example',
    role: 'member',
  });
  assert.equal(user.email, 'biller@reset.example');
  await assert.rejects(
    createPortalUser(db, { organizationId: other.id, email: 'biller@reset.example', role: 'member' }),
    PortalUserError,
  );
  await assert.rejects(
    createPortalUser(db, { organizationId: 'org_missing', email: 'x@reset.example', role: 'member' }),
    /no organization/,
  );
  await assert.rejects(
    issuePasswordResetLink(db, h.service.keys.tokenKey, 'ghost@reset.example'),
    PortalUserError,
  );

  const invite = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'biller@reset.example');
  assert.match(invite.loginPath, /^\/portal\/login\/[0-9A-Za-z]{40}$/);
  const first = await signInWithLink(h.url, invite.loginPath, 'first biller passphrase');
  assert.match((await first.get('/portal/checks')).text, /Reset Clinic/);

  // A reset sets a new password, the old one stops working and other sessions end.
  const reset = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'biller@reset.example');
  const resetPage = await new PortalClient(h.url).get(reset.loginPath);
  assert.match(resetPage.text, /Choose a new password/);
  await signInWithLink(h.url, reset.loginPath, 'second biller passphrase');
  assert.equal((await first.get('/portal/checks')).status, 303, 'old session ended');
  await assert.rejects(signIn(h.url, 'biller@reset.example', 'first biller passphrase'), /401/);
  await signIn(h.url, 'biller@reset.example', 'second biller passphrase');
});

test('secureCookies: __Host- cookies with the Secure flag', async () => {
  const secure = await h.listenPortal({ secureCookies: true });
  try {
    const res = await fetch(`${secure.url}/portal/login`);
    const line = res.headers.getSetCookie().find((l) => l.startsWith('__Host-elig_form='));
    assert.ok(line, 'form cookie uses the __Host- prefix');
    assert.match(line, /Secure/);
    assert.match(line, /HttpOnly/);
    assert.match(line, /Path=\//);
  } finally {
    await secure.close();
  }
});
