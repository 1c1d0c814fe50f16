// Benchmark: prints figures (nothing is asserted). `node scripts/bench.mjs` for the full run,
// `--quick` for the sanity run in the test command (fewer repetitions, the same figures).
//  - one estimate of each fixture, natively and in wasm, with and without derivations (median)
//  - the scaling curve; the plan search, as ns per plan evaluated by the model (natively and in wasm)
//  - the weight: every file the page loads (recorded in Chromium), raw and gzip, and the module
//  - cold file:// load in headless Chromium, median of 5 fresh browser contexts: first result,
//    first painted answer (the default page's is the build's recording, web/boot.js), module
//    unpacked, ready and answering; whole-page recompute; the floor: when a page that loads one
//    empty script runs it, in the same contexts; and a first question the build did not record
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { wasm, fixtures, cli, site, root } from '../tests/node/common.mjs';

const quick = process.argv.includes('--quick');
const N = quick ? 50 : 500;
const CONTEXTS = 5;
const median = (a) => {
  const s = [...a].sort((x, y) => x - y);
  return s[Math.floor(s.length / 2)];
};
const us = (s) => (s * 1e6).toFixed(1) + ' µs';
const ms = (s) => (s * 1e3).toFixed(2) + ' ms';
const kib = (n) => (n / 1024).toFixed(1) + ' KiB';
const gz = (b) => gzipSync(b, { level: 9 }).length;

function nativeRun(text, n) {
  const tmp = join(root, 'build', 'bench-input.json');
  execFileSync('bash', ['-c', 'cat > "$0"', tmp], { input: text });
  return JSON.parse(execFileSync(cli, ['bench', tmp, String(n)]).toString());
}
const nativeTime = (text, n) => nativeRun(text, n).median_seconds;
function wasmTime(fn, n) {
  for (let i = 0; i < Math.min(n, 50); i++) fn(); // warm-up: let the JIT tier up, as a page does
  const t = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    t.push((performance.now() - t0) / 1e3);
  }
  return median(t);
}
const withExplain = (text, on) => {
  const j = JSON.parse(text);
  j.explain = on;
  return JSON.stringify(j);
};

const m = await wasm();
console.log(
  `gpucalc bench (${quick ? 'quick' : 'full'}), ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${cpus().length} x ${cpus()[0].model.trim()}`
);

// ---- one estimate ----
console.log(`\nOne estimate, median of ${N} (derivations: the report's "explain", on by default; the page asks without them)`);
console.log('\n| fixture | native | native, no derivations | wasm | wasm, no derivations | wasm/native |\n|---|---|---|---|---|---|');
const searches = /gpt3-a100\.json|owned-cluster|slo-search|ionet-1000|mixed-fleet/; // these run a layout or latency-target search (the two fleets: auto layouts)
const rows = [];
// Warm-up of the whole module first: V8 compiles the large wasm functions in the background (Liftoff,
// then TurboFan), and with 2 cores the first fixture timed was still on the baseline code (its median
// 2x the steady state). The cold start is measured separately (first result, below).
for (const f of fixtures().filter((x) => !x.name.startsWith('invalid')))
  for (const on of [true, false]) for (let i = 0; i < 20; i++) m.estimate(withExplain(f.text, on));
for (const f of fixtures().filter((x) => !x.name.startsWith('invalid'))) {
  const on = withExplain(f.text, true),
    off = withExplain(f.text, false);
  const r = {
    name: f.name,
    nat: nativeTime(on, N),
    natOff: nativeTime(off, N),
    w: wasmTime(() => m.estimate(on), N),
    wOff: wasmTime(() => m.estimate(off), N)
  };
  rows.push(r);
  console.log(
    `| ${f.name}${searches.test(f.name) ? ' (searches)' : ''} | ${us(r.nat)} | ${us(r.natOff)} | ${us(r.w)} | ${us(r.wOff)} | ${(r.w / r.nat).toFixed(2)} |`
  );
}
const plain = rows.filter((r) => !searches.test(r.name));
console.log(
  `median over the ${plain.length} fixtures that search nothing: native ${us(median(plain.map((r) => r.nat)))}, without derivations ${us(median(plain.map((r) => r.natOff)))}; ` +
    `wasm ${us(median(plain.map((r) => r.w)))}, without derivations ${us(median(plain.map((r) => r.wOff)))} (slowest ${us(Math.max(...plain.map((r) => r.wOff)))}); median wasm/native ${median(rows.map((r) => r.w / r.nat)).toFixed(2)}`
);
const ex = JSON.stringify(JSON.parse(readFileSync(join(root, 'tests', 'fixtures', 'llama2-70b-h100-training.json'), 'utf8')));
if (m.explain)
  console.log(
    `derivations on demand (wasm, Llama 2 70B training): all ${us(wasmTime(() => m.explain(withExplain(ex, false), ''), N))}, one figure ${us(wasmTime(() => m.explain(withExplain(ex, false), 'training.flops'), N))}`
  );

