/**
 * Links the portal hands out are built from configuration (PUBLIC_URL, else the listen address), never from
 * the request: a spoofed Host or X-Forwarded-Host never reaches an invitation link. HSTS when PUBLIC_URL is
 * https, and only then.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { request } from 'undici';
import { STRICT_TRANSPORT_SECURITY } from '../../src/portal/index.ts';
import {
  csrfToken,
  PortalClient,
  type PortalHarness,
  signIn,
  signInWithLink,
  startPortal,
} from './helpers.ts';

const PUBLIC_URL = 'https://portal.clinic.example';
const SPOOFED = {
  host: 'evil.example',
  'x-forwarded-host': 'evil-forwarded.example',
  'x-forwarded-proto': 'http',
  forwarded: 'host=evil-forwarded.example;proto=http',
};

let h: PortalHarness;
before(async () => {
  h = await startPortal();
  await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

let invitations = 0;

/** Invites someone through the team form, sending the spoofed headers with the POST; returns the page. */
async function inviteWithSpoofedHost(base: string): Promise<{ link: string; page: string }> {
  const owner = await signIn(base, h.ownerEmail);
  const form = await owner.get('/portal/settings/team');
  const res = await request(`${base}/portal/settings/team/invite`, {
    method: 'POST',
    headers: {
      ...SPOOFED,
      'content-type': 'application/x-www-form-urlencoded',
      cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    },
    body: new URLSearchParams({
      email: `invitee${++invitations}@links.example`,
      role: 'member',
      _csrf: csrfToken(form.text),
    }).toString(),
  });
  const page = await res.body.text();
  assert.equal(res.statusCode, 201, page.slice(0, 300));
  const link = /<input id="invite-link"[^>]* value="([^"]+)"/.exec(page)?.[1];
  assert.ok(link, 'the page shows the invitation link');
  return { link, page };
}

test('with PUBLIC_URL, an invitation link starts with it whatever Host the request claims', async () => {
  const portal = await h.listenPortal({ publicUrl: PUBLIC_URL });
  try {
    const { link, page } = await inviteWithSpoofedHost(portal.url);
    assert.match(link, /^https:\/\/portal\.clinic\.example\/portal\/invitations\/[0-9A-Za-z]{40}$/);
    assert.doesNotMatch(page, /evil/);
    assert.doesNotMatch(page, /This link assumes the portal is at/);
  } finally {
    await portal.close();
  }
});

test('without PUBLIC_URL, the link uses the address the server listens on, and says so on PostgreSQL', async () => {
  const { link, page } = await inviteWithSpoofedHost(h.url);
  assert.ok(link.startsWith(`${h.url}/portal/invitations/`), link);
  assert.doesNotMatch(page, /evil/);
  const guessed = h.service.store.db.kind === 'postgres';
  assert.equal(/This link assumes the portal is at/.test(page), guessed, `notice shown: ${!guessed}`);
  if (guessed) assert.match(page, /set <code>PUBLIC_URL<\/code>/);
});

test('portal pages send HSTS when PUBLIC_URL is https', async () => {
  const portal = await h.listenPortal({ publicUrl: PUBLIC_URL });
  try {
    for (const path of ['/portal/login', '/portal/assets/portal.css', '/portal/no-such-page']) {
      const res = await new PortalClient(portal.url).get(path);
      assert.equal(res.headers.get('strict-transport-security'), STRICT_TRANSPORT_SECURITY, path);
    }
    assert.equal(STRICT_TRANSPORT_SECURITY, 'max-age=31536000; includeSubDomains');
  } finally {
    await portal.close();
  }
});

test('no HSTS over plain http: PUBLIC_URL http or unset', async () => {
  const http = await h.listenPortal({ publicUrl: 'http://portal.clinic.example' });
  try {
    for (const base of [http.url, h.url]) {
      const res = await new PortalClient(base).get('/portal/login');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('strict-transport-security'), null, base);
    }
  } finally {
    await http.close();
  }
});
