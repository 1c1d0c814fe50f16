// Mixed-fleet timings (prints figures, asserts nothing): one estimate of each fleet below, 2 to 12
// pools over several models, devices and sites, in wasm (median of 15 after 5 warm-up calls, with and
// without derivations; wall clock and CPU time) and natively (CPU time of 40 estimates in one
// `gpucalc estimate-lines`, median of 3).
//   node scripts/fleet-bench.mjs [path/to/gpucalc.js] [path/to/native/gpucalc] [--json]
// Several module paths separated by commas are timed in one process, rounds alternated (an A/B).
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { root } from '../tests/node/common.mjs';

const args = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && all[i - 1] !== '--dump');
const mods = (args[0] || join(root, 'build', 'wasm', 'site', 'gpucalc.js')).split(',').map((p) => resolve(p));
const clis = (args[1] || join(root, 'build', 'native', 'gpucalc')).split(',').map((p) => resolve(p));
const N = 15,
  WARM = 5,
  NATIVE = 40;
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

const pool = (device, count, site) => ({ device, count, site });
const H100 = 'nvidia-h100-sxm5-80gb',
  A100 = 'nvidia-a100-sxm4-80gb',
  MI300 = 'amd-mi300x',
  L40S = 'nvidia-l40s',
  R4090 = 'nvidia-rtx-4090',
  H200 = 'nvidia-h200-sxm-141gb',
  A40 = 'nvidia-a100-sxm4-40gb';
const fleet = (name, preset, pools, extra = {}) => ({
  name,
  sc: { model: { preset }, hardware: { pools, ...extra.hw }, training: { tokens: 1e12, ...extra.tr } }
});
export const FLEETS = [
  fleet('2p llama2-70b H100+A100 2 sites', 'llama2-70b', [pool(H100, 64, 'a'), pool(A100, 32, 'b')]),
  fleet('2p fixture 600 H100+400 A100 DiLoCo', 'llama2-70b', [pool(H100, 600, 'us-east'), pool(A100, 400, 'eu-west')], {
    hw: { wan: 'wan-10g', wan_latency_seconds: 0.04 },
    tr: { tokens: 1.4e12, local_steps: 50, outer_precision: 'bf16' }
  }),
  fleet('3p gpt3-175b 1024 A100+512 H100+256 A100', 'gpt3-175b', [pool(A100, 1024, 'a'), pool(H100, 512, 'b'), pool(A100, 256, 'c')]),
  fleet('3p llama2-70b 16 H100+16 A100+8 H100', 'llama2-70b', [pool(H100, 16, 'a'), pool(A100, 16, 'a'), pool(H100, 8, 'b')]),
  fleet('3p llama2-70b 32+16 MI300X, 8 H100, 1G WAN', 'llama2-70b', [pool(MI300, 32, 'a'), pool(MI300, 16, 'a'), pool(H100, 8, 'b')], {
    hw: { wan: 'internet-1g' }
  }),
  fleet('3p mixtral 64 A100+32 L40S+16 4090', 'mixtral-8x7b', [pool(A100, 64, 'a'), pool(L40S, 32, 'a'), pool(R4090, 16, 'b')]),
  fleet('4p llama2-7b H100,MI300X,4090,H100', 'llama2-7b', [pool(H100, 16, 'a'), pool(MI300, 64, 'b'), pool(R4090, 16, 'b'), pool(H100, 16, 'a')]),
  fleet('4p llama2-70b H100,MI300X,4090,H100 10G', 'llama2-70b', [pool(H100, 16, 'a'), pool(MI300, 64, 'b'), pool(R4090, 16, 'b'), pool(H100, 16, 'a')], {
    hw: { wan: 'wan-10g' }
  }),
  fleet('4p llama3.1-405b H100,H200,A100,MI300X', 'llama3.1-405b', [pool(H100, 256, 'a'), pool(H200, 128, 'a'), pool(A100, 256, 'b'), pool(MI300, 128, 'c')]),
  fleet('8p llama2-70b 3 sites', 'llama2-70b', [
    pool(H100, 64, 'a'),
    pool(A100, 32, 'a'),
    pool(MI300, 32, 'b'),
    pool(L40S, 32, 'b'),
    pool(H100, 16, 'c'),
    pool(R4090, 16, 'c'),
    pool(H200, 32, 'a'),
    pool(A40, 32, 'b')
  ]),
  fleet('8p gpt3-175b 2 sites', 'gpt3-175b', [
    pool(A100, 256, 'a'),
    pool(H100, 128, 'b'),
    pool(A100, 128, 'a'),
    pool(H100, 64, 'b'),
    pool(MI300, 128, 'a'),
    pool(H200, 64, 'b'),
    pool(A100, 64, 'a'),
    pool(H100, 32, 'b')
  ]),
  fleet('8p llama2-7b 4 sites', 'llama2-7b', [
    pool(R4090, 16, 'a'),
    pool(L40S, 16, 'b'),
    pool(A100, 8, 'c'),
    pool(H100, 8, 'd'),
    pool(R4090, 32, 'a'),
    pool(L40S, 8, 'b'),
    pool(A100, 16, 'c'),
    pool(H100, 16, 'd')
  ]),
  fleet('12p llama2-70b 3 sites', 'llama2-70b', [
    pool(H100, 64, 'a'),
    pool(A100, 32, 'a'),
    pool(MI300, 32, 'b'),
    pool(L40S, 32, 'b'),
    pool(H100, 16, 'c'),
    pool(R4090, 16, 'c'),
    pool(H200, 32, 'a'),
    pool(A40, 32, 'b'),
    pool(H100, 32, 'b'),
    pool(A100, 16, 'c'),
    pool(MI300, 16, 'a'),
    pool(L40S, 16, 'c')
  ]),
  fleet('12p mixtral 2 sites', 'mixtral-8x7b', [
    pool(A100, 64, 'a'),
    pool(H100, 64, 'b'),
    pool(A100, 32, 'a'),
    pool(H100, 32, 'b'),
    pool(MI300, 64, 'a'),
    pool(H200, 32, 'b'),
    pool(A100, 16, 'a'),
    pool(H100, 16, 'b'),
    pool(L40S, 32, 'a'),
    pool(R4090, 32, 'b'),
    pool(A40, 16, 'a'),
    pool(H200, 16, 'b')
  ])
];

