// Sharing and embedding as a person does it: "Copy link" (the whole state, the section and the
// editor's text), "Copy embed code" and "Copy iframe code" pasted into another page, frame.html's
// #section= and #scenario=, a bad scenario attribute shown as an error, host pages with a strict
// Content-Security-Policy (WebAssembly or workers refused, or the script itself blocked).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { useBrowser, open, pageUrl, field } from './browser.mjs';
import { site } from '../node/common.mjs';

const chrome = useBrowser();
const written = [];
after(() => {
  for (const f of written) rmSync(f, { force: true });
});

const shadowActive = (page) =>
  page.evaluate(() => {
    const a = document.querySelector('gpu-calc').shadowRoot.activeElement;
    return a ? a.dataset.share || a.id || a.textContent : null;
  });

// A host page next to the site's files.
function hostPage(name, body, csp) {
  const file = join(site, name);
  writeFileSync(
    file,
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
      (csp ? '<meta http-equiv="Content-Security-Policy" content="' + csp + '">' : '') +
      '<title>host</title></head><body><main>' +
      body +
      '</main></body></html>'
  );
  written.push(file);
  return pageUrl(name);
}

test('"Copy link" carries the whole state: the section in view, every form and the editor\u2019s text; focus stays on the button', async () => {
  const a = await open(chrome.browser, pageUrl(), { permissions: ['clipboard-read', 'clipboard-write'] });
  await field(a.page, 'train', 'tokens').fill('2T');
  await a.page.locator('gpu-calc nav a[data-section="finetune"]').click();
  await field(a.page, 'finetune', 'method').selectOption('lora');
  await a.page.locator('gpu-calc #json-text').fill('{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":5}}');
  await a.page.locator('gpu-calc nav a[data-section="serve"]').click();
  await field(a.page, 'serve', 'batch').fill('64');
  const button = a.page.locator('gpu-calc [data-answer="serve"] button[data-share="link"]');
  await button.click();
  await a.page.locator('gpu-calc [data-answer="serve"] .share-status').filter({ hasText: 'Link copied.' }).waitFor();
  assert.equal(await shadowActive(a.page), 'link');
  const link = await a.page.evaluate(() => navigator.clipboard.readText());
  assert.match(link, /^file:.*index\.html#s=[A-Za-z0-9_-]+$/);
  const tps = await a.page.locator('gpu-calc [data-answer="serve"] [data-figure="speed"] .big').textContent();
  await a.context.close();
  const b = await open(chrome.browser, link);
  assert.equal(await field(b.page, 'serve', 'batch').inputValue(), '64');
  assert.equal(await field(b.page, 'train', 'tokens').inputValue(), '2T');
  assert.equal(await field(b.page, 'finetune', 'method').inputValue(), 'lora');
  assert.equal(await b.page.locator('gpu-calc #json-text').inputValue(), '{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":5}}');
  assert.equal(await b.page.locator('gpu-calc [data-answer="serve"] [data-figure="speed"] .big').textContent(), tps);
  // The link opens at the section it was copied from.
  const top = await b.page.locator('gpu-calc #h-serve').evaluate((h) => h.getBoundingClientRect().top);
  assert.ok(top >= 0 && top < 200, 'the Serve heading is at the top: ' + top);
  await b.context.close();
});

test('a link pasted into the address bar of the page already open shows the link\u2019s settings, as a reload would', async () => {
  // A newcomer's review: the address bar showed the pasted link while the page kept the old answer
  // until a reload (the page listened to no hashchange).
  const { page, context } = await open(chrome.browser, pageUrl(), { permissions: ['clipboard-read', 'clipboard-write'] });
  await field(page, 'train', 'count').fill('64');
  await field(page, 'train', 'tokens').fill('1T');
  const days = page.locator('gpu-calc [data-answer="train"] [data-figure="days"] .big');
  const small = await days.textContent();
  await page.locator('gpu-calc [data-answer="train"] button[data-share="link"]').click();
  await page.locator('gpu-calc [data-answer="train"] .share-status').filter({ hasText: 'Link copied.' }).waitFor();
  const link = await page.evaluate(() => navigator.clipboard.readText());
  await field(page, 'train', 'count').fill('1024');
  await field(page, 'train', 'tokens').fill('15T');
  await page.waitForFunction(
    (was) => document.querySelector('gpu-calc').shadowRoot.querySelector('[data-answer="train"] [data-figure="days"] .big').textContent !== was,
    small
  );
  const big = await days.textContent();
  assert.notEqual(big, small);
  // The page saves its state to the address a moment after the last edit (debounced): the link
  // pasted differs from the address only once it has (as for a reader, who pastes later).
  await page.waitForFunction((l) => location.hash !== l.slice(l.indexOf('#')), link);
  await page.evaluate((to) => {
    location.hash = to.slice(to.indexOf('#'));
  }, link);
  await page.waitForFunction(
    (was) => document.querySelector('gpu-calc').shadowRoot.querySelector('[data-answer="train"] [data-figure="days"] .big')?.textContent === was,
    small
  );
  assert.equal(await field(page, 'train', 'count').inputValue(), '64');
  assert.equal(await field(page, 'train', 'tokens').inputValue(), '1T');
  // A cut-short link is said, and the page keeps what it shows.
  await page.evaluate(() => {
    location.hash = '#s=abc';
  });
  await page.locator('gpu-calc .notices').filter({ hasText: 'could not be read' }).waitFor();
  assert.equal(await days.textContent(), small);
  await context.close();
});

test('"Copy embed code" and "Copy iframe code" paste into another page and show the same answer', async () => {
  const { page, context } = await open(chrome.browser, pageUrl(), { permissions: ['clipboard-read', 'clipboard-write'] });
  await field(page, 'train', 'count').fill('2048');
  await field(page, 'train', 'tokens').fill('2T');
  const days = await page.locator('gpu-calc [data-answer="train"] [data-figure="days"] .big').textContent();
  await page.locator('gpu-calc [data-answer="train"] button[data-share="element"]').click();
  await page.locator('gpu-calc [data-answer="train"] .share-status').filter({ hasText: 'Embed code copied.' }).waitFor();
  assert.equal(await shadowActive(page), 'element');
  const element = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(element, /^<script src="gpucalc-embed\.js"><\/script>\n<gpu-calc section="train" scenario='\{.*\}'>/);
  await page.locator('gpu-calc [data-answer="train"] button[data-share="iframe"]').click();
  await page.locator('gpu-calc [data-answer="train"] .share-status').filter({ hasText: 'Iframe code copied.' }).waitFor();
  const iframe = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(iframe, /^<iframe src="frame\.html#section=train&amp;scenario=%7B/);
  await context.close();

  const p1 = await open(
    chrome.browser,
    hostPage(
      'test-host-element.html',
      '<p>My post</p>' + element,
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; worker-src blob:"
    )
  );
  assert.equal(await p1.page.locator('gpu-calc [data-answer="train"] [data-figure="days"] .big').textContent(), days);
  assert.equal(await p1.page.locator('gpu-calc section').count(), 1);
  assert.deepEqual(p1.errors, []);
  await p1.context.close();

  const p2 = await chrome.browser.newContext();
  const page2 = await p2.newPage();
  await page2.goto(hostPage('test-host-iframe.html', '<p>My post</p>' + iframe));
  const frame = page2.frameLocator('iframe');
  assert.equal(await frame.locator('gpu-calc [data-answer="train"] [data-figure="days"] .big').textContent({ timeout: 15000 }), days);
  assert.equal(await frame.locator('gpu-calc section').count(), 1);
  await p2.close();
});

// A page opened without waiting for an answer (where the element shows an error instead).
async function visit(url) {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.locator('gpu-calc [role="alert"]').first().waitFor();
  return { context, page };
}

test('a scenario attribute that cannot be used is shown as an error, never replaced by a silent default', async () => {
  const typo = hostPage(
    'test-host-typo.html',
    '<script src="gpucalc-embed.js"></script><gpu-calc section="serve" scenario=\'{"model":{"preset":"llama3-70bb"},"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8},"inference":{"tp":4}}\'></gpu-calc>'
  );
  const a = await open(chrome.browser, typo);
  assert.match(await a.page.locator('gpu-calc #serve-model').evaluate((s) => s.selectedOptions[0].textContent), /not available: llama3-70bb/);
  assert.match(await a.page.locator('gpu-calc #serve-model-error').textContent(), /unknown model preset "llama3-70bb"/);
  assert.equal(await a.page.locator('gpu-calc [data-answer="serve"] [data-fit]').getAttribute('data-fit'), 'error');
  assert.equal(await a.page.locator('gpu-calc [data-answer="serve"] [data-figure]').count(), 0);
  await a.context.close();
  const bad = hostPage(
    'test-host-badjson.html',
    '<script src="gpucalc-embed.js"></script><gpu-calc section="train" scenario=\'{"model":{"preset":"llama3-70b"\'></gpu-calc>'
  );
  // Not JSON: the error is the element's answer, not the defaults' answer under a notice.
  const b = await visit(bad);
  assert.match(await b.page.getByRole('alert').filter({ hasText: 'scenario attribute' }).textContent(), /The scenario attribute is not valid JSON \(/);
  assert.equal(await b.page.locator('gpu-calc .answer').count(), 0);
  await b.context.close();
  const wrong = hostPage(
    'test-host-wrongsection.html',
    '<script src="gpucalc-embed.js"></script><gpu-calc section="train" scenario=\'{"model":{"preset":"llama3-8b"},"hardware":{"device":"nvidia-rtx-4090"},"inference":{"batch":1}}\'></gpu-calc>'
  );
  const c = await visit(wrong);
  assert.match(await c.page.getByRole('alert').filter({ hasText: 'scenario attribute' }).textContent(), /it is a Serve scenario, and this view shows Train/);
  assert.equal(await c.page.locator('gpu-calc .answer').count(), 0);
  await c.context.close();
});

test('frame.html takes the section and the scenario from its address', async () => {
  const sc = { model: { preset: 'llama3-8b' }, hardware: { device: 'nvidia-rtx-4090' }, finetune: { method: 'qlora', batch: 4 } };
  const { page, context } = await open(chrome.browser, pageUrl('frame.html') + '#section=finetune&scenario=' + encodeURIComponent(JSON.stringify(sc)));
  assert.equal(await page.locator('gpu-calc section').count(), 1);
  assert.equal(await page.locator('gpu-calc section').getAttribute('data-section'), 'finetune');
  assert.equal(await field(page, 'finetune', 'batch').inputValue(), '4');
  assert.equal(await page.locator('gpu-calc [data-answer="finetune"] .fit').getAttribute('data-fit'), 'yes');
  await context.close();
});

test('a frame asked for one section takes a model on hardware with no section of its own into that section (the README\u2019s iframe example)', async () => {
  const sc = { model: { preset: 'llama3-8b' }, hardware: { device: 'nvidia-rtx-4090' } };
  const { page, context } = await open(chrome.browser, pageUrl('frame.html') + '#section=serve&scenario=' + encodeURIComponent(JSON.stringify(sc)));
  assert.equal(await page.locator('gpu-calc section').getAttribute('data-section'), 'serve');
  assert.equal(await field(page, 'serve', 'model').inputValue(), 'llama3-8b');
  assert.equal(await field(page, 'serve', 'device').inputValue(), 'nvidia-rtx-4090');
  assert.equal(await page.locator('gpu-calc .notice').count(), 0);
  await page.locator('gpu-calc [data-answer="serve"] .fit').waitFor();
  await context.close();
});

test('a host page whose Content-Security-Policy blocks WebAssembly, workers or the script gets a message, never an endless "Loading"', async () => {
  const noWasm = await chrome.browser.newContext();
  const p1 = await noWasm.newPage();
  await p1.goto(
    hostPage(
      'test-host-csp-wasm.html',
      '<script src="gpucalc-embed.js"></script><gpu-calc section="cluster"></gpu-calc>',
      "default-src 'none'; script-src 'self'; style-src 'self'"
    )
  );
  const msg = p1.locator('gpu-calc .loading.failed');
  await msg.waitFor({ timeout: 15000 });
  assert.match(
    await msg.textContent(),
    /could not start: this page\u2019s Content-Security-Policy does not allow WebAssembly\. The page needs script-src \u2019self\u2019 \u2019wasm-unsafe-eval\u2019/
  );
  assert.equal(await msg.getAttribute('role'), 'alert');
  await noWasm.close();

  const noScript = await chrome.browser.newContext();
  const p2 = await noScript.newPage();
  await p2.goto(
    hostPage(
      'test-host-csp-script.html',
      '<script src="gpucalc-embed.js"></script><gpu-calc section="cluster">Loading gpucalc\u2026 If this message stays, the script was blocked.</gpu-calc>',
      "default-src 'none'; script-src 'none'"
    )
  );
  await p2.waitForTimeout(500);
  assert.match(await p2.locator('gpu-calc').innerText(), /If this message stays, the script was blocked/);
  await noScript.close();

  const noWorker = await open(
    chrome.browser,
    hostPage(
      'test-host-csp-worker.html',
      '<script src="gpucalc-embed.js"></script><gpu-calc section="plan"></gpu-calc>',
      "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; worker-src 'none'"
    )
  );
  const status = noWorker.page.locator('gpu-calc .plan-status');
  await noWorker.page.waitForFunction(() => /Done/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.plan-status')?.textContent), null, {
    timeout: 30000
  });
  assert.match(await status.textContent(), /security policy blocks background workers: the search ran on the page/);
  assert.equal(await noWorker.page.locator('gpu-calc table.plans tbody tr').count(), 10);
  await noWorker.context.close();
});
