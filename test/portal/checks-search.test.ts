/**
 * The checks list a front desk can use (issue 16 section 4): find a patient's checks by name, member id
 * or date of birth, filter by verdict, newest first and paged; only within the signed-in organization;
 * and no search term ever reaches a log line.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization, setTimeZone } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import {
  type PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
  waitForCheck,
} from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;
let stranger: PortalClient;
let otherOrganizationId: string;
const ids: Record<string, string> = {};
/** Every search string a test sends, to grep the logs for at the end. */
const searched: string[] = [];

async function run(organizationId: string, memberId: string, payer = 'SANDBOX'): Promise<string> {
  const sub = await submitCheck(h.service.store.db, organizationId, {
    tradingPartnerServiceId: payer,
    provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
    subscriber: member(memberId),
  });
  assert.ok(sub.ok);
  await waitForCheck(h, sub.id);
  return sub.id;
}

/** The ids of the checks a list page links to, in page order. */
function listed(pageHtml: string): string[] {
  return [...pageHtml.matchAll(/href="\/portal\/checks\/([0-9a-f-]{36})"/g)].map((m) => m[1]!);
}

async function search(client: PortalClient, q: string, extra = ''): Promise<string[]> {
  searched.push(q);
  const res = await client.get(`/portal/checks?q=${encodeURIComponent(q)}${extra}`);
  assert.equal(res.status, 200);
  return listed(res.text);
}

before(async () => {
  h = await startPortal({ config: { logLevel: 'trace' } });
  owner = await signInWithLink(h.url, h.loginPath);
  ids.jane = await run(h.organizationId, 'SBX1000001'); // active
  ids.john = await run(h.organizationId, 'SBX1000002'); // active
  ids.maria = await run(h.organizationId, 'SBX1000003'); // inactive
  ids.reject = await run(h.organizationId, 'SBX1000067'); // AAA 67: failed
  ids.unknownPayer = await run(h.organizationId, 'SBX1000005', 'NOPE'); // SH01: failed

  const db = h.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  otherOrganizationId = other.id;
  await createPortalUser(db, { organizationId: other.id, email: 'owner@other.example', role: 'owner' });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@other.example');
  stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');
  ids.otherJohnson = await run(other.id, 'SBX1000004');
  ids.otherJane = await run(other.id, 'SBX1000001');
});
after(() => h.stop());

test('a patient is found by name in any order and case, by member id, and by date of birth in three spellings', async () => {
  assert.deepEqual(await search(owner, 'Jane Doe'), [ids.jane]);
  assert.deepEqual(await search(owner, 'doe, jane'), [ids.jane]);
  assert.deepEqual(await search(owner, 'DOE'), [ids.jane]);
  assert.deepEqual(await search(owner, 'SBX1000002'), [ids.john]);
  assert.deepEqual(await search(owner, 'sbx-1000002'), [ids.john], 'dashes and case ignored in ids');
  assert.deepEqual(await search(owner, '1000003'), [ids.maria], 'part of a member id');
  assert.deepEqual(await search(owner, '1990-02-10'), [ids.maria]);
  assert.deepEqual(await search(owner, '02/10/1990'), [ids.maria]);
  assert.deepEqual(await search(owner, '19900210'), [ids.maria]);
  assert.deepEqual(await search(owner, 'garcia 19900210'), [ids.maria], 'name and date together');
  assert.deepEqual(await search(owner, 'garcia 19800115'), [], 'every word must match');
  assert.deepEqual(await search(owner, '%'), [], 'LIKE wildcards are literal');
  assert.deepEqual(await search(owner, 'J_NE'), []);
});

test('the list names the patient and the verdict; the member id stays cut to four characters', async () => {
  const res = await owner.get(`/portal/checks?q=${encodeURIComponent('Garcia')}`);
  searched.push('Garcia');
  const { firstName, lastName } = member('SBX1000003');
  assert.match(res.text, new RegExp(`${lastName}, ${firstName}`));
  assert.match(res.text, /1990-02-10/);
  assert.match(res.text, /••••0003/);
  assert.doesNotMatch(res.text, /SBX1000003/);
  assert.match(res.text, /class="badge badge-inactive">Inactive</);
  assert.match(res.text, /id="f-q"[^>]*value="Garcia"/, 'the search stays in its box');
  const none = await owner.get('/portal/checks?q=nobody');
  searched.push('nobody');
  assert.match(none.text, /No checks match this search/);
});

test('the verdict filter finds active, inactive and failed checks, alone or with a search', async () => {
  assert.deepEqual(listed((await owner.get('/portal/checks?verdict=ACTIVE')).text), [ids.john, ids.jane]);
  assert.deepEqual(listed((await owner.get('/portal/checks?verdict=INACTIVE')).text), [ids.maria]);
  assert.deepEqual(listed((await owner.get('/portal/checks?verdict=FAILED')).text), [
    ids.unknownPayer,
    ids.reject,
  ]);
  assert.deepEqual(listed((await owner.get('/portal/checks?verdict=UNDETERMINED')).text), []);
  assert.deepEqual(await search(owner, 'smith', '&verdict=ACTIVE'), [ids.john]);
  assert.deepEqual(await search(owner, 'smith', '&verdict=INACTIVE'), []);
  assert.deepEqual(await search(owner, 'person', '&verdict=FAILED&payer=SANDBOX'), [ids.reject]);
  // An unknown verdict is ignored rather than an error.
  assert.equal(listed((await owner.get('/portal/checks?verdict=MAYBE')).text).length, 5);
  const { rows } = await h.service.store.db.query<{ verdict: string | null; result: string }>(
    'SELECT verdict, result FROM checks WHERE id = $1',
    [ids.maria],
  );
  assert.equal(rows[0]!.verdict, JSON.parse(rows[0]!.result).verdict.status, 'column = body');
});

