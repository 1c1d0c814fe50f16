// The answers a person comes for, as they see them: the answer card of each section (fits first,
// then days, cost and the range), an honest "does not fit" with the layout that fits one click
// away, auto layouts, "Can I run it?" on consumer GPUs, serving at maximum throughput and under
// latency targets, fine-tuning, plans without duplicates, every famous run and claim opened.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { useBrowser, open, field, report, exact } from './browser.mjs';
import { cli, nativeEstimates } from '../node/common.mjs';

const chrome = useBrowser();

const card = (page, sec) => page.locator(`gpu-calc [data-answer="${sec}"]`);
const figure = (page, sec, key) => card(page, sec).locator(`[data-figure="${key}"] .big`);
const scenarioOf = (page, sec) => page.evaluate((s) => document.querySelector('gpu-calc')._last[s].scenario, sec);

test('the Train answer opens with fits, then days, cost and the uncertainty range', async () => {
  const { page, context, errors } = await open(chrome.browser);
  const c = card(page, 'train');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'yes');
  assert.match(await c.locator('.fit').textContent(), /Fits in memory: [\d.]+\u00a0GiB of 80\.0\u00a0GiB per GPU/);
  assert.match(await figure(page, 'train', 'days').textContent(), /^\d+(\.\d+)?\u00a0days$/);
  assert.match(await figure(page, 'train', 'cost').textContent(), /^\$[\d.]+\u00a0M$/);
  assert.match(await figure(page, 'train', 'range').textContent(), /^\d+ \u2013 \d+\u00a0days$/);
  assert.match(await c.locator('[data-figure="range"] .sub').textContent(), /^\$[\d.]+\u00a0M \u2013 \$[\d.]+\u00a0M/);
  assert.match(await c.locator('[data-figure="mfu"] .sub').textContent(), /predicted, of BF16 peak/);
  assert.match(await figure(page, 'train', 'goodput').textContent(), /^9\d\.\d\u00a0%$/);
  // The order on screen: heading, answer, form.
  const order = await page.evaluate(() =>
    [...document.querySelector('gpu-calc').shadowRoot.querySelector('section[data-section="train"]').querySelectorAll('h2, .answer, form')].map(
      (e) => e.tagName + (e.className ? '.' + e.className.split(' ')[0] : '')
    )
  );
  assert.deepEqual(order.slice(0, 3), ['H2', 'DIV.answer', 'FORM.inputs']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a training run without a layout gets the plan search\u2019s, shown in the answer and as the fields\u2019 placeholders; 25k GPUs need no layout typed', async () => {
  const { page, context } = await open(chrome.browser);
  const line = card(page, 'train').locator('.layout-line');
  assert.equal(await line.getAttribute('data-layout'), 'auto');
  const r = await report(page, 'train');
  assert.equal(r.training.layout_searched, true);
  assert.equal(await field(page, 'train', 'tp').getAttribute('placeholder'), 'auto: ' + r.inputs.training.tp);
  assert.match(await line.textContent(), new RegExp('Layout chosen by the plan search: TP ' + r.inputs.training.tp + ' \u00b7 PP ' + r.inputs.training.pp));
  await field(page, 'train', 'count').fill('25k');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.hardware.count === 25000);
  assert.equal(await card(page, 'train').locator('.fit').getAttribute('data-fit'), 'yes');
  assert.equal(await page.locator('gpu-calc #train-count-parsed').textContent(), '= 25,000 devices');
  await context.close();
});

test('a setup that does not fit says so first, shows no days or cost, and one click uses the layout that fits', async () => {
  const { page, context } = await open(chrome.browser);
  await field(page, 'train', 'count').fill('512');
  await page.locator('gpu-calc [data-group="layout"] > summary').click();
  await field(page, 'train', 'tp').fill('1');
  await field(page, 'train', 'pp').fill('1');
  const c = card(page, 'train');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'no');
  assert.match(await c.locator('.fit').textContent(), /^\u2718 Does not fit: needs 597 GiB per device, H100 SXM5 80GB has 80 GiB\.$/);
  assert.equal(await c.locator('[data-figure="days"], [data-figure="cost"], [data-figure="range"]').count(), 0);
  assert.match(await c.textContent(), /No time or cost is shown for a run that cannot start/);
  const r = await report(page, 'train');
  assert.equal(r.training.days, null);
  const s = r.training.suggested_layout;
  assert.match(await c.locator('[data-suggestion]').textContent(), new RegExp('A layout that fits: TP ' + s.tp + ' \u00b7 PP ' + s.pp + ' \u00b7 DP ' + s.dp));
  const use = page.getByRole('button', { name: 'Use this layout' });
  await use.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('gpu-calc').shadowRoot.querySelector('[data-answer="train"] .fit')?.dataset.fit === 'yes');
  assert.equal(await field(page, 'train', 'tp').inputValue(), String(s.tp));
  assert.equal(await field(page, 'train', 'dp').inputValue(), String(s.dp));
  assert.equal(await field(page, 'train', 'micro_batch').inputValue(), String(s.micro_batch));
  assert.equal(await field(page, 'train', 'zero').inputValue(), String(s.zero));
  assert.match(await figure(page, 'train', 'days').textContent(), /days$/);
  // Focus stays where the reader is: in the new answer, not on the page's body.
  assert.equal(await page.evaluate(() => document.querySelector('gpu-calc').shadowRoot.activeElement?.dataset.answer), 'train');
  await context.close();
});

test('Can I run it? Llama 3 70B on one RTX 4090: no at 16 bits, yes in GGUF Q4_K_M with 36 layers on the card; Llama 3 8B on an M3 Max', async () => {
  const { page, context } = await open(chrome.browser);
  await field(page, 'serve', 'device').selectOption('nvidia-rtx-4090');
  await field(page, 'serve', 'count').fill('1');
  await field(page, 'serve', 'tp').fill('1');
  await field(page, 'serve', 'requests_per_day').fill('');
  const c = card(page, 'serve');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'no');
  assert.match(
    await c.locator('.fit').textContent(),
    /Does not fit: the weights and the [\d.]+ GiB overhead alone need [\d.]+ GiB per device, GeForce RTX 4090 has 24 GiB usable/
  );
  await field(page, 'serve', 'weights').selectOption('gguf:q4_k_m');
  await page.locator('gpu-calc section[data-section="serve"] [data-group="more"] > summary').click();
  await field(page, 'serve', 'gpu_layers').fill('36');
  await field(page, 'serve', 'batch').fill('1');
  await field(page, 'serve', 'prompt_tokens').fill('4000');
  await field(page, 'serve', 'output_tokens').fill('500');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'yes');
  const fixture = JSON.parse(
    execFileSync(cli, ['estimate', 'tests/fixtures/llama3-70b-4090-offload.json'], { cwd: new URL('../..', import.meta.url).pathname }).toString()
  );
  const r = await report(page, 'serve');
  assert.equal(r.inference.tpot_seconds, fixture.inference.tpot_seconds);
  assert.match(await figure(page, 'serve', 'speed').textContent(), /^2\.\d+ tok\/s$/);
  assert.match(await c.textContent(), /of the weights are read from CPU memory for every token/);
  await field(page, 'serve', 'model').selectOption('llama3-8b');
  await field(page, 'serve', 'device').selectOption('apple-m3-max');
  await field(page, 'serve', 'weights').selectOption('bf16');
  await field(page, 'serve', 'gpu_layers').fill('');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'yes');
  assert.match(await c.locator('.fit').textContent(), /Runs on Apple M3 Max/);
  await context.close();
});