const train = JSON.parse(ex);
const withCurve = JSON.stringify(train);
delete train.scaling;
const noCurve = JSON.stringify(train);
const curve = wasmTime(() => m.estimate(withCurve), N) - wasmTime(() => m.estimate(noCurve), N);
console.log(`scaling curve (wasm): ${us(Math.max(0, curve))}`);

// ---- plan search ----
console.log(
  '\nPlan search: the search alone as timed by the core (search_seconds), per plan evaluated by the model (feasible or out of memory); the whole call adds reading and writing JSON'
);
for (const [label, sc] of [
  [
    'GPT-3 175B / 1,024 A100, batch 1,536',
    { model: { preset: 'gpt3-175b' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 1024 }, training: { global_batch: 1536 } }
  ],
  [
    'GPT 1T / 3,072 A100, batch 3,072',
    { model: { preset: 'megatron-1t' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 3072 }, training: { global_batch: 3072 } }
  ]
]) {
  const text = JSON.stringify(sc);
  const p = JSON.parse(m.plan(text)).plan;
  const evaluated = p.feasible + p.rejected.out_of_memory;
  const runs = quick ? 9 : 41;
  const ws = [],
    wt = [];
  for (let i = 0; i < runs + 3; i++) {
    const t0 = performance.now();
    const r = JSON.parse(m.plan(text)).plan;
    if (i >= 3) {
      wt.push((performance.now() - t0) / 1e3);
      ws.push(r.search_seconds);
    }
  }
  const nat = nativeRun(text.replace(/}$/, ',"plan":{"top_k":10}}'), runs);
  if (nat.search_median_seconds === undefined) {
    // an older CLI: the search time from `gpucalc plan` itself
    const t = [];
    for (let i = 0; i < runs; i++) t.push(JSON.parse(execFileSync(cli, ['plan', '-'], { input: text }).toString()).plan.search_seconds);
    nat.search_median_seconds = median(t);
  }
  const ns = (s) => ((s / evaluated) * 1e9).toFixed(1) + ' ns';
  console.log(
    `${label}: space ${p.considered.toLocaleString('en-US')} plans (${evaluated.toLocaleString('en-US')} evaluated by the model, ${p.feasible.toLocaleString('en-US')} feasible)`
  );
  console.log(
    `  native: search ${ms(nat.search_median_seconds)} = ${ns(nat.search_median_seconds)} per evaluated plan (whole call ${ms(nat.median_seconds)}); ` +
      `wasm: search ${ms(median(ws))} = ${ns(median(ws))} per evaluated plan (whole call ${ms(median(wt))})`
  );
}

