/**
 * The portal in a real headless Chromium against the real service: first-start sign-in, API keys used and
 * revoked against the API, a signed webhook test event on a local receiver, a secret roll, a sandbox check
 * run from the form, escaping, CSRF, keyboard access and a 375 px layout. Screenshots of every page go to
 * test-results/screenshots/. Chromium is installed when missing (as root); when it cannot be, this FAILS.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PRODUCT_SERVICE_TYPES } from '../../src/contract/check-response.ts';
import { eventually } from '../helpers/eventually.ts';
import { member } from '../helpers/members.ts';
import { Receiver } from '../helpers/receiver.ts';
import { type PortalHarness, startPortal } from '../portal/helpers.ts';
import { launchChromium, watchPage } from './chromium.ts';

const SHOTS = join(process.cwd(), 'test-results', 'screenshots');
const PASSWORD = 'browser test passphrase';
const XSS = '<script>alert(1)</script>';

let h: PortalHarness;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const receiver = new Receiver();
const problems: string[] = [];
const dialogs: string[] = [];

async function shot(name: string, fullPage = true): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage });
}

/**
 * A screenshot the README shows: to test-results/screenshots/, and with UPDATE_DOC_IMAGES=1 also to
 * docs/images/ (as check-page.test.ts does), so a plain test run leaves the tree clean.
 */
async function docShot(name: string, fullPage = false): Promise<void> {
  await shot(name, fullPage);
  if (process.env.UPDATE_DOC_IMAGES === '1') {
    await page.screenshot({ path: join('docs', 'images', `${name}.png`), fullPage });
  }
}