test('a Serve copy that does not fit names the GPUs per copy it fits on, and one click uses them', async () => {
  const { page, context } = await open(chrome.browser);
  await field(page, 'serve', 'model').selectOption('llama3-70b');
  await field(page, 'serve', 'device').selectOption('nvidia-rtx-4090');
  await field(page, 'serve', 'count').fill('1');
  await field(page, 'serve', 'tp').fill('1');
  const c = card(page, 'serve');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'no');
  const text = await c.locator('.fit').textContent();
  assert.match(text, /it fits with GPUs per copy = 8;/);
  assert.doesNotMatch(text, /smaller batch/); // the weights alone are over the memory: a smaller batch cannot help
  await c.locator('[data-action="use-tp"]').click();
  assert.equal(await field(page, 'serve', 'tp').inputValue(), '8');
  assert.equal(await field(page, 'serve', 'count').inputValue(), '8');
  assert.notEqual(await c.locator('.fit').getAttribute('data-fit'), 'no');
  assert.equal((await report(page, 'serve')).inference.fits, true);
  await context.close();
});

test('Serve runs a preset in the precision it is released in unless the reader picks another: gpt-oss-120b fits one H100', async () => {
  const { page, context } = await open(chrome.browser);
  assert.equal(await field(page, 'serve', 'weights').inputValue(), '');
  await field(page, 'serve', 'model').selectOption('gpt-oss-120b');
  await field(page, 'serve', 'device').selectOption('nvidia-h100-sxm5-80gb');
  await field(page, 'serve', 'count').fill('1');
  const c = card(page, 'serve');
  assert.notEqual(await c.locator('.fit').getAttribute('data-fit'), 'no'); // fits ('short': more copies needed for the traffic)
  const r = await report(page, 'serve');
  assert.equal(r.inference.fits, true);
  assert.equal(r.inputs.inference.weight_precision, 'fp4');
  assert.equal((await scenarioOf(page, 'serve')).inference.weight_precision, undefined);
  await field(page, 'serve', 'weights').selectOption('bf16');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'no');
  await context.close();
});