// ---- browser: what the page loads, and how fast it answers ----
let loaded = null;
try {
  const { launch, pageUrl } = await import('../tests/browser/browser.mjs');
  const browser = await launch();
  const first = [],
    painted = [],
    ready = [],
    live = [];
  let recompute = 0;
  // This machine's floor, measured in the same fresh contexts: a page that loads one empty script
  // from file:// (the browser's own start, before any of the page's code can run).
  const floorDir = join(root, 'build', 'bench-floor');
  mkdirSync(floorDir, { recursive: true });
  writeFileSync(join(floorDir, 'floor.js'), "performance.mark('floor');\n");
  writeFileSync(join(floorDir, 'index.html'), '<!doctype html><meta charset="utf-8"><title>floor</title><p>floor</p><script src="floor.js"></script>\n');
  const floor = [],
    unpacked = [];
  for (let i = 0; i < CONTEXTS; i++) {
    const fctx = await browser.newContext();
    const fpage = await fctx.newPage();
    await fpage.goto(pathToFileURL(join(floorDir, 'index.html')).href);
    await fpage.waitForFunction(() => performance.getEntriesByName('floor').length > 0, null, { timeout: 30000 });
    floor.push((await fpage.evaluate(() => performance.getEntriesByName('floor')[0].startTime)) / 1e3);
    await fctx.close();
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const files = new Set();
    page.on('request', (r) => {
      if (r.url().startsWith('file:')) files.add(fileURLToPath(r.url()));
    });
    // The first painted answer: the page's own mark (gpucalc-first-paint) if it has one, else the
    // end of the first frame rendered after the first result was put in the DOM (a task posted from
    // that frame's animation callback runs once the frame is painted).
    await page.addInitScript(() => {
      const mark = performance.mark.bind(performance);
      performance.mark = function (name, opts) {
        if (name === 'gpucalc-first-result') requestAnimationFrame(() => setTimeout(() => mark('bench-first-painted-answer'), 0));
        return mark(name, opts);
      };
    });
    await page.goto(pageUrl());
    await page.waitForFunction(
      () => performance.getEntriesByName('bench-first-painted-answer').length > 0 || performance.getEntriesByName('gpucalc-first-paint').length > 0,
      null,
      { timeout: 30000 }
    );
    const marks = await page.evaluate(() => {
      const at = (n) => {
        const e = performance.getEntriesByName(n)[0];
        return e ? e.startTime : null;
      };
      return {
        first: at('gpucalc-first-result'),
        painted: at('gpucalc-first-paint') ?? at('bench-first-painted-answer'),
        ready: at('gpucalc-module-ready'),
        unpacked: at('gpucalc-module-unpacked'),
        live: at('gpucalc-live')
      };
    });
    if (marks.live !== null) live.push(marks.live / 1e3);
    if (marks.unpacked !== null) unpacked.push(marks.unpacked / 1e3);
    first.push(marks.first / 1e3);
    painted.push(marks.painted / 1e3);
    if (marks.ready !== null) ready.push(marks.ready / 1e3);
    await page.waitForTimeout(1500); // let the idle-time sections and the worker finish
    recompute = await page.evaluate(() => {
      const el = document.querySelector('gpu-calc');
      const t = [];
      for (let k = 0; k < 11; k++) {
        const t0 = performance.now();
        for (const s of ['explain', 'cluster', 'train', 'serve', 'reality', 'json']) el._update(s);
        t.push(performance.now() - t0);
      }
      t.sort((a, b) => a - b);
      return t[5] / 1e3;
    });
    loaded = loaded || [...files];
    await ctx.close();
  }
  // A first question the build did not record (a shared link): the module answers it.
  const other = { model: { preset: 'llama3-8b' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 64 }, training: { tokens: 1e12 } };
  const otherFirst = [],
    otherPainted = [];
  for (let i = 0; i < CONTEXTS; i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(pageUrl() + '#section=train&scenario=' + encodeURIComponent(JSON.stringify(other)));
    await page.waitForFunction(() => performance.getEntriesByName('gpucalc-first-answer-painted').length > 0, null, { timeout: 30000 });
    const m = await page.evaluate(() => ['gpucalc-first-result', 'gpucalc-first-answer-painted'].map((n) => performance.getEntriesByName(n)[0].startTime));
    otherFirst.push(m[0] / 1e3);
    otherPainted.push(m[1] / 1e3);
    await ctx.close();
  }
  await browser.close();
  console.log(
    `\nCold file:// load in headless Chromium, median of ${CONTEXTS} fresh contexts: first result ${ms(median(first))}, first painted answer ${ms(median(painted))}` +
      (ready.length ? ` (module ready at ${ms(median(ready))}${unpacked.length ? `, its binary unpacked at ${ms(median(unpacked))}` : ''}` : '') +
      (live.length ? `, answering from ${ms(median(live))}` : '') +
      (ready.length ? ')' : '') +
      `; whole-page recompute (6 sections with their charts; the plan search runs in a worker): ${ms(recompute)}`
  );
  console.log(
    `  this machine's floor, in the same contexts: a page that loads one empty script from file:// runs it at ${ms(median(floor))}; the first result comes ${ms(median(first) - median(floor))} after that`
  );
  console.log(
    `  the default page's first answer is the build's recording (web/boot.js); a first question it did not record (a link to Llama 3 8B on 64 A100), answered by the module: first result ${ms(median(otherFirst))}, painted ${ms(median(otherPainted))}`
  );
} catch (e) {
  console.log('\nbrowser figures skipped: ' + e.message.split('\n')[0]);
}

// ---- weight ----
const files = loaded || ['index.html', 'page.css', 'gpucalc-embed.js'].map((f) => join(site, f));
let raw = 0,
  packed = 0;
const parts = [];
for (const f of files) {
  const b = readFileSync(f);
  raw += b.length;
  packed += gz(b);
  parts.push(`${f.slice(site.length + 1)} ${kib(b.length)} / ${kib(gz(b))}`);
}
const mod = readFileSync(join(site, 'gpucalc.js'));
let bin = null;
try {
  bin = readFileSync(join(site, '..', 'wasm', 'gpucalc-module.wasm'));
} catch {
  /* another build layout */
}
console.log(
  `\nWeight: every file the page loads${loaded ? ' (recorded in Chromium)' : ''}: ${kib(raw)} raw, ${kib(packed)} gzip (${(packed / 1000).toFixed(1)} kB) = ${parts.join(' + ')} (raw / gzip)`
);
console.log(
  `  of which the module (gpucalc.js, the wasm embedded): ${kib(mod.length)} raw, ${kib(gz(mod))} gzip` +
    (bin ? `; the bare wasm ${kib(bin.length)} raw, ${kib(gz(bin))} gzip` : '')
);