async function api(key: string): Promise<number> {
  const res = await fetch(`${h.url}/api/eligibility`, {
    method: 'POST',
    headers: { authorization: `Key ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      tradingPartnerServiceId: 'SANDBOX',
      provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
      subscriber: member('SBX1000002'),
    }),
  });
  await res.arrayBuffer();
  return res.status;
}

const hmac = (secret: string, ts: string, body: string) =>
  createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  h = await startPortal();
  await receiver.start();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url });
  page = await context.newPage();
  watchPage(page, problems);
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
});

after(async () => {
  await browser?.close();
  await receiver.stop();
  await h?.stop();
});

test('first-start link: set a password and land signed in', async () => {
  await page.goto(h.url + h.loginPath);
  await assert.doesNotReject(page.getByRole('heading', { name: /choose a password/ }).waitFor());
  await shot('01-first-sign-in');
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('New password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.waitForURL(/\/portal\/checks\?notice=password-set$/);
  assert.equal(
    await page.getByRole('status').first().textContent(),
    'Your password is set and you are signed in.',
  );
  await shot('02-checks-empty');
});

test('keyboard: the skip link comes first and focus is visible', async () => {
  await page.goto(`${h.url}/portal/checks`);
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    return { text: el.textContent, outline: style.outlineStyle, width: style.outlineWidth };
  });
  assert.equal(focused.text, 'Skip to content');
  assert.equal(focused.outline, 'solid');
  assert.equal(focused.width, '3px');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
});

let key = '';

test('create an API key, copy it, use it against the API', async () => {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
  await page.getByLabel('Name').fill('Browser test key');
  assert.equal(await page.getByLabel(/eligibility:read/).isChecked(), true);
  assert.equal(await page.getByLabel(/eligibility:write/).isChecked(), true);
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText('You will not see this key again').waitFor();
  key = await page.getByRole('textbox', { name: 'API key', exact: true }).inputValue();
  assert.match(key, /^elig_test_[0-9A-Za-z]{40}$/);
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key);
  await shot('03-api-key-created');
  assert.equal(await api(key), 202);
});

test('revoke the key with a confirmation step; the API answers 401 at once', async () => {
  await page.goto(`${h.url}/portal/settings/api-keys`);
  await shot('04-api-keys');
  await page.getByRole('link', { name: 'Revoke Browser test key' }).click();
  await page.getByRole('heading', { name: 'Revoke “Browser test key”?' }).waitFor();
  await shot('05-revoke-confirm');
  await page.getByRole('button', { name: 'Revoke key' }).click();
  await page.getByText('The key is revoked').waitFor();
  assert.equal(await api(key), 401);
});

test('a key named <script>alert(1)</script> is shown as text and runs nothing', async () => {
  await page.getByLabel('Name').fill(XSS);
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByText('You will not see this key again').waitFor();
  await page.goto(`${h.url}/portal/settings/api-keys`);
  const names = await page.locator('tbody th[scope="row"]').allTextContents();
  assert.ok(names.includes(XSS), `names: ${names.join(' | ')}`);
  assert.deepEqual(dialogs, []);
  assert.equal(await page.evaluate(() => document.querySelectorAll('tbody script').length), 0);
});

test('a form posted without its CSRF token is rejected', async () => {
  await page.goto(`${h.url}/portal/settings/api-keys`);
  await page.getByLabel('Name').fill('forged');
  const logged = problems.length;
  await page.evaluate(() => {
    for (const input of document.querySelectorAll('input[name="_csrf"]')) input.remove();
  });
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'POST'),
    page.getByRole('button', { name: 'Create key' }).click(),
  ]);
  assert.equal(response.status(), 403);
  // The browser logs the refused POST as a failed resource load (asynchronously): expected here, and set
  // aside once it came. If it never comes there is nothing to set aside.
  await eventually(() => problems.slice(logged).some((p) => p.includes('403')), {
    timeoutMs: 2000,
    intervalMs: 50,
  }).catch(() => {});
  assert.deepEqual(
    problems.splice(logged).filter((p) => !p.includes('403 (Forbidden)')),
    [],
  );
  await page.getByRole('heading', { name: 'Form expired' }).waitFor();
  await shot('06-csrf-rejected');
  const { rows } = await h.service.store.db.query("SELECT 1 FROM api_keys WHERE name = 'forged'");
  assert.equal(rows.length, 0);
});

let secret = '';

test('webhook: local receiver, generated secret, signed test event', async () => {
  await page.goto(`${h.url}/portal/settings/webhooks`);
  await page.getByLabel('Webhook URL').fill(receiver.url);
  await page.getByRole('button', { name: 'Save URL' }).click();
  await page.getByText('Webhook URL saved.').waitFor();
  await page.getByRole('button', { name: 'Generate a secret' }).click();
  secret = await page.getByRole('textbox', { name: 'Signing secret', exact: true }).inputValue();
  assert.match(secret, /^whsec_/);
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.waitForURL(/\/deliveries\/[0-9a-f-]{36}/);
  await page.getByRole('cell', { name: 'HTTP 200' }).waitFor();
  await shot('07-webhook-delivery');
  const [got] = await receiver.waitFor(1);
  const ts = got!.headers['x-webhook-timestamp'] as string;
  assert.equal(got!.headers['x-webhook-signature'], hmac(secret, ts, got!.body));
});

test('roll the secret: the next delivery carries both signatures', async () => {
  await page.goto(`${h.url}/portal/settings/webhooks`);
  assert.equal(
    await page.getByRole('textbox', { name: 'Signing secret', exact: true }).count(),
    0,
    'hidden until revealed',
  );
  await page.getByRole('button', { name: 'Reveal secret' }).click();
  assert.equal(await page.getByRole('textbox', { name: 'Signing secret', exact: true }).inputValue(), secret);
  await page.getByRole('button', { name: 'Roll secret' }).click();
  await page.getByText('Secret rolled.').waitFor();
  const rolled = await page.getByRole('textbox', { name: 'Signing secret', exact: true }).inputValue();
  assert.notEqual(rolled, secret);
  await shot('08-webhooks');
  await page.getByRole('button', { name: 'Send test event' }).click();
  await page.getByRole('cell', { name: 'HTTP 200' }).waitFor();
  const got = (await receiver.waitFor(2))[1]!;
  const ts = got.headers['x-webhook-timestamp'] as string;
  assert.equal(got.headers['x-webhook-signature'], hmac(rolled, ts, got.body));
  assert.equal(got.headers['x-webhook-signature-previous'], hmac(secret, ts, got.body));
});

test('run a sandbox check from the form and read its benefits table', async () => {
  await page.getByRole('link', { name: 'Run a check' }).first().click();
  assert.equal(await page.getByLabel('Payer', { exact: true }).inputValue(), 'SANDBOX');
  await page.getByLabel('Provider NPI').fill('1234567893');
  const jane = member('SBX1000001');
  await page.getByLabel('Member id').fill(jane.memberId);
  await page.getByLabel('First name').fill(jane.firstName);
  await page.getByLabel('Last name').fill(jane.lastName);
  await page.getByLabel('Date of birth').fill(jane.dateOfBirth);
  await shot('09-run-check');
  await page.getByRole('button', { name: 'Run check' }).click();
  await page.waitForURL(/\/portal\/checks\/[0-9a-f-]{36}$/);
  assert.doesNotMatch(page.url(), /SBX|JANE|1980/);
  // The page reloads itself until the check is done.
  await page.getByRole('heading', { name: 'Benefits by service type' }).waitFor({ timeout: 30_000 });
  const rows = await page.locator('table.benefits tbody tr.entry').evaluateAll((trs) =>
    trs.map((tr) =>
      // biome-ignore lint/performance/useDomNodeTextContent: the rendered text, line breaks included, is what a person reads
      [...tr.children].map((c) => (c as HTMLElement).innerText.trim()),
    ),
  );
  assert.deepEqual(
    rows.map((r) => r[0]),
    [...PRODUCT_SERVICE_TYPES],
  );
  for (const r of rows) {
    assert.equal(r[1], 'Active Coverage\nIn network');
    assert.match(r[4]!, /^(Applies|Does not apply)$/, 'the plan amounts are not repeated per service');
  }
  const amounts = await page.locator('table.plan-amounts tbody tr').allInnerTexts();
  assert.match(amounts[0]!, /^Deductible\s+\$1,500\n\$500 left\s+\$3,000\n\$2,000 left$/);
  const why = await page.locator('table.benefits tbody tr.why').allInnerTexts();
  assert.equal(why.length, PRODUCT_SERVICE_TYPES.length);
  for (const w of why) assert.match(w, /\nConfidence \d+(\.\d)?%: \S/);
  assert.equal(await page.locator('dl.facts dt:text-is("Plan") + dd').textContent(), 'Sandbox PPO Gold');
  assert.equal(await page.locator('details').first().getAttribute('open'), null, 'raw JSON folded');
  await shot('10-check-detail');

  await page.setViewportSize({ width: 375, height: 800 });
  await page.reload();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(overflow <= 375, `page is ${overflow}px wide at 375px`);
  await shot('11-check-detail-375px');
  await page.goto(`${h.url}/portal/checks`);
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 375);
  await shot('12-checks-375px');
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('the checks list shows only the last four characters of member ids', async () => {
  await page.goto(`${h.url}/portal/checks`);
  const body = (await page.locator('main').textContent()) ?? '';
  assert.match(body, /••••0001/);
  assert.doesNotMatch(body, /SBX1000001/);
  await shot('13-checks');
});

test('find a patient: search by name, date of birth or member id, filter by verdict', async () => {
  const jane = member('SBX1000001');
  await page.goto(`${h.url}/portal/checks`);
  await page
    .getByRole('searchbox', { name: 'Patient' })
    .fill(`${jane.lastName.toLowerCase()}, ${jane.firstName}`);
  await page.getByLabel('Verdict').selectOption('ACTIVE');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(/\/portal\/checks\?q=.*&verdict=ACTIVE/);
  const rows = page.locator('table.checks tbody tr');
  assert.ok((await rows.count()) >= 1);
  for (const text of await rows.allTextContents()) {
    assert.match(text, new RegExp(`${jane.lastName}, ${jane.firstName}`));
    assert.match(text, /Active/);
  }
  assert.equal(
    await page.getByRole('searchbox', { name: 'Patient' }).inputValue(),
    `${jane.lastName.toLowerCase()}, ${jane.firstName}`,
  );
  await docShot('portal-checks-search');
  await page.getByRole('searchbox', { name: 'Patient' }).fill('1980-01-15');
  await page.getByLabel('Verdict').selectOption('');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.waitForURL(/q=1980-01-15/);
  assert.ok((await rows.count()) >= 1);
  await page.getByRole('searchbox', { name: 'Patient' }).fill('Nobody Atall');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByText('No checks match this search').waitFor();
});

test('print view: a clean page that prints on one sheet, and a PDF download', async () => {
  await page.goto(`${h.url}/portal/checks?verdict=ACTIVE`);
  await page.locator('table.checks tbody tr th a').first().click();
  await page.getByRole('link', { name: 'Print view' }).click();
  await page.waitForURL(/\/portal\/checks\/[0-9a-f-]{36}\/print$/);
  const verdict = page.locator('p.verdict');
  assert.match((await verdict.textContent()) ?? '', /^ACTIVE Coverage active: Sandbox PPO Gold, in network$/);
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'no site navigation');
  assert.equal(await page.getByRole('button', { name: 'Print' }).isVisible(), true, 'the script shows Print');
  await docShot('portal-print-view', true);
  await page.emulateMedia({ media: 'print' });
  assert.equal(
    await page.getByRole('link', { name: 'Download PDF' }).isVisible(),
    false,
    'actions hidden in print',
  );
  const printed = (await page.pdf({ format: 'Letter' })).toString('latin1');
  const sheets = printed.match(/\/Type\s*\/Page\b/g)?.length ?? 0;
  assert.ok(sheets >= 1 && sheets <= 2, `prints on ${sheets} sheets`);
  await page.emulateMedia({ media: 'screen' });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download PDF' }).click(),
  ]);
  assert.match(download.suggestedFilename(), /^eligibility-check-[0-9a-f-]{36}\.pdf$/);
  const path = await download.path();
  const { readFileSync } = await import('node:fs');
  const bytes = readFileSync(path!).toString('latin1');
  assert.ok(bytes.startsWith('%PDF-'));
  assert.match(bytes, /Coverage active: Sandbox PPO Gold, in network\) Tj/);
  await page.goto(`${h.url}/portal/checks`);
});

test('team page and sign out', async () => {
  await page.getByRole('link', { name: 'Team' }).click();
  await shot('14-team');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(/\/portal\/login\?notice=signed-out$/);
  await shot('15-signed-out');
  await page.goto(`${h.url}/portal/checks`);
  await page.waitForURL(/\/portal\/login\?next=/);
  await page.getByLabel('Email').fill(h.ownerEmail);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/portal\/checks$/);
});

test('no script errors or CSP violations on any page', () => {
  assert.deepEqual(problems, []);
});
