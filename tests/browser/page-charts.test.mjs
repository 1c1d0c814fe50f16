// The charts (web/chart-svg.js, web/charts.js) read as a person reads them: tick labels where the
// axis puts their values (powers of the base on log axes, 1-2-5 steps on linear ones), the marker at
// the answer's batch, the legend naming each series in its colour with the values of a point before
// any hover, and hover, tap (phone) and the arrow keys showing the nearest point's values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, pageUrl, report, field } from './browser.mjs';

const chrome = useBrowser();

// The chart of a section, drawn (charts are drawn when near the viewport): its ticks, marker,
// series and legend as laid out, positions in the svg's px.
async function chart(page, section) {
  const holder = page.locator(`gpu-calc .chart-holder[data-chart^="${section}:"]`).first();
  await holder.scrollIntoViewIfNeeded();
  await holder.locator('svg').first().waitFor();
  return holder.evaluate((h) => {
    const svg = h.querySelector('svg');
    const ticks = (cls) =>
      [...svg.querySelectorAll('text.' + cls)].map((t) => ({ v: Number(t.dataset.v), s: t.textContent, x: +t.getAttribute('x'), y: +t.getAttribute('y') }));
    const mark = svg.querySelector('.mark');
    const p = svg.querySelector('svg.plot');
    const r = svg.getBoundingClientRect();
    return {
      x: ticks('tick-x'),
      y: ticks('tick-y'),
      y2: ticks('tick-y2'),
      mark: mark && { x: +mark.dataset.x, line: +mark.querySelector('line').getAttribute('x1'), label: mark.querySelector('text').textContent },
      plot: { x: +p.getAttribute('x') + 3, y: +p.getAttribute('y') + 3, w: +p.getAttribute('width') - 6, h: +p.getAttribute('height') - 6 },
      paths: [...svg.querySelectorAll('path.series')].map((e) => ({ d: e.getAttribute('d'), stroke: e.getAttribute('stroke') })),
      dots: [...svg.querySelectorAll('svg.plot circle')].map((c) => [+c.getAttribute('cx'), +c.getAttribute('cy')]),
      cursor: [...svg.querySelectorAll('.cursor circle')].map((c) => ({ x: +c.getAttribute('cx'), fill: c.getAttribute('fill') })),
      legend: legendOf(h.parentElement.querySelector('.chart-legend')),
      origin: { x: r.left, y: r.top }
    };
    function legendOf(box) {
      return {
        x: box.querySelector('.chart-x').textContent,
        keys: [...box.querySelectorAll('.chart-key')].map((k) => ({
          name: k.dataset.series,
          text: k.textContent,
          color: k.querySelector('svg > *').getAttribute('stroke') || k.querySelector('svg > *').getAttribute('fill')
        }))
      };
    }
  });
}

const legendNow = (page, section) =>
  page.locator(`gpu-calc .chart-legend[data-legend^="${section}:"]`).evaluate((b) => [...b.children].map((c) => c.textContent.replace(/[ \n]+/g, ' ').trim()));
const fmt = (page, name, v) => page.evaluate(([n, x]) => globalThis.gpucalcFormat[n](x), [name, v]);
// A tick label is the formatter's text without trailing zero decimals (3.50 M -> 3.5 M, 4.00 M -> 4 M).
const tickText = (s) => s.replace(/(\.\d*?[1-9])0+(?!\d)|\.0+(?!\d)/, '$1');

// Where the axis puts value v: interpolated between the two labelled ticks around it (log scale).
function axisPx(ticks, v) {
  const t = ticks.slice().sort((a, b) => a.v - b.v);
  const i = Math.max(
    1,
    Math.min(
      t.length - 1,
      t.findIndex((k) => k.v >= v)
    )
  );
  const [a, b] = [t[i - 1], t[i]];
  return a.x + ((Math.log(v) - Math.log(a.v)) / (Math.log(b.v) - Math.log(a.v))) * (b.x - a.x);
}

