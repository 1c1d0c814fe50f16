// The page in Chromium from file://: live recompute, inline errors, URL state, export/import,
// the custom element, no network, accessibility, hostile input, screenshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { useBrowser, open, pageUrl, text, exact, shotDir, field } from './browser.mjs';
import { cli, root, nestedClaims } from '../node/common.mjs';

const require = createRequire(import.meta.url);
const F = require(join(root, 'web', 'format.js'));

const chrome = useBrowser();

// Waits until the idle-time work of a load is done (plan search, reality tables and answers): no
// call into the module happens after this without input.
const settled = async (page) => {
  await page.waitForFunction(() => document.querySelector('gpu-calc')._allBuilt === true, null, { timeout: 30000 });
  await page.waitForFunction(() => /Done/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.plan-status')?.textContent), null, {
    timeout: 20000
  });
  await page.locator('gpu-calc [data-key="inverse.gpus"]').waitFor();
};

// Makes one call of the page's module throw as a corrupted module does, until the page re-creates it.
const breakCall = (page, name) =>
  page.evaluate((n) => {
    globalThis.gpucalcPage.core().instance[n] = () => {
      throw new WebAssembly.RuntimeError('memory access out of bounds');
    };
  }, name);

test('typing into an input recomputes results (no button)', async () => {
  const { page, context, errors } = await open(chrome.browser);
  // 1,000 x 80 GiB = 78.1 TiB (memory is shown in binary units, as the "80 GB" on the box is GiB).
  assert.equal(await text(page, 'cluster.memory_bytes'), '78.1\u00a0TiB');
  await field(page, 'cluster', 'count').fill('2000');
  assert.equal(await text(page, 'cluster.memory_bytes'), '156\u00a0TiB');
  assert.equal(await exact(page, 'cluster.cores'), '33,792,000');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the page shows the same numbers as the CLI for GPT-3 / 1,024 A100 / MFU 0.4, typed as a person would', async () => {
  const scenario = JSON.parse(readFileSync(join(root, 'tests', 'fixtures', 'gpt3-a100.json'), 'utf8'));
  const report = JSON.parse(execFileSync(cli, ['estimate', '-'], { input: JSON.stringify(scenario) }).toString());
  const { page, context } = await open(chrome.browser);
  await field(page, 'train', 'model').selectOption('custom-params');
  await field(page, 'train', 'params').pressSequentially('175B');
  await field(page, 'train', 'device').selectOption('nvidia-a100-sxm4-80gb');
  await field(page, 'train', 'count').fill('1,024');
  await field(page, 'train', 'tokens').fill('300B');
  await field(page, 'train', 'mfu').fill('40 %');
  await field(page, 'train', 'gpu_hour_usd').fill('$2');
  // No layout: the fixture gives none, so both pick one by the plan search (175B does not fit at TP1 PP1).
  assert.equal(await field(page, 'train', 'tp').inputValue(), '');
  const days = Number((await exact(page, 'training.days')).replace(/,/g, ''));
  assert.ok(Math.abs(days - report.training.days) / report.training.days < 1e-12, `${days} vs ${report.training.days}`);
  const flops = Number((await exact(page, 'training.flops')).replace(/,/g, ''));
  assert.equal(flops, 3.15e23);
  const cost = Number((await exact(page, 'training.cost_usd')).replace(/,/g, ''));
  assert.ok(Math.abs(cost - report.training.cost_usd) < 1e-3);
  assert.equal(await page.locator('gpu-calc [data-answer="train"] [data-figure="days"] .big').textContent(), F.duration(report.training.seconds));
  await context.close();
});

test('an invalid field shows its message inline, in words, and no stale result stays beside it', async () => {
  const { page, context } = await open(chrome.browser);
  assert.equal(await text(page, 'cluster.memory_bytes'), '78.1\u00a0TiB');
  await field(page, 'cluster', 'count').fill('-5');
  const err = page.locator('gpu-calc #cluster-count-error');
  assert.match(await err.textContent(), /^Count must be at least 1 and at most 100,000,000, not -5/);
  assert.equal(await field(page, 'cluster', 'count').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.locator('gpu-calc [data-key="cluster.memory_bytes"]').count(), 0);
  // The card names the field (a newcomer read "one field needs fixing" and looked for which).
  assert.match(await page.locator('gpu-calc [data-answer="cluster"]').textContent(), /No answer yet: Count needs fixing \(marked below\)/);
  await field(page, 'cluster', 'count').fill('lots');
  assert.match(await err.textContent(), /not a number: write a number like 1,000, 1k/);
  assert.match(await page.locator('gpu-calc [data-answer="cluster"]').textContent(), /No answer yet: Count needs fixing/);
  assert.equal(await page.locator('gpu-calc [data-key="cluster.memory_bytes"]').count(), 0);
  await field(page, 'cluster', 'count').fill('4');
  assert.equal(await err.textContent(), '');
  assert.equal(await text(page, 'cluster.memory_bytes'), '320\u00a0GiB');
  await context.close();
});

