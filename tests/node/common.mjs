// Shared helpers for the Node tests of the WebAssembly module.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => join(dir, f));
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