function assertLogTicks(ticks, base, what) {
  assert.ok(ticks.length >= 3, `${what}: ${ticks.length} ticks`);
  const k = ticks.map((t) => Math.log(t.v) / Math.log(base));
  for (const e of k) assert.ok(Math.abs(e - Math.round(e)) < 1e-9, `${what}: ${ticks.map((t) => t.v)} are not powers of ${base}`);
  // Evenly spaced powers at even distances: the axis is logarithmic.
  const step = k[1] - k[0];
  const coord = ticks[0].x === ticks[1].x ? 'y' : 'x';
  const n = ticks.length - 1;
  const px = (ticks[n][coord] - ticks[0][coord]) / (k[n] - k[0]);
  ticks.forEach((t, i) => {
    assert.ok(Math.abs(k[i] - k[0] - i * step) < 1e-9, `${what}: uneven powers ${k}`);
    assert.ok(Math.abs(t[coord] - ticks[0][coord] - px * (k[i] - k[0])) < 1, `${what}: tick ${t.s} off the log scale`);
  });
}

test('log axes label powers of the base (2 for GPUs, batch and intensity; 10 for speeds), linear ones 1-2-5 steps; every label is its value, formatted', async () => {
  const { page, context } = await open(chrome.browser);
  const train = await chart(page, 'train');
  assertLogTicks(train.x, 2, 'train x');
  for (const t of train.x) assert.equal(t.s, tickText(await fmt(page, 'count', t.v)));
  const dy = train.y[1].v - train.y[0].v;
  const mant = dy / 10 ** Math.floor(Math.log10(dy));
  assert.ok(
    [1, 2, 5].some((m) => Math.abs(mant - m) < 1e-9),
    `train y step ${dy}`
  );
  train.y.forEach((t, i) => assert.ok(Math.abs(t.v - train.y[0].v - i * dy) < dy * 1e-9, `train y ${t.v}`));
  assert.equal(train.y[0].v, 0, 'tokens/s from 0');
  for (const t of train.y) assert.equal(t.s, tickText(await fmt(page, 'count', t.v)));
  // Efficiency on its own axis, on the right, 0-105 %.
  assert.ok(train.y2.length >= 3 && train.y2.every((t) => t.v >= 0 && t.v <= 1.05 && t.x > train.plot.x + train.plot.w), JSON.stringify(train.y2));
  for (const t of train.y2) assert.equal(t.s, tickText(await fmt(page, 'percent', t.v)));
  const serve = await chart(page, 'serve');
  assertLogTicks(serve.x, 2, 'serve x');
  assertLogTicks(serve.y, 10, 'serve y');
  const explain = await chart(page, 'explain');
  assertLogTicks(explain.x, 2, 'roofline x');
  assertLogTicks(explain.y, 10, 'roofline y');
  for (const t of explain.x) assert.equal(t.s, t.v < 1 ? '1/' + (1 / t.v).toLocaleString('en-US') : tickText(await fmt(page, 'count', t.v)));
  for (const t of explain.y) assert.equal(t.s, tickText(await fmt(page, 'flops', t.v)));
  await context.close();
});

