// Runs inside the module factory after the runtime (emcc --post-js): the module's entry points as
// methods taking and returning strings, over the plain exports of wasm/bindings.cpp. Arguments go
// in as UTF-8 with explicit lengths; the answer is decoded straight from the module's memory.
(function () {
  var encoder = new TextEncoder(),
    decoder = new TextDecoder('utf-8');
  var NAMES = ['estimate', 'plan', 'explain', 'devices', 'presets', 'reality', 'schema', 'networks', 'version'];
  var ARITY = [1, 1, 2, 0, 0, 0, 0, 0, 0];
  function call(entry, args) {
    if (args.length !== ARITY[entry]) throw new TypeError('gpucalc: ' + NAMES[entry] + ' takes ' + ARITY[entry] + ' argument(s), not ' + args.length);
    for (var i = 0; i < args.length; i++)
      if (typeof args[i] !== 'string') throw new TypeError('gpucalc: ' + NAMES[entry] + ' takes JSON text (a string), not ' + typeof args[i]);
    var a = encoder.encode(args[0] || ''),
      b = encoder.encode(args[1] || '');
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
