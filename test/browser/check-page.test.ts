/**
 * The check page in real Chromium (issue 16): a verdict banner in its colour for each kind of answer, the
 * failed page with its resolutions and "Fix and resubmit" through to a completed check, and times in the
 * browser's zone, then in the organization's, with UTC on hover. Screenshots for the docs go to docs/images/.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { submitCheck } from '../../src/checks/submit.ts';
import { member } from '../helpers/members.ts';
import { type PortalHarness, startPortal, waitForCheck } from '../portal/helpers.ts';
import { launchChromium, setFirstPassword, watchPage } from './chromium.ts';

const IMAGES = join(process.cwd(), 'docs', 'images');
const SHOTS = join(process.cwd(), 'test-results', 'screenshots');
const PASSWORD = 'check page passphrase';
const BROWSER_ZONE = 'America/Los_Angeles';

let h: PortalHarness;
let browser: Browser;
let page: Page;
const problems: string[] = [];

async function finished(memberId: string, o: { payer?: string; memberId?: string } = {}): Promise<string> {
  const sub = await submitCheck(h.service.store.db, h.organizationId, {
    tradingPartnerServiceId: o.payer ?? 'SANDBOX',
    provider: { organizationName: 'Demo Clinic', npi: '1234567893' },
    subscriber: { ...member(memberId), ...(o.memberId ? { memberId: o.memberId } : {}) },
  });
  assert.ok(sub.ok);
  await waitForCheck(h, sub.id);
  return sub.id;
}

/**
 * The top of the page, small enough to commit: to test-results/screenshots/, and with UPDATE_DOC_IMAGES=1
 * also to docs/images/ (the copies docs/portal.md shows), so a plain test run leaves the tree clean.
 */
async function docShot(name: string): Promise<void> {
  const clip = { x: 0, y: 0, width: 1000, height: 640 };
  await page.screenshot({ path: join(SHOTS, `${name}.png`), clip });
  if (process.env.UPDATE_DOC_IMAGES === '1') {
    await page.screenshot({ path: join(IMAGES, `${name}.png`), clip });
  }
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  h = await startPortal();
  browser = await launchChromium();
  const context = await browser.newContext({
    viewport: { width: 1000, height: 800 },
    timezoneId: BROWSER_ZONE,
  });
  page = await context.newPage();
  watchPage(page, problems);
  await setFirstPassword(page, h.url + h.loginPath, PASSWORD);
});

after(async () => {
  await browser?.close();
  await h?.stop();
});

const GREEN = 'rgb(230, 244, 234)';
const RED = 'rgb(253, 236, 238)';
const AMBER = 'rgb(255, 244, 214)';

async function banner(): Promise<{ verdict: string; text: string; background: string }> {
  const el = page.locator('.verdict');
  return {
    verdict: (await el.getAttribute('data-verdict')) ?? '',
    text: (await el.locator('.verdict-summary').textContent()) ?? '',
    background: await el.evaluate((e) => getComputedStyle(e).backgroundColor),
  };
}

test('each verdict opens its page with a banner in its colour and words', async () => {
  const cases: [string, Promise<string>, string, string, RegExp][] = [
    [
      'check-banner-active',
      finished('SBX1000001'),
      'ACTIVE',
      GREEN,
      /^Coverage active: Sandbox PPO Gold, in network$/,
    ],
    [
      'check-banner-inactive',
      finished('SBX1000003'),
      'INACTIVE',
      RED,
      /^Coverage INACTIVE since 2025-12-31$/,
    ],
    [
      'check-banner-no-benefits',
      finished('SBX1000006'),
      'UNDETERMINED',
      AMBER,
      /^Coverage could not be determined: the payer says the plan is active/,
    ],
    [
      'check-banner-failed',
      finished('SBX1000001', { payer: 'NOPE' }),
      'FAILED',
      RED,
      /^Could not check: Payer not supported/,
    ],
  ];
  for (const [name, id, verdict, colour, words] of cases) {
    await page.goto(`${h.url}/portal/checks/${await id}`);
    const b = await banner();
    assert.equal(b.verdict, verdict, name);
    assert.equal(b.background, colour, name);
    assert.match(b.text, words);
    // The banner is the first thing under the heading.
    const first = await page.evaluate(() => document.querySelector('main h1')?.nextElementSibling?.className);
    assert.equal(first, `verdict verdict-${verdict.toLowerCase()}`);
    await docShot(name);
  }
  // An inactive plan: no green anywhere in the heading and no 100% confidence.
  await page.goto(`${h.url}/portal/checks/${await cases[1]![1]}`);
  const badge = page.locator('h1 .badge');
  assert.equal(await badge.textContent(), 'Inactive');
  assert.equal(await badge.evaluate((e) => getComputedStyle(e).backgroundColor), RED);
  assert.equal(await page.getByText('Overall confidence').count(), 0);
});

test('an UNDETERMINED answer is amber', async () => {
  // The sandbox always states a plan status; an answer without one is made by removing it from a stored body.
  const id = await finished('SBX1000001');
  const db = h.service.store.db;
  const { rows } = await db.query<{ result: string }>('SELECT result FROM checks WHERE id = $1', [id]);
  const { verdict: _v, planActive: _p, ...rest } = JSON.parse(rows[0]!.result) as Record<string, unknown>;
  await db.query('UPDATE checks SET result = $2 WHERE id = $1', [id, JSON.stringify(rest)]);
  await page.goto(`${h.url}/portal/checks/${id}`);
  const b = await banner();
  assert.equal(b.verdict, 'UNDETERMINED');
  assert.equal(b.background, AMBER);
  await docShot('check-banner-undetermined');
});