test('the serve chart marks the answer\u2019s compute-bound batch where the batch axis puts it, and every line stays in the plot', async () => {
  const { page, context } = await open(chrome.browser);
  const c = await chart(page, 'serve');
  const turn = (await report(page, 'serve')).inference.turn_batch;
  assert.ok(turn > 1 && c.mark, JSON.stringify(c.mark));
  assert.equal(c.mark.x, turn);
  assert.equal(c.mark.label, 'compute-bound from ' + (await fmt(page, 'count', turn)));
  const want = axisPx(c.x, turn);
  assert.ok(Math.abs(c.mark.line - want) < 1, `marker at ${c.mark.line} px, the axis puts ${turn} at ${want.toFixed(1)} px`);
  for (const section of ['train', 'serve', 'explain', 'plan']) {
    const k = await chart(page, section);
    const pts = k.dots.concat(...k.paths.map((p) => p.d.match(/[\d.]+ [\d.]+/g).map((s) => s.split(' ').map(Number))));
    assert.ok(pts.length > 4, section);
    for (const [x, y] of pts)
      assert.ok(x >= k.plot.x - 0.1 && x <= k.plot.x + k.plot.w + 0.1 && y >= k.plot.y - 0.1 && y <= k.plot.y + k.plot.h + 0.1, `${section}: ${x}, ${y}`);
  }
  // A 2,500-token prompt leaves room for 194 sequences on 8 H100s, below the compute-bound batch (236)
  // that the curve (up to 256) still shows: the marker and the title say it does not fit.
  await field(page, 'serve', 'prompt_tokens').fill('2500');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report?.inference?.max_batch === 194);
  const long = await report(page, 'serve');
  assert.ok(long.inference.turn_batch > long.inference.max_batch, JSON.stringify(long.inference.turn_batch));
  const k = await chart(page, 'serve');
  assert.equal(k.mark.label, 'compute-bound from ' + (await fmt(page, 'count', long.inference.turn_batch)) + ' (does not fit)');
  const title = await page.locator('gpu-calc [data-results="serve"] figcaption').allTextContents();
  assert.ok(
    title.some((t) => t.includes('more than the 194 that fit')),
    JSON.stringify(title)
  );
  await context.close();
});

test('on a 320 px phone the serve marker keeps its label inside the plot, in its short form where the full one has no room', async () => {
  const { page, context } = await open(chrome.browser, pageUrl(), { viewport: { width: 320, height: 700 }, isMobile: true, hasTouch: true });
  // Llama 3 8B in int4 on one A100 with an 8,000-token prompt: compute-bound from 66, 65 fit (red-team: cut at 320 px).
  await field(page, 'serve', 'model').selectOption('llama3-8b');
  await field(page, 'serve', 'device').selectOption('nvidia-a100-sxm4-80gb');
  await field(page, 'serve', 'count').fill('1');
  await field(page, 'serve', 'weights').selectOption('int4');
  await field(page, 'serve', 'prompt_tokens').fill('8000');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.serve?.report?.inference?.max_batch === 65);
  const c = await chart(page, 'serve');
  assert.equal(c.mark.label, '66: does not fit');
  const box = await page
    .locator('gpu-calc [data-chart^="serve:"] .mark text')
    .first()
    .evaluate((t) => {
      const b = t.getBBox();
      return { x: b.x, w: b.width };
    });
  assert.ok(box.x >= c.plot.x - 4 && box.x + box.w <= c.plot.x + c.plot.w + 4, JSON.stringify([box, c.plot]));
  await context.close();
});

// The scaling curve's point nearest the run's own GPU count (the chart's marker).
const atRun = (r) =>
  r.scaling.reduce((b, p) => (Math.abs(Math.log(p.gpus / r.inputs.hardware.count)) < Math.abs(Math.log(b.gpus / r.inputs.hardware.count)) ? p : b));

test('before any hover the legend names each series in its line\u2019s colour, with the values at the marker\u2019s batch (serve) or GPU count (train)', async () => {
  const { page, context } = await open(chrome.browser);
  const train = await chart(page, 'train');
  const last = atRun(await report(page, 'train'));
  assert.deepEqual(
    train.legend.keys.map((k) => k.name),
    ['tokens/s', 'efficiency']
  );
  assert.deepEqual(
    train.legend.keys.map((k) => k.color),
    train.paths.map((p) => p.stroke)
  );
  assert.deepEqual(await legendNow(page, 'train'), [
    'GPUs ' + (await fmt(page, 'count', last.gpus)),
    'tokens/s ' + (await fmt(page, 'count', last.tokens_per_second)),
    'efficiency ' + (await fmt(page, 'percent', last.efficiency))
  ]);
  const serve = await chart(page, 'serve');
  const inf = (await report(page, 'serve')).inference;
  const i = inf.batch_curve.reduce((b, p, j, a) => (Math.abs(Math.log(p.batch / inf.turn_batch)) < Math.abs(Math.log(a[b].batch / inf.turn_batch)) ? j : b), 0);
  assert.match(serve.legend.x, new RegExp('^batch ' + (await fmt(page, 'count', inf.batch_curve[i].batch)) + '$'));
  assert.deepEqual(
    serve.legend.keys.map((k) => k.color),
    serve.paths.map((p) => p.stroke)
  );
  // The selected point is marked on each line, in the line's colour.
  assert.deepEqual(
    serve.cursor.map((d) => d.fill),
    serve.paths.map((p) => p.stroke)
  );
  for (const section of ['train', 'serve', 'explain', 'plan']) {
    // Not a live region until the reader moves through the points: drawing the charts reads nothing out.
    assert.equal(await page.locator(`gpu-calc .chart-legend[data-legend^="${section}:"]`).getAttribute('aria-live'), null);
    const l = await legendNow(page, section);
    assert.ok(l.length >= 2 && l.every((s) => !/\u2014|^\S+$/.test(s)), `${section}: ${l}`);
  }
  await context.close();
});

