// Runs inside the module factory (emcc --pre-js): hands the module its binary, which
// scripts/embed-wasm.mjs writes below compressed with xz's raw LZMA1 filter, in base64, next to
// the decoder (wasm/lzma_decode.c, its own 6 KB module, instantiated synchronously). The
// compressed binary is ~20 % smaller after gzip than the binary itself (and than the Latin-1 text
// the file held before); decoding takes ~12-20 ms. Nothing is fetched (works from file://, under
// a CSP without connect-src), and it stays inside the factory, so createGpucalc.toString() carries
// it to a worker.
if (!Module['wasmBinary']) {
  Module['wasmBinary'] = (function (decoder, packed, size) {
    // Uint8Array.fromBase64 where the engine has it (Chromium 140+, Firefox 133+, Safari 18.2+):
    // 1.5-6 ms for the 254 KB of text where the loop below takes 11-19 ms on a cold load
    // (headless Chromium 156, 2026-12-02).
    function bytes(b64) {
      if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
      var s = atob(b64),
        n = s.length,
        b = new Uint8Array(n);
      for (var i = 0; i < n; i++) b[i] = s.charCodeAt(i);
      return b;
    }
    var lz = new WebAssembly.Instance(new WebAssembly.Module(bytes(decoder)), {}).exports;
    var src = bytes(packed),
      mem = lz.memory,
      at = mem.buffer.byteLength;
    mem.grow(Math.ceil((src.length + size) / 65536));
    new Uint8Array(mem.buffer, at, src.length).set(src);
    var rc = lz.decode(at, src.length, at + src.length, size);
    if (rc !== 0) throw new Error('gpucalc: the embedded WebAssembly module is corrupt (LZMA error ' + rc + ')');
    var out = new Uint8Array(mem.buffer, at + src.length, size).slice();
    if (typeof performance !== 'undefined' && performance.mark) performance.mark('gpucalc-module-unpacked');
    return out;
  })('__GPUCALC_LZMA_DECODER__', '__GPUCALC_WASM_PACKED__', +'__GPUCALC_WASM_SIZE__');
}
