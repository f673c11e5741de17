/**
 * Sign-in throttling over HTTP: argon2 runs counted through the portal's `verifyPassword` hook, backoff
 * driven by the portal's clock hook, the per-address cap that never locks out a real account, client
 * addresses behind TRUSTED_PROXIES, and a wait that outlives a service restart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, beforeEach, test } from 'node:test';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { type PasswordVerifier, verifyPassword } from '../../src/portal/passwords.ts';
import { REFUSAL_FLOOR_MS } from '../../src/portal/sign-in-attempt.ts';
import { startService } from '../../src/server.ts';
import { dropTestSchema, LogCapture, testConfig } from '../helpers/service.ts';
import {
  csrfToken,
  PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
  TEST_PASSWORD,
} from './helpers.ts';

const MEMBER = 'member@demo-clinic.example';
const MEMBER_PASSWORD = 'member passphrase one';
const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
let verifications = 0;
const countingVerify: PasswordVerifier = (hash, password) => {
  verifications++;
  return verifyPassword(hash, password);
};
const hooks = { now: () => clock.now, verifyPassword: countingVerify };

let h: PortalHarness;
/** The same store and hooks behind a proxy at 127.0.0.1 (where the tests connect from). */
let proxied: { url: string; close(): Promise<void> };

before(async () => {
  h = await startPortal({ portal: hooks });
  proxied = await h.listenPortal(hooks, { trustedProxies: ['127.0.0.1'] });
  await signInWithLink(h.url, h.loginPath);
  const db = h.service.store.db;
  await createPortalUser(db, { organizationId: h.organizationId, email: MEMBER, role: 'member' });
  const { loginPath } = await issuePasswordResetLink(db, h.service.keys.tokenKey, MEMBER);
  await signInWithLink(h.url, loginPath, MEMBER_PASSWORD);
});
after(() => h.stop());
beforeEach(async () => {
  await h.service.store.db.query('DELETE FROM login_attempts');
  verifications = 0;
});

/** A browser on the sign-in page: its form token can be posted any number of times, also at once. */
async function signInPage(base = h.url) {
  const c = new PortalClient(base);
  const token = csrfToken((await c.get('/portal/login')).text);
  return (email: string, password: string, forwardedFor?: string) =>
    c.post(
      '/portal/login',
      { _csrf: token, email, password },
      forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    );
}

const unknownEmail = (i: number) => `nobody-${i}@demo-clinic.example`;

test('60 parallel wrong passwords for one account: 5 argon2 runs, 5 × 401 and 55 × 429', async () => {
  const attempt = await signInPage();
  const answers = await Promise.all(
    Array.from({ length: 60 }, (_, i) => attempt(MEMBER, `wrong guess number ${i}`)),
  );
  assert.equal(verifications, 5);
  assert.equal(answers.filter((a) => a.status === 401).length, 5);
  const throttled = answers.filter((a) => a.status === 429);
  assert.equal(throttled.length, 55);
  for (const a of throttled) {
    assert.equal(a.headers.get('retry-after'), '60');
    assert.match(a.text, /Too many failed sign-ins for this account/);
  }
  assert.doesNotMatch(h.logs.text, /member@|wrong guess/, 'neither email nor password in the logs');
});

test('after the limit the right password waits out the backoff, then signs in and starts afresh', async () => {
  const attempt = await signInPage();
  for (let i = 0; i < 5; i++) assert.equal((await attempt(MEMBER, `wrong ${i}`)).status, 401);
  const refused = await attempt(MEMBER, MEMBER_PASSWORD);
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '60');
  clock.now += 59_000;
  const early = await attempt(MEMBER, MEMBER_PASSWORD);
  assert.equal(early.status, 429);
  assert.equal(early.headers.get('retry-after'), '1');
  assert.equal(verifications, 5, 'a throttled attempt runs no argon2');
  clock.now += 1000;
  assert.equal((await attempt(MEMBER, MEMBER_PASSWORD)).status, 303);
  // The success cleared the count: five more mistakes are plain mistakes again.
  const later = await signInPage();
  for (let i = 0; i < 5; i++) assert.equal((await later(MEMBER, `again ${i}`)).status, 401);
  assert.equal((await later(MEMBER, MEMBER_PASSWORD)).status, 429);
});

test('a one-time link, the way out the 429 page offers, ends the wait', async () => {
  const attempt = await signInPage();
  for (let i = 0; i < 5; i++) assert.equal((await attempt(MEMBER, `wrong ${i}`)).status, 401);
  assert.equal((await attempt(MEMBER, MEMBER_PASSWORD)).status, 429);
  const db = h.service.store.db;
  const { loginPath } = await issuePasswordResetLink(db, h.service.keys.tokenKey, MEMBER);
  await signInWithLink(h.url, loginPath, MEMBER_PASSWORD);
  assert.equal((await (await signInPage())(MEMBER, MEMBER_PASSWORD)).status, 303, 'no wait left');
});

