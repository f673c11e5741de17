/**
 * Monitors in the portal: started from a check page (before each visit or every N days), listed with the
 * patient as the checks list shows one, paused, resumed and deleted with POST forms; form errors; another
 * organization sees 404 pages; no PHI in the logs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { submitCheck } from '../../src/checks/submit.ts';
import { createPortalUser, issuePasswordResetLink } from '../../src/portal/index.ts';
import { createOrganization } from '../../src/tenancy/organizations.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { dayFromToday } from '../helpers/monitors.ts';
import { sandboxRequest } from '../helpers/service.ts';
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
let checkId: string;
const JANE = member('SBX1000001');

before(async () => {
  // A long poll: the monitors created here run only when a test asks (or once, at creation, by NOTIFY).
  h = await startPortal({ config: { monitorPollMs: 3_600_000 } });
  owner = await signInWithLink(h.url, h.loginPath);
  const submitted = await submitCheck(h.service.store.db, h.organizationId, sandboxRequest(JANE));
  assert.ok(submitted.ok);
  checkId = submitted.id;
  await waitForCheck(h, checkId);
});
after(() => h.stop());

const monitorIdOf = (location: string | null) =>
  /\/portal\/monitors\/(mon_[0-9a-f-]+)\?/.exec(location ?? '')?.[1];

test('a check page offers "Re-check this patient"; before each visit creates a monitor of that patient', async () => {
  const checkPage = await owner.get(`/portal/checks/${checkId}`);
  assert.match(checkPage.text, /Re-check this patient/);
  assert.match(checkPage.text, /<form method="post" action="\/portal\/monitors"/);
  const visit = dayFromToday(20, true);
  const res = await owner.post('/portal/monitors', {
    _csrf: csrfToken(checkPage.text),
    check: checkId,
    schedule: 'dates',
    dates: `${visit}, ${dayFromToday(60, true)}`,
  });
  assert.equal(res.status, 303);
  const id = monitorIdOf(res.location);
  assert.ok(id, `redirected to the monitor: ${res.location}`);
  const detail = await owner.get(res.location!);
  assert.equal(detail.status, 200);
  assert.match(detail.text, /Monitor started/);
  assert.match(detail.text, new RegExp(`${JANE.lastName}, ${JANE.firstName}`));
  assert.match(detail.text, new RegExp(`Before 2 visits: ${visit}`));
  assert.match(detail.text, /No run yet/);
  const { rows } = await h.service.store.db.query<{ request: any; dates: string[] }>(
    'SELECT request, dates FROM monitors WHERE id = $1',
    [id],
  );
  assert.equal(rows[0]!.request.subscriber.memberId, JANE.memberId, "the check's patient, read server-side");
  assert.deepEqual(rows[0]!.dates, [visit.replaceAll('-', ''), dayFromToday(60)]);
});

test('every N days: the first run happens at once and is listed on the monitor page, linking to its check', async () => {
  const res = await owner.submit(`/portal/checks/${checkId}`, '/portal/monitors', {
    check: checkId,
    schedule: 'every',
    every: '14',
  });
  assert.equal(res.status, 303);
  const id = monitorIdOf(res.location)!;
  // The scheduler may already be running it (woken by the creation's NOTIFY, its claim holding the row
  // so this runDue skips it): wait for the run's check rather than assume this call made it.
  await h.service.scheduler!.runDue();
  const rows = await eventually(
    async () => {
      const found = await h.service.store.db.query<{ id: string }>(
        'SELECT id FROM checks WHERE monitor_id = $1',
        [id],
      );
      return found.rows.length > 0 ? found.rows : undefined;
    },
    { what: "the monitor's first run" },
  );
  assert.equal(rows.length, 1, 'one run, not one per wake-up');
  const detail = await owner.get(`/portal/monitors/${id}`);
  assert.match(detail.text, /Every 14 days/);
  assert.match(detail.text, new RegExp(`href="/portal/checks/${rows[0]!.id}"`));
});

test('the list: patients with the member id cut to its last four, the Monitors menu item current', async () => {
  const list = await owner.get('/portal/monitors');
  assert.equal(list.status, 200);
  assert.match(list.text, /<a href="\/portal\/monitors" aria-current="page">Monitors<\/a>/);
  assert.match(list.text, new RegExp(`${JANE.lastName}, ${JANE.firstName}`));
  assert.match(list.text, new RegExp(`••••${JANE.memberId.slice(-4)}`));
  assert.ok(!list.text.includes(JANE.memberId), 'never the whole member id in the list');
  assert.match(list.text, /Every 14 days/);
});

test('pause, resume and delete from the list, each a POST form with the CSRF field', async () => {
  const db = h.service.store.db;
  const id = (await db.query<{ id: string }>(`SELECT id FROM monitors WHERE every_days = 14`)).rows[0]!.id;
  const status = async () =>
    (await db.query<{ status: string }>('SELECT status FROM monitors WHERE id = $1', [id])).rows[0]?.status;
  const paused = await owner.submit('/portal/monitors', `/portal/monitors/${id}/pause`, {});
  assert.equal(paused.status, 303);
  assert.equal(paused.location, '/portal/monitors?notice=monitor-paused');
  assert.equal(await status(), 'paused');
  const list = await owner.get(paused.location!);
  assert.match(list.text, /Monitor paused/);
  assert.match(list.text, new RegExp(`action="/portal/monitors/${id}/resume"`));
  const resumed = await owner.submit(`/portal/monitors/${id}`, `/portal/monitors/${id}/resume`, {
    return: 'detail',
  });
  assert.equal(resumed.location, `/portal/monitors/${id}?notice=monitor-active`);
  assert.equal(await status(), 'active');
  const forged = await owner.post(`/portal/monitors/${id}/delete`, { _csrf: 'not-the-token' });
  assert.equal(forged.status, 403);
  assert.equal(await status(), 'active', 'a form without the token changes nothing');
  const deleted = await owner.submit('/portal/monitors', `/portal/monitors/${id}/delete`, {});
  assert.equal(deleted.location, '/portal/monitors?notice=monitor-deleted');
  assert.equal(await status(), undefined);
  assert.equal((await owner.get(`/portal/monitors/${id}`)).status, 404);
});

test('form errors: a past visit date, no date, a bad number of days; 400 with the form kept', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ schedule: 'dates', dates: dayFromToday(-2, true) }, /Visit date 1 is in the past/],
    [{ schedule: 'dates', dates: '' }, /Visit dates must be a list of 1 to 100 appointment dates/],
    [{ schedule: 'dates', dates: `${dayFromToday(3, true)} soon` }, /Visit date 2 must be a date written/],
    [{ schedule: 'every', every: '0' }, /Days between checks must be a whole number of days from 1 to 365/],
    [{ schedule: 'every', every: 'weekly' }, /Days between checks must be a whole number/],
  ];
  for (const [fields, message] of cases) {
    const res = await owner.submit(`/portal/checks/${checkId}`, '/portal/monitors', {
      check: checkId,
      ...fields,
    });
    assert.equal(res.status, 400, JSON.stringify(fields));
    assert.match(res.text, /There is a problem/);
    assert.match(res.text, message);
    assert.match(res.text, /name="_csrf"/);
  }
});

test('another organization: our monitor and our check are 404 pages; its list is empty', async () => {
  const db = h.service.store.db;
  const id = (await db.query<{ id: string }>('SELECT id FROM monitors LIMIT 1')).rows[0]!.id;
  const other = await createOrganization(db, 'Other Clinic');
  await createPortalUser(db, {
    organizationId: other.id,
    email: 'owner@other-monitors.example',
    role: 'owner',
  });
  const link = await issuePasswordResetLink(db, h.service.keys.tokenKey, 'owner@other-monitors.example');
  const stranger = await signInWithLink(h.url, link.loginPath, 'other clinic passphrase');
  assert.equal((await stranger.get(`/portal/monitors/${id}`)).status, 404);
  for (const action of ['pause', 'resume', 'delete']) {
    const res = await stranger.submit('/portal/monitors', `/portal/monitors/${id}/${action}`, {});
    assert.equal(res.status, 404, action);
  }
  const steal = await stranger.submit('/portal/monitors', '/portal/monitors', {
    check: checkId,
    schedule: 'every',
    every: '1',
  });
  assert.equal(steal.status, 404, "another organization's check cannot be monitored");
  const list = await stranger.get('/portal/monitors');
  assert.match(list.text, /No monitors yet/);
  assert.ok(!list.text.includes(JANE.lastName));
  const { rows } = await db.query<{ status: string }>('SELECT status FROM monitors WHERE id = $1', [id]);
  assert.equal(rows[0]?.status, 'active', 'untouched');
});

test('no PHI in the logs', () => {
  for (const value of [JANE.lastName, JANE.memberId, JANE.dateOfBirth]) {
    assert.ok(!h.logs.text.includes(value), 'a patient detail was logged');
  }
});