test('serving with the batch left blank runs at the largest batch that fits; latency targets find the fewest GPUs, one click to use them', async () => {
  const { page, context } = await open(chrome.browser);
  assert.equal(await field(page, 'serve', 'batch').inputValue(), '');
  const r = await report(page, 'serve');
  assert.equal(r.inference.batch_source, 'max_throughput');
  assert.equal(await figure(page, 'serve', 'batch').textContent(), r.inference.batch.toLocaleString('en-US'));
  assert.match(
    await card(page, 'serve').locator('[data-figure="batch"] .sub').textContent(),
    /the most that fit \(max throughput: the cheapest per token, the slowest per user/
  );
  assert.match(await figure(page, 'serve', 'ttft').textContent(), /ms|s$/);
  assert.match(await figure(page, 'serve', 'cost').textContent(), /^\$/);
  // Under the decode-step bar, how the step becomes the time per output token a user sees (a newcomer
  // added the bar's parts up: 59 ms against the headline's 148).
  assert.ok(r.inference.tpot_seconds > r.inference.decode_seconds_per_token, JSON.stringify(r.inference));
  assert.match(
    await page.locator('gpu-calc section[data-section="serve"] .results').textContent(),
    new RegExp(
      'A user waits [\\d.,]+\u00a0m?s per output token at batch ' +
        r.inference.batch.toLocaleString('en-US') +
        ': [\\d.,]+\u00a0m?s of decoding and [\\d.,]+\u00a0m?s of the new requests\u2019 prefills, which run between decode steps\\.'
    )
  );
  // The GPUs given are weighed against the traffic: the defaults' 8 are short of what the peak needs.
  const given = card(page, 'serve').locator('[data-gpus-given]');
  assert.equal(r.inputs.hardware.count < r.inference.gpus_needed, true);
  assert.equal(await given.getAttribute('data-gpus-given'), 'short');
  assert.match(await given.textContent(), new RegExp('^The 8 GPUs given are not enough: .* ' + r.inference.gpus_needed + ' GPUs are needed\\.$'));
  // A newcomer read the green check above "not enough" as "yes": the headline says it runs but falls short.
  assert.equal(await card(page, 'serve').locator('.fit').getAttribute('data-fit'), 'short');
  assert.match(await card(page, 'serve').locator('.fit').textContent(), /not enough for the traffic: [\d,]+ are needed\.$/);
  assert.match(await card(page, 'serve').locator('[data-figure="speed"] .sub').textContent(), /every copy busy \(at the largest batch\)/);
  // The first token's queueing and the cost are for the GPUs the traffic needs, and say so (page review, 2026-12-05).
  const needed = r.inference.gpus_needed.toLocaleString('en-US') + ' GPUs the traffic needs';
  assert.match(await card(page, 'serve').locator('[data-figure="ttft"] .sub').textContent(), new RegExp('^per user on the ' + needed + ', queueing'));
  assert.match(await card(page, 'serve').locator('[data-figure="cost"] .sub').textContent(), new RegExp('; for the ' + needed + '$'));
  // Before the largest batch's speed, one user's alone (the batch curve's batch 1), a figure of its own
  // (a reviewer read the largest batch's 2.66 tok/s as the speed of the model on the GPUs).
  const one = r.inference.batch_curve.find((p) => p.batch === 1);
  assert.equal(
    await card(page, 'serve').locator('[data-figure="speed-one"] .big').textContent(),
    one.output_tokens_per_second_per_user.toPrecision(3) + ' tok/s'
  );
  const keys = await card(page, 'serve')
    .locator('[data-figure]')
    .evaluateAll((es) => es.map((e) => e.dataset.figure));
  assert.ok(keys.indexOf('speed-one') < keys.indexOf('speed'), keys.join());
  await field(page, 'serve', 'count').fill(String(r.inference.gpus_needed));
  assert.equal(await given.getAttribute('data-gpus-given'), 'enough');
  // Enough GPUs: the speed a user sees is at the traffic's peak (Little's law), faster than at the largest batch.
  const at = (await report(page, 'serve')).inference.at_traffic;
  assert.ok(at && at.batch < r.inference.batch, JSON.stringify(at));
  assert.match(
    await given.textContent(),
    new RegExp('at the peak they answer about ' + Math.round(at.concurrent_sequences).toLocaleString('en-US') + ' users at once\\.$')
  );
  assert.match(await card(page, 'serve').locator('[data-figure="speed"] .sub').textContent(), /^at the traffic\u2019s peak \([\d,.]+ sequences per copy\); /);
  await field(page, 'serve', 'model').selectOption('llama3-8b');
  await field(page, 'serve', 'tp').fill('');
  await field(page, 'serve', 'prompt_tokens').fill('1,500');
  await field(page, 'serve', 'output_tokens').fill('300');
  await field(page, 'serve', 'requests_per_day').fill('20M');
  await field(page, 'serve', 'gpu_hour_usd').fill('$2.50');
  await page.locator('gpu-calc [data-group="slo"] > summary').click();
  await field(page, 'serve', 'ttft').fill('500 ms');
  await field(page, 'serve', 'tpot').fill('25ms');
  assert.equal(await page.locator('gpu-calc #serve-tpot-parsed').textContent(), '= 25\u00a0ms');
  const slo = card(page, 'serve').locator('[data-slo]');
  assert.equal(await slo.getAttribute('data-slo'), 'met');
  const fixture = JSON.parse(
    execFileSync(cli, ['estimate', 'tests/fixtures/llama3-8b-slo-search.json'], { cwd: new URL('../..', import.meta.url).pathname }).toString()
  );
  const chosen = fixture.inference.slo.chosen;
  assert.match(await slo.textContent(), new RegExp('met with ' + chosen.gpus + ' GPUs: weights ' + chosen.weight_precision.toUpperCase()));
  await page.getByRole('button', { name: 'Use this configuration' }).click();
  assert.equal(await field(page, 'serve', 'weights').inputValue(), chosen.weight_precision);
  assert.equal(await field(page, 'serve', 'batch').inputValue(), String(chosen.batch));
  assert.equal(await figure(page, 'serve', 'batch').textContent(), String(chosen.batch));
  // Speculative decoding and separate prefill/decode GPUs are answered too.
  await page.locator('gpu-calc section[data-section="serve"] [data-group="more"] > summary').click();
  await field(page, 'serve', 'draft_params').fill('1B');
  assert.match(await figure(page, 'serve', 'speculative').textContent(), /\u00d7 faster$/);
  // A draft too large for its acceptance is slower, and said so (it read "0.83× faster").
  await field(page, 'serve', 'draft_params').fill('7B');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report?.inference?.speculative?.draft_weights_bytes > 4e9);
  const slow = (await report(page, 'serve')).inference.speculative.speedup;
  assert.ok(slow < 1, String(slow));
  assert.match(await figure(page, 'serve', 'speculative').textContent(), /\u00d7 slower$/);
  await field(page, 'serve', 'draft_params').fill('1B');
  // The draft's weights take memory beside the target's, shown in the serving table.
  const draft = (await report(page, 'serve')).inference.speculative.draft_weights_bytes;
  assert.ok(draft >= 1e9 / 2 && draft <= 2e9, String(draft));
  assert.ok(await exact(page, 'inference.speculative.draft_weights_bytes'));
  await field(page, 'serve', 'disaggregated').selectOption('on');
  assert.match(await card(page, 'serve').textContent(), /Prefill on \d+ copies, decode on \d+/);
  await context.close();
});

test('Can I fine-tune? QLoRA of Llama 3 8B fits on an RTX 4090 with the biggest batch and sequence; full fine-tuning does not', async () => {
  const { page, context } = await open(chrome.browser);
  const c = card(page, 'finetune');
  await c.locator('.fit').waitFor();
  const fixture = JSON.parse(
    execFileSync(cli, ['estimate', 'tests/fixtures/llama3-8b-qlora-4090.json'], { cwd: new URL('../..', import.meta.url).pathname }).toString()
  );
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'yes');
  assert.match(await c.locator('.fit').textContent(), /QLoRA fits on GeForce RTX 4090/);
  assert.equal(await figure(page, 'finetune', 'max_batch').textContent(), String(fixture.finetune.max_batch));
  assert.match(await figure(page, 'finetune', 'time').textContent(), /h$/);
  await field(page, 'finetune', 'method').selectOption('full');
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'no');
  assert.match(await c.locator('.fit').textContent(), /Full fine-tuning does not fit: needs [\d.]+ GiB per device/);
  assert.equal(await c.locator('[data-figure="time"]').count(), 0);
  await context.close();
});

