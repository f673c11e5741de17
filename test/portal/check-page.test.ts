/**
 * The check page a front desk acts on (issue 16): the verdict banner in its colour and words, the plan's
 * amounts once, what the service corrected, a failed check led by its errors and their resolutions, "Fix
 * and resubmit" prefilled from the stored request, dependents' errors, and the organization's time zone.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { member } from '../helpers/members.ts';
import {
  csrfToken,
  type PortalClient,
  type PortalHarness,
  signInWithLink,
  startPortal,
  waitForCheck,
} from './helpers.ts';

let h: PortalHarness;
let owner: PortalClient;

const PROVIDER = { organizationName: 'Demo Clinic', npi: '1234567893' };

/** Submits a check as the API would and waits for it to finish; returns its id. */
async function finished(
  memberId: string,
  o: { payer?: string; subscriber?: Record<string, string> } = {},
): Promise<string> {
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: o.payer ?? 'SANDBOX',
    provider: PROVIDER,
    subscriber: { ...member(memberId), ...o.subscriber },
  });
  assert.ok(sub.ok);
  await waitForCheck(h, sub.id);
  return sub.id;
}

/** The part of a page between an element's opening tag and the next closing tag of the same name. */
function section(page: string, id: string): string {
  const m = new RegExp(`<section[^>]*aria-labelledby="${id}"[^>]*>([\\s\\S]*?)</section>`).exec(page);
  return m?.[1] ?? '';
}

const ids: Record<string, string> = {};

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
  ids.active = await finished('SBX1000001');
  ids.inactive = await finished('SBX1000003');
  ids.noBenefits = await finished('SBX1000006');
  ids.hmo = await finished('SBX1000010');
  ids.unknownPayer = await finished('SBX1000001', { payer: 'NOPE' });
  ids.typo = await finished('SBX1000001', { subscriber: { memberId: 'SBX100000' } });
  ids.wrongName = await finished('SBX1000001', { subscriber: { lastName: 'DOUGH' } });
});
after(() => h.stop());

test('an active plan opens with a green banner in the verdict words, then plan amounts once', async () => {
  const { text } = await owner.get(`/portal/checks/${ids.active}`);
  assert.match(
    text,
    /<div class="verdict verdict-active" role="status" data-verdict="ACTIVE">[\s\S]*?Coverage active: Sandbox PPO Gold, in network/,
  );
  assert.match(text, /<h1>Eligibility check <span class="badge verdict-badge verdict-active">Active<\/span>/);
  assert.doesNotMatch(text, /badge-completed/, 'the verdict replaces the status badge');
  const order = ['class="verdict ', 'id="amounts"', 'id="benefits"', 'id="who"'].map((s) => text.indexOf(s));
  assert.deepEqual(
    order,
    [...order].sort((a, b) => a - b),
    'banner, then amounts, then service table, then who',
  );
  const amounts = /<table class="plan-amounts">([\s\S]*?)<\/table>/.exec(text)?.[1] ?? '';
  assert.match(
    amounts,
    /Deductible<\/th><td>\$1,500<br><span class="muted">\$500 left<\/span><\/td><td>\$3,000<br><span class="muted">\$2,000 left/,
  );
  assert.match(
    amounts,
    /Out-of-pocket maximum<\/th><td>\$5,000<br><span class="muted">\$3,200 left<\/span><\/td><td>\$10,000<br><span class="muted">\$8,000 left/,
  );
  assert.match(text, /In-network amounts\./);
  assert.match(text, /Overall confidence: <strong>99%<\/strong>/);
});

