// What people type and what they read: human numbers (15T, 1.5e12, 70B, 1,000, 1k, 1M, $2, 40 %)
// typed key by key with the parsed value shown next to the field, a German browser's separators,
// messages in the form's words (no JSON paths), units people use, one price basis, sources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, text, field, report } from './browser.mjs';

const chrome = useBrowser();

const parsed = (page, sec, key) => page.locator(`gpu-calc #${sec}-${key}-parsed`).textContent();
const type = async (page, sec, key, value) => {
  await field(page, sec, key).fill('');
  await field(page, sec, key).pressSequentially(value, { delay: 5 });
};

test('human numbers are read as people write them, with the parsed value shown next to the field', async () => {
  const { page, context, errors } = await open(chrome.browser);
  const cases = [
    ['train', 'tokens', '15T', '= 15 trillion tokens', (r) => r.inputs.training.tokens === 15e12],
    ['train', 'tokens', '1.5e12', '= 1.5 trillion tokens', (r) => r.inputs.training.tokens === 1.5e12],
    ['train', 'count', '1,000', '= 1,000 devices', (r) => r.inputs.hardware.count === 1000],
    ['train', 'count', '1k', '= 1,000 devices', (r) => r.inputs.hardware.count === 1000],
    ['train', 'gpu_hour_usd', '$2', '= $2.00 per GPU-hour', (r) => r.training.gpu_hour_usd === 2],
    ['train', 'tokens', '15T tokens', '= 15 trillion tokens', (r) => r.inputs.training.tokens === 15e12],
    ['train', 'count', '512 GPUs', '= 512 devices', (r) => r.inputs.hardware.count === 512],
    ['train', 'mfu', '40 %', '= 40\u00a0%', (r) => r.training.mfu === 0.4 && r.training.mfu_source === 'given'],
    ['serve', 'requests_per_day', '1M', '= 1,000,000 requests per day', (r) => r.inputs.inference.requests_per_day === 1e6],
    ['serve', 'prompt_tokens', '1,000', '= 1,000 tokens', (r) => r.inputs.inference.prompt_tokens === 1000]
  ];
  for (const [sec, key, value, shown, check] of cases) {
    await type(page, sec, key, value);
    assert.equal(await parsed(page, sec, key), shown, value);
    assert.ok(check(await report(page, sec)), `${value} reached the core as the number it means`);
    assert.equal(await page.locator(`gpu-calc #${sec}-${key}-error`).textContent(), '');
  }
  // Out of range: said in the terms typed (never Infinity), as 150 and 150 % are (page review, 2026-12-05).
  await type(page, 'train', 'mfu', '1e308');
  await page.waitForFunction(() =>
    /^1e308 is more than 100 %: write a fraction like 0.4/.test(
      document.querySelector('gpu-calc').shadowRoot.querySelector('#train-mfu-error')?.textContent ?? ''
    )
  );
  await type(page, 'train', 'mfu', '');
  // 70B as a custom model's parameter count.
  await field(page, 'train', 'model').selectOption('custom-params');
  await type(page, 'train', 'params', '70B');
  assert.equal(await parsed(page, 'train', 'params'), '= 70 billion total');
  assert.equal((await report(page, 'train')).inputs.model.params, 7e10);
  assert.deepEqual(errors, []);
  await context.close();
});

test('in a German browser 1.000 is a thousand and 0,4 is 0.4', async () => {
  const { page, context } = await open(chrome.browser, undefined, { locale: 'de-DE' });
  await type(page, 'cluster', 'count', '1.000');
  assert.equal(await parsed(page, 'cluster', 'count'), '= 1,000 devices');
  assert.equal(await text(page, 'cluster.memory_bytes'), '78.1\u00a0TiB');
  await type(page, 'train', 'mfu', '0,4');
  assert.equal((await report(page, 'train')).training.mfu, 0.4);
  await context.close();
});

test('a field that cannot be read names the problem, shows no answer, and the answer returns once it is fixed', async () => {
  const { page, context } = await open(chrome.browser);
  await type(page, 'train', 'mfu', '40');
  assert.match(await page.locator('gpu-calc #train-mfu-error').textContent(), /40 is more than 1: write 40 % or 0\.4/);
  assert.equal(await page.locator('gpu-calc [data-answer="train"] [data-fit]').getAttribute('data-fit'), 'error');
  assert.equal(await page.locator('gpu-calc [data-answer="train"] [data-figure]').count(), 0);
  assert.equal(await page.locator('gpu-calc section[data-section="train"] .results').textContent(), '');
  await type(page, 'train', 'mfu', '40%');
  assert.equal(await page.locator('gpu-calc [data-answer="train"] .fit').getAttribute('data-fit'), 'yes');
  await type(page, 'train', 'gpu_hour_usd', 'two dollars');
  assert.match(await page.locator('gpu-calc #train-gpu_hour_usd-error').textContent(), /write an amount like 2, \$2 or \$2\.50/);
  await context.close();
});

test('messages name the fields as the form does, never by their JSON paths', async () => {
  const { page, context } = await open(chrome.browser);
  await page.locator('gpu-calc [data-group="layout"] > summary').click();
  await type(page, 'train', 'tp', '3');
  const err = await page.locator('gpu-calc #train-tp-error').textContent();
  assert.match(err, /Tensor parallel/);
  await type(page, 'train', 'tp', '8');
  await type(page, 'train', 'pp', '7');
  const all = await page.locator('gpu-calc section[data-section="train"] .field-error').allTextContents();
  assert.match(all.join(' '), /GPUs \(1,024\) must be divisible by Tensor parallel \u00d7 Context parallel \u00d7 Pipeline parallel \(56\)/);
  // No JSON path in any prose the page shows (derivations and the Scenario JSON section excepted).
  const prose = await page.evaluate(() => {
    const r = document.querySelector('gpu-calc').shadowRoot;
    const out = [];
    for (const n of r.querySelectorAll('.answer, .field-error, .warnings, .origin, .notice, .extra, .band, .prose, .claims')) {
      if (n.closest('details.work, section[data-section="json"]')) continue;
      out.push(n.textContent);
    }
    return out.join('\n');
  });
  assert.doesNotMatch(prose, /\b(training|inference|hardware|costs|finetune|model|compare|roofline|inverse)\.[a-z_]+/);
  await context.close();
});