test('the fine-tuning memory bar shows the parts alive at the peak: when the answer says it fits, the bar ends inside the capacity mark', async () => {
  const { page, context, errors } = await open(chrome.browser);
  const sc = {
    model: { preset: 'llama2-13b' },
    hardware: { device: 'nvidia-rtx-4090', count: 8 },
    finetune: { method: 'lora', lora_modules: 'all_linear', batch: 16, seq_len: 2048 }
  };
  await page.evaluate((s) => document.querySelector('gpu-calc').openScenario(s, 'test', { focus: false }), sc);
  const c = card(page, 'finetune');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.finetune?.report.inputs.finetune.batch === 16);
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'yes');
  const bar = page.locator('gpu-calc section[data-section="finetune"] .bar').first();
  assert.match(await bar.getAttribute('aria-label'), /^Memory per GPU at the peak \(the layers' backward\)/);
  const widths = await bar.locator('.seg').evaluateAll((segs) => segs.map((s) => parseFloat(s.style.width)));
  const cap = parseFloat(await bar.locator('.cap').evaluate((e) => e.style.left));
  const filled = widths.reduce((a, b) => a + b, 0);
  assert.ok(filled <= cap + 1e-6, `segments fill ${filled} % of the bar, capacity at ${cap} %`);
  assert.ok(filled > 0.8 * cap, 'the peak is close to the capacity in this case');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the plan search lists no plan twice, and its MFU carries the band of published runs', async () => {
  const { page, context } = await open(chrome.browser);
  await page.waitForFunction(() => /Done/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.plan-status')?.textContent), null, {
    timeout: 30000
  });
  const keys = await page.evaluate(() =>
    document
      .querySelector('gpu-calc')
      ._last.plan.report.plan.best.map((p) => [p.tp, p.pp, p.dp, p.vpp, p.micro_batch, p.zero, p.sequence_parallel, p.step_seconds].join('|'))
  );
  assert.equal(keys.length, 10);
  assert.equal(new Set(keys).size, 10, keys.join('\n'));
  assert.match(await card(page, 'plan').textContent(), /layouts fit; the fastest:/);
  const { best, band } = await page.evaluate(() => document.querySelector('gpu-calc')._last.plan.report.plan);
  assert.ok(band.low < 1 && band.high > 1, JSON.stringify(band));
  // The high end stops at the device's matmul ceiling (MAMF) where the band would pass it.
  assert.ok(band.mfu_ceiling > 0.5 && band.mfu_ceiling < 1, JSON.stringify(band));
  const pct = (x) => (x * 100).toFixed(1) + '\u00a0%';
  const most = (band.mfu_ceiling * best[0].mfu) / best[0].hfu; // the ceiling as an MFU (recomputation counted)
  const capped = best[0].mfu * band.high > most;
  assert.equal(
    await card(page, 'plan').locator('[data-figure="mfu"] .sub').textContent(),
    'predicted; ' +
      pct(best[0].mfu * band.low) +
      ' \u2013 ' +
      pct(capped ? most : best[0].mfu * band.high) +
      ' holds 9 in 10 published runs' +
      (capped ? ' (the top: the fastest matmul measured on this GPU)' : '')
  );
  await context.close();
});

// Types a plan search as a person would (Plan section: model, GPU, count, Tab) and waits until it is done.
async function searchPlan(page, model, device, count) {
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('plan', true));
  await field(page, 'plan', 'model').selectOption(model);
  await field(page, 'plan', 'device').selectOption(device);
  await field(page, 'plan', 'count').fill(String(count));
  await field(page, 'plan', 'count').press('Tab');
  await page.waitForFunction(
    (n) => {
      const el = document.querySelector('gpu-calc');
      return el._last.plan?.scenario.hardware.count === n && /Done/.test(el.shadowRoot.querySelector('.plan-status')?.textContent);
    },
    count,
    { timeout: 60000 }
  );
}

test('the plan search keeps tensor parallelism within a node, as the core does: 4 on MI250X nodes of 4, and finds the CLI\u2019s fastest plan', async () => {
  // The page searched TP 1, 2, 4 and 8 whatever the device (one plan.tp per worker message), so on
  // nodes of 4 (MI250X) or of 1 (RTX 4090) it also ranked tensor parallelism across the network,
  // which the core's own search (and Train's automatic layout) never chooses.
  const { page, context, errors } = await open(chrome.browser);
  await searchPlan(page, 'llama3-8b', 'amd-mi250x', 16);
  const { scenario, report: rep } = await page.evaluate(() => document.querySelector('gpu-calc')._last.plan);
  assert.equal(scenario.hardware.device, 'amd-mi250x');
  const tps = new Set(rep.plan.best.map((p) => p.tp).concat(rep.plan.layouts.map((p) => p.tp)));
  assert.ok(
    [...tps].every((t) => t <= 4),
    [...tps].join(',')
  );
  assert.ok(tps.has(4), 'TP 4 (a whole node) is searched: ' + [...tps].join(','));
  const max = await page.evaluate(() => document.querySelector('gpu-calc').shadowRoot.querySelector('.plan-controls progress').max);
  assert.equal(max, 3); // TP 1, 2 and 4
  const native = JSON.parse(
    execFileSync(cli, ['plan', '-'], { input: JSON.stringify(Object.assign({}, scenario, { plan: { top_k: 20, max_vpp: 8 }, explain: false })) })
  );
  // The same fastest step (plans that tie on it, ZeRO 2 and 3 here, may come in either order).
  assert.equal(rep.plan.best[0].step_seconds, native.plan.best[0].step_seconds);
  assert.equal(rep.plan.best[0].tokens_per_second, native.plan.best[0].tokens_per_second);
  // The chart marks the plan the answer names, with its memory (a newcomer's review: it marked the
  // same layout's ZeRO 2 plan, 104 GiB, beside an answer of 91.2 GiB).
  // (The chart is drawn after the answer, when the browser is idle: waited for, as a loaded CI machine
  // had not drawn it yet.)
  const marked = await (
    await page.waitForFunction(
      () => {
        const sec = document.querySelector('gpu-calc').shadowRoot.querySelector('section[data-section="plan"]');
        const v = sec && sec.querySelector('.chart-x .v');
        return v && v.textContent;
      },
      null,
      { timeout: 30000 }
    )
  ).jsonValue();
  const best = rep.plan.best[0];
  assert.equal(marked, await page.evaluate((b) => globalThis.gpucalcFormat.bytes(b), best.memory_per_gpu_bytes));
  // Plans that differ only in overlapping the gradient reduction show it in a column of their own.
  const heads = await page.evaluate(() =>
    [...document.querySelector('gpu-calc').shadowRoot.querySelectorAll('table.plans thead th')].map((t) => t.textContent)
  );
  assert.ok(heads.includes('overlap'), heads.join(','));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a plan search where nothing fits says how much memory the leanest layout needs', async () => {
  // A newcomer's review: Llama 3 8B on 4 RTX 4090 said only "No layout fits: 1,728 are out of memory".
  const { page, context, errors } = await open(chrome.browser);
  await searchPlan(page, 'llama3-8b', 'nvidia-rtx-4090', 4);
  const scenario = await scenarioOf(page, 'plan');
  const native = JSON.parse(execFileSync(cli, ['plan', '-'], { input: JSON.stringify(Object.assign({}, scenario, { explain: false })) }));
  assert.equal(native.plan.best.length, 0);
  const need = await page.evaluate((b) => globalThis.gpucalcFormat.bytes(b), native.plan.least_memory_per_gpu_bytes);
  assert.match(await card(page, 'plan').textContent(), new RegExp('No layout fits: [\\d,]+ are out of memory \\(the leanest needs ' + need + ' per GPU'));
  assert.deepEqual(errors, []);
  await context.close();
});