test('an inactive plan is red, says since when, and never shows green or a confidence', async () => {
  const { text } = await owner.get(`/portal/checks/${ids.inactive}`);
  assert.match(text, /class="verdict verdict-inactive"[^>]*data-verdict="INACTIVE"/);
  assert.match(text, /Coverage INACTIVE since 2025-12-31/);
  assert.match(text, /verdict-badge verdict-inactive">Inactive</);
  assert.doesNotMatch(text, /verdict-active|badge-completed|badge-active/);
  assert.doesNotMatch(text, /Overall confidence|100%/);
});

test('a completed answer without usable benefits is undetermined, though its plan is active', async () => {
  const { text } = await owner.get(`/portal/checks/${ids.noBenefits}`);
  // SBX1000006's 271 says the plan is active (EB*1) but has nothing for any product (issue 26).
  assert.match(text, /data-verdict="UNDETERMINED"[\s\S]*?Coverage could not be determined: the payer says/);
  assert.match(text, /Coverage could not be determined for any service type/);
  assert.doesNotMatch(text, /id="amounts"/, 'no amounts section when the answer has none');
});

test('a body stored before the verdict field gets one on read', async () => {
  const db = h.service.store.db;
  const { rows } = await db.query<{ result: string }>('SELECT result FROM checks WHERE id = $1', [
    ids.inactive,
  ]);
  const { verdict: _v, ...old } = JSON.parse(rows[0]!.result) as Record<string, unknown>;
  const copy = await finished('SBX1000003');
  await db.query('UPDATE checks SET result = $2 WHERE id = $1', [copy, JSON.stringify({ ...old, id: copy })]);
  const { text } = await owner.get(`/portal/checks/${copy}`);
  assert.match(text, /data-verdict="INACTIVE"[\s\S]*?Coverage INACTIVE since 2025-12-31/);
});

test('request corrections are shown in a box; malformed items are left out', async () => {
  const db = h.service.store.db;
  const id = await finished('SBX1000001');
  const { rows } = await db.query<{ result: string }>('SELECT result FROM checks WHERE id = $1', [id]);
  const body = JSON.parse(rows[0]!.result) as Record<string, unknown>;
  body.requestCorrections = [
    {
      field: 'subscriber.lastName',
      code: 'NAME_DIACRITICS_FOLDED',
      description: 'Accented letters written without accents',
    },
    { field: 'subscriber.memberId' },
  ];
  await db.query('UPDATE checks SET result = $2 WHERE id = $1', [id, JSON.stringify(body)]);
  const { text } = await owner.get(`/portal/checks/${id}`);
  const box = section(text, 'corrections');
  assert.match(box, /We corrected your request/);
  assert.match(box, /<code>subscriber\.lastName<\/code>: Accented letters written without accents/);
  assert.equal((box.match(/<li>/g) ?? []).length, 1);
  assert.doesNotMatch((await owner.get(`/portal/checks/${ids.active}`)).text, /We corrected your request/);
});

test('a failed check leads with its error and resolutions, names the payer id, and shows no dashes', async () => {
  const { text } = await owner.get(`/portal/checks/${ids.unknownPayer}`);
  assert.match(
    text,
    /class="verdict verdict-failed"[^>]*data-verdict="FAILED"[\s\S]*?Could not check: Payer not supported/,
  );
  const failure = section(text, 'errors');
  assert.match(failure, /Payer not supported <span class="muted">\(code <code>SH01<\/code>\)/);
  assert.match(
    failure,
    /<p class="resolutions pre-line">Check the tradingPartnerServiceId against the payer directory/,
  );
  assert.match(
    failure,
    /<a class="button" href="\/portal\/checks\/[0-9a-f-]{36}\/resubmit">Fix and resubmit<\/a>/,
  );
  assert.ok(text.indexOf('id="errors"') < text.indexOf('id="who"'), 'the error comes before the facts');
  assert.match(text, /<dt>Payer<\/dt><dd>NOPE \(not in the payer directory\)<\/dd>/);
  assert.doesNotMatch(text, /—/, 'no rows of dashes');
  assert.doesNotMatch(text, /id="plan"/, 'no empty plan section');
});

test('Fix and resubmit: the form is prefilled, the member id highlighted, and the corrected check completes', async () => {
  const page = await owner.get(`/portal/checks/${ids.typo}/resubmit`);
  assert.equal(page.status, 200);
  assert.match(
    page.text,
    /Filled in from <a href="\/portal\/checks\/[0-9a-f-]{36}">an earlier check<\/a> that failed/,
  );
  assert.match(page.text, /<div class="field has-error">\s*<label for="f-subscriber-memberId">/);
  assert.match(
    page.text,
    /id="f-subscriber-memberId-error">Invalid\/Missing subscriber\/insured ID \(code 72\)/,
  );
  assert.match(
    page.text,
    /id="f-subscriber-memberId" name="subscriber.memberId" type="text" value="SBX100000"/,
  );
  assert.match(page.text, /name="subscriber.dateOfBirth" type="text" value="19800115"/);
  assert.match(page.text, /name="provider.npi" type="text" value="1234567893"/);
  assert.doesNotMatch(page.text, /<div class="field has-error">\s*<label for="f-subscriber-firstName">/);
  const res = await owner.post('/portal/checks/new', {
    tradingPartnerServiceId: 'SANDBOX',
    'provider.organizationName': 'Demo Clinic',
    'provider.npi': '1234567893',
    'subscriber.memberId': 'SBX1000001',
    'subscriber.firstName': 'JANE',
    'subscriber.lastName': 'DOE',
    'subscriber.dateOfBirth': '19800115',
    'encounter.serviceTypeCodes': '',
    'encounter.dateOfService': '',
    _csrf: csrfToken(page.text),
  });
  assert.equal(res.status, 303);
  const id = res.location!.split('/').pop()!;
  assert.notEqual(id, ids.typo);
  assert.equal(await waitForCheck(h, id), 'COMPLETED');
  assert.match((await owner.get(res.location!)).text, /data-verdict="ACTIVE"/);
});

test('Fix and resubmit highlights the payer for SH01 and both names for a name reject', async () => {
  const payer = await owner.get(`/portal/checks/${ids.unknownPayer}/resubmit`);
  assert.match(
    payer.text,
    /<div class="field has-error">\s*<label for="f-tradingPartnerServiceId">Payer<\/label>/,
  );
  assert.match(
    payer.text,
    /<option value="" selected>Choose a payer<\/option>/,
    'the unknown id is not kept as chosen',
  );
  const name = await owner.get(`/portal/checks/${ids.wrongName}/resubmit`);
  assert.match(name.text, /<div class="field has-error">\s*<label for="f-subscriber-firstName">/);
  assert.match(name.text, /<div class="field has-error">\s*<label for="f-subscriber-lastName">/);
  assert.match(name.text, /value="DOUGH"/);
  const summary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(name.text)?.[0] ?? '';
  assert.equal((summary.match(/<li>/g) ?? []).length, 1, 'one entry for one error');
});

test("a dependent's errors are shown with the dependent, with their follow-up", async () => {
  const { text } = await owner.get(`/portal/checks/${ids.hmo}`);
  const deps = section(text, 'dependents');
  assert.match(
    deps,
    /NOAH WILSON[\s\S]*?<div class="error-card">\s*<h4>Invalid\/Missing subscriber\/insured name <span class="muted">\(code <code>73<\/code>\)/,
  );
  assert.match(deps, /Follow-up:<\/strong> Please Correct and Resubmit/);
  assert.match(deps, /Reported in Loop 2100D\./);
  // SBX1000010's plan is an HMO with no deductible: the amounts table says so once.
  const amounts = /<table class="plan-amounts">([\s\S]*?)<\/table>/.exec(text)?.[1] ?? '';
  assert.match(amounts, /Out-of-pocket maximum<\/th><td>\$3,000<br><span class="muted">\$2,500 left/);
});

test('another organization gets 404 for the resubmit page', async () => {
  const db = h.service.store.db;
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, { organizationId: other.id, email: 'owner@other.example', role: 'owner' });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@other.example');
  const stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');
  const page = await stranger.get(`/portal/checks/${ids.typo}/resubmit`);
  assert.equal(page.status, 404);
  assert.doesNotMatch(page.text, /SBX100000|JANE/);
});

