// Runs inside the module factory after the runtime (emcc --post-js): the module's entry points as
// methods taking and returning strings, over the plain exports of wasm/bindings.cpp. Arguments go
// in as UTF-8 with explicit lengths; the answer is decoded straight from the module's memory.
(function () {
  var encoder = new TextEncoder(),
    decoder = new TextDecoder('utf-8');
  var NAMES = ['estimate', 'plan', 'explain', 'devices', 'presets', 'reality', 'schema', 'networks', 'version'];
  var ARITY = [1, 1, 2, 0, 0, 0, 0, 0, 0];
  // UTF-8 of a string. A lone surrogate (a JS string need not be valid Unicode) is written as the
  // three bytes it would take (WTF-8), invalid UTF-8 that the core refuses as the CLI refuses such a
  // file; TextEncoder would replace it with U+FFFD and the module would answer for other text.
  function utf8(s) {
    if (s.isWellFormed ? s.isWellFormed() : !/[\uD800-\uDFFF]/.test(s)) return encoder.encode(s);
    var out = new Uint8Array(s.length * 3),
      n = 0;
    for (var i = 0; i < s.length; i++) {
      var c = s.charCodeAt(i),
        d = s.charCodeAt(i + 1);
      if (c >= 0xd800 && c < 0xdc00 && d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        out[n++] = 0xf0 | (c >> 18);
        out[n++] = 0x80 | ((c >> 12) & 63);
      } else if (c >= 0x800) out[n++] = 0xe0 | (c >> 12);
      else if (c >= 0x80) {
        out[n++] = 0xc0 | (c >> 6);
        out[n++] = 0x80 | (c & 63);
        continue;
      } else {
        out[n++] = c;
        continue;
      }
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
    return out.subarray(0, n);
  }
  function cut(s) {
    return s.length > 1048577 ? s.slice(0, 1048577) : s;
  }
  function call(entry, args) {
    if (args.length !== ARITY[entry]) throw new TypeError('gpucalc: ' + NAMES[entry] + ' takes ' + ARITY[entry] + ' argument(s), not ' + args.length);
    for (var i = 0; i < args.length; i++)
      if (typeof args[i] !== 'string') throw new TypeError('gpucalc: ' + NAMES[entry] + ' takes JSON text (a string), not ' + typeof args[i]);
    // Past the core's limit (kMaxScenarioBytes, core/include/gpucalc/api.hpp: 1 MiB; each UTF-16
    // unit is at least one byte) only the first 1 MiB + 1 units go in: the answer is the same
    // ("over 1048576 bytes"), without copying a huge string into the module's memory, which keeps
    // its size. An explain key that long matches no figure either way.
    var a = utf8(cut(args[0] || '')),
      b = utf8(cut(args[1] || ''));
    var at = _gpucalc_input(a.length + b.length); // may grow the memory: HEAPU8 is read after it
    HEAPU8.set(a, at);
    HEAPU8.set(b, at + a.length);
    var text = _gpucalc_call(entry, a.length);
    return decoder.decode(HEAPU8.subarray(text, text + _gpucalc_result_size()));
  }
  NAMES.forEach(function (name, entry) {
    Module[name] = function () {
      return call(entry, Array.prototype.slice.call(arguments));
    };
  });
})();