test('the plan search follows the run typed in Train, and using its fastest plan keeps that run (model, GPUs, FP8, sequence length)', async () => {
  // A newcomer's review: the Plan section searched its own defaults (GPT-3 on A100) and "Use the
  // fastest plan" replaced the engineer's Train setup with them.
  const { page, context, errors } = await open(chrome.browser);
  await field(page, 'train', 'model').selectOption('llama3-8b');
  await field(page, 'train', 'count').fill('64');
  await field(page, 'train', 'precision').selectOption('fp8');
  await page.locator('gpu-calc section[data-section="train"] [data-group="more"] > summary').click();
  await field(page, 'train', 'seq_len').fill('16384');
  await field(page, 'train', 'seq_len').press('Tab');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.model.seq_len === 16384);
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('plan', true));
  await page.waitForFunction(
    () => {
      const el = document.querySelector('gpu-calc');
      const sc = el._last.plan && el._last.plan.scenario;
      return sc && sc.hardware.count === 64 && sc.model.seq_len === 16384 && sc.training.precision === 'fp8' && el._last.plan.following;
    },
    null,
    { timeout: 30000 }
  );
  assert.equal(await field(page, 'plan', 'model').inputValue(), 'llama3-8b');
  assert.equal(await field(page, 'plan', 'count').inputValue(), '64');
  const searched = await page.evaluate(() => document.querySelector('gpu-calc')._last.plan.scenario);
  assert.equal(searched.training.precision, 'fp8');
  assert.equal(searched.model.seq_len, 16384);
  assert.match(await page.locator('gpu-calc [data-plan-follow]').textContent(), /Train section/);
  await card(page, 'plan').locator('[data-action="use-plan"]').click();
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.training.layout !== 'auto');
  const r = await report(page, 'train');
  assert.equal(r.inputs.model.preset, 'llama3-8b');
  assert.equal(r.inputs.hardware.count, 64);
  assert.equal(r.inputs.training.precision, 'fp8');
  assert.equal(r.inputs.model.seq_len, 16384);
  // A field changed in the Plan form makes it a search of its own: Train's changes no longer move it.
  await field(page, 'plan', 'count').fill('128');
  await field(page, 'plan', 'count').press('Tab');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.plan?.scenario.hardware.count === 128, null, { timeout: 30000 });
  assert.match(await page.locator('gpu-calc [data-plan-follow]').textContent(), /setup in these fields/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('with the batch left blank, Train\u2019s automatic layout and the Plan search\u2019s fastest plan agree, also when the Plan form is edited', async () => {
  // A newcomer's review: Train gave TP 4 · PP 2 · DP 512 (batch 512) for Llama 3 70B on 4,096 H100, the Plan
  // search TP 4 · PP 8 · DP 128 because its form kept a fixed batch (384 then, 1,536 by default).
  const { page, context, errors } = await open(chrome.browser);
  await field(page, 'train', 'model').selectOption('llama3-70b');
  await field(page, 'train', 'count').fill('4096');
  await field(page, 'train', 'count').press('Tab');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.hardware.count === 4096);
  const t = (await report(page, 'train')).inputs.training;
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('plan', true));
  // Edited: the Plan form is the reader's own search now, its batch still blank (the search chooses it).
  await field(page, 'plan', 'model').selectOption('llama3-70b');
  await field(page, 'plan', 'count').fill('4096');
  await field(page, 'plan', 'count').press('Tab');
  await page.waitForFunction(
    () => {
      const p = document.querySelector('gpu-calc')._last.plan;
      return p && !p.following && p.scenario.hardware.count === 4096 && p.report.plan.best.length > 0;
    },
    null,
    { timeout: 60000 }
  );
  assert.equal(await field(page, 'plan', 'global_batch').inputValue(), '');
  const plans = await page.evaluate(() => document.querySelector('gpu-calc')._last.plan.report.plan.best);
  const shown = JSON.stringify(plans.slice(0, 3).map((p) => [p.tp, p.pp, p.dp, p.global_batch, Math.round(p.tokens_per_second)]));
  for (const k of ['tp', 'pp', 'dp', 'global_batch']) assert.equal(plans[0][k], t[k], k + ' ' + shown);
  assert.deepEqual(errors, []);
  await context.close();
});

test('after a reload the plan search still follows Train, a typed "GPUs per copy" stays typed, and Serve picks a count that tiles the experts', async () => {
  // A second red-team pass: what followed what was kept in memory only, so a reload (or a shared link)
  // made the Plan form look edited and "Use the fastest plan" replaced the Train run again; a typed
  // GPUs per copy was overwritten after a reload; and the automatic one ignored expert parallelism.
  const { page, context, errors } = await open(chrome.browser);
  await field(page, 'serve', 'tp').fill('8');
  await field(page, 'serve', 'tp').press('Tab');
  await page.evaluate(() => document.querySelector('gpu-calc').persistNow()); // the state is saved to the URL (else after 150 ms)
  await page.reload();
  await page.waitForSelector('gpu-calc .answer:not(.waiting)', { timeout: 15000 });
  await field(page, 'train', 'model').selectOption('llama3-8b');
  await field(page, 'train', 'count').fill('64');
  await field(page, 'train', 'precision').selectOption('fp8');
  await field(page, 'train', 'precision').press('Tab');
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('plan', true));
  await page.waitForFunction(
    () => {
      const p = document.querySelector('gpu-calc')._last.plan;
      return p && p.following && p.scenario.hardware.count === 64 && p.scenario.training.precision === 'fp8';
    },
    null,
    { timeout: 30000 }
  );
  await card(page, 'plan').locator('[data-action="use-plan"]').click();
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.training.layout !== 'auto');
  const r = await report(page, 'train');
  assert.equal(r.inputs.model.preset, 'llama3-8b');
  assert.equal(r.inputs.training.precision, 'fp8');
  // The typed GPUs per copy survived the reload.
  await field(page, 'serve', 'model').selectOption('llama3-8b');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report.inputs.model.preset === 'llama3-8b');
  assert.equal((await report(page, 'serve')).inputs.inference.tp, 8);
  // Cleared, it follows again, and with experts over 8 GPUs it keeps tp x ep within the count.
  await field(page, 'serve', 'tp').fill('');
  await field(page, 'serve', 'tp').press('Tab');
  await field(page, 'serve', 'model').selectOption('mixtral-8x7b');
  await page.locator('gpu-calc section[data-section="serve"] [data-group="more"] > summary').click();
  await field(page, 'serve', 'ep').fill('8');
  await field(page, 'serve', 'ep').press('Tab');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report.inputs.inference.ep === 8);
  const s = await report(page, 'serve');
  assert.equal(s.errors, undefined);
  assert.equal(s.inputs.inference.tp, null);
  assert.equal(s.inference.tp, 1);
  // A copy is tp x ep GPUs: said beside the field.
  assert.equal(
    await page.locator('gpu-calc #serve-tp-parsed').textContent(),
    '= 1 GPU, chosen for the model (type a number to set your own); \u00d7 8 for the experts = 8 GPUs per copy'
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('the fastest plan of an opened famous run (DeepSeek-V3, DualPipe, FP8) still fits and is not slower when used', async () => {
  // A page review: the followed search left out DualPipe (kept in the opened scenario's settings), so
  // its fastest plan needed 92 GiB once used, and its interleaving was bounded below Train's own.
  const { page, context, errors } = await open(chrome.browser);
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('reality', true));
  const row = page.locator('gpu-calc table.runs tr', { hasText: 'DeepSeek-V3' }).filter({ hasText: 'GPU-hours' }).first();
  await row.locator('button').click();
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.model.preset === 'deepseek-v3');
  const before = (await report(page, 'train')).training;
  assert.equal(before.fits, true);
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('plan', true));
  await page.waitForFunction(
    () => {
      const el = document.querySelector('gpu-calc');
      const p = el._last.plan;
      return p && p.following && p.scenario.training.dualpipe === true && /Done/.test(el.shadowRoot.querySelector('.plan-status')?.textContent);
    },
    null,
    { timeout: 120000 }
  );
  await card(page, 'plan').locator('[data-action="use-plan"]').click();
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.training.layout !== 'auto');
  const after = (await report(page, 'train')).training;
  assert.equal(after.fits, true, after.infeasible_reason);
  assert.ok(after.tokens_per_second >= before.tokens_per_second * (1 - 1e-9), after.tokens_per_second + ' < ' + before.tokens_per_second);
  assert.deepEqual(errors, []);
  await context.close();
});