const text = (f, explain) => JSON.stringify({ ...f.sc, explain });
// --dump DIR: writes each fleet (without derivations) as DIR/NN.json, for the native CLI or a profiler, and stops.
const dump = process.argv.indexOf('--dump');
if (dump > 0) {
  FLEETS.forEach((f, i) => writeFileSync(join(process.argv[dump + 1], String(i).padStart(2, '0') + '.json'), text(f, false)));
  process.exit(0);
}
const require = createRequire(import.meta.url);
const ms = [];
for (const p of mods) ms.push(await require(p)());
// Wall-clock and CPU (process.cpuUsage: this process's user + system time) medians: on a loaded
// machine the wall clock counts the time other processes held the core, the CPU time does not.
function wasmTime(m, t) {
  for (let i = 0; i < WARM; i++) m.estimate(t);
  const wall = [],
    cpu = [];
  for (let i = 0; i < N; i++) {
    const c0 = process.cpuUsage(),
      t0 = performance.now();
    m.estimate(t);
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1e3);
  }
  return [median(wall), median(cpu)];
}
// Natively: the CPU time (user, millisecond resolution) of NATIVE + 1 estimates in one process less
// that of 1, over NATIVE; the median of 3.
function nativeTime(cli, t) {
  const tmp = join(root, 'build', 'fleet-bench-input.jsonl');
  const user = (n) => {
    writeFileSync(tmp, (t + '\n').repeat(n));
    const out = execFileSync('bash', ['-c', 'TIMEFORMAT=%3U; { time "$0" estimate-lines < "$1" > /dev/null; } 2>&1', cli, tmp]);
    return Number(out.toString().trim());
  };
  const runs = [];
  for (let r = 0; r < 3; r++) runs.push((user(NATIVE + 1) - user(1)) / NATIVE);
  return Math.max(0, median(runs)) * 1e3;
}
const f2 = (x) => x.toFixed(2);
const pair = ([w, c]) => `${f2(w)} (${f2(c)})`;
const head = ['fleet', 'mode', 'tokens/s'];
for (let k = 0; k < ms.length; k++) head.push(`wasm${k} ms, wall (cpu)`, `wasm${k} +deriv`);
for (let k = 0; k < clis.length; k++) head.push(`native${k} cpu ms`, `native${k} +deriv`);
console.log('| ' + head.join(' | ') + ' |\n|' + head.map(() => '---').join('|') + '|');
const rows = [];
for (const f of FLEETS) {
  const r = JSON.parse(ms[0].estimate(text(f, false)));
  const t = r.training || {};
  const row = [f.name, (t.fleet && t.fleet.mode) || r.error || '?', t.tokens_per_second ? Math.round(t.tokens_per_second) : '-'];
  for (const m of ms) row.push(pair(wasmTime(m, text(f, false))), pair(wasmTime(m, text(f, true))));
  for (const c of clis) row.push(f2(nativeTime(c, text(f, false))), f2(nativeTime(c, text(f, true))));
  rows.push(row);
  console.log('| ' + row.join(' | ') + ' |');
}
if (process.argv.includes('--json')) console.log(JSON.stringify(rows));
