// Shared helpers for the Node tests of the WebAssembly module.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createContext, runInContext } from 'node:vm';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const site = process.env.GPUCALC_SITE || join(root, 'build', 'wasm', 'site');
export const cli = process.env.GPUCALC_CLI || join(root, 'build', 'native', 'gpucalc');

let mod;
export async function wasm() {
  if (!mod) {
    const require = createRequire(import.meta.url);
    mod = await require(join(site, 'gpucalc.js'))();
  }
  return mod;
}

// Native reports for many scenarios in one process: one compact report per input line.
export function nativeEstimates(lines) {
  const out = execFileSync(cli, ['estimate-lines'], { input: lines.join('\n') + '\n', maxBuffer: 1 << 28 }).toString();
  return out.split('\n').slice(0, lines.length);
}

export function fixtures() {
  const dir = join(root, 'tests', 'fixtures');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(dir, f));
  const bad = readdirSync(join(dir, 'invalid')).map((f) => join(dir, 'invalid', f));
  return files.concat(bad).map((f) => ({ name: f.slice(dir.length + 1), text: readFileSync(f, 'utf8').replace(/\s*\n\s*/g, ' ') }));
}

// Deterministic pseudo-random numbers (mulberry32) so failures reproduce.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The page's formatter (web/format.js), as the bundle gives it to every module: `F`.
export const pageFormat = createRequire(import.meta.url)(join(root, 'web', 'format.js'));

// A page module (web/<file>, a plain script declaring one namespace) loaded on its own, in a fresh
// context with the given globals (and `F`, as in the bundle); returns the namespace.
export function webModule(file, name, globals = {}) {
  const ctx = createContext(Object.assign({ performance, console, F: pageFormat }, globals));
  runInContext(readFileSync(join(root, 'web', file), 'utf8'), ctx, { filename: 'web/' + file });
  return runInContext(name, ctx);
}

// A fresh WebAssembly module instance on each call (the wrapper tests re-create instances).
export function moduleFactory() {
  const require = createRequire(import.meta.url);
  const create = require(join(site, 'gpucalc.js'));
  return () => create();
}

// Claims nested in claims (hostile input): each level varies the claim itself; `levels` deep,
// `wide` cases per level. nestedClaims(700) is ~60 KB and nested ~2,100 levels deep.
export function nestedClaims(levels, wide = 1) {
  let c = '{"checks":[{"metric":"cluster.devices","min":1}]}';
  for (let i = 0; i < levels; i++)
    c = '{"checks":[{"metric":"cluster.devices","min":1}],"vary":{"path":"claim","values":[' + Array(wide).fill(c).join(',') + ']}}';
  return '{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8},"claim":' + c + '}';
}