test('the failed page leads with the error and its resolution; Fix and resubmit completes the check', async () => {
  const failed = await finished('SBX1000001', { payer: 'NOPE' });
  await page.goto(`${h.url}/portal/checks/${failed}`);
  const card = page.locator('.error-card').first();
  assert.match((await card.locator('h3').textContent()) ?? '', /^Payer not supported \(code SH01\)$/);
  assert.match((await card.locator('.resolutions').textContent()) ?? '', /payer directory/);
  assert.equal(
    await page.locator('dl.facts dt:text-is("Payer") + dd').textContent(),
    'NOPE (not in the payer directory)',
  );

  await page.getByRole('link', { name: 'Fix and resubmit' }).click();
  await page.waitForURL(/\/resubmit$/);
  const payer = page.getByLabel('Payer', { exact: true });
  assert.equal(await payer.getAttribute('aria-invalid'), 'true', 'the payer is the field to fix');
  assert.equal(await page.getByLabel('Member id').inputValue(), member('SBX1000001').memberId, 'prefilled');
  await page.screenshot({ path: join(SHOTS, 'fix-and-resubmit.png'), fullPage: true });
  await payer.selectOption('SANDBOX');
  await page.getByRole('button', { name: 'Run check' }).click();
  await page.waitForURL(/\/portal\/checks\/[0-9a-f-]{36}$/);
  assert.ok(!page.url().includes(failed), 'a new check');
  await page.locator('.verdict[data-verdict="ACTIVE"]').waitFor({ timeout: 30_000 });
});

test('a member id typo: the member id field is highlighted with the reason, and fixing it works', async () => {
  const failed = await finished('SBX1000001', { memberId: 'SBX100000' });
  await page.goto(`${h.url}/portal/checks/${failed}/resubmit`);
  const field = page.getByLabel('Member id');
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.match((await page.locator('#f-subscriber-memberId-error').textContent()) ?? '', /code 72/);
  assert.equal(await page.getByLabel('First name').getAttribute('aria-invalid'), null);
  await docShot('check-fix-and-resubmit');
  await field.fill(member('SBX1000001').memberId);
  await page.getByRole('button', { name: 'Run check' }).click();
  await page.locator('.verdict[data-verdict="ACTIVE"]').waitFor({ timeout: 30_000 });
});

/** What a `<time>` on the page says, and its title. */
async function firstTime(): Promise<{ text: string; title: string; iso: string }> {
  const t = page.locator('time[datetime]').first();
  return {
    text: (await t.textContent()) ?? '',
    title: (await t.getAttribute('title')) ?? '',
    iso: (await t.getAttribute('datetime')) ?? '',
  };
}

/**
 * The wall-clock text for a UTC instant shifted by a fixed offset, by plain arithmetic (no Intl, so the test
 * does not share the page's recipe): "2026-11-24 06:30:00 GMT+9".
 */
function shifted(iso: string, offsetHours: number, zoneName: string): string {
  const wall = new Date(Date.parse(iso) + offsetHours * 3_600_000).toISOString();
  return `${wall.slice(0, 10)} ${wall.slice(11, 19)} ${zoneName}`;
}

test("times: the browser's zone by default, the organization's once set, UTC on hover", async () => {
  const id = await finished('SBX1000001');
  await page.goto(`${h.url}/portal/checks/${id}`);
  const before = await firstTime();
  const pacific = / (P[DS]T)$/.exec(before.text)?.[1];
  assert.ok(pacific, before.text);
  assert.equal(before.text, shifted(before.iso, pacific === 'PDT' ? -7 : -8, pacific));
  assert.equal(before.title, `${before.iso.slice(0, 19).replace('T', ' ')} UTC`);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Organization' }).click();
  await page.getByRole('combobox', { name: 'Time zone' }).selectOption('Asia/Tokyo');
  await page.getByRole('button', { name: 'Save time zone' }).click();
  await page.getByText('Time zone saved').waitFor();

  await page.goto(`${h.url}/portal/checks/${id}`);
  const after = await firstTime();
  assert.equal(after.text, shifted(after.iso, 9, 'GMT+9'));
  assert.equal(after.title, before.title, 'UTC on hover still');
  await page.goto(`${h.url}/portal/checks`);
  const listed = await firstTime();
  assert.match(listed.text, / GMT\+9$/, 'the list too');
});

test('the failed page and Fix and resubmit fit a 375 px screen', async () => {
  const failed = await finished('SBX1000001', { payer: 'NOPE' });
  await page.setViewportSize({ width: 375, height: 800 });
  try {
    for (const path of [`/portal/checks/${failed}`, `/portal/checks/${failed}/resubmit`]) {
      await page.goto(h.url + path);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 375, `${path} is ${width}px wide`);
    }
  } finally {
    await page.setViewportSize({ width: 1000, height: 800 });
  }
});

test('no script errors or CSP violations', () => {
  assert.deepEqual(problems, []);
});
