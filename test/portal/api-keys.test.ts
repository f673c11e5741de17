/** Settings > API keys: create (shown once), use against the API, revoke (401 at once), escaping. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { member } from '../helpers/members.ts';
import { client, sandboxRequest } from '../helpers/service.ts';
import { csrfToken, type PortalClient, type PortalHarness, signInWithLink, startPortal } from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;
const JANE = member('SBX1000001');
const KEYS = '/portal/settings/api-keys';

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

function shownKey(pageHtml: string): string | undefined {
  return /id="new-key-value"[^>]*value="(elig_(?:test|live)_[0-9A-Za-z]{40})"/.exec(pageHtml)?.[1];
}

/** Posts the create form and, like a browser, follows the redirect to the one-time view. */
async function createKey(fields: Record<string, string | string[]>) {
  const posted = await owner.submit(KEYS, KEYS, fields);
  if (posted.status !== 303) return posted;
  assert.equal(posted.location, `${KEYS}/new-key`);
  return owner.get(posted.location);
}

test('the keys page lists the first-start key by name and prefix only', async () => {
  const page = await owner.get(KEYS);
  assert.equal(page.status, 200);
  assert.match(page.text, /Test key \(created at first start\)/);
  assert.ok(page.text.includes(h.apiKey.slice(0, 18)), 'prefix shown');
  assert.ok(!page.text.includes(h.apiKey), 'whole key never shown again');
});

test('a new key is shown once, works against the API, and is never shown again', async () => {
  const res = await createKey({
    name: 'Scheduler (prod)',
    scopes: ['eligibility:read', 'eligibility:write'],
    mode: 'live',
  });
  assert.equal(res.status, 200);
  assert.match(res.text, /You will not see this key again/);
  const key = shownKey(res.text);
  assert.ok(key, 'key shown');
  assert.match(key, /^elig_live_/);
  assert.match(res.text, /data-copy="new-key-value"/, 'copy button');

  const api = client(h.url, key);
  const submitted = await api.post('/api/eligibility', sandboxRequest(JANE));
  assert.equal(submitted.status, 202);
  assert.equal((await api.get(`/api/eligibility/${submitted.body.id}/status`)).status, 200);

  const list = await owner.get(KEYS);
  assert.ok(!list.text.includes(key), 'list does not contain the key');
  assert.ok(list.text.includes(key.slice(0, 18)));
  const { rows } = await h.service.store.db.query<{ hash: string }>(
    'SELECT hash FROM api_keys WHERE prefix = $1',
    [key.slice(0, 18)],
  );
  assert.notEqual(rows[0]!.hash, key, 'stored hashed');
});

test('reloading the new key page neither shows the key again nor creates a second key (POST/redirect/GET)', async () => {
  const count = async () =>
    (await h.service.store.db.query('SELECT 1 FROM api_keys WHERE organization_id = $1', [h.organizationId]))
      .rows.length;
  const before = await count();
  const posted = await owner.submit(KEYS, KEYS, {
    name: 'Reloaded',
    scopes: 'eligibility:read',
    mode: 'test',
  });
  assert.equal(posted.status, 303, 'the POST answers with a redirect, not the key');
  assert.equal(posted.location, `${KEYS}/new-key`);
  assert.equal(shownKey(posted.text), undefined);
  const cookie = owner.lastSetCookie.find((c) => c.startsWith('elig_new_key='));
  assert.ok(cookie, 'the key travels sealed in a cookie');
  assert.match(cookie, /HttpOnly/i);
  assert.match(cookie, /Path=\/portal\/settings\/api-keys\/new-key/);
  assert.match(cookie, /SameSite=Strict/i);
  assert.doesNotMatch(cookie, /elig_test_/, 'not in plaintext');

  const shown = await owner.get(posted.location!);
  assert.equal(shown.status, 200);
  assert.ok(shownKey(shown.text), 'shown once');
  const reloaded = await owner.get(posted.location!);
  assert.equal(reloaded.status, 303);
  assert.equal(reloaded.location, `${KEYS}?notice=key-shown-once`);
  const list = await owner.get(reloaded.location!);
  assert.match(list.text, /A new key is shown only once/);
  assert.equal(shownKey(list.text), undefined);
  assert.equal(await count(), before + 1, 'one key created');

  // The sealed cookie alone, without a session, shows nothing: sign in first.
  const replay = await fetch(`${h.url}${KEYS}/new-key`, {
    headers: { cookie: cookie.split(';')[0]! },
    redirect: 'manual',
  });
  assert.equal(replay.status, 303, 'no session: sign in first');
});

