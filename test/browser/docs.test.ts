/**
 * The API reference page (`/docs`) in a real headless Chromium: Swagger UI, served by the service itself,
 * renders every operation of the OpenAPI document and the webhooks, without one request leaving the host
 * (every request is recorded, and any to another origin is refused and reported), and without a console
 * error (a Content-Security-Policy violation is one). The portal links to it.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestService, type TestService } from '../helpers/service.ts';
import { launchChromium, watchPage } from './chromium.ts';

const SHOTS = join(process.cwd(), 'test-results', 'screenshots');

let svc: TestService;
let browser: Browser;
let page: Page;
const problems: string[] = [];
const requested: string[] = [];
const elsewhere: string[] = [];

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  svc = await startTestService({ roles: { api: true, worker: false } });
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const origin = new URL(svc.url).origin;
  // Every request the page makes passes here: one for another origin is refused and remembered.
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requested.push(url);
    if (url.startsWith('data:') || new URL(url).origin === origin) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  page = await context.newPage();
  watchPage(page, problems);
});

after(async () => {
  await browser?.close();
  await svc?.stop();
});

test('/docs renders every operation and webhook of the document, with nothing loaded from elsewhere', async () => {
  const doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { summary: string }>>;
    webhooks: Record<string, unknown>;
  };
  const response = await page.goto(`${svc.url}/docs`);
  assert.equal(response?.status(), 200);
  assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
  await page.locator('.opblock').first().waitFor();
  await page.getByText('Insurance Eligibility API').first().waitFor();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const block = page.locator(`.opblock-${method}`, { hasText: op.summary });
      assert.equal(await block.count(), 1, `${method.toUpperCase()} ${path} (${op.summary}) is rendered`);
      assert.match((await block.textContent()) ?? '', new RegExp(path.replace(/[{}]/g, '.')));
    }
  }
  for (const name of Object.keys(doc.webhooks)) {
    assert.ok(await page.getByText(name, { exact: true }).first().isVisible(), `webhook ${name} is rendered`);
  }
  // An operation opens with its examples (the sandbox's answers) and the named schemas.
  await page
    .locator('.opblock-get', { hasText: 'Get eligibility check status' })
    .locator('.opblock-summary')
    .click();
  await page.getByText('Retry-After').first().waitFor();
  await page.screenshot({ path: join(SHOTS, 'api-docs.png') });
  assert.ok(
    requested.some((u) => u.endsWith('/openapi.json')),
    'the page read the document',
  );
  assert.ok(
    requested.some((u) => u.includes('/docs/assets/swagger-ui-bundle.js')),
    'the bundle is ours',
  );
  assert.deepEqual(elsewhere, [], 'no request left the host');
  assert.deepEqual(problems, [], 'no console error (a CSP violation would be one)');
});

test('the portal links to the API reference', async () => {
  await page.goto(`${svc.url}/portal/login`);
  const link = page.getByRole('link', { name: 'API reference' });
  assert.equal(await link.getAttribute('href'), '/docs');
  assert.deepEqual(elsewhere, []);
});
