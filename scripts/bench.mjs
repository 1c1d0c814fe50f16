// Benchmark: prints figures (nothing is asserted). `node scripts/bench.mjs` for the full run,
// `--quick` for the sanity run in the test command.
//  - native and wasm time for one estimate of each fixture (median), wasm/native ratio
//  - scaling curve and plan search time; plans per second natively and in wasm
//  - whole-page recompute and cold file:// load to first result in headless Chromium
//  - built site transfer size, raw and gzip, with the wasm module separately
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { wasm, fixtures, cli, site, root } from '../tests/node/common.mjs';

const quick = process.argv.includes('--quick');
const N = quick ? 50 : 500;
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const us = (s) => (s * 1e6).toFixed(1) + ' µs';
const ms = (s) => (s * 1e3).toFixed(2) + ' ms';

function nativeTime(text, n) {
  const tmp = join(root, 'build', 'bench-input.json');
  execFileSync('bash', ['-c', 'cat > "$0"', tmp], { input: text });
  return JSON.parse(execFileSync(cli, ['bench', tmp, String(n)]).toString()).median_seconds;
}
function wasmTime(fn, n) {
  for (let i = 0; i < Math.min(n, 50); i++) fn();  // warm-up: let the JIT tier up, as a page does
  const t = [];
  for (let i = 0; i < n; i++) { const t0 = performance.now(); fn(); t.push((performance.now() - t0) / 1e3); }
  return median(t);
}

const m = await wasm();
console.log(`gpucalc bench (${quick ? 'quick' : 'full'}), ${new Date().toISOString().slice(0, 10)}, node ${process.version}`);
console.log('\n| fixture | native | wasm | wasm/native |\n|---|---|---|---|');
const ratios = [];
for (const f of fixtures().filter((x) => !x.name.startsWith('invalid'))) {
  const nat = nativeTime(f.text, N);
  const w = wasmTime(() => m.estimate(f.text), N);
  ratios.push(w / nat);
  console.log(`| ${f.name} | ${us(nat)} | ${us(w)} | ${(w / nat).toFixed(2)} |`);
}
console.log(`median wasm/native ratio: ${median(ratios).toFixed(2)}`);

const train = JSON.parse(readFileSync(join(root, 'tests', 'fixtures', 'llama2-70b-h100-training.json'), 'utf8'));
const withCurve = JSON.stringify(train);
delete train.scaling;
const noCurve = JSON.stringify(train);
const curve = wasmTime(() => m.estimate(withCurve), N) - wasmTime(() => m.estimate(noCurve), N);
console.log(`\nscaling curve (wasm): ${us(Math.max(0, curve))}`);

// Plan search: the reference space (GPT-3 175B on 1,024 A100) and a larger one.
for (const [label, sc] of [
  ['GPT-3 175B / 1,024 A100, batch 1,536', { model: { preset: 'gpt3-175b' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 1024 }, training: { global_batch: 1536 } }],
  ['GPT 1T / 3,072 A100, batch 3,072', { model: { preset: 'megatron-1t' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 3072 }, training: { global_batch: 3072 } }],
]) {
  const text = JSON.stringify(sc);
  const p = JSON.parse(m.plan(text)).plan;
  const evaluated = p.feasible + p.rejected.out_of_memory;
  const tw = wasmTime(() => m.plan(text), quick ? 3 : 20);
  const tn = nativeTime(text.replace(/}$/, ',"plan":{"top_k":10}}'), quick ? 3 : 20);
  const rate = (n, t) => Math.round(n / t).toLocaleString('en-US');
  console.log(`plan search ${label}: space ${p.considered.toLocaleString('en-US')} plans (${evaluated.toLocaleString('en-US')} evaluated by the model, ${p.feasible.toLocaleString('en-US')} feasible)`);
  console.log(`  native ${ms(tn)}: ${rate(p.considered, tn)} plans/s (${rate(evaluated, tn)} evaluated/s); wasm ${ms(tw)}: ${rate(p.considered, tw)} plans/s (${rate(evaluated, tw)} evaluated/s)`);
}

// Site size.
let raw = 0, gz = 0;
const files = readdirSync(site).filter((f) => ['index.html', 'page.css', 'gpucalc-embed.js'].includes(f));
for (const f of files) { const b = readFileSync(join(site, f)); raw += b.length; gz += gzipSync(b, { level: 9 }).length; }
const mod = readFileSync(join(site, 'gpucalc.js'));
console.log(`\nsite transfer (index.html + page.css + gpucalc-embed.js): ${(raw / 1024).toFixed(1)} KiB raw, ${(gz / 1024).toFixed(1)} KiB gzip`);
console.log(`  of which the WebAssembly module (gpucalc.js, wasm base64-embedded): ${(mod.length / 1024).toFixed(1)} KiB raw, ${(gzipSync(mod, { level: 9 }).length / 1024).toFixed(1)} KiB gzip`);

// Browser: cold load to first result, whole-page recompute.
try {
  const { launch, pageUrl } = await import('../tests/browser/browser.mjs');
  const browser = await launch();
  const loads = [];
  let recompute = 0;
  for (let i = 0; i < (quick ? 1 : 5); i++) {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(pageUrl());
    // The page marks its first rendered result; its start time is milliseconds since navigation start.
    await page.waitForFunction(() => performance.getEntriesByName('gpucalc-first-result').length > 0, null, { timeout: 30000 });
    loads.push((await page.evaluate(() => performance.getEntriesByName('gpucalc-first-result')[0].startTime)) / 1e3);
    await page.waitForTimeout(1500);  // let the idle-time sections and the worker finish
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
    await ctx.close();
  }
  await browser.close();
  console.log(`\ncold file:// load to first result: ${ms(median(loads))}; whole-page recompute (6 sections with their charts; the plan search runs in a worker): ${ms(recompute)}`);
} catch (e) {
  console.log('\nbrowser figures skipped: ' + e.message.split('\n')[0]);
}
