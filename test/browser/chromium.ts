/**
 * What every browser test file starts with: Chromium installed when missing (scripts/ensure-chromium.mjs;
 * it throws, and the suite fails, when Chromium cannot be had) and launched headless, pages that collect
 * console errors and uncaught exceptions, and the first sign-in through the one-time link.
 */
import { type Browser, chromium, type Page } from 'playwright-core';

export async function launchChromium(): Promise<Browser> {
  const specifier = '../../scripts/ensure-chromium.mjs';
  const { ensureChromium } = (await import(specifier)) as { ensureChromium: () => string };
  const executablePath = ensureChromium();
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A 15 s default timeout, and every console error and uncaught exception of the page pushed on `problems`. */
export function watchPage(page: Page, problems: string[]): Page {
  page.setDefaultTimeout(15_000);
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  return page;
}

/** Opens the owner's one-time link, sets `password` and waits for the checks list. */
export async function setFirstPassword(page: Page, link: string, password: string): Promise<void> {
  await page.goto(link);
  await page.getByLabel('New password', { exact: true }).fill(password);
  await page.getByLabel('New password again').fill(password);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.waitForURL(/\/portal\/checks/);
}
