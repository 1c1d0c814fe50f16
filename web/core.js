// The WebAssembly core (createGpucalc from gpucalc.js): one instance per page, loaded once.
// Part of the page bundle (scripts/bundle.mjs).
const Core = (function () {
  let modulePromise = null;
  function load() {
    if (!modulePromise) {
      performance.mark('gpucalc-module-start');
      modulePromise = globalThis.createGpucalc().then((m) => { performance.mark('gpucalc-module-ready'); return m; });
    }
    return modulePromise;
  }
  return { load };
})();