test('a shared URL restores the same view', async () => {
  const a = await open(chrome.browser);
  await field(a.page, 'serve', 'batch').fill('64');
  await field(a.page, 'cluster', 'count').fill('4096');
  const url = await a.page.evaluate(() => {
    document.querySelector('gpu-calc').persistNow();
    return location.href;
  });
  const tps = await text(a.page, 'inference.throughput_tokens_per_second_per_gpu');
  assert.match(url, /#s=/);
  await a.page.waitForTimeout(300);
  assert.equal(await a.page.evaluate(() => location.href), url); // the debounced save wrote the same state
  await a.context.close();
  const b = await open(chrome.browser, url);
  assert.equal(await field(b.page, 'serve', 'batch').inputValue(), '64');
  assert.equal(await field(b.page, 'cluster', 'count').inputValue(), '4096');
  assert.equal(await text(b.page, 'inference.throughput_tokens_per_second_per_gpu'), tps);
  await b.context.close();
});

test('export -> import round-trips; a malformed import shows an error and keeps the state', async () => {
  const { page, context } = await open(chrome.browser);
  await field(page, 'train', 'count').fill('2048');
  const exported = await page.evaluate(() => JSON.stringify(document.querySelector('gpu-calc').exportScenario('train')));
  await field(page, 'train', 'count').fill('64');
  const ok = await page.evaluate((t) => document.querySelector('gpu-calc').importScenario(t), exported);
  assert.equal(ok, true);
  assert.equal(await field(page, 'train', 'count').inputValue(), '2048');
  const days = await text(page, 'training.days');
  const bad = await page.evaluate(() =>
    document.querySelector('gpu-calc').importScenario('{"model": {"preset": "gpt3-175b"}, "hardware": {"device": "nope", "count": 8}, "training": {}}')
  );
  assert.equal(bad, false);
  assert.match(await page.locator('gpu-calc .import-status').textContent(), /unknown device/);
  const bad2 = await page.evaluate(() => document.querySelector('gpu-calc').importScenario('{not json'));
  assert.equal(bad2, false);
  assert.equal(await field(page, 'train', 'count').inputValue(), '2048');
  assert.equal(await text(page, 'training.days'), days);
  // The file input path as a person uses it.
  await page.locator('gpu-calc #import-file').setInputFiles({ name: 's.json', mimeType: 'application/json', buffer: Buffer.from(exported) });
  await page.waitForFunction(() => /Imported/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.import-status')?.textContent ?? ''));
  await context.close();
});

test('derivations on demand: the estimate is asked without them, "show the work" appears once the page is idle and opens the formula; an exported report carries them all', async () => {
  const { page, context, errors } = await open(chrome.browser);
  const r = await page.evaluate(() => document.querySelector('gpu-calc')._last.train.report);
  assert.equal(r.explain, undefined);
  assert.equal(r.inputs.explain, false);
  const work = page.locator('gpu-calc section[data-section="train"] td[data-key="training.days"] > details.work');
  // Each toggle has its own accessible name: the figure it explains.
  assert.equal(await work.locator('summary').getAttribute('aria-label'), 'show the work: Wall-clock time');
  await work.locator('summary').click();
  const formula = await work.locator('code').first().textContent();
  assert.match(formula, /seconds/);
  assert.match(await work.locator('li').first().textContent(), /^seconds = /);
  assert.match(await work.textContent(), /= [\d.,]+/);
  // The seconds are a figure with their own derivation: it opens in place, down to the tokens and
  // the throughput (a newcomer's review: nothing said where the seconds came from).
  const seconds = work.locator('li').first().locator('> details.work');
  assert.equal(await seconds.locator('summary').getAttribute('aria-label'), 'show the work: seconds');
  await seconds.locator('summary').click();
  assert.match(await seconds.locator('code').first().textContent(), /tokens_per_second/);
  assert.match(await seconds.textContent(), /goodput = /);
  const full = await page.evaluate(() => document.querySelector('gpu-calc').exportReport('train'));
  assert.equal(full.inputs.explain, true);
  assert.ok(full.explain['training.days'].formula.length > 0);
  assert.equal(full.training.days, r.training.days);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the custom element works on a plain HTML page from file://, and in an iframe', async () => {
  const { page, context, errors } = await open(chrome.browser, pageUrl('embed.html'));
  assert.equal(await page.locator('#demo-element').evaluate((el) => el.shadowRoot.querySelectorAll('section').length), 1);
  assert.ok((await text(page, 'training.days')).length > 0);
  const frame = page.frameLocator('#demo-frame');
  // Computed, in the details a compact embed keeps folded.
  await frame.locator('gpu-calc [data-key="inference.weights_bytes"]').waitFor({ state: 'attached' });
  assert.equal(await frame.locator('gpu-calc details.details').evaluate((d) => d.open), false);
  assert.deepEqual(errors, []);
  await context.close();
});

test('no network request beyond the page\u2019s own files', async () => {
  const { page, context, requests } = await open(chrome.browser);
  for (const s of ['explain', 'train', 'serve']) await page.locator(`gpu-calc section[data-section="${s}"]`).scrollIntoViewIfNeeded();
  await field(page, 'cluster', 'count').fill('12');
  for (const u of requests)
    assert.ok(u.startsWith('file://') || u.startsWith('data:') || u.startsWith('blob:file://') || u.startsWith('blob:null'), u.slice(0, 80));
  assert.ok(requests.length >= 2);
  await context.close();
});

test('axe-core finds no accessibility violations, light and dark, desktop and phone, with every section built', async () => {
  const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  for (const [colorScheme, viewport] of [
    ['light', { width: 1280, height: 900 }],
    ['dark', { width: 390, height: 844 }]
  ]) {
    const { page, context } = await open(chrome.browser, pageUrl(), { bypassCSP: true, colorScheme, viewport });
    await settled(page);
    // Every group and details open, so that axe sees every control.
    await page.evaluate(() => {
      for (const d of document.querySelector('gpu-calc').shadowRoot.querySelectorAll('details')) d.open = true;
    });
    await page.addScriptTag({ content: axeSource });
    const result = await page.evaluate(async () => {
      const r = await globalThis.axe.run(document, { resultTypes: ['violations'] });
      return r.violations.map(
        (v) =>
          v.id +
          ' (' +
          v.impact +
          '): ' +
          v.nodes.length +
          ' ' +
          v.nodes
            .slice(0, 2)
            .map((n) => n.target.join(' > '))
            .join(' | ')
      );
    });
    assert.deepEqual(result, [], colorScheme);
    await context.close();
  }
});

test('hostile hashes and imports: no script runs, no prototype pollution, the page stays usable', async () => {
  const payload = { __proto__: null };
  payload.train = { model: '<img src=x onerror=alert(1)>', count: '<script>alert(2)</script>', tokens: '"><svg onload=alert(3)>' };
  payload['__proto__'] = { polluted: 'yes' };
  payload.constructor = { prototype: { polluted: 'yes' } };
  const enc = Buffer.from(JSON.stringify(payload)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const { page, context, dialogs, errors } = await open(chrome.browser, pageUrl() + '#s=' + enc);
  assert.deepEqual(dialogs, []);
  assert.equal(await page.evaluate(() => ({}).polluted), undefined);
  assert.match(await page.locator('gpu-calc #train-count-error').textContent(), /not a number/);
  assert.match(await page.locator('gpu-calc #train-model').evaluate((s) => s.selectedOptions[0].textContent), /not available: <img src=x onerror=alert\(1\)>/);
  assert.equal(await page.locator('gpu-calc img').count(), 0);
  await field(page, 'cluster', 'count').fill('3');
  assert.equal(await text(page, 'cluster.devices'), '3');
  // A 10 MB hash and garbage hashes are ignored.
  await page.evaluate(() => {
    location.hash = 's=' + 'A'.repeat(10 * 1024 * 1024);
  });
  await page.reload();
  await page.waitForSelector('gpu-calc [data-key="cluster.devices"]');
  await page.goto(pageUrl() + '#s=%%%');
  await page.waitForSelector('gpu-calc [data-key="cluster.devices"]');
  // Hostile import: script tags and huge strings.
  const res = await page.evaluate(() =>
    document
      .querySelector('gpu-calc')
      .importScenario(JSON.stringify({ model: { preset: '<script>alert(4)</script>' }, hardware: { device: 'x'.repeat(100000), count: 1 } }))
  );
  assert.equal(res, false);
  assert.deepEqual(dialogs, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('plan search runs in a worker with progress, can be cancelled, and "use this plan" fills the training form', async () => {
  const { page, context, errors } = await open(chrome.browser);
  const status = page.locator('gpu-calc .plan-status');
  await page.waitForFunction(() => /Done/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.plan-status')?.textContent ?? ''), null, {
    timeout: 20000
  });
  assert.match(await status.textContent(), /plans considered, [\d,.]+( k)? feasible/);
  assert.equal(await page.locator('gpu-calc progress').evaluate((p) => p.value), 4);
  const rows = page.locator('gpu-calc table.plans tbody tr');
  assert.equal(await rows.count(), 10);
  // Typing starts a new search; cancel stops it. Both happen in one task: the search takes ~50 ms,
  // so a separate click could come after it finished (the button is then disabled).
  const cancelled = await page.evaluate(() => {
    const r = document.querySelector('gpu-calc').shadowRoot;
    const input = r.querySelector('#plan-count');
    input.value = '2048';
    input.dispatchEvent(new Event('input'));
    const running = !r.querySelector('.plan-cancel').disabled;
    r.querySelector('.plan-cancel').click();
    return { running, status: r.querySelector('.plan-status').textContent, disabled: r.querySelector('.plan-cancel').disabled };
  });
  assert.deepEqual(cancelled, { running: true, status: 'Search cancelled.', disabled: true });
  await page.waitForTimeout(300);
  assert.equal(await status.textContent(), 'Search cancelled.'); // no late result from the cancelled worker
  await field(page, 'plan', 'count').fill('1024');
  await page.waitForFunction(() => /Done/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.plan-status')?.textContent ?? ''), null, {
    timeout: 20000
  });
  const tp = await rows.first().locator('td').nth(1).textContent();
  await rows.first().getByRole('button').click();
  assert.equal(await field(page, 'train', 'tp').inputValue(), tp);
  assert.equal(await field(page, 'train', 'count').inputValue(), '1024');
  assert.equal(await text(page, 'training.fits'), 'yes');
  // The Train result is the plan's: every layout field was carried (vpp, sequence parallelism, ...).
  const [planStep, trainStep, focused] = await page.evaluate(() => {
    const el = document.querySelector('gpu-calc');
    return [
      el._last.plan.report.plan.best[0].step_seconds,
      el._last.train.report.training.step_seconds,
      el.shadowRoot.activeElement && el.shadowRoot.activeElement.id
    ];
  });
  assert.ok(Math.abs(planStep - trainStep) / planStep < 1e-12, `${planStep} vs ${trainStep}`);
  assert.equal(focused, 'h-train');
  assert.deepEqual(errors, []);
  await context.close();
});

test('reality check: runs table with errors, claims with verdicts, each opens its scenario', async () => {
  const { page, context } = await open(chrome.browser);
  const runs = page.locator('gpu-calc table.runs tbody tr');
  await runs.first().waitFor(); // the reality tables are rendered when the browser is idle
  assert.ok((await runs.count()) >= 20);
  const llama = page.locator('gpu-calc table.runs tbody tr[data-run="llama-65b"]').first();
  assert.match(await llama.locator('td.err').textContent(), /[+-]\d+\.\d/);
  assert.equal(await page.locator('gpu-calc li[data-claim="h100-cores"] .verdict').textContent(), 'inconsistent');
  assert.equal(await page.locator('gpu-calc li[data-claim="a100-v100"] .verdict').textContent(), 'consistent');
  assert.equal(await page.locator('gpu-calc li[data-claim="gpt4-25k-a100"] .verdict').textContent(), 'depends');
  // "Open" on a claim loads its scenario (cluster section), on a run the training form.
  await page.locator('gpu-calc li[data-claim="h100-cores"] button').click();
  assert.equal(await field(page, 'cluster', 'count').inputValue(), '1000');
  await page.locator('gpu-calc table.runs tbody tr[data-run="llama-65b"] button').first().click();
  assert.equal(await field(page, 'train', 'model').inputValue(), 'llama-65b');
  assert.equal(await field(page, 'train', 'pue').inputValue(), '1.1');
  // Inverse answers are on the page.
  assert.ok((await text(page, 'inverse.compute_optimal_params')).length > 0);
  assert.ok((await text(page, 'inverse.gpus')).length > 0);
  await context.close();
});

test('explain section: A100 vs V100 on tensor cores, roofline chart and workload times on screen', async () => {
  const { page, context } = await open(chrome.browser);
  await field(page, 'explain', 'a').selectOption('nvidia-a100-sxm4-80gb');
  await field(page, 'explain', 'b').selectOption('nvidia-v100-sxm2-32gb');
  await field(page, 'explain', 'precision').selectOption('fp16');
  assert.equal(await text(page, 'compare.peak_a'), '312\u00a0TFLOP/s');
  assert.equal(await text(page, 'compare.peak_b'), '125\u00a0TFLOP/s');
  assert.equal(await text(page, 'compare.compute_ratio'), '2.50\u00d7');
  await field(page, 'explain', 'precision').selectOption('fp32');
  assert.equal(await text(page, 'compare.peak_a'), '19.5\u00a0TFLOP/s');
  assert.equal(await text(page, 'compare.peak_b'), '15.7\u00a0TFLOP/s');
  await page.locator('gpu-calc section[data-section="explain"] .chart-holder svg').first().waitFor();
  await field(page, 'explain', 'matmul_n').fill('4096');
  assert.match(await page.locator('gpu-calc .kernels').textContent(), /GEMM 4096x4096x4096/);
  assert.match(await page.locator('gpu-calc .kernels').textContent(), /forward pass, 1 token.*memory-bound/);
  // A GPU's BF16 against a CPU's FP32 (the catalog lists no CPU BF16 peak): the like-for-like ratio
  // beside it (a newcomer read 134x; at FP32 both it is 9.07x: 66.9 / 7.37 TFLOP/s).
  await field(page, 'explain', 'a').selectOption('nvidia-h100-sxm5-80gb');
  await field(page, 'explain', 'b').selectOption('amd-epyc-9654');
  await field(page, 'explain', 'precision').selectOption('bf16');
  const sub = await page.locator('gpu-calc [data-answer="explain"] [data-figure="compute"] .sub').textContent();
  assert.equal(sub, 'A\u2019s peak over B\u2019s (BF16 vs FP32: B lists no BF16 peak); both at FP32: 9.07\u00d7');
  assert.match(await page.locator('gpu-calc [data-answer="explain"] [data-figure="cores"] .sub').textContent(), /\(871 at FP32 both\)$/);
  await context.close();
});

// ---------- robustness: storage, hash, JSON editor, import, CSV, the module wrapper ----------

const saved = (page) => page.evaluate(() => localStorage.getItem('gpucalc-state'));
// Writes the saved state of the next load; the page stops saving first (its debounced save could
// otherwise overwrite the entry before the navigation).
const setSaved = (page, value) =>
  page.evaluate((v) => {
    for (const el of document.querySelectorAll('gpu-calc')) el.removeAttribute('sync-url');
    localStorage.setItem('gpucalc-state', v);
  }, value);
const poisonState = (text) => JSON.stringify({ cluster: { count: '4096' }, train: { count: { deep: [[[1]]] }, tokens: 'x'.repeat(5000) }, json: { text } });

test('a poisoned saved state is dropped with a visible notice, never reaches the module, and does not survive a reload', async () => {
  const poison = nestedClaims(700); // ~60 KB, nested ~2,100 levels deep
  const { page, context, errors } = await open(chrome.browser);
  for (const [entry, expect] of [
    [poisonState(poison), /Train \(count\); Train \(tokens\); Scenario JSON: the scenario is nested deeper than 64 levels/],
    ['{{{{ not json', /not readable/],
    ['['.repeat(200000), /not in the expected form/],
    ['x'.repeat(500000), /too large/]
  ]) {
    await setSaved(page, entry);
    await page.goto(pageUrl());
    await page.waitForSelector('gpu-calc [data-key="cluster.devices"]');
    assert.match(await page.locator('gpu-calc .notice').textContent(), expect);
    assert.notEqual(await page.locator('gpu-calc #json-text').inputValue(), poison);
    const now = await saved(page);
    assert.ok(now.length < 20000 && !now.includes('"claim"'), now.slice(0, 80));
    assert.equal(typeof JSON.parse(now).train.count, 'string');
    if (entry.startsWith('{"cluster"')) assert.equal(await field(page, 'cluster', 'count').inputValue(), '4096'); // what passed stays
    // Reloaded: nothing broken is left, so no notice.
    await page.goto(pageUrl());
    await page.waitForSelector('gpu-calc [data-key="cluster.devices"]');
    assert.equal(await page.locator('gpu-calc .notice').count(), 0);
  }
  // The notice can be dismissed.
  await setSaved(page, '{{');
  await page.goto(pageUrl());
  await page.waitForSelector('gpu-calc [data-key="cluster.devices"]');
  await page.getByRole('button', { name: 'Dismiss notice' }).click();
  assert.equal(await page.locator('gpu-calc .notice').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a link may set the JSON editor\u2019s text only through the editor\u2019s own checks; a poisoned one is dropped, said so, and never evaluated', async () => {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const crafted = '{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":7}}';
  const a = await open(chrome.browser, pageUrl() + '#s=' + b64({ cluster: { count: '12' }, json: { text: crafted } }));
  assert.equal(await field(a.page, 'cluster', 'count').inputValue(), '12');
  assert.equal(await a.page.locator('gpu-calc #json-text').inputValue(), crafted);
  await a.page.locator('gpu-calc pre.report').filter({ hasText: '"devices": 7' }).waitFor();
  await a.context.close();
  const deep = nestedClaims(700);
  const b = await open(chrome.browser, pageUrl() + '#s=' + b64({ cluster: { count: '12' }, json: { text: deep } }));
  assert.match(await b.page.locator('gpu-calc .notice').textContent(), /settings from the link could not be restored.*nested deeper than 64 levels/);
  assert.notEqual(await b.page.locator('gpu-calc #json-text').inputValue(), deep);
  assert.equal(await field(b.page, 'cluster', 'count').inputValue(), '12');
  await b.page.evaluate(() => document.querySelector('gpu-calc').persistNow());
  assert.ok(!(await saved(b.page)).includes('"claim'));
  await b.context.close();
});

test('the JSON editor refuses text that is too large or too deep before the module sees it', async () => {
  const { page, context } = await open(chrome.browser);
  await settled(page);
  const ta = page.locator('gpu-calc #json-text');
  const err = page.locator('gpu-calc #json-text-error');
  // Count the calls that reach the module.
  await page.evaluate(() => {
    const inst = globalThis.gpucalcPage.core().instance;
    const estimate = inst.estimate;
    globalThis.__calls = 0;
    inst.estimate = (t) => {
      globalThis.__calls++;
      return estimate(t);
    };
  });
  await ta.fill('{"a":' + '['.repeat(65) + ']'.repeat(65) + '}');
  assert.match(await err.textContent(), /Not evaluated: the scenario is nested deeper than 64 levels/);
  await ta.fill(JSON.stringify({ hardware: { device: 'nvidia-h100-sxm5-80gb', count: 8 }, description: 'd'.repeat(70000) }));
  await page.waitForFunction(() => /characters long/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('#json-text-error')?.textContent ?? ''));
  assert.match(await err.textContent(), /at most 65,536 are accepted here/);
  await ta.fill(nestedClaims(2));
  assert.match(await err.textContent(), /cannot vary the claim itself/);
  assert.equal(await page.evaluate(() => globalThis.__calls), 0);
  // A deep but allowed text goes to the core, which answers (here: with its own errors).
  await ta.fill('{"a":' + '['.repeat(63) + ']'.repeat(63) + '}');
  assert.equal(await page.evaluate(() => globalThis.__calls), 1);
  assert.match(await err.textContent(), /not a known field/);
  await ta.fill('{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":3}}');
  assert.match(await page.locator('gpu-calc pre.report').textContent(), /"devices": 3/);
  // A NUL after a valid scenario is not JSON (the page froze on it when the core read up to the NUL):
  // an error naming where, and no answer kept from before.
  await ta.fill('{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":4}}\u0000 junk');
  await page.waitForFunction(() => /not valid JSON/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('#json-text-error')?.textContent ?? ''));
  assert.match(await err.textContent(), /line 1, column 58: expected the end of the text/);
  assert.equal(await page.locator('gpu-calc pre.report').count(), 0);
  // A byte-order mark first is accepted, by the core and by the page.
  await ta.fill('\ufeff{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":5}}');
  assert.match(await page.locator('gpu-calc pre.report').textContent(), /"devices": 5/);
  await context.close();
});

test('a failed import shows an alert and keeps the state, also when something throws on the way', async () => {
  const { page, context } = await open(chrome.browser);
  await field(page, 'train', 'count').fill('512');
  const days = await text(page, 'training.days');
  const status = page.locator('gpu-calc .import-status');
  for (const [input, expect] of [
    [nestedClaims(700), /nested deeper than 64 levels/],
    [nestedClaims(2), /cannot vary the claim itself/],
    ['x'.repeat((1 << 20) + 1), /1,048,577 characters long/],
    ['{not json', /not valid JSON/],
    [null, /could not be read as text/]
  ]) {
    assert.equal(await page.evaluate((t) => document.querySelector('gpu-calc').importScenario(t), input), false);
    assert.match(await status.textContent(), expect);
    assert.equal(await status.getAttribute('role'), 'alert');
    assert.match(await page.getByRole('alert').filter({ hasText: 'Import failed' }).textContent(), expect);
  }
  // An exception in the middle of an import (here: after the state was changed) keeps the state from before.
  const res = await page.evaluate(() => {
    const el = document.querySelector('gpu-calc');
    const openIt = el.openScenario;
    el.openScenario = function () {
      el.openScenario = openIt;
      el._state.train.count = '64';
      throw new Error('open broke');
    };
    return el.importScenario(
      JSON.stringify({ model: { preset: 'gpt3-175b' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 64 }, training: { tokens: 3e11 } })
    );
  });
  assert.equal(res, false);
  assert.match(await status.textContent(), /Import failed: open broke\. Nothing was changed\./);
  assert.equal(await field(page, 'train', 'count').inputValue(), '512');
  assert.equal(await text(page, 'training.days'), days);
  // A good import afterwards works and is a status, not an alert.
  assert.equal(await page.evaluate(() => document.querySelector('gpu-calc').importScenario('{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":9}}')), true);
  assert.equal(await status.getAttribute('role'), 'status');
  assert.equal(await field(page, 'cluster', 'count').inputValue(), '9');
  await context.close();
});

test('CSV export: numbers as numbers, text that a spreadsheet would run as a formula neutralised', async () => {
  const { page, context } = await open(chrome.browser);
  await text(page, 'cluster.devices'); // the cluster section is built (it is below the fold)
  const cells = await page.evaluate(() =>
    [-5, 1e23, 0, '-5', '=1+2', '+1', '@SUM(A1)', '\tx', '\rx', 'plain', 'a"b', true, null].map(globalThis.gpucalcPage.csvCell)
  );
  assert.deepEqual(cells, ['-5', '1e+23', '0', '"\'-5"', '"\'=1+2"', '"\'+1"', '"\'@SUM(A1)"', '"\'\tx"', '"\'\rx"', '"plain"', '"a""b"', '"true"', '"null"']);
  // Through the page: a claim whose reason is a formula, from the JSON editor.
  await page.locator('gpu-calc #json-text').fill(
    JSON.stringify({
      hardware: { device: 'nvidia-h100-sxm5-80gb', count: 8 },
      claim: { checks: [{ metric: 'cluster.devices', min: 1 }], depends: '=HYPERLINK("http://example.invalid","x")' }
    })
  );
  await page.locator('gpu-calc pre.report').filter({ hasText: 'HYPERLINK' }).waitFor();
  const csv = await page.evaluate(() => document.querySelector('gpu-calc').exportCsv());
  assert.ok(csv.includes('"json","claim.reason","\'=HYPERLINK(""http://example.invalid"",""x"")"\n'), csv.slice(0, 300));
  assert.match(csv, /^"cluster","cluster.devices",1000$/m);
  for (const line of csv.split('\n').slice(1, -1)) assert.doesNotMatch(line.split(',').slice(2).join(','), /^"[=+\-@\t\r]/, line);
  await context.close();
});

test('a module that throws is discarded, re-created, the step retried once, and a notice shown', async () => {
  const { page, context, errors } = await open(chrome.browser);
  await settled(page);
  await breakCall(page, 'estimate');
  await field(page, 'cluster', 'count').fill('77');
  await page.waitForFunction(() =>
    (document.querySelector('gpu-calc').shadowRoot.querySelector('[data-key="cluster.devices"]')?.textContent || '').startsWith('77')
  );
  assert.match(await page.locator('gpu-calc .notice').textContent(), /internal error; it was restarted/);
  assert.equal(await page.evaluate(() => globalThis.gpucalcPage.core().restarts), 1);
  assert.equal(await page.locator('gpu-calc #cluster-count-error').textContent(), '');
  await field(page, 'cluster', 'count').fill('78');
  assert.equal(await text(page, 'cluster.devices'), '78');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a derivation fetch that fails is asked again on a fresh module; an export while the module fails gives the answer on screen', async () => {
  const { page, context, errors } = await open(chrome.browser);
  await settled(page);
  await breakCall(page, 'explain');
  await field(page, 'train', 'count').fill('2048');
  // The section is computed again on the fresh module, and its derivations arrive.
  const work = page.locator('gpu-calc section[data-section="train"] td[data-key="training.days"] > details.work');
  await work.waitFor({ timeout: 20000 });
  assert.equal(await page.evaluate(() => globalThis.gpucalcPage.core().restarts), 1);
  const shown = await page.evaluate(() => document.querySelector('gpu-calc')._last.train.report);
  await breakCall(page, 'estimate');
  const exported = await page.evaluate(() => document.querySelector('gpu-calc').exportReport('train'));
  assert.equal(exported.errors, undefined);
  assert.equal(exported.training.days, shown.training.days);
  assert.deepEqual(errors, []);
  await context.close();
});

// The guard is against hangs (the poisoned inputs once froze the page for seconds), not a timing
// benchmark: 1 s keeps it meaningful on a loaded CI machine, where a 200 ms bound flaked.
test('the page stays responsive (no task over 1 s) after a poisoned import or storage', async (t) => {
  const context = await chrome.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    globalThis.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) globalThis.__longTasks.push(Math.round(e.duration));
    }).observe({ type: 'longtask', buffered: true });
  });
  const page = await context.newPage();
  const loaded = async () => {
    await page.waitForSelector('gpu-calc [data-key="cluster.devices"]');
    await settled(page);
  };
  // Long tasks (over 50 ms) are reported as a diagnostic; the test fails on one over 1 s (the
  // issue's 200 ms is the goal on a desktop; this 2-core VM under a parallel build is far slower).
  const longTasks = async (what) => {
    await page.waitForTimeout(300);
    const all = await page.evaluate(() => globalThis.__longTasks.slice());
    t.diagnostic(`${what}: long tasks ${JSON.stringify(all)} ms (longest ${Math.max(0, ...all)} ms)`);
    return all.filter((d) => d > 1000);
  };
  // A warm-up load (the browser compiles the script and the WebAssembly once); what follows is
  // measured from navigation on: the poisoned loads, their idle-time work and typing.
  await page.goto(pageUrl());
  await loaded();
  const deep = nestedClaims(700); // ~60 KB claim nested ~2,100 levels: ~2 s in the module, or a stack overflow
  // Shallow (9 levels) but each claim varies the claim itself, 16 x 16 x 16 evaluations: ~35 KB, ~0.3-1 s.
  const leaf = { checks: [{ metric: 'cluster.devices', min: 1 }], vary: { path: 'hardware.count', values: Array.from({ length: 16 }, (_, i) => i + 1) } };
  const mid = { checks: leaf.checks, vary: { path: 'claim', values: Array(16).fill(leaf) } };
  const wide = JSON.stringify({
    hardware: { device: 'nvidia-h100-sxm5-80gb', count: 8 },
    claim: { checks: leaf.checks, vary: { path: 'claim', values: Array(16).fill(mid) } }
  });
  for (const text of [deep, wide]) {
    await setSaved(page, poisonState(text));
    await page.goto(pageUrl());
    await loaded();
    await page.locator('gpu-calc .notice').waitFor();
    const ta = page.locator('gpu-calc #json-text');
    await ta.press('End');
    await ta.pressSequentially(' \n ', { delay: 20 });
    await field(page, 'cluster', 'count').pressSequentially('12', { delay: 20 });
    assert.deepEqual(await longTasks('poisoned storage, load and typing'), [], 'poisoned storage');
  }
  // Poisoned imports and pastes into the editor, once the page is idle.
  await page.evaluate(() => {
    globalThis.__longTasks = [];
  });
  const count = await field(page, 'cluster', 'count').inputValue();
  for (const text of [deep, wide, '['.repeat((1 << 20) - 16)]) {
    assert.equal(await page.evaluate((t) => document.querySelector('gpu-calc').importScenario(t), text), false);
    assert.equal(await page.locator('gpu-calc .import-status').getAttribute('role'), 'alert');
  }
  for (const text of [deep, wide]) {
    await page.locator('gpu-calc #json-text').fill(text);
    await page.waitForFunction(() => /Not evaluated/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('#json-text-error')?.textContent ?? ''));
  }
  assert.deepEqual(await longTasks('poisoned imports and editor pastes'), [], 'poisoned import');
  assert.equal(await field(page, 'cluster', 'count').inputValue(), count);
  await context.close();
});
