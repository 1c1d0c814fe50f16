// Makes the one-file module: the Emscripten glue (built with wasm/pre.js) with the WebAssembly
// binary written into its placeholder string as Latin-1 text, one character per byte, in a UTF-8
// file that starts with a byte-order mark (so that a page in another encoding still decodes it
// as UTF-8). The first character is a key that every byte is XORed with: the key (below 0x80, so
// the bytes keep their one- or two-byte UTF-8 length) is the one that leaves the fewest bytes to
// escape. Gzip compresses this within ~4% of the binary itself; the base64 data URI of
// -sSINGLE_FILE was ~35% larger after gzip.
// usage: node scripts/embed-wasm.mjs <glue.js> <module.wasm> <out.js>
import { readFileSync, writeFileSync } from 'node:fs';
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const PLACEHOLDER = '__GPUCALC_WASM_BINARY__';

// The bytes as the body of a JS string literal in `quote`s. Only the quote, the backslash, the
// line terminators and NUL are escaped (NUL as \x00: an inline <script> would replace a raw one).
export function latin1Literal(bytes, quote = '"') {
  const q = quote.charCodeAt(0);
  const parts = [];
  let run = '';
  for (const b of bytes) {
    let c;
    if (b === q) c = '\\' + quote;
    else if (b === 0x5c) c = '\\\\';
    else if (b === 0x0a) c = '\\n';
    else if (b === 0x0d) c = '\\r';
    else if (b === 0x00) c = '\\x00';
    else c = String.fromCharCode(b);
    run += c;
    if (run.length > 65536) {
      parts.push(run);
      run = '';
    }
  }
  parts.push(run);
  return parts.join('');
}

// The XOR key (1..127, itself needing no escape) that leaves the fewest bytes to escape.
export function chooseKey(bytes, quote = '"') {
  const freq = new Array(256).fill(0);
  for (const b of bytes) freq[b]++;
  const escaped = [quote.charCodeAt(0), 0x5c, 0x0a, 0x0d, 0x00];
  let best = 0,
    cost = Infinity;
  for (let k = 1; k < 128; k++) {
    if (escaped.includes(k)) continue;
    let c = 0;
    for (const e of escaped) c += freq[e ^ k];
    if (c < cost) {
      cost = c;
      best = k;
    }
  }
  return best;
}

export function embed(glue, wasm) {
  const at = glue.indexOf(PLACEHOLDER);
  if (at < 0 || glue.indexOf(PLACEHOLDER, at + 1) >= 0) throw new Error('the glue must hold the placeholder ' + PLACEHOLDER + ' once (wasm/pre.js)');
  const quote = glue[at - 1];
  if ((quote !== '"' && quote !== "'") || glue[at + PLACEHOLDER.length] !== quote) throw new Error('the placeholder must be a string literal');
  const key = chooseKey(wasm, quote);
  const body =
    String.fromCharCode(key) +
    latin1Literal(
      wasm.map((b) => b ^ key),
      quote
    );
  return '\ufeff' + glue.slice(0, at) + body + glue.slice(at + PLACEHOLDER.length);
}

function main() {
  const [glueFile, wasmFile, out] = process.argv.slice(2);
  if (!glueFile || !wasmFile || !out) {
    console.error('usage: node scripts/embed-wasm.mjs <glue.js> <module.wasm> <out.js>');
    process.exit(2);
  }
  const text = embed(readFileSync(glueFile, 'utf8'), readFileSync(wasmFile));
  writeFileSync(out, text, 'utf8');
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) main();
