/**
 * The operators' Scorecard pages: owners of OPERATOR_ORGANIZATION_ID see them (and the menu item); anyone
 * else, a member of that organization or an owner of another, finds a 404 and no menu item. The page shows
 * counts only, per connection and per payer, with their shares and the AAA codes.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { ALL_PAYERS, addPayerCallStats, emptyCounts } from '../../src/store/payer-call-stats.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { type PortalHarness, signIn, signInWithLink, startPortal } from './helpers.ts';

const SCORECARD = '/portal/operator/scorecard';
let h: PortalHarness;
let operatorPortal: { url: string; close(): Promise<void> };

before(async () => {
  h = await startPortal();
  await signInWithLink(h.url, h.loginPath); // the owner sets a password
  // The same store and keys, with the bootstrap organization as the operators' one.
  operatorPortal = await h.listenPortal({ operatorOrganizationId: h.organizationId });
  const hour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
  const latencyBuckets = emptyCounts().latencyBuckets;
  latencyBuckets[2] = 10;
  const counts = {
    connection: 'stedi',
    hour,
    ...emptyCounts(),
    calls: 10,
    completed: 8,
    aaa: 2,
    aaaCodes: { '75': 2 },
    latencyBuckets,
    sourcePayerRows: 6,
    sourcePlanFallback: 2,
    lastSuccessAt: hour,
  };
  // The payer's row, and its connection's own row, as the recorder writes them.
  await addPayerCallStats(h.service.store.db, [
    { payerId: 'ACME', ...counts },
    { payerId: ALL_PAYERS, ...counts },
  ]);
});
after(async () => {
  await operatorPortal.close();
  await h.stop();
});

test('an operator (owner of OPERATOR_ORGANIZATION_ID) finds the Scorecard in the menu and reads the counts', async () => {
  const operator = await signIn(operatorPortal.url, h.ownerEmail);
  const checks = await operator.get('/portal/checks');
  assert.match(checks.text, /<a href="\/portal\/operator\/scorecard">Scorecard<\/a>/);
  const page = await operator.get(SCORECARD);
  assert.equal(page.status, 200);
  assert.match(page.text, /<h1>Scorecard<\/h1>/);
  assert.match(page.text, /<th scope="row">stedi<\/th><td>10<\/td>/, 'the connection line');
  assert.match(page.text, /<a href="\/portal\/operator\/scorecard\/payers\/ACME\?hours=24">ACME<\/a>/);
  assert.match(page.text, /80%/, 'completed share');
  assert.match(page.text, /75×2/, 'AAA codes with counts');
  assert.match(page.text, /75%<\/td><td>25%/, 'sources: payer rows, plan fallback');
  const payer = await operator.get(`${SCORECARD}/payers/ACME?hours=168`);
  assert.equal(payer.status, 200);
  assert.match(payer.text, /<h1>Payer ACME<\/h1>/);
  assert.match(payer.text, /<strong aria-current="true">Last 7 days<\/strong>/);
  assert.equal((await operator.get(`${SCORECARD}/payers/NOBODY`)).status, 404);
  // An unknown window reads as a day; a silly page as the first.
  assert.equal((await operator.get(`${SCORECARD}?hours=5&page=zz`)).status, 200);
});

test('a member of the operators organization, an owner elsewhere, or the default portal: 404 and no menu item', async () => {
  const db = h.service.store.db;
  await createPortalUser(db, { organizationId: h.organizationId, email: 'desk@ops.example', role: 'member' });
  const memberLink = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'desk@ops.example');
  const member = await signInWithLink(operatorPortal.url, memberLink.loginPath, 'desk member passphrase');
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, { organizationId: other.id, email: 'owner@other.example', role: 'owner' });
  const ownerLink = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@other.example');
  const stranger = await signInWithLink(operatorPortal.url, ownerLink.loginPath, 'other owner passphrase');
  // Without OPERATOR_ORGANIZATION_ID, even the same owner is no operator.
  const unconfigured = await signIn(h.url, h.ownerEmail);
  for (const [who, client] of [
    ['member', member],
    ['other owner', stranger],
    ['unconfigured', unconfigured],
  ] as const) {
    for (const path of [SCORECARD, `${SCORECARD}/payers/ACME`]) {
      const res = await client.get(path);
      assert.equal(res.status, 404, `${who} ${path}`);
      assert.doesNotMatch(res.text, /ACME|stedi/, `${who} sees no counts`);
    }
    assert.doesNotMatch(
      (await client.get('/portal/checks')).text,
      /operator\/scorecard/,
      `${who}: no menu item`,
    );
  }
});