test('the plan chart\u2019s legend says which layout the selected point is (TP, PP, MFU), first the fastest, then each point the arrow keys reach', async () => {
  const { page, context } = await open(chrome.browser);
  await chart(page, 'plan');
  const holder = page.locator('gpu-calc .chart-holder[data-chart^="plan:"]');
  // The data table: TP, PP, tokens/s, memory/GPU, MFU, step per point, in the chart's order.
  const rows = await holder.evaluate((h) =>
    [...h.closest('figure').querySelectorAll('details tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent))
  );
  assert.ok(rows.length > 2, JSON.stringify(rows));
  const check = async () => {
    const l = await legendNow(page, 'plan');
    const row = rows.find((r) => l[0] === 'memory per GPU ' + r[3] && l[1] === 'tokens/s ' + r[2]);
    assert.ok(row, `no table row for the legend ${JSON.stringify(l)}`);
    assert.equal(l[2], `TP ${row[0]}, PP ${row[1]}, MFU ${row[4]}, step ${row[5]}`);
    return row;
  };
  const first = await check();
  // Selected first: the fastest layout, the most tokens per second: its MFU, read back from the table's
  // text, is the highest (step times differ in tokens: an interleaved plan steps in groups of pp
  // micro-batches, a larger batch).
  const mfu = (t) => {
    const m = t.match(/^([\d.]+)\s*%$/);
    assert.ok(m, `MFU ${t}`);
    return Number(m[1]);
  };
  assert.equal(mfu(first[4]), Math.max(...rows.map((r) => mfu(r[4]))));
  await holder.focus();
  await page.keyboard.press('ArrowLeft');
  const second = await check();
  assert.notDeepEqual(second, first);
  await context.close();
});

test('hovering the serve chart shows the nearest batch\u2019s values in the legend and dots on both lines; the arrow keys step to the neighbours', async () => {
  const { page, context } = await open(chrome.browser);
  const c = await chart(page, 'serve');
  const curve = (await report(page, 'serve')).inference.batch_curve;
  for (const i of [0, 3, curve.length - 2]) {
    const p = curve[i];
    const x = axisPx(c.x, p.batch);
    await page.mouse.move(c.origin.x + x + 2, c.origin.y + c.plot.y + c.plot.h / 2);
    assert.deepEqual(await legendNow(page, 'serve'), [
      'batch ' + (await fmt(page, 'count', p.batch)),
      'per GPU ' + (await fmt(page, 'count', p.throughput_tokens_per_second_per_gpu)),
      'per user ' + (await fmt(page, 'count', p.output_tokens_per_second_per_user))
    ]);
    const dots = (await chart(page, 'serve')).cursor;
    assert.equal(dots.length, 2);
    for (const d of dots) assert.ok(Math.abs(d.x - x) < 1, `dot at ${d.x}, batch ${p.batch} at ${x}`);
  }
  // Keyboard: the chart takes focus; left and right step through the batches.
  await page.locator('gpu-calc .chart-holder[data-chart^="serve:"]').focus();
  await page.keyboard.press('ArrowLeft');
  assert.equal((await legendNow(page, 'serve'))[0], 'batch ' + (await fmt(page, 'count', curve[curve.length - 3].batch)));
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal((await legendNow(page, 'serve'))[0], 'batch ' + (await fmt(page, 'count', curve[curve.length - 1].batch)));
  assert.equal(await page.locator('gpu-calc .chart-legend[data-legend^="serve:"]').getAttribute('aria-live'), 'polite');
  await context.close();
});

test('on a phone a tap on the scaling chart shows the tapped GPU count\u2019s tokens/s and efficiency; the selection survives an update', async () => {
  const { page, context } = await open(chrome.browser, pageUrl(), { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  const c = await chart(page, 'train');
  const sc = (await report(page, 'train')).scaling;
  const p = sc[1];
  const x = axisPx(c.x, p.gpus);
  await page.touchscreen.tap(c.origin.x + x + 3, c.origin.y + c.plot.y + c.plot.h - 10);
  const want = [
    'GPUs ' + (await fmt(page, 'count', p.gpus)),
    'tokens/s ' + (await fmt(page, 'count', p.tokens_per_second)),
    'efficiency ' + (await fmt(page, 'percent', p.efficiency))
  ];
  assert.deepEqual(await legendNow(page, 'train'), want);
  // The chart takes taps only: every gesture stays the browser's (page scroll, pinch zoom, the holder's sideways scroll).
  assert.equal(await page.locator('gpu-calc .chart-holder[data-chart^="train:"] > svg').evaluate((s) => getComputedStyle(s).touchAction), 'auto');
  // An update of the section redraws the chart at once, the tapped point still selected.
  const legend = page.locator('gpu-calc .chart-legend[data-legend^="train:"]');
  await legend.evaluate((b) => b.setAttribute('data-old', ''));
  await page.evaluate(() => document.querySelector('gpu-calc')._update('train'));
  await page.locator('gpu-calc .chart-legend[data-legend^="train:"]:not([data-old]) .chart-x').waitFor();
  assert.deepEqual(await legendNow(page, 'train'), want);
  await context.close();
});

test('switching to dark mode redraws the drawn charts in the dark palette, the plan search\u2019s chart too (without searching again)', async () => {
  const { page, context } = await open(chrome.browser);
  const light = await chart(page, 'train');
  assert.equal(light.paths[0].stroke, '#1864ab');
  const plan = await chart(page, 'plan');
  const searchedAt = () => page.evaluate(() => document.querySelector('gpu-calc')._last.plan.report.plan.t0);
  const searches = () => page.evaluate(() => document.querySelector('gpu-calc')._planId);
  const t0 = await searchedAt();
  const n0 = await searches();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => document.querySelector('gpu-calc').shadowRoot.querySelector('.chart-holder[data-chart^="plan:"]')?.dataset.theme === 'dark');
  // Train's answer is drawn again too; a search that follows Train would run again 400 ms after a
  // change there (web/follow.js), and a recolouring is none: after a second no search has started.
  await page.waitForTimeout(1000);
  assert.equal(await searches(), n0);
  const planDark = await chart(page, 'plan');
  assert.notEqual(planDark.dots.length, 0);
  assert.equal(planDark.dots.length, plan.dots.length);
  assert.equal(await searchedAt(), t0); // the same search's results, drawn again
  await page.waitForFunction(
    () => document.querySelector('gpu-calc').shadowRoot.querySelector('.chart-holder[data-chart^="train:"]')?.dataset.theme === 'dark'
  );
  const dark = await chart(page, 'train');
  assert.deepEqual(
    dark.paths.map((p) => p.stroke),
    ['#74c0fc', '#ffa94d']
  );
  assert.deepEqual(
    dark.legend.keys.map((k) => k.color),
    ['#74c0fc', '#ffa94d']
  );
  await context.close();
});

test('a new answer redraws the chart with its figures (a chart is reused only while its series and data are the same)', async () => {
  const { page, context } = await open(chrome.browser);
  const before = await chart(page, 'serve');
  const old = (await report(page, 'serve')).inference;
  await field(page, 'serve', 'device').selectOption('nvidia-a100-sxm4-80gb');
  await page.waitForFunction(
    (t) => JSON.stringify(document.querySelector('gpu-calc')._last.serve?.report?.inference?.batch_curve) !== t,
    JSON.stringify(old.batch_curve)
  );
  const inf = (await report(page, 'serve')).inference;
  await page.waitForFunction(
    (x) => document.querySelector('gpu-calc').shadowRoot.querySelector('.chart-holder[data-chart^="serve:"] .mark')?.dataset.x === String(x),
    inf.turn_batch
  );
  const after = await chart(page, 'serve');
  assert.notDeepEqual(
    after.paths.map((p) => p.d),
    before.paths.map((p) => p.d)
  );
  const i = inf.batch_curve.reduce((b, p, j, a) => (Math.abs(Math.log(p.batch / inf.turn_batch)) < Math.abs(Math.log(a[b].batch / inf.turn_batch)) ? j : b), 0);
  const p = inf.batch_curve[i];
  assert.deepEqual(await legendNow(page, 'serve'), [
    'batch ' + (await fmt(page, 'count', p.batch)),
    'per GPU ' + (await fmt(page, 'count', p.throughput_tokens_per_second_per_gpu)),
    'per user ' + (await fmt(page, 'count', p.output_tokens_per_second_per_user))
  ]);
  // The scaling chart's marker is the run's GPU count: the same series, new data (the chart is not reused).
  const sc0 = (await report(page, 'train')).scaling;
  const t0 = await chart(page, 'train');
  await field(page, 'train', 'model').selectOption('llama-65b');
  await page.waitForFunction((t) => JSON.stringify(document.querySelector('gpu-calc')._last.train?.report?.scaling) !== t, JSON.stringify(sc0));
  const last = atRun(await report(page, 'train'));
  const want = [
    'GPUs ' + (await fmt(page, 'count', last.gpus)),
    'tokens/s ' + (await fmt(page, 'count', last.tokens_per_second)),
    'efficiency ' + (await fmt(page, 'percent', last.efficiency))
  ];
  await page.waitForFunction(
    (w) => document.querySelector('gpu-calc').shadowRoot.querySelector('.chart-legend[data-legend^="train:"]')?.textContent.includes(w),
    want[1]
  );
  assert.deepEqual(await legendNow(page, 'train'), want);
  assert.notDeepEqual(
    (await chart(page, 'train')).paths.map((p) => p.d),
    t0.paths.map((p) => p.d)
  );
  await context.close();
});

test('with an MFU typed, the scaling chart passes through the answer: its data at the run\u2019s GPU count are the answer\u2019s tokens/s and MFU', async () => {
  const { page, context } = await open(chrome.browser);
  await chart(page, 'train');
  const before = await report(page, 'train');
  await field(page, 'train', 'mfu').fill('');
  await field(page, 'train', 'mfu').pressSequentially('40 %', { delay: 5 });
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report?.training.mfu === 0.4);
  const r = await report(page, 'train');
  const p = atRun(r);
  assert.equal(p.gpus, r.inputs.hardware.count);
  assert.ok(Math.abs(p.tokens_per_second / r.training.tokens_per_second - 1) < 1e-9, `${p.tokens_per_second} against ${r.training.tokens_per_second}`);
  assert.ok(Math.abs(r.scaling_level - 0.4 / before.training.mfu) < 1e-9);
  // The legend (at the marker), the data table's row and the note say the same.
  await page.waitForFunction(
    (w) => document.querySelector('gpu-calc').shadowRoot.querySelector('.chart-legend[data-legend^="train:"]')?.textContent.includes(w),
    await fmt(page, 'count', r.training.tokens_per_second)
  );
  const row = page
    .locator('gpu-calc [data-section="train"] table')
    .filter({ hasText: 'MFU' })
    .locator('tr', { hasText: await fmt(page, 'count', p.gpus) });
  assert.match(await row.first().textContent(), /40\.0\s?%/);
  const note = await page.locator('gpu-calc [data-note="scaling"]').textContent();
  assert.match(note, /Levelled to the MFU given: the model predicts .* at 1,024 GPUs, so every point is scaled by 0\.\d\d\./);
  await context.close();
});