test('one account is throttled whatever address the guesses come from', async () => {
  const attempt = await signInPage(proxied.url);
  for (let i = 0; i < 5; i++) {
    assert.equal((await attempt(MEMBER, `wrong ${i}`, `198.51.100.${i + 1}`)).status, 401);
  }
  const fromElsewhere = await attempt(MEMBER, MEMBER_PASSWORD, '198.51.100.99');
  assert.equal(fromElsewhere.status, 429);
  // The owner, at the same addresses, is not affected.
  assert.equal((await attempt(h.ownerEmail, TEST_PASSWORD, '198.51.100.1')).status, 303);
});

test('an address with 50+ failures on unknown and other accounts still lets the right password in', async () => {
  const attempt = await signInPage();
  const unknown = await Promise.all(Array.from({ length: 55 }, (_, i) => attempt(unknownEmail(i), 'guess')));
  assert.ok(unknown.every((a) => a.status === 401));
  assert.equal(verifications, 50, 'past the cap, unknown emails cost no argon2');
  for (let i = 0; i < 4; i++) assert.equal((await attempt(h.ownerEmail, `wrong ${i}`)).status, 401);
  assert.equal((await attempt(MEMBER, MEMBER_PASSWORD)).status, 303);
  assert.equal((await (await signInPage())(h.ownerEmail, TEST_PASSWORD)).status, 303);
});

test('past the address cap an unknown email is answered exactly like a wrong password, as late', async () => {
  const attempt = await signInPage();
  await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(unknownEmail(i), 'guess')));
  const timed = async (email: string) => {
    const started = performance.now();
    const answer = await attempt(email, 'a wrong password');
    return { answer, ms: performance.now() - started };
  };
  verifications = 0;
  const unknown = await timed('ghost@demo-clinic.example');
  const known = await timed(MEMBER);
  assert.equal(verifications, 1, 'only the real account ran argon2');
  assert.equal(unknown.answer.status, known.answer.status);
  assert.equal(unknown.answer.status, 401);
  assert.equal(unknown.answer.text.replace('ghost@demo-clinic.example', MEMBER), known.answer.text);
  for (const { ms } of [unknown, known]) assert.ok(ms >= REFUSAL_FLOOR_MS - 5, `answered after ${ms} ms`);
});

test('TRUSTED_PROXIES: behind a trusted proxy the forwarded address counts, otherwise the socket’s', async () => {
  const viaProxy = await signInPage(proxied.url);
  await Promise.all(Array.from({ length: 50 }, (_, i) => viaProxy(unknownEmail(i), 'guess', '198.51.100.7')));
  assert.equal(verifications, 50);
  // A client may prepend anything; the address the proxy appended (the last) is the one that counts.
  await viaProxy('ghost@demo-clinic.example', 'guess', '192.0.2.1, 198.51.100.7');
  assert.equal(verifications, 50, 'the capped address');
  await viaProxy('ghost@demo-clinic.example', 'guess', '198.51.100.8');
  assert.equal(verifications, 51, 'another client behind the same proxy has its own cap');

  // Without TRUSTED_PROXIES the header is ignored: every request counts against the socket address.
  verifications = 0;
  const direct = await signInPage();
  await Promise.all(
    Array.from({ length: 50 }, (_, i) => direct(unknownEmail(i), 'guess', `198.51.100.${i}`)),
  );
  assert.equal(verifications, 50);
  await direct('ghost@demo-clinic.example', 'guess', '198.51.100.200');
  assert.equal(verifications, 50, 'a forged X-Forwarded-For does not buy a fresh cap');
});

test('a throttled account stays throttled across a restart of the service on the same data', async () => {
  const config = testConfig();
  const roles = { api: true, worker: false };
  const first = await startService(config, { roles, logDestination: new LogCapture() });
  let second: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    const boot = first.bootstrap!;
    await signInWithLink(first.url!, boot.loginPath);
    const attempt = await signInPage(first.url!);
    for (let i = 0; i < 5; i++) assert.equal((await attempt(boot.ownerEmail, `wrong ${i}`)).status, 401);
    await first.stop();
    second = await startService(config, { roles, logDestination: new LogCapture() });
    const again = await (await signInPage(second.url!))(boot.ownerEmail, TEST_PASSWORD);
    assert.equal(again.status, 429);
    assert.ok(Number(again.headers.get('retry-after')) > 0);
  } finally {
    await first.stop();
    await second?.stop();
    await dropTestSchema(config);
    rmSync(config.dataDir, { recursive: true, force: true });
  }
});