test('two fields in error are marked at once, and an unreadable field raises no error on the fields it sizes', async () => {
  const { page, context } = await open(chrome.browser);
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('reality', true));
  await field(page, 'reality', 'count').fill('-5');
  await field(page, 'reality', 'count').press('Tab');
  await field(page, 'reality', 'days').fill('90-100');
  await field(page, 'reality', 'days').press('Tab');
  await page.waitForFunction(
    () => document.querySelector('gpu-calc').shadowRoot.querySelectorAll('section[data-section="reality"] [aria-invalid]').length === 2
  );
  assert.match(await page.locator('gpu-calc #reality-days-error').textContent(), /is a range, and this field takes one value/);
  assert.match(await page.locator('gpu-calc #reality-count-error').textContent(), /at least 1/);
  // Train: tp 8 x pp 4 on GPUs "lots": the count is the only field in error (its default of 1 is not the reader's).
  await page.locator('gpu-calc section[data-section="train"] [data-group="layout"] > summary').click();
  await field(page, 'train', 'tp').fill('8');
  await field(page, 'train', 'pp').fill('4');
  await field(page, 'train', 'count').fill('lots');
  await field(page, 'train', 'count').press('Tab');
  await page.waitForFunction(() => document.querySelector('gpu-calc').shadowRoot.getElementById('train-count')?.getAttribute('aria-invalid') === 'true');
  assert.equal(await field(page, 'train', 'tp').getAttribute('aria-invalid'), null);
  await context.close();
});

