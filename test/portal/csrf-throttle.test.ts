/** Form protection: CSRF tokens on every POST (signed in or not), foreign origins, and login throttling. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import {
  csrfToken,
  PortalClient,
  type PortalHarness,
  signIn,
  signInWithLink,
  startPortal,
} from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

const keyCount = async (name: string) =>
  (await h.service.store.db.query('SELECT 1 FROM api_keys WHERE name = $1', [name])).rows.length;

test('a signed-in POST without a CSRF token is refused with a 403 page and changes nothing', async () => {
  const res = await owner.post('/portal/settings/api-keys', { name: 'no token', scopes: 'eligibility:read' });
  assert.equal(res.status, 403);
  assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  assert.match(res.text, /Form expired/);
  assert.equal(await keyCount('no token'), 0);
});

test('a wrong token, or another session’s token, is refused too', async () => {
  const wrong = await owner.post('/portal/settings/api-keys', {
    _csrf: 'x'.repeat(32),
    name: 'wrong token',
    scopes: 'eligibility:read',
  });
  assert.equal(wrong.status, 403);
  const second = await signIn(h.url, h.ownerEmail);
  const theirs = csrfToken((await second.get('/portal/checks')).text);
  const mine = csrfToken((await owner.get('/portal/checks')).text);
  assert.notEqual(theirs, mine, 'each session has its own token');
  const crossed = await owner.post('/portal/settings/api-keys', {
    _csrf: theirs,
    name: 'crossed token',
    scopes: 'eligibility:read',
  });
  assert.equal(crossed.status, 403);
  assert.equal(await keyCount('wrong token'), 0);
  assert.equal(await keyCount('crossed token'), 0);
});

test('a POST from another origin is refused even with a valid token', async () => {
  const token = csrfToken((await owner.get('/portal/settings/api-keys')).text);
  const res = await owner.post(
    '/portal/settings/api-keys',
    { _csrf: token, name: 'foreign', scopes: 'eligibility:read' },
    { origin: 'https://evil.example' },
  );
  assert.equal(res.status, 403);
  assert.equal(await keyCount('foreign'), 0);
  const same = await owner.post(
    '/portal/settings/api-keys',
    { _csrf: token, name: 'same origin', scopes: 'eligibility:read' },
    { origin: h.url },
  );
  assert.equal(same.status, 303, 'created, then redirected to the one-time view');
  assert.equal(await keyCount('same origin'), 1);
});

test("behind a proxy that rewrites Host, a POST from PUBLIC_URL's origin is ours; others are still refused", async () => {
  const publicUrl = 'https://portal.example.test';
  const proxied = await startPortal({ portal: { publicUrl } });
  try {
    const admin = await signInWithLink(proxied.url, proxied.loginPath);
    const token = csrfToken((await admin.get('/portal/settings/api-keys')).text);
    const post = (name: string, origin: string) =>
      admin.post('/portal/settings/api-keys', { _csrf: token, name, scopes: 'eligibility:read' }, { origin });
    assert.equal((await post('via proxy', publicUrl)).status, 303);
    assert.equal((await post('look-alike', 'https://portal.example.test.evil.example')).status, 403);
    assert.equal((await post('other port', 'https://portal.example.test:8443')).status, 403);
  } finally {
    await proxied.stop();
  }
});

test('sign-out needs the token too (no forced sign-out from other sites)', async () => {
  const res = await owner.post('/portal/logout', {});
  assert.equal(res.status, 403);
  assert.equal((await owner.get('/portal/checks')).status, 200);
});

test('the sign-in form is protected before there is a session (form cookie + token)', async () => {
  const c = new PortalClient(h.url);
  const noCookie = await c.post('/portal/login', {
    email: h.ownerEmail,
    password: 'correct horse battery staple',
  });
  assert.equal(noCookie.status, 403);
  const page = await c.get('/portal/login');
  const token = csrfToken(page.text);
  const noToken = await c.post('/portal/login', {
    email: h.ownerEmail,
    password: 'correct horse battery staple',
  });
  assert.equal(noToken.status, 403);
  // A token minted for another browser's form cookie is useless here.
  const other = new PortalClient(h.url);
  const otherToken = csrfToken((await other.get('/portal/login')).text);
  assert.notEqual(otherToken, token);
  const swapped = await c.post('/portal/login', {
    _csrf: otherToken,
    email: h.ownerEmail,
    password: 'correct horse battery staple',
  });
  assert.equal(swapped.status, 403);
  const ok = await c.post('/portal/login', {
    _csrf: token,
    email: h.ownerEmail,
    password: 'correct horse battery staple',
  });
  assert.equal(ok.status, 303);
});

test('one-time link forms need the form token as well, and a refused post does not use the link', async () => {
  const db = h.service.store.db;
  await createPortalUser(db, {
    organizationId: h.organizationId,
    email: 'csrf@demo-clinic.example',
    role: 'member',
  });
  const { loginPath } = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'csrf@demo-clinic.example');
  const c = new PortalClient(h.url);
  await c.get(loginPath);
  const res = await c.post(loginPath, { password: 'a fine passphrase', confirm: 'a fine passphrase' });
  assert.equal(res.status, 403);
  assert.equal((await c.get(loginPath)).status, 200, 'link still usable');
});

test('5 failed sign-ins for one email → 429 for a minute, even with the right password', async () => {
  const db = h.service.store.db;
  await createPortalUser(db, {
    organizationId: h.organizationId,
    email: 'throttle@demo-clinic.example',
    role: 'member',
  });
  const { loginPath } = await issuePasswordResetLink(
    db,
    h.service.keys.tokenKey,
    'throttle@demo-clinic.example',
  );
  await signInWithLink(h.url, loginPath, 'the right passphrase');

  const c = new PortalClient(h.url);
  for (let i = 0; i < 5; i++) {
    const res = await c.submit('/portal/login', '/portal/login', {
      email: 'throttle@demo-clinic.example',
      password: `wrong guess ${i}`,
    });
    assert.equal(res.status, 401, `attempt ${i + 1}`);
  }
  const blocked = await c.submit('/portal/login', '/portal/login', {
    email: 'Throttle@demo-clinic.example',
    password: 'the right passphrase',
  });
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Too many/);
  const retryAfter = Number(blocked.headers.get('retry-after'));
  assert.ok(retryAfter > 50 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(c.cookies.has('elig_session'), false);
  // Another account is not affected.
  await signIn(h.url, h.ownerEmail);
});
