// The plan search runs in a Web Worker made from a blob URL (works from file://): the worker gets
// its own copy of the WebAssembly module, called through the same wrapper as the page's
// (Core.createCore: a throw re-creates the module and retries once), and answers one message per
// tensor-parallel degree.
// Part of the page bundle (scripts/bundle.mjs).
const PlanWorker = (function () {
  let workerUrl = null;
  function create() {
    if (!workerUrl) {
      const src =
        'var _scriptDir = undefined;\nvar createGpucalc = (' +
        globalThis.createGpucalc.toString() +
        ');\n' +
        'var createCore = (' +
        Core.createCore.toString() +
        ');\n' +
        'var core = createCore(createGpucalc);\n' +
        'self.onmessage = function (e) {\n' +
        '  var q = e.data; var tps = q.tps; var i = 0;\n' +
        '  (function next() {\n' +
        '    if (i >= tps.length) return;\n' +
        '    var sc = JSON.parse(q.scenario); sc.plan = { tp: tps[i], top_k: q.top_k || 10, max_vpp: q.max_vpp || 8 };\n' +
        '    core.call("plan", JSON.stringify(sc)).then(function (out) {\n' +
        '      i++;\n' +
        '      self.postMessage({ id: q.id, done: i, total: tps.length, result: JSON.parse(out) });\n' +
        '      next();\n' +
        '    });\n' +
        '  })();\n' +
        '};\n';
      workerUrl = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    }
    return new Worker(workerUrl);
  }
  return { create };
})();
