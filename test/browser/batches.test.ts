/**
 * The batch CSV round trip in real Chromium (issue 17): upload a schedule with a malformed row on the
 * Batches page, see the row by line, send the valid rows, watch the page reload itself until the batch
 * completes, and download the results CSV: one row per check, the file `elig batch results --csv` writes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { parseCsvRows, RESULT_COLUMNS } from '../../src/batches/csv.ts';
import { eligInProcess } from '../helpers/cli.ts';
import { type PortalHarness, startPortal } from '../portal/helpers.ts';
import { launchChromium, setFirstPassword, watchPage } from './chromium.ts';

const PASSWORD = 'batch page passphrase';
const TEMPLATE = readFileSync(new URL('../../examples/batch.example.csv', import.meta.url), 'utf8');

let h: PortalHarness;
let browser: Browser;
let page: Page;
let dir: string;
const problems: string[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'elig-batch-browser-'));
  h = await startPortal();
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1000, height: 800 }, acceptDownloads: true });
  page = await context.newPage();
  watchPage(page, problems);
  await setFirstPassword(page, h.url + h.loginPath, PASSWORD);
});

after(async () => {
  await browser?.close();
  await h?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('upload a schedule, send its valid rows, wait for the batch, download the results CSV', async () => {
  const lines = TEMPLATE.trimEnd().split('\n');
  const file = join(dir, 'thursday.csv');
  // Line 3 is malformed (too few fields); the three template rows are valid.
  writeFileSync(file, [lines[0], lines[1], 'SANDBOX,SBX1000002', lines[2], lines[3]].join('\n'));

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Batches' }).click();
  await page.getByLabel('Schedule file (CSV)').setInputFiles(file);
  await page.getByRole('button', { name: 'Upload and check' }).click();

  await page.getByRole('heading', { name: 'Review the schedule' }).waitFor();
  const row = page.getByRole('region', { name: 'Rows with problems' }).getByRole('row').nth(1);
  assert.deepEqual(await row.getByRole('cell').allTextContents(), ['2 fields where the header names 9']);
  assert.equal(await row.getByRole('rowheader').textContent(), '3', 'the file line');
  await page.getByRole('button', { name: 'Send the 3 valid rows' }).click();

  await page.waitForURL(/\/portal\/batches\/[0-9a-f-]{36}\?notice=batch-submitted/);
  const id = new URL(page.url()).pathname.split('/').at(-1)!;
  assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'thursday.csv');
  // The page reloads itself (meta refresh) until the batch completes; no script of ours is needed.
  await page.getByText('3 of 3 checks finished (100%)').waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('[data-verdict="ACTIVE"]').textContent(), '2');
  assert.equal(await page.locator('[data-verdict="INACTIVE"]').textContent(), '1');

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download results CSV' }).click(),
  ]);
  assert.equal(download.suggestedFilename(), `batch-${id}-results.csv`);
  const saved = join(dir, 'results.csv');
  await download.saveAs(saved);
  const csv = readFileSync(saved, 'utf8');
  const rows = parseCsvRows(csv);
  assert.deepEqual(rows[0]!.fields, [...RESULT_COLUMNS]);
  assert.deepEqual(
    rows.slice(1).map((r) => r.fields[RESULT_COLUMNS.indexOf('verdict')]),
    ['ACTIVE', 'ACTIVE', 'INACTIVE'],
    'one row per check, in file order',
  );
  const cli = await eligInProcess('batch', 'results', id, '--csv', '--url', h.url, '--key', h.apiKey);
  assert.equal(csv, cli.stdout, 'the same file as `elig batch results --csv`');

  await page.getByRole('link', { name: '← Batches' }).click();
  assert.equal(await page.getByRole('link', { name: /\(open batch\)/ }).count(), 1);
  assert.deepEqual(problems, [], 'no console errors');
});