test('times carry UTC on hover; an owner sets the time zone from the list, and only from it', async () => {
  const check = await owner.get(`/portal/checks/${ids.active}`);
  assert.match(check.text, /<time datetime="[^"]+Z" title="\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC">/);
  assert.match(check.text, /<body>/, 'no zone set: the browser decides');

  const settings = await owner.get('/portal/settings/organization');
  assert.match(settings.text, /<option value="America\/Chicago">America\/Chicago<\/option>/);
  const bad = await owner.post('/portal/settings/organization/time-zone', {
    timeZone: 'Mars/Olympus_Mons',
    _csrf: csrfToken(settings.text),
  });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /Choose a time zone from the list/);
  const ok = await owner.post('/portal/settings/organization/time-zone', {
    timeZone: 'America/Chicago',
    _csrf: csrfToken(settings.text),
  });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, '/portal/settings/organization?notice=time-zone-saved');
  assert.match((await owner.get(ok.location!)).text, /<option value="America\/Chicago" selected>/);
  assert.match(
    (await owner.get(`/portal/checks/${ids.active}`)).text,
    /<body data-time-zone="America\/Chicago">/,
  );

  await owner.post('/portal/settings/organization/time-zone', {
    timeZone: '',
    _csrf: csrfToken(settings.text),
  });
  assert.match((await owner.get(`/portal/checks/${ids.active}`)).text, /<body>/, 'unset again');
});

test('members cannot change the time zone', async () => {
  const db = h.service.store.db;
  await createPortalUser(db, {
    organizationId: h.organizationId,
    email: 'desk@demo.example',
    role: 'member',
  });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'desk@demo.example');
  const desk = await signInWithLink(h.url, link.loginPath, 'front desk passphrase');
  assert.equal((await desk.get('/portal/settings/organization')).status, 403);
  const token = csrfToken((await desk.get('/portal/checks')).text);
  const res = await desk.post('/portal/settings/organization/time-zone', {
    timeZone: 'Asia/Tokyo',
    _csrf: token,
  });
  assert.equal(res.status, 403);
  const { rows } = await db.query<{ time_zone: string | null }>(
    'SELECT time_zone FROM organizations WHERE id = $1',
    [h.organizationId],
  );
  assert.equal(rows[0]!.time_zone, null);
});