test('scopes chosen in the form are the key’s scopes', async () => {
  const res = await createKey({ name: 'Read only', scopes: 'eligibility:read', mode: 'test' });
  const key = shownKey(res.text)!;
  const denied = await client(h.url, key).post('/api/eligibility', sandboxRequest(JANE));
  assert.equal(denied.status, 403);
  assert.equal(denied.body.code, 'AccessDeniedException');
});

test('form errors: a name and at least one known scope are required', async () => {
  const none = await createKey({ name: '  ', mode: 'test' });
  assert.equal(none.status, 400);
  assert.match(none.text, /Enter a name for the key/);
  assert.match(none.text, /Choose at least one permission/);
  const bogus = await createKey({ name: 'bogus', scopes: ['eligibility:read', 'admin:all'] });
  assert.equal(bogus.status, 400);
  assert.equal(shownKey(bogus.text), undefined);
  const long = await createKey({ name: 'x'.repeat(101), scopes: 'eligibility:read' });
  assert.equal(long.status, 400);
});

test('revoke asks first, then the key gets 401 from POST /api/eligibility at once', async () => {
  const created = await createKey({ name: 'To revoke', scopes: ['eligibility:read', 'eligibility:write'] });
  const key = shownKey(created.text)!;
  const api = client(h.url, key);
  assert.equal(
    (await api.post('/api/eligibility', sandboxRequest(JANE))).status,
    202,
    'works (and is cached)',
  );

  const list = await owner.get(KEYS);
  const path = new RegExp(
    `href="(${KEYS}/[0-9a-f-]{36}/revoke)">Revoke<span class="sr-only"> To revoke<`,
  ).exec(list.text)?.[1];
  assert.ok(path, 'revoke link for the key');
  const confirm = await owner.get(path);
  assert.equal(confirm.status, 200);
  assert.match(confirm.text, /Revoke “To revoke”\?/);
  assert.equal((await api.post('/api/eligibility', sandboxRequest(JANE))).status, 202, 'GET changed nothing');

  const done = await owner.post(path, { _csrf: csrfToken(confirm.text) });
  assert.equal(done.status, 303);
  assert.equal(done.location, `${KEYS}?notice=key-revoked`);
  const denied = await api.post('/api/eligibility', sandboxRequest(JANE));
  assert.equal(denied.status, 401);
  assert.equal(denied.body.code, 'UnauthorizedException');
  const after = await owner.get(done.location);
  assert.match(after.text, /The key is revoked/);
  assert.match(after.text, /Revoked <time/);
  // Revoking twice is a 404 page, not an error.
  const again = await owner.post(path, { _csrf: csrfToken(confirm.text) });
  assert.equal(again.status, 404);
});

test('a key named <script>alert(1)</script> renders as text everywhere', async () => {
  const name = '<script>alert(1)</script>';
  const created = await createKey({ name, scopes: 'eligibility:read' });
  assert.equal(created.status, 200);
  const list = await owner.get(KEYS);
  for (const page of [created.text, list.text]) {
    assert.ok(!page.includes(name), 'raw markup never appears');
    assert.ok(page.includes('&lt;script&gt;alert(1)&lt;/script&gt;'), 'escaped text appears');
  }
  const id = (
    await h.service.store.db.query<{ id: string }>('SELECT id FROM api_keys WHERE name = $1', [name])
  ).rows[0]!.id;
  const confirm = await owner.get(`${KEYS}/${id}/revoke`);
  assert.ok(!confirm.text.includes(name));
  assert.ok(confirm.text.includes('&lt;script&gt;'));
  // Attribute context: a name with quotes cannot break out of value="…".
  const quoted = await createKey({ name: '" autofocus onfocus="alert(1)', scopes: 'eligibility:read' });
  assert.ok(!quoted.text.includes('" autofocus onfocus="alert(1)'));
  assert.ok(quoted.text.includes('&quot; autofocus onfocus=&quot;alert(1)'));
});