test('"GPUs per copy" follows the model and GPU until typed: Llama 3 8B on a 4090 runs on one, 70B on H100 on four', async () => {
  // A newcomer's review: the 70B default of 4 stayed when a student picked 8B on a 4090 ("Runs on
  // 4 x GeForce RTX 4090"), and 1 GPU available was then an error on another field.
  const { page, context, errors } = await open(chrome.browser, undefined, { viewport: { width: 390, height: 844 }, colorScheme: 'dark' });
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('serve', true));
  const fit = card(page, 'serve').locator('.fit');
  await field(page, 'serve', 'model').selectOption('llama3-8b');
  await field(page, 'serve', 'device').selectOption('nvidia-rtx-4090');
  await field(page, 'serve', 'count').fill('1');
  await field(page, 'serve', 'count').press('Tab');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report.inputs.hardware.count === 1);
  // Left blank, the core chooses it (inference.tp omitted) and the page says so beside the field.
  assert.equal(await field(page, 'serve', 'tp').inputValue(), '');
  assert.equal((await report(page, 'serve')).inference.tp, 1);
  assert.equal(await page.locator('gpu-calc #serve-tp-parsed').textContent(), '= 1 GPU, chosen for the model (type a number to set your own)');
  // It runs; the page's default traffic (1M requests a day) needs more than the one GPU: said in the headline.
  assert.match(await fit.textContent(), /^\u26a0 Runs on GeForce RTX 4090: .* The 1 GPU given is not enough for the traffic: [\d,]+ are needed\.$/);
  await field(page, 'serve', 'model').selectOption('llama3-70b');
  await field(page, 'serve', 'device').selectOption('nvidia-h100-sxm5-80gb');
  await field(page, 'serve', 'count').fill('8');
  await field(page, 'serve', 'count').press('Tab');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report.inference.tp === 4);
  assert.match(await fit.textContent(), /Runs on 4 \u00d7 H100/);
  assert.equal(await page.locator('gpu-calc #serve-tp-parsed').textContent(), '= 4 GPUs, chosen for the model (type a number to set your own)');
  // Typed, it stays the reader's.
  await field(page, 'serve', 'tp').fill('8');
  await field(page, 'serve', 'tp').press('Tab');
  await field(page, 'serve', 'model').selectOption('llama3-8b');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report.inputs.model.preset === 'llama3-8b');
  assert.equal((await report(page, 'serve')).inputs.inference.tp, 8);
  assert.equal((await report(page, 'serve')).inference.tp_source, 'given');
  assert.doesNotMatch(await page.locator('gpu-calc #serve-tp-parsed').textContent(), /chosen/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('every famous run and claim opens in a form, with the result its verdict was judged on', async () => {
  const { page, context } = await open(chrome.browser);
  await page.locator('gpu-calc table.runs tbody tr').first().waitFor({ timeout: 20000 });
  const reality = await page.evaluate(() => document.querySelector('gpu-calc')._reality);
  for (const run of reality.runs) {
    await page.locator(`gpu-calc button[data-open-run="${run.id}"]`).first().click();
    assert.equal(await page.evaluate(() => document.querySelector('gpu-calc').shadowRoot.activeElement?.id), 'h-train', run.id);
    await page.waitForFunction(() => document.querySelector('gpu-calc').shadowRoot.querySelector('section[data-section="train"] .origin'));
    const r = await report(page, 'train');
    assert.ok(r, run.id + ' has a result');
    for (const k of ['days', 'cost_usd', 'mfu']) {
      if (run.estimate[k] === null || run.estimate[k] === undefined) continue;
      assert.ok(Math.abs(r.training[k] - run.estimate[k]) <= 1e-9 * Math.abs(run.estimate[k]), `${run.id} ${k}: ${r.training[k]} vs ${run.estimate[k]}`);
    }
    assert.match(
      await page.locator('gpu-calc section[data-section="train"] .origin').textContent(),
      new RegExp('Famous run: ' + run.name.replace(/[()+.]/g, '.'))
    );
  }
  const expected = { cluster: 'cluster', compare: 'explain', training: 'train', inference: 'serve' };
  for (const claim of reality.claims) {
    await page.locator(`gpu-calc button[data-open-claim="${claim.id}"]`).click();
    const sec =
      Object.keys(expected)
        .map((k) => (claim.scenario[k] ? expected[k] : null))
        .filter(Boolean)
        .pop() || 'cluster';
    assert.equal(await page.evaluate(() => document.querySelector('gpu-calc').shadowRoot.activeElement?.id), 'h-' + sec, claim.id);
    const origin = page.locator(`gpu-calc section[data-section="${sec}"] .origin`);
    assert.match(await origin.textContent(), new RegExp(claim.verdict));
    // The values the verdict was judged on are the ones on screen: the claim's own case where it names
    // one (io.net's GPUs over the internet with DiLoCo, not in one data centre), else for "depends" a
    // case where it holds.
    const pick =
      (Number.isInteger(claim.open_case) ? claim.evaluations[claim.open_case] : null) ||
      (claim.verdict === 'depends' ? claim.evaluations.find((e) => e.consistent) : null) ||
      claim.evaluations[0];
    if (claim.id.startsWith('ionet')) assert.equal(pick.scenario.hardware.network, 'internet-1g', JSON.stringify(pick.scenario));
    const r = await report(page, sec);
    for (const [metric, v] of Object.entries(pick.values)) {
      const got = metric.split('.').reduce((o, k) => o[k], r);
      assert.ok(Math.abs(Number(got) - v) <= 1e-9 * Math.abs(v), `${claim.id} ${metric}: ${got} vs ${v}`);
    }
    if (claim.verdict === 'depends') assert.match(await origin.textContent(), /the claim holds here/);
    // Numbers in words: no 50000000.0, no key suffix like "usd" beside a dollar figure.
    assert.doesNotMatch(await origin.textContent(), /\d{5,}\.\d|\b(usd|seconds|bytes)\b/, claim.id);
  }
  await context.close();
});

test('a question clicked on a fresh page keeps its section at the top while the sections above it are answered', async () => {
  // A newcomer's review: the sections above were built after the jump and pushed the target down
  // (3 of 5 tries landed on "Explain"); the plan search answering in its worker moved it too.
  for (const [viewport, q, sec, target] of [
    [{ width: 1280, height: 900 }, 'I have N', 'reality', 'h-reality'],
    [{ width: 390, height: 844 }, 'Is this claim right', 'reality', 'claims-checked'],
    [{ width: 1280, height: 900 }, 'Why GPUs', 'explain', 'h-explain']
  ]) {
    const { page, context } = await open(chrome.browser, undefined, { viewport });
    await page.locator('gpu-calc .questions a', { hasText: q }).click();
    await page.locator('gpu-calc [data-answer="plan"]:not(.waiting)').waitFor({ timeout: 20000 });
    // The section asked about is answered, not left "Computing…" (the idle fill skipped it once built).
    await page.locator(`gpu-calc [data-answer="${sec}"]:not(.waiting)`).waitFor({ timeout: 20000 });
    await page.waitForTimeout(500);
    const m = await page.evaluate((id) => {
      const r = document.querySelector('gpu-calc').shadowRoot;
      return { top: r.getElementById(id).getBoundingClientRect().top, nav: r.querySelector('nav').getBoundingClientRect().height };
    }, target);
    assert.ok(m.top >= 0 && m.top < m.nav + 40, `${q} (${sec}, ${viewport.width} px): ${target} at ${m.top}, nav ${m.nav}`);
    await context.close();
  }
});

test('the first screen offers the questions people come with; each leads to the section that answers it, its answer in view', async () => {
  const { page, context } = await open(chrome.browser, undefined, { viewport: { width: 1280, height: 900 } });
  const questions = page.locator('gpu-calc .questions a');
  const list = await questions.evaluateAll((as) => as.map((a) => [a.textContent, a.dataset.section, a.getBoundingClientRect().bottom]));
  assert.deepEqual(
    list.map(([, s]) => s),
    ['train', 'serve', 'serve', 'finetune', 'reality', 'reality', 'explain']
  );
  for (const [, , bottom] of list) assert.ok(bottom < 900, 'the questions are on the first screen');
  assert.match(
    list.map(([q]) => q).join('\n'),
    /How long and how much to train model X on Y GPUs\?\nCan I run model X on my GPU\?.*\nHow many GPUs to serve X to N users/
  );
  for (let i = 0; i < list.length; i++) {
    await page.evaluate(() => scrollTo(0, 0));
    await questions.nth(i).click();
    const sec = list[i][1];
    await page.locator(`gpu-calc [data-answer="${sec}"]:not(.waiting)`).waitFor({ timeout: 20000 });
    // "Is this claim right?" lands on the famous runs and claims (a newcomer's review: it showed the
    // cluster card above them); the others on their section, its answer in view.
    const claims = /claim/.test(list[i][0]);
    const m = await page.evaluate(
      ([s, claims]) => {
        const r = document.querySelector('gpu-calc').shadowRoot;
        const at = claims ? r.querySelector('#claims-checked') : r.querySelector(`[data-answer="${s}"]`);
        return { focused: r.activeElement?.id, answerTop: at.getBoundingClientRect().top };
      },
      [sec, claims]
    );
    assert.equal(m.focused, claims ? 'claims-checked' : 'h-' + sec);
    assert.ok(m.answerTop > 0 && m.answerTop < 900 - 60, `${sec}: answer at ${m.answerTop}`);
  }
  // The first section's answer is on the first screen too.
  await page.evaluate(() => scrollTo(0, 0));
  assert.ok((await card(page, 'train').evaluate((c) => c.getBoundingClientRect().top)) < 900);
  await context.close();
});

test('a reload opens at the section the reader scrolled to, not at the last question clicked', async () => {
  // A newcomer's review: after a question opened Reality and the reader scrolled up to Serve, a
  // reload jumped back to Reality (the state kept the question's section).
  const { page, context, errors } = await open(chrome.browser);
  await page.locator('gpu-calc .questions a', { hasText: 'I have N' }).click();
  await page.locator('gpu-calc [data-answer="reality"] [data-figure="net-one_cluster"]').waitFor({ timeout: 30000 });
  await page.waitForTimeout(500);
  // The reader scrolls (a wheel ends the pin) until Serve's heading is at the top.
  await page.mouse.wheel(0, -10);
  await page.evaluate(() => {
    const el = document.querySelector('gpu-calc');
    const nav = el.shadowRoot.querySelector('nav').getBoundingClientRect().height;
    scrollBy(0, el.shadowRoot.getElementById('h-serve').getBoundingClientRect().top - nav - 8);
  });
  await page.waitForFunction(() => document.querySelector('gpu-calc')._state.view.section === 'serve');
  await page.waitForFunction(() => /^#/.test(location.hash) && document.querySelector('gpu-calc')._persistTimer !== undefined);
  await page.evaluate(() => document.querySelector('gpu-calc').persistNow());
  await page.reload();
  await page.locator('gpu-calc [data-answer="serve"]:not(.waiting)').waitFor({ timeout: 30000 });
  await page.waitForTimeout(800);
  const top = await page.evaluate(() => {
    const r = document.querySelector('gpu-calc').shadowRoot;
    return { serve: r.getElementById('h-serve').getBoundingClientRect().top, nav: r.querySelector('nav').getBoundingClientRect().height };
  });
  assert.ok(top.serve >= 0 && top.serve < top.nav + 60, `Serve's heading at ${top.serve} px (nav ${top.nav})`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Serve sized by requests in flight: the traffic field steps aside, the GPUs hold them, and the CLI agrees', async () => {
  // "How many GPUs for 1,000 concurrent users?": the traffic was requests a day only (a newcomer's review).
  const { page, context, errors } = await open(chrome.browser);
  const traffic = page.locator('gpu-calc section[data-section="serve"] .field[data-key="requests_per_day"]');
  await traffic.waitFor(); // visible once Serve is built
  await field(page, 'serve', 'concurrent_requests').fill('1000');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report.inputs.inference.concurrent_requests === 1000);
  assert.equal(await traffic.isVisible(), false, 'Traffic is hidden while the requests in flight size the GPUs');
  const { scenario, report: r } = await page.evaluate(() => document.querySelector('gpu-calc')._last.serve);
  assert.equal(scenario.inference.requests_per_day, undefined, 'the hidden traffic is not sent');
  const native = JSON.parse(nativeEstimates([JSON.stringify(scenario)])[0]);
  assert.equal(native.inference.gpus_needed, r.inference.gpus_needed);
  assert.equal(r.inference.instances_needed, Math.ceil(1000 / r.inference.batch));
  assert.match(
    await card(page, 'serve').locator('[data-figure="gpus"] .sub').textContent(),
    /^1,000 requests in flight at the peak: [\d.,]+\s?[kM]? a day if the peak is 2\.00\u00d7 the average$/
  );
  // Cleared, the traffic a day is back and sent again.
  await field(page, 'serve', 'concurrent_requests').fill('');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report.inputs.inference.requests_per_day === 1e6);
  assert.equal(await traffic.isVisible(), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a prompt longer than the model\u2019s context is said in the Serve headline, not only in the warnings at the foot', async () => {
  const { page, context } = await open(chrome.browser);
  const c = card(page, 'serve');
  await field(page, 'serve', 'prompt_tokens').fill('');
  await field(page, 'serve', 'prompt_tokens').pressSequentially('200k', { delay: 5 });
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report?.inference.context_tokens > 200000);
  assert.equal(await c.locator('.fit').getAttribute('data-fit'), 'short');
  const r = (await report(page, 'serve')).inference;
  assert.equal(r.context_limit_tokens, 8192);
  assert.match(
    await c.locator('.fit').textContent(),
    new RegExp(
      'The prompt and output \\(' +
        (await page.evaluate((n) => globalThis.gpucalcFormat.count(n), r.context_tokens)) +
        ' tokens\\) are longer than the model\u2019s context \\(8,192\\)'
    )
  );
  await field(page, 'serve', 'prompt_tokens').fill('4000');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report?.inference.context_tokens < 8192);
  assert.doesNotMatch(await c.locator('.fit').textContent(), /longer than the model/);
  await context.close();
});

