/**
 * The portal's side of a patient's history (issue 17 sections 2 and 3): an owner sets the organization's
 * default reuse window (members cannot), a reused check names the check it was answered from, and a
 * coverage change is shown on both checks ("Coverage changed since <date>" on the later one).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { setReuseWithinHours } from '../../src/tenancy/organizations.ts';
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

async function finished(memberId: string, dateOfService: string): Promise<string> {
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: PROVIDER,
    subscriber: member(memberId),
    encounter: { dateOfService },
  });
  assert.ok(sub.ok && 'id' in sub);
  await waitForCheck(h, sub.id);
  return sub.id;
}

before(async () => {
  h = await startPortal();
  owner = await signInWithLink(h.url, h.loginPath);
});
after(() => h.stop());

test('an owner sets the default reuse window (whole hours 1 to 168, empty for off)', async () => {
  const settings = await owner.get('/portal/settings/organization');
  assert.match(settings.text, /Reuse recent checks/);
  assert.match(settings.text, /off: every check asks the payer/);
  for (const typed of ['0', '169', 'abc', '1.5', '-3']) {
    const bad = await owner.post('/portal/settings/organization/reuse', {
      reuseWithinHours: typed,
      _csrf: csrfToken(settings.text),
    });
    assert.equal(bad.status, 400, typed);
    assert.match(bad.text, /Enter a whole number of hours from 1 to 168/);
  }
  const ok = await owner.post('/portal/settings/organization/reuse', {
    reuseWithinHours: '24',
    _csrf: csrfToken(settings.text),
  });
  assert.equal(ok.status, 303);
  assert.equal(ok.location, '/portal/settings/organization?notice=reuse-saved');
  const saved = await owner.get(ok.location!);
  assert.match(saved.text, /checks are reused for 24 hours/);
  assert.match(saved.text, /Reuse window saved/);
  const off = await owner.post('/portal/settings/organization/reuse', {
    reuseWithinHours: '',
    _csrf: csrfToken(settings.text),
  });
  assert.equal(off.status, 303);
  assert.match((await owner.get('/portal/settings/organization')).text, /off: every check asks the payer/);
});

test('members cannot change the reuse window', async () => {
  const db = h.service.store.db;
  await createPortalUser(db, {
    organizationId: h.organizationId,
    email: 'desk@demo.example',
    role: 'member',
  });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'desk@demo.example');
  const desk = await signInWithLink(h.url, link.loginPath, 'front desk passphrase');
  const token = csrfToken((await desk.get('/portal/checks')).text);
  const res = await desk.post('/portal/settings/organization/reuse', {
    reuseWithinHours: '24',
    _csrf: token,
  });
  assert.equal(res.status, 403);
  const { rows } = await db.query<{ hours: number | null }>(
    'SELECT reuse_within_hours AS hours FROM organizations WHERE id = $1',
    [h.organizationId],
  );
  assert.equal(rows[0]!.hours, null);
});

test('a reused check names the check it was answered from', async () => {
  const first = await finished('SBX1000001', '20261201');
  await setReuseWithinHours(h.service.store.db, h.organizationId, 24);
  try {
    const reused = await finished('SBX1000001', '20261201');
    const page = await owner.get(`/portal/checks/${reused}`);
    assert.match(
      page.text,
      new RegExp(`Answered from an <a href="/portal/checks/${first}">earlier check</a>`),
    );
    assert.match(page.text, /the payer was not asked again/);
    assert.doesNotMatch((await owner.get(`/portal/checks/${first}`)).text, /Answered from an/);
  } finally {
    await setReuseWithinHours(h.service.store.db, h.organizationId, null);
  }
});

test('a coverage change is shown on both checks', async () => {
  const before = await finished('SBX1000011', '20261031');
  const later = await finished('SBX1000011', '20261101');
  const page = (await owner.get(`/portal/checks/${later}`)).text;
  assert.match(page, /Coverage changed since <time datetime="/);
  assert.match(page, new RegExp(`<a href="/portal/checks/${before}">earlier check</a>`));
  assert.match(page, /<li>Plan is no longer active<\/li>/);
  const earlier = (await owner.get(`/portal/checks/${before}`)).text;
  assert.match(earlier, /Coverage changed after this check/);
  assert.match(earlier, new RegExp(`A <a href="/portal/checks/${later}">later check</a>`));
  assert.match(earlier, /<li>Plan is no longer active<\/li>/);
  // A check with nothing to compare shows no such section.
  const henry = await finished('SBX1000012', '20261031');
  assert.doesNotMatch((await owner.get(`/portal/checks/${henry}`)).text, /Coverage changed/);
  const met = await finished('SBX1000012', '20261101');
  const metPage = (await owner.get(`/portal/checks/${met}`)).text;
  assert.match(metPage, /The deductible is met \(\$500 remaining before, \$0 now\)/);
  assert.match(metPage, /Outpatient Physical Therapy: visits used up \(20 of 20; 4 before\)/);
});
