/**
 * The organization's providers and the front-desk run-a-check form (issue 26 item 13): owners keep the list
 * on Settings > Organization (NPIs checked like the API, one default), members pick from it on "Run a
 * check", and service types are ticked by name; the API request the form makes is unchanged.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
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
let desk: PortalClient;

const SETTINGS = '/portal/settings/organization';
const PROVIDERS = `${SETTINGS}/providers`;
const JANE = member('SBX1000001');

async function stored(): Promise<{ name: string; npi: string; isDefault: boolean }[]> {
  const { rows } = await h.service.store.db.query<{
    providers: { name: string; npi: string; isDefault: boolean }[];
  }>('SELECT providers FROM organizations WHERE id = $1', [h.organizationId]);
  return rows[0]!.providers;
}

async function storedRequest(checkId: string): Promise<{ provider: unknown; encounter?: unknown }> {
  const { rows } = await h.service.store.db.query<{ request: string | { provider: unknown } }>(
    'SELECT request FROM checks WHERE id = $1',
    [checkId],
  );
  const r = rows[0]!.request;
  return typeof r === 'string' ? JSON.parse(r) : (r as { provider: unknown });
}

/** The options of the form's provider select: [value, selected, text]. */
function providerOptions(page: string): [string, boolean, string][] {
  const select = /<select id="f-provider-choice" name="provider.choice"[^>]*>([\s\S]*?)<\/select>/.exec(page);
  assert.ok(select, 'a provider select');
  return [...select[1]!.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)].map((m) => [
    m[1]!,
    m[2] !== undefined,
    m[3]!,
  ]);
}

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
  await createPortalUser(h.service.store.db, {
    organizationId: h.organizationId,
    email: 'desk@demo.example',
    role: 'member',
  });
  const link = await issuePasswordResetLink(h.service.store.db, h.service.keys.tokenKey, 'desk@demo.example');
  desk = await signInWithLink(h.url, link.loginPath, 'front desk passphrase');
});
after(() => h.stop());

test('without providers the form asks for the provider as before, and service types are ticked by name', async () => {
  const page = (await desk.get('/portal/checks/new')).text;
  assert.doesNotMatch(page, /name="provider.choice"/);
  assert.match(page, /name="provider.organizationName" type="text" value="[^"]+" required/);
  assert.match(page, /name="provider.npi" type="text" value="" required/);
  const boxes = [...page.matchAll(/name="encounter.serviceTypes" value="([^"]+)"/g)].map((m) => m[1]);
  assert.deepEqual(boxes, [
    'General',
    'Preventive Nutrition',
    'Medical Nutrition',
    'Outpatient Physical Therapy',
    'Mental Health',
    'Occupational Therapy',
    'Speech Therapy',
    'Chiropractic',
  ]);
  const res = await desk.submit('/portal/checks/new', '/portal/checks/new', {
    tradingPartnerServiceId: 'SANDBOX',
    'provider.organizationName': 'Demo Clinic',
    'provider.npi': '1234567893',
    'subscriber.memberId': 'SBX1000001',
    'subscriber.firstName': JANE.firstName,
    'subscriber.lastName': JANE.lastName,
    'subscriber.dateOfBirth': JANE.dateOfBirth,
    'encounter.serviceTypes': ['Mental Health', 'Preventive Nutrition', 'Medical Nutrition', 'Not a type'],
  });
  assert.equal(res.status, 303);
  const request = await storedRequest(res.location!.split('/').pop()!);
  assert.deepEqual(request.provider, { organizationName: 'Demo Clinic', npi: '1234567893' });
  assert.deepEqual(request.encounter, { serviceTypeCodes: ['98', 'MH'] });
});