test('a model typed as a parameter count in Train is searched by the Plan search too, and its fastest plan is the layout Train runs', async () => {
  // A newcomer's review: Train answered 1.8T parameters (280B active) on 25,000 A100s with "Layout
  // chosen by the plan search", while the Plan search showed "not available: custom-params".
  const { page, context, errors } = await open(chrome.browser);
  await field(page, 'train', 'model').selectOption('custom-params');
  await field(page, 'train', 'params').pressSequentially('1.8T', { delay: 5 });
  await field(page, 'train', 'active_params').pressSequentially('280B', { delay: 5 });
  await field(page, 'train', 'device').selectOption('nvidia-a100-sxm4-40gb');
  await field(page, 'train', 'count').fill('');
  await field(page, 'train', 'count').pressSequentially('25,000', { delay: 5 });
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.hardware.count === 25000);
  await page.evaluate(() => document.querySelector('gpu-calc')._goto('plan', true));
  await page.waitForFunction(
    () => {
      const p = document.querySelector('gpu-calc')._last.plan;
      return p && p.following && p.scenario.model.params === 1.8e12 && p.scenario.hardware.count === 25000 && p.report.plan && p.report.plan.best.length > 0;
    },
    null,
    { timeout: 30000 }
  );
  assert.equal(await field(page, 'plan', 'model').inputValue(), 'custom-params');
  assert.equal(await field(page, 'plan', 'params').inputValue(), '1.8T');
  assert.doesNotMatch(await page.locator('gpu-calc section[data-section="plan"]').textContent(), /not available/);
  const best = (await page.evaluate(() => document.querySelector('gpu-calc')._last.plan.report)).plan.best[0];
  const t = (await report(page, 'train')).inputs.training;
  for (const k of ['tp', 'pp', 'dp', 'micro_batch']) assert.equal(t[k], best[k], k);
  assert.match(await card(page, 'plan').locator('[data-note="shape"]').textContent(), /laid out as a GPT-like shape: 114 layers, hidden 14,336/);
  assert.deepEqual(errors, []);
  await context.close();
});
