// A/B benchmark of two builds of the module in one node process, rounds alternated, so that the
// machine's drift hits both alike (prints figures, asserts nothing):
//   node scripts/bench-ab.mjs build/wasm/site/gpucalc.js /tmp/other/site/gpucalc.js [rounds]
// Plan search: ns per plan evaluated by the model (the core's search_seconds, best of 3 per round);
// one estimate without derivations (the Llama 2 70B training fixture, mean of 50 per round).
// Median over the rounds.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { root } from '../tests/node/common.mjs';

const [a, b] = process.argv.slice(2, 4).map((p) => resolve(p));
const rounds = Number(process.argv[4] || 15);
if (!a || !b || !(rounds > 0)) {
  console.error('usage: node scripts/bench-ab.mjs A/gpucalc.js B/gpucalc.js [rounds]');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const ms = [await require(a)(), await require(b)()];
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
const both = (measure) => {
  const res = [[], []];
  for (let r = 0; r < rounds; r++) for (let k = 0; k < 2; k++) res[k].push(measure(ms[k]));
  return res.map(median);
};

for (const [label, sc] of [
  ['GPT-3 175B / 1,024 A100', { model: { preset: 'gpt3-175b' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 1024 }, training: { global_batch: 1536 } }],
  ['GPT 1T / 3,072 A100', { model: { preset: 'megatron-1t' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 3072 }, training: { global_batch: 3072 } }]
]) {
  const text = JSON.stringify(sc);
  const p = JSON.parse(ms[0].plan(text)).plan;
  JSON.parse(ms[1].plan(text));
  const evaluated = p.feasible + p.rejected.out_of_memory;
  const [x, y] = both((m) => {
    let best = Infinity;
    for (let i = 0; i < 3; i++) best = Math.min(best, JSON.parse(m.plan(text)).plan.search_seconds);
    return (best / evaluated) * 1e9;
  });
  console.log(`plan search, ${label}: A ${x.toFixed(1)} ns, B ${y.toFixed(1)} ns per evaluated plan (B/A ${(y / x).toFixed(3)})`);
}
const ex = JSON.parse(readFileSync(join(root, 'tests', 'fixtures', 'llama2-70b-h100-training.json'), 'utf8'));
ex.explain = false;
const text = JSON.stringify(ex);
const [x, y] = both((m) => {
  const t0 = performance.now();
  for (let i = 0; i < 50; i++) m.estimate(text);
  return ((performance.now() - t0) / 50) * 1e3;
});
console.log(`one estimate without derivations (Llama 2 70B training): A ${x.toFixed(1)} us, B ${y.toFixed(1)} us (B/A ${(y / x).toFixed(3)})`);