test('an owner adds providers: the name and NPI are checked like the API, the first is the default', async () => {
  const page = await owner.get(SETTINGS);
  assert.match(page.text, /No providers yet/);
  const token = csrfToken(page.text);
  for (const [name, npi, message] of [
    ['', '1234567893', /Enter the provider&#39;s name or organization name/],
    ['x'.repeat(61), '1234567893', /up to 60 characters/],
    ['Demo Clinic', '123456789', /Enter the 10-digit NPI/],
    ['Demo Clinic', '1234567890', /That NPI has an invalid check digit/],
  ] as const) {
    const bad = await owner.post(PROVIDERS, { providerName: name, providerNpi: npi, _csrf: token });
    assert.equal(bad.status, 400, `${name} ${npi}`);
    assert.match(bad.text, message);
  }
  assert.deepEqual(await stored(), []);
  const ok = await owner.post(PROVIDERS, {
    providerName: ' Demo Clinic ',
    providerNpi: '1234567893',
    _csrf: token,
  });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, `${SETTINGS}?notice=provider-added#providers`);
  const second = await owner.post(PROVIDERS, {
    providerName: 'Dr Ada Park',
    providerNpi: '9876 543 213',
    _csrf: token,
  });
  assert.equal(second.status, 303);
  assert.deepEqual(await stored(), [
    { name: 'Demo Clinic', npi: '1234567893', isDefault: true },
    { name: 'Dr Ada Park', npi: '9876543213', isDefault: false },
  ]);
  const duplicate = await owner.post(PROVIDERS, {
    providerName: 'Again',
    providerNpi: '1234567893',
    _csrf: token,
  });
  assert.equal(duplicate.status, 400);
  assert.match(duplicate.text, /A provider with that NPI is already in the list/);
  assert.match(duplicate.text, /name="providerName" type="text" value="Again"/, 'typed values kept');
  const listed = (await owner.get(`${SETTINGS}?notice=provider-added`)).text;
  assert.match(listed, /Provider added/);
  assert.match(listed, /<td>Demo Clinic<\/td><td class="mono">1234567893<\/td><td><strong>Default<\/strong>/);
  assert.match(listed, /<td>Dr Ada Park<\/td>[\s\S]*?Make default<span class="sr-only"> Dr Ada Park/);
});

test('members pick a provider: the default chosen, another by name, or "Other provider" typed', async () => {
  const page = (await desk.get('/portal/checks/new')).text;
  assert.deepEqual(providerOptions(page), [
    ['1234567893', true, 'Demo Clinic (NPI 1234567893)'],
    ['9876543213', false, 'Dr Ada Park (NPI 9876543213)'],
    ['other', false, 'Other provider (type below)'],
  ]);
  const patient = {
    tradingPartnerServiceId: 'SANDBOX',
    'subscriber.memberId': 'SBX1000001',
    'subscriber.firstName': JANE.firstName,
    'subscriber.lastName': JANE.lastName,
    'subscriber.dateOfBirth': JANE.dateOfBirth,
  };
  const picked = await desk.submit('/portal/checks/new', '/portal/checks/new', {
    ...patient,
    'provider.choice': '9876543213',
    // What the "Other provider" fields still hold is ignored while a listed provider is picked.
    'provider.organizationName': 'Typed Clinic',
    'provider.npi': '',
  });
  assert.equal(picked.status, 303);
  assert.deepEqual((await storedRequest(picked.location!.split('/').pop()!)).provider, {
    organizationName: 'Dr Ada Park',
    npi: '9876543213',
  });
  const other = await desk.submit('/portal/checks/new', '/portal/checks/new', {
    ...patient,
    'provider.choice': 'other',
    'provider.organizationName': 'Typed Clinic',
    'provider.npi': '1111111112',
  });
  assert.equal(other.status, 303);
  assert.deepEqual((await storedRequest(other.location!.split('/').pop()!)).provider, {
    organizationName: 'Typed Clinic',
    npi: '1111111112',
  });
  const badOther = await desk.submit('/portal/checks/new', '/portal/checks/new', {
    ...patient,
    'provider.choice': 'other',
    'provider.organizationName': 'Typed Clinic',
    'provider.npi': '1111111111',
  });
  assert.equal(badOther.status, 400);
  assert.match(badOther.text, /Provider NPI has an invalid check digit/);
  assert.deepEqual(
    providerOptions(badOther.text).find((o) => o[1]),
    ['other', true, 'Other provider (type below)'],
    '"Other provider" stays chosen',
  );
  const gone = await desk.submit('/portal/checks/new', '/portal/checks/new', {
    ...patient,
    'provider.choice': '2222222228',
  });
  assert.equal(gone.status, 400);
  assert.match(gone.text, /Provider is no longer in the list: choose again/);
});