test('a search never crosses organizations', async () => {
  assert.deepEqual(await search(owner, 'Johnson'), [], "the other clinic's patient");
  assert.deepEqual(await search(stranger, 'Jane Doe'), [ids.otherJane], 'their own Jane only');
  assert.deepEqual(await search(stranger, 'Garcia'), []);
  assert.deepEqual(await search(stranger, 'SBX1000002'), []);
  const theirs = await stranger.get('/portal/checks');
  assert.doesNotMatch(theirs.text, /GARCIA|SMITH/);
  assert.deepEqual(listed(theirs.text), [ids.otherJane, ids.otherJohnson]);
});

test('a signed-out search goes to sign in without the search in the address', async () => {
  const res = await fetch(`${h.url}/portal/checks?q=Doe`, { redirect: 'manual' });
  searched.push('Doe');
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/portal/login?next=%2Fportal%2Fchecks');
  const signedIn = await owner.get('/portal/checks?q=Doe');
  assert.equal(signedIn.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(signedIn.headers.get('cache-control'), 'no-store');
});

test('search results page newest first, and the next page keeps the search', async () => {
  for (let i = 0; i < 26; i++) {
    await submitCheck(h.service.store.db, h.organizationId, {
      tradingPartnerServiceId: 'NOPE',
      provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
      subscriber: {
        memberId: `KS${String(i).padStart(4, '0')}`,
        firstName: 'PAGE',
        lastName: 'KEYSETTER',
        dateOfBirth: '19900101',
      },
    });
  }
  searched.push('keysetter');
  const first = await owner.get('/portal/checks?q=keysetter');
  assert.equal(listed(first.text).length, 25);
  assert.match(first.text, /••••0025/, 'newest first');
  const older = /href="(\/portal\/checks\?q=keysetter&amp;before=[0-9a-f-]{36})">Older checks/.exec(
    first.text,
  )?.[1];
  assert.ok(older, 'the next link keeps the search');
  const second = await owner.get(older.replace(/&amp;/g, '&'));
  assert.equal(listed(second.text).length, 1);
  assert.match(second.text, /••••0000/);
});

test("the date filter reads days in the organization's time zone, else the browser's, else UTC", async () => {
  // 03:00 UTC on 1 May is still 30 April (22:00) in Chicago.
  await h.service.store.db.query('UPDATE checks SET created_at = $1 WHERE id = $2', [
    '2026-05-01T03:00:00Z',
    ids.otherJohnson,
  ]);
  const on = async (day: string, extra = '') =>
    listed((await stranger.get(`/portal/checks?from=${day}&to=${day}${extra}`)).text);

  // No zone anywhere: UTC days.
  assert.deepEqual(await on('2026-05-01'), [ids.otherJohnson]);
  assert.deepEqual(await on('2026-04-30'), []);
  // The browser's zone, which portal.js puts in the form when the organization has none.
  const form = (await stranger.get('/portal/checks')).text;
  assert.match(form, /<input type="hidden" name="tz" value="" data-browser-zone>/);
  assert.deepEqual(await on('2026-04-30', '&tz=America/Chicago'), [ids.otherJohnson]);
  assert.deepEqual(await on('2026-05-01', '&tz=America/Chicago'), []);
  assert.deepEqual(await on('2026-05-01', '&tz=Not/AZone'), [ids.otherJohnson], 'an unknown zone is UTC');
  // The organization's zone wins over the browser's.
  await setTimeZone(h.service.store.db, otherOrganizationId, 'America/Chicago');
  try {
    assert.deepEqual(await on('2026-04-30', '&tz=Asia/Tokyo'), [ids.otherJohnson]);
    assert.deepEqual(await on('2026-05-01'), []);
  } finally {
    await setTimeZone(h.service.store.db, otherOrganizationId, null);
  }
  // A day that does not exist is ignored, never a server error.
  const impossible = await stranger.get('/portal/checks?from=2026-02-30');
  assert.equal(impossible.status, 200);
  assert.equal(listed(impossible.text).length, 2);
});

test('no search term reaches a log line', async () => {
  // Every request above was logged at trace level; a failing page would log its error too.
  const bad = await owner.get(`/portal/checks?q=${encodeURIComponent("O'Brien \\ %_ 1980-02-30")}`);
  searched.push("O'Brien", '1980-02-30');
  assert.equal(bad.status, 200);
  assert.ok(h.logs.lines.length > 0, 'logs were captured');
  const text = h.logs.text;
  const terms = new Set<string>();
  for (const q of searched) {
    terms.add(q);
    terms.add(encodeURIComponent(q));
    terms.add(new URLSearchParams({ q }).toString());
    for (const word of q.split(/[\s,]+/).filter((w) => w.length >= 4)) {
      terms.add(word);
      terms.add(word.toUpperCase());
    }
  }
  for (const term of terms) assert.ok(!text.includes(term), `a log line contains the search term ${term}`);
  assert.doesNotMatch(text, /[?&]q=/);
});
