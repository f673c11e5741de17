/**
 * Monitors in real Chromium: "Re-check this patient" on a check page creates a monitor (before each visit),
 * the Monitors page lists it with the member id cut to its last four, and Pause, Resume and Delete work
 * from the list, each saying what it did.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { submitCheck } from '../../src/checks/submit.ts';
import { member } from '../helpers/members.ts';
import { dayFromToday } from '../helpers/monitors.ts';
import { type PortalHarness, startPortal, waitForCheck } from '../portal/helpers.ts';
import { launchChromium, setFirstPassword, watchPage } from './chromium.ts';

const PASSWORD = 'monitor page passphrase';

let h: PortalHarness;
let browser: Browser;
let page: Page;
const problems: string[] = [];

before(async () => {
  h = await startPortal();
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
  watchPage(page, problems);
  await setFirstPassword(page, h.url + h.loginPath, PASSWORD);
});

after(async () => {
  await browser?.close();
  await h?.stop();
});

test('Re-check this patient creates a monitor; the Monitors page lists it; pause, resume and delete', async () => {
  const jane = member('SBX1000001');
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: 'SANDBOX',
    provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
    subscriber: jane,
  });
  assert.ok(sub.ok);
  await waitForCheck(h, sub.id);
  await page.goto(`${h.url}/portal/checks/${sub.id}`);

  // Two visits, far enough ahead that the scheduler has nothing to run during the test.
  const section = page.getByRole('region', { name: 'Re-check this patient' });
  await section.getByLabel('Before each visit').check();
  await section.getByLabel('Visit dates').fill(`${dayFromToday(20, true)}, ${dayFromToday(10, true)}`);
  await section.getByRole('button', { name: 'Start monitoring' }).click();
  await page.waitForURL(/\/portal\/monitors\/mon_/);
  const monitorId = new URL(page.url()).pathname.split('/').pop()!;
  assert.match((await page.getByRole('status').textContent()) ?? '', /Monitor started/);
  assert.match((await page.locator('h1').textContent()) ?? '', /Monitor/);
  assert.match((await page.locator('dl.facts').textContent()) ?? '', /Before 2 visits/);
  assert.match((await page.getByText('No run yet.').textContent()) ?? '', /No run yet/);

  await page.getByRole('link', { name: 'Monitors', exact: true }).first().click();
  await page.waitForURL(/\/portal\/monitors$/);
  const row = page.getByRole('row', { name: new RegExp(`${jane.lastName}, ${jane.firstName}`, 'i') });
  assert.equal(await row.count(), 1);
  const cells = (await row.textContent()) ?? '';
  assert.match(cells, /••••0001/);
  assert.ok(!cells.includes(jane.memberId), 'the list cuts the member id');
  assert.match(cells, /Before 2 visits/);
  assert.match(cells, /Active/i);
  assert.equal(
    await row.getByRole('link').getAttribute('href'),
    `/portal/monitors/${monitorId}`,
    'the patient links to the monitor',
  );

  await row.getByRole('button', { name: /^Pause/ }).click();
  await page.waitForURL(/notice=monitor-paused/);
  assert.match((await page.getByRole('status').textContent()) ?? '', /Monitor paused/);
  assert.match((await row.textContent()) ?? '', /Paused/i);
  await row.getByRole('button', { name: /^Resume/ }).click();
  await page.waitForURL(/notice=monitor-active/);
  assert.match((await row.textContent()) ?? '', /Active/i);

  await row.getByRole('button', { name: /^Delete/ }).click();
  await page.waitForURL(/notice=monitor-deleted/);
  assert.match((await page.getByRole('status').textContent()) ?? '', /Monitor deleted/);
  assert.equal(await row.count(), 0);
  await page.getByText('No monitors yet.').waitFor();
  const { rows } = await h.service.store.db.query('SELECT 1 FROM monitors WHERE id = $1', [monitorId]);
  assert.equal(rows.length, 0, 'deleted from the store');
  // The check the monitor was started from is still there.
  await page.goto(`${h.url}/portal/checks/${sub.id}`);
  await page.getByRole('region', { name: 'Re-check this patient' }).waitFor();
  assert.deepEqual(problems, []);
});