test('members cannot change the providers; without a CSRF token owners cannot either', async () => {
  const token = csrfToken((await desk.get('/portal/checks/new')).text);
  const before = await stored();
  for (const [path, fields] of [
    [PROVIDERS, { providerName: 'Sneaky', providerNpi: '2222222228' }],
    [`${PROVIDERS}/remove`, { npi: '1234567893' }],
    [`${PROVIDERS}/default`, { npi: '9876543213' }],
  ] as const) {
    assert.equal((await desk.post(path, { ...fields, _csrf: token })).status, 403, path);
    assert.equal((await owner.post(path, fields)).status, 403, `${path} without a token`);
  }
  assert.equal((await desk.get(SETTINGS)).status, 403);
  assert.deepEqual(await stored(), before);
});

test('Fix and resubmit picks the listed provider and ticks the service types the codes stand for', async () => {
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Dr Ada Park', npi: '9876543213' },
    subscriber: { ...member('SBX1000001'), memberId: 'SBX100000' },
    encounter: { serviceTypeCodes: ['98', 'AE'] },
  });
  assert.ok(sub.ok && 'id' in sub);
  assert.equal(await waitForCheck(h, sub.id), 'FAILED');
  const page = (await desk.get(`/portal/checks/${sub.id}/resubmit`)).text;
  assert.deepEqual(
    providerOptions(page).find((o) => o[1]),
    ['9876543213', true, 'Dr Ada Park (NPI 9876543213)'],
  );
  const ticked = [...page.matchAll(/name="encounter.serviceTypes" value="([^"]+)" checked/g)].map(
    (m) => m[1],
  );
  assert.deepEqual(ticked, ['Preventive Nutrition', 'Medical Nutrition']);
  assert.match(page, /name="encounter.serviceTypeCodes" type="text" value="AE"/);
});

test('an owner makes another provider the default and removes providers; the first left becomes the default', async () => {
  const token = csrfToken((await owner.get(SETTINGS)).text);
  const made = await owner.post(`${PROVIDERS}/default`, { npi: '9876543213', _csrf: token });
  assert.equal(made.status, 303);
  assert.equal(made.location, `${SETTINGS}?notice=provider-default#providers`);
  assert.deepEqual(
    (await stored()).map((p) => [p.npi, p.isDefault]),
    [
      ['1234567893', false],
      ['9876543213', true],
    ],
  );
  assert.equal(providerOptions((await desk.get('/portal/checks/new')).text)[1]![1], true);
  const removed = await owner.post(`${PROVIDERS}/remove`, { npi: '9876543213', _csrf: token });
  assert.equal(removed.status, 303);
  assert.deepEqual(await stored(), [{ name: 'Demo Clinic', npi: '1234567893', isDefault: true }]);
  const again = await owner.post(`${PROVIDERS}/remove`, { npi: '9876543213', _csrf: token });
  assert.equal(again.status, 400);
  assert.match(again.text, /That provider is no longer in the list/);
  assert.equal((await owner.post(`${PROVIDERS}/remove`, { npi: '1234567893', _csrf: token })).status, 303);
  assert.deepEqual(await stored(), []);
  assert.doesNotMatch((await desk.get('/portal/checks/new')).text, /name="provider.choice"/);
});
