// Runs inside the module factory (emcc --pre-js): hands the module its binary, which
// scripts/embed-wasm.mjs writes into the string below, one character per byte (Latin-1 in a
// UTF-8 file that starts with a byte-order mark; the first character is a key that every byte
// is XORed with, chosen so that few characters need escapes). Unlike a base64 data URI this
// compresses almost as well as the binary itself, needs no fetch (works from file://, under a
// CSP without connect-src) and stays inside the factory, so createGpucalc.toString() carries it
// to a worker.
if (!Module['wasmBinary']) {
  Module['wasmBinary'] = (function (s) {
    var k = s.charCodeAt(0), n = s.length - 1, b = new Uint8Array(n);
    for (var i = 0; i < n; i++) b[i] = s.charCodeAt(i + 1) ^ k;
    return b;
  })("__GPUCALC_WASM_BINARY__");
}
