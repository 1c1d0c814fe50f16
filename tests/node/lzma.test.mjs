// The embedded module ships LZMA-compressed (scripts/embed-wasm.mjs) and is unpacked by the small
// decoder module wasm/lzma_decode.c. These tests run that decoder on streams made by the same
// encoder call as the build (xz, raw LZMA1, lc=3 lp=0 pb=0), and on corrupted ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { site, root } from './common.mjs';
import { lzma } from '../../scripts/embed-wasm.mjs';

const decoderBytes = readFileSync(join(site, '..', 'wasm', 'lzma-decode.wasm'));
const GUARD = 4096;

// Decodes `packed` into `size` bytes with a fresh decoder instance; returns {rc, out, guardIntact}.
function decode(packed, size) {
  const lz = new WebAssembly.Instance(new WebAssembly.Module(decoderBytes), {}).exports;
  const mem = lz.memory;
  const at = mem.buffer.byteLength;
  mem.grow(Math.ceil((packed.length + size + GUARD) / 65536));
  new Uint8Array(mem.buffer, at, packed.length).set(packed);
  const guard = new Uint8Array(mem.buffer, at + packed.length + size, GUARD);
  guard.fill(0xa5);
  const rc = lz.decode(at, packed.length, at + packed.length, size);
  const out = new Uint8Array(mem.buffer, at + packed.length, size).slice();
  const guardIntact = new Uint8Array(mem.buffer, at + packed.length + size, GUARD).every((b) => b === 0xa5);
  return { rc, out, guardIntact };
}

// A deterministic pseudo-random generator (xorshift32), so that a failure repeats.
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

function samples() {
  const r = rng(7);
  const random = Buffer.alloc(100000);
  for (let i = 0; i < random.length; i++) random[i] = r() & 0xff;
  const text = Buffer.from('The quick brown fox jumps over the lazy dog. '.repeat(3000) + 'gpucalc'.repeat(7));
  const runs = Buffer.alloc(70000, 0); // long matches, distances 1
  const module = readFileSync(join(site, '..', 'wasm', 'gpucalc-module.wasm'));
  return { empty: Buffer.alloc(0), one: Buffer.from([42]), random, text, runs, module };
}

test('the decoder restores every sample byte for byte, the whole WebAssembly module included', () => {
  for (const [name, data] of Object.entries(samples())) {
    const { rc, out, guardIntact } = decode(lzma(data), data.length);
    assert.equal(rc, 0, name + ': error code ' + rc);
    assert.ok(Buffer.from(out).equals(data), name + ': the decoded bytes differ');
    assert.ok(guardIntact, name + ': wrote past its output');
  }
});

test('the module compressed by LZMA is at least 15 % smaller than gzip makes it, so the decoder pays for itself', () => {
  const module = readFileSync(join(site, '..', 'wasm', 'gpucalc-module.wasm'));
  const packed = lzma(module).length;
  const gzipped = gzipSync(module, { level: 9 }).length;
  assert.ok(packed + decoderBytes.length < 0.85 * gzipped, `LZMA ${packed} B + decoder ${decoderBytes.length} B against gzip ${gzipped} B`);
});

test('a corrupt or truncated stream returns an error code or wrong bytes, never writes past its output, never traps', () => {
  const { text, random } = samples();
  const r = rng(2026);
  let errors = 0;
  for (const data of [text, random.subarray(0, 20000)]) {
    const good = lzma(data);
    for (let k = 0; k < 150; k++) {
      const bad = Buffer.from(good);
      const kind = k % 3;
      let packed = bad;
      if (kind === 0)
        bad[5 + (r() % (bad.length - 5))] ^= 1 << r() % 8; // one bit flipped
      else if (kind === 1)
        packed = bad.subarray(0, r() % bad.length); // cut short
      else for (let j = 0; j < 8; j++) bad[r() % bad.length] = r() & 0xff; // bytes overwritten
      const { rc, out, guardIntact } = decode(packed, data.length);
      assert.ok(guardIntact, `case ${k}: wrote past its output`);
      assert.ok([0, 1, 2, 3].includes(rc), `case ${k}: code ${rc}`);
      if (rc === 0) assert.equal(out.length, data.length);
      else errors++;
    }
  }
  // A cut stream cannot produce all the bytes: those cases at least must all fail.
  assert.ok(errors >= 100, `only ${errors} of 300 corrupt streams reported an error`);
});

test('the module unpacks the same with Uint8Array.fromBase64 (where the engine has it) as with atob', async () => {
  // Node 20 has no Uint8Array.fromBase64: the page's browsers do. One module is made with a
  // stand-in that counts its calls, one without; both answer an estimate byte for byte alike.
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  const path = join(site, 'gpucalc.js');
  const scenario = readFileSync(join(root, 'tests', 'fixtures', 'llama2-70b-h100-training.json'), 'utf8');
  const fresh = () => {
    delete require.cache[require.resolve(path)];
    return require(path)();
  };
  const had = Object.getOwnPropertyDescriptor(Uint8Array, 'fromBase64');
  let calls = 0;
  Uint8Array.fromBase64 = (s) => {
    calls++;
    return new Uint8Array(Buffer.from(s, 'base64'));
  };
  let fast;
  try {
    fast = await fresh();
  } finally {
    if (had) Object.defineProperty(Uint8Array, 'fromBase64', had);
    else delete Uint8Array.fromBase64;
  }
  assert.ok(calls >= 2, `fromBase64 called ${calls} times (the decoder and the packed module)`);
  const plain = await fresh();
  assert.equal(fast.estimate(scenario), plain.estimate(scenario));
  assert.match(plain.estimate(scenario), /"training"/);
});
