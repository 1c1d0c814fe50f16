// The default page's first answer is the build's recording (scripts/bundle.mjs, web/boot.js): shown
// before the module has started, byte for byte what the module answers to the same question, and
// replaced by the module's own answers from the first change on. A page whose first question differs
// (a link, an attribute) computes it with the module, as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, pageUrl } from './browser.mjs';

const chrome = useBrowser();

// A fresh page, not waiting for anything. When the first answer is put on the page, `atFirst` runs
// in the page (in that task's microtask: before the next frame and before the module can answer)
// and what it returns is kept in globalThis.__atFirst.
async function fresh(url = pageUrl(), atFirst = null) {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.addInitScript((src) => {
    const fn = src ? new Function('el', src) : () => null;
    const mark = performance.mark.bind(performance);
    performance.mark = function (name, opts) {
      if (name === 'gpucalc-first-result') queueMicrotask(() => (globalThis.__atFirst = fn(document.querySelector('gpu-calc'))));
      return mark(name, opts);
    };
  }, atFirst);
  await page.goto(url);
  return { context, page, errors };
}
const live = (page) => page.waitForFunction(() => performance.getEntriesByName('gpucalc-live').length > 0, null, { timeout: 20000 });

test('the default page shows its first answer before the module starts, the same bytes the module gives', async () => {
  const { context, page, errors } = await fresh(
    pageUrl(),
    "return { live: !!el._live, started: performance.getEntriesByName('gpucalc-module-start').length, fit: el.shadowRoot.querySelector('[data-answer=\"train\"]').textContent };"
  );
  await page.waitForFunction(() => globalThis.__atFirst, null, { timeout: 20000 });
  const early = await page.evaluate(() => globalThis.__atFirst);
  assert.equal(early.live, false, 'the first answer came before the module answered');
  assert.equal(early.started, 0, 'the module starts after the first answer');
  assert.match(early.fit, /Fits in memory: .* per GPU/);
  await live(page);
  const same = await page.evaluate(() => {
    const rec = globalThis.__gpucalcFirst;
    const el = document.querySelector('gpu-calc');
    const mod = globalThis.gpucalcPage.core().instance;
    return {
      answer: mod.estimate(rec.request) === rec.answer,
      // the option lists the form was built from are the catalogs' ids and names, in order
      devices: JSON.stringify(el._devices.map((d) => [d.id, d.name, d.kind])) === JSON.stringify(rec.devices.map((d) => [d.id, d.name, d.kind])),
      models: JSON.stringify(el._presets.map((p) => [p.id, p.name, p.params])) === JSON.stringify(rec.models.map((p) => [p.id, p.name, p.params])),
      networks: JSON.stringify(el._networks.map((n) => [n.id, n.name, n.level])) === JSON.stringify(rec.networks.map((n) => [n.id, n.name, n.level])),
      recordedGone: el._recorded === null
    };
  });
  assert.deepEqual(same, { answer: true, devices: true, models: true, networks: true, recordedGone: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a change typed before the module answers waits for it, then shows the module\u2019s answer', async () => {
  // 2,048 GPUs instead of 1,024, typed as soon as the first answer is there (before the module
  // answers): the section says it is computing, then shows the module's answer.
  const { context, page, errors } = await fresh(
    pageUrl(),
    "const i = el.shadowRoot.getElementById('train-count'); i.value = '2048'; i.dispatchEvent(new Event('input', { bubbles: true })); " +
      'return { live: !!el._live, card: el.shadowRoot.querySelector(\'section[data-section="train"] .answer-slot\').textContent };'
  );
  await page.waitForFunction(() => globalThis.__atFirst, null, { timeout: 20000 });
  const typed = await page.evaluate(() => globalThis.__atFirst);
  assert.deepEqual(typed, { live: false, card: 'Computing\u2026' });
  await live(page);
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.hardware.count === 2048, null, { timeout: 20000 });
  assert.match(await page.locator('gpu-calc [data-answer="train"]').textContent(), /Fits in memory/);
  // the derivations of the answer in view arrive too (fetched from the module)
  await page.locator('gpu-calc section[data-section="train"] details.work').first().waitFor({ state: 'attached', timeout: 20000 });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a page whose first question is not the recorded one computes it with the module', async () => {
  const sc = { model: { preset: 'llama3-8b' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 64 }, training: { tokens: 1e12 } };
  const { context, page, errors } = await fresh(pageUrl() + '#section=train&scenario=' + encodeURIComponent(JSON.stringify(sc)));
  await page.waitForFunction(() => performance.getEntriesByName('gpucalc-first-result').length > 0, null, { timeout: 20000 });
  const m = await page.evaluate(() => ({
    live: performance.getEntriesByName('gpucalc-live')[0].startTime,
    first: performance.getEntriesByName('gpucalc-first-result')[0].startTime,
    preset: document.querySelector('gpu-calc')._last.train.report.inputs.model.preset
  }));
  assert.ok(m.live <= m.first, 'computed by the module');
  assert.equal(m.preset, 'llama3-8b');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a change made before the module answers leaves nothing of the previous answer: no details, no export', async () => {
  const { context, page, errors } = await fresh(
    pageUrl(),
    "const i = el.shadowRoot.getElementById('train-count'); i.value = '2048'; i.dispatchEvent(new Event('input', { bubbles: true })); " +
      "return { live: !!el._live, results: el.shadowRoot.querySelector('section[data-section=\"train\"] .results').textContent, exported: el.exportScenario('train') };"
  );
  await page.waitForFunction(() => globalThis.__atFirst, null, { timeout: 20000 });
  assert.deepEqual(await page.evaluate(() => globalThis.__atFirst), { live: false, results: '', exported: null });
  await live(page);
  await page.waitForFunction(() => document.querySelector('gpu-calc').exportScenario('train')?.hardware.count === 2048, null, { timeout: 20000 });
  assert.deepEqual(errors, []);
  await context.close();
});

test('where the module cannot start (a CSP without wasm-unsafe-eval), the recorded answer stays under the failure and changes say it, not "Computing"', async () => {
  const { writeFileSync, rmSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { site } = await import('../node/common.mjs');
  const file = join(site, 'test-first-nowasm.html');
  writeFileSync(
    file,
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src \'none\'; script-src \'self\'; style-src \'self\'"><title>no wasm</title></head><body><gpu-calc></gpu-calc><script src="gpucalc-embed.js"></script></body></html>'
  );
  try {
    const { context, page } = await fresh(pageUrl('test-first-nowasm.html'));
    const failed = page.locator('gpu-calc .loading.failed');
    await failed.waitFor({ timeout: 20000 });
    assert.match(await failed.textContent(), /could not start: this page\u2019s Content-Security-Policy does not allow WebAssembly/);
    assert.match(await page.locator('gpu-calc [data-answer="train"]').textContent(), /Fits in memory/); // the recorded answer, above which the failure is said
    await page.locator('gpu-calc #train-count').fill('2048');
    const card = page.locator('gpu-calc section[data-section="train"] .answer-slot');
    await page.waitForFunction(
      () => !/Computing/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('section[data-section="train"] .answer-slot').textContent)
    );
    assert.doesNotMatch(await card.textContent(), /Computing/);
    const errs = await page.evaluate(
      () =>
        new Promise((done) => {
          const el = document.querySelector('gpu-calc');
          el.addEventListener('gpucalc-error', (e) => done(e.detail.errors.map((x) => x.message)), { once: true });
          const i = el.shadowRoot.getElementById('train-count');
          i.value = '4096';
          i.dispatchEvent(new Event('input', { bubbles: true }));
        })
    );
    assert.match(errs.join(' '), /could not start/);
    await context.close();
  } finally {
    rmSync(file, { force: true });
  }
});

test('a #s= link that cannot be read says so (a cut-short link is not silently replaced by saved settings or defaults)', async () => {
  const { context, page, errors } = await fresh(pageUrl() + '#s=eyJ0cmFpbiI6eyJjb3VudCI6IjQwOTYi');
  await page.waitForFunction(() => performance.getEntriesByName('gpucalc-first-result').length > 0, null, { timeout: 20000 });
  assert.match(
    await page.locator('gpu-calc .notices').textContent(),
    /The settings in the link could not be read \(is it cut short\?\); the defaults are shown instead\./
  );
  assert.deepEqual(errors, []);
  await context.close();
});
