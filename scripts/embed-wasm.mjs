// Makes the one-file module: the Emscripten glue (built with wasm/pre.js) with the WebAssembly
// binary written into it compressed by xz's raw LZMA1 filter (lc=3, lp=0, pb=0, preset 9e: the
// properties wasm/lzma_decode.c decodes), in base64, next to the decoder module in base64.
// Measured on 2026-11-30 (node scripts/bench.mjs): the binary 612 KiB, gzip 244 KiB; the Latin-1
// text this file held before, gzip 262 KiB; LZMA in base64, gzip 192 KiB. Base64 of compressed
// bytes gzips back to within ~1 % of them (a Latin-1 string of them would take ~18 % more).
// usage: node scripts/embed-wasm.mjs <glue.js> <module.wasm> <decoder.wasm> <out.js>
import { readFileSync, writeFileSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

// String literals in wasm/pre.js (emcc's minifier may change their quotes, so the names are searched).
const DECODER = '__GPUCALC_LZMA_DECODER__';
const PACKED = '__GPUCALC_WASM_PACKED__';
const SIZE = '__GPUCALC_WASM_SIZE__';

// The raw LZMA1 stream of `bytes` (xz from xz-utils; deterministic for one xz version).
export function lzma(bytes) {
  return execFileSync('xz', ['--format=raw', '--lzma1=preset=9e,lc=3,lp=0,pb=0', '--stdout', '-'], {
    input: bytes,
    maxBuffer: 1 << 30
  });
}

function replaceOnce(text, placeholder, value) {
  const at = text.indexOf(placeholder);
  if (at < 0 || text.indexOf(placeholder, at + 1) >= 0) throw new Error('the glue must hold ' + placeholder + ' once (wasm/pre.js)');
  return text.slice(0, at) + value + text.slice(at + placeholder.length);
}

export function embed(glue, wasm, decoder) {
  // Base64 needs no escape inside either quote.
  let text = replaceOnce(glue, DECODER, Buffer.from(decoder).toString('base64'));
  text = replaceOnce(text, PACKED, lzma(wasm).toString('base64'));
  return replaceOnce(text, SIZE, String(wasm.length));
}

// The glue minified by Terser, as scripts/bundle.mjs does the page's script: emcc without Closure
// only strips whitespace, so its local names stay long. Measured 2026-12-05: the glue's gzip 6.1 ->
// 3.7 kB. Run on the finished file: Terser folds the placeholders (+'__GPUCALC_WASM_SIZE__' is NaN).
// _scriptDir keeps its name: the factory's text (createGpucalc.toString(), which web/worker.js
// carries to the plan search's worker) refers to it, and the worker declares it.
export async function small(code) {
  const { minify } = await import('terser');
  const out = await minify(code, {
    ecma: 2020,
    compress: { passes: 2 },
    mangle: { reserved: ['_scriptDir'] },
    format: { comments: /^!|@license/ }
  });
  return out.code;
}

async function main() {
  const [glueFile, wasmFile, decoderFile, out] = process.argv.slice(2);
  if (!glueFile || !wasmFile || !decoderFile || !out) {
    console.error('usage: node scripts/embed-wasm.mjs <glue.js> <module.wasm> <decoder.wasm> <out.js>');
    process.exit(2);
  }
  const text = embed(readFileSync(glueFile, 'utf8'), readFileSync(wasmFile), readFileSync(decoderFile));
  writeFileSync(out, await small(text), 'utf8');
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
