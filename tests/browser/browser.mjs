// Launches Debian's Chromium through playwright-core (no browser download).
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { site, root } from '../node/common.mjs';

export const pageUrl = (name = 'index.html') => 'file://' + join(site, name);
export const shotDir = join(root, 'build', 'screenshots');
mkdirSync(shotDir, { recursive: true });

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--allow-file-access-from-files'
    ]
  });
}

// One browser for a test file: launched before its first test, closed after its last (and after
// the file's own `after` hooks registered later). Use `chrome.browser` inside tests.
export function useBrowser() {
  const chrome = { browser: null };
  before(async () => {
    chrome.browser = await launch();
  });
  after(async () => {
    await chrome.browser.close();
  });
  return chrome;
}

// A section's input field, as the page renders it (id = section-key).
export const field = (page, sec, key) => page.locator(`gpu-calc #${sec}-${key}`);

// The report behind a section's current answer (null before its first answer).
export const report = (page, sec) => page.evaluate((s) => document.querySelector('gpu-calc')._last[s]?.report ?? null, sec);

// Opens a page, records every request and page error, waits for the first results.
export async function open(browser, url = pageUrl(), opts = {}) {
  const context = await browser.newContext(Object.assign({ viewport: { width: 1280, height: 900 } }, opts));
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  const dialogs = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    d.dismiss();
  });
  await page.goto(url);
  // The first section's answer (or the reasons there is none) is on screen.
  await page.waitForSelector('gpu-calc .answer:not(.waiting)', { timeout: 15000 });
  return { context, page, requests, errors, dialogs };
}

export const text = (page, key) =>
  page
    .locator(`gpu-calc [data-key="${key}"]`)
    .first()
    .evaluate((el) => el.firstChild.textContent);
export const exact = (page, key) => page.locator(`gpu-calc [data-key="${key}"]`).first().getAttribute('title');