test('units people use: FLOP/s up to E (never Q), kWh to GWh, CO2 in t, "70.6 B params", no "0.00 µs"', async () => {
  const { page, context } = await open(chrome.browser);
  assert.equal(await text(page, 'cluster.peak_flops_per_second.bf16'), '989\u00a0PFLOP/s');
  await type(page, 'cluster', 'count', '1M');
  assert.equal(await text(page, 'cluster.peak_flops_per_second.bf16'), '989\u00a0EFLOP/s');
  assert.match(await text(page, 'training.energy_kwh'), /^[\d.]+\u00a0(MWh|GWh)$/);
  assert.match(await text(page, 'training.co2_kg'), /^[\d.]+\u00a0(t|kt) CO\u2082$/);
  assert.equal(await text(page, 'training.params'), '70.6\u00a0B params');
  assert.match(await page.locator('gpu-calc #train-model').evaluate((s) => s.selectedOptions[0].textContent), /Llama 3 70B \(70\.6\u00a0B params\)/);
  await page.locator('gpu-calc section[data-section="explain"] .kernels').waitFor();
  const everything = await page.evaluate(() => document.querySelector('gpu-calc').shadowRoot.textContent);
  assert.doesNotMatch(everything, /\d\u00a0[QRZY](FLOP|B\b|\s)|\b0\.00\u00a0[a-zµ]|\d [QR]\b/);
  await context.close();
});

test('one price basis everywhere: blank prices take the catalog\u2019s marketplace price, said in each section', async () => {
  const { page, context } = await open(chrome.browser);
  const t = await report(page, 'train');
  assert.equal(t.inputs.costs.price_basis, 'marketplace');
  assert.equal(await field(page, 'train', 'gpu_hour_usd').getAttribute('placeholder'), 'catalog: $' + t.training.gpu_hour_usd.toFixed(2));
  assert.match(await page.locator('gpu-calc [data-answer="train"] [data-figure="cost"] .sub').textContent(), /\(catalog, marketplace\)/);
  await page.locator('gpu-calc [data-answer="serve"] .fit').waitFor();
  const s = await report(page, 'serve');
  assert.equal(s.inputs.costs.price_basis, 'marketplace');
  assert.equal(s.inference.gpu_hour_usd, t.training.gpu_hour_usd); // the same H100, the same price
  assert.equal(await field(page, 'serve', 'gpu_hour_usd').getAttribute('placeholder'), 'catalog: $' + s.inference.gpu_hour_usd.toFixed(2));
  await context.close();
});

test('a cleared Prompt or Output says the default the answer uses', async () => {
  // A newcomer's review: both fields stayed blank while the answer used 512 and 256 tokens.
  const { page, context } = await open(chrome.browser);
  await page.locator('gpu-calc [data-answer="serve"] .fit').waitFor();
  await field(page, 'serve', 'prompt_tokens').fill('');
  await field(page, 'serve', 'output_tokens').fill('');
  await page.waitForFunction(() =>
    /^default: /.test(document.querySelector('gpu-calc').shadowRoot.querySelector('#serve [data-field="output_tokens"]').placeholder)
  );
  const s = await report(page, 'serve');
  assert.equal(await field(page, 'serve', 'prompt_tokens').getAttribute('placeholder'), 'default: ' + s.inputs.inference.prompt_tokens);
  assert.equal(await field(page, 'serve', 'output_tokens').getAttribute('placeholder'), 'default: ' + s.inputs.inference.output_tokens);
  await context.close();
});

test('without traffic, Serve says what the GPUs given serve at full load', async () => {
  // A newcomer's review: "what can 1,000 H100s serve?" had only per-copy figures.
  const { page, context } = await open(chrome.browser);
  await page.locator('gpu-calc [data-answer="serve"] .fit').waitFor();
  await field(page, 'serve', 'count').fill('1000');
  await field(page, 'serve', 'requests_per_day').fill('');
  const note = page.locator('gpu-calc [data-answer="serve"] [data-capacity]');
  await note.waitFor();
  const s = await report(page, 'serve');
  assert.equal(s.inference.gpus_needed, null);
  const perDay = s.inference.replicas * s.inference.requests_per_second_per_instance * 86400;
  assert.match(await note.textContent(), new RegExp('^The 1,000 GPUs given run ' + s.inference.replicas + ' copies: about [\\d,.]+ requests/s at full load'));
  assert.ok(perDay > 1e6, String(perDay));
  await context.close();
});

test('catalog figures come with links to their sources', async () => {
  const { page, context } = await open(chrome.browser);
  const src = page.locator('gpu-calc section[data-section="cluster"] details.sources');
  await src.locator('summary').click();
  const hrefs = await src.locator('a').evaluateAll((as) => as.map((a) => a.href));
  assert.ok(hrefs.length >= 1);
  for (const hr of hrefs) assert.match(hr, /^https:\/\//);
  assert.equal(await src.locator('a').first().getAttribute('rel'), 'noopener noreferrer');
  await page.locator('gpu-calc section[data-section="explain"] details.sources').waitFor();
  await context.close();
});
