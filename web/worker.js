// The plan search runs in a Web Worker made from a blob URL (works from file://): the worker gets
// its own copy of the WebAssembly module and answers one message per tensor-parallel degree.
// Part of the page bundle (scripts/bundle.mjs).
const PlanWorker = (function () {
  let workerUrl = null;
  function create() {
    if (!workerUrl) {
      const src = 'var _scriptDir = undefined;\nvar createGpucalc = (' + globalThis.createGpucalc.toString() + ');\n' +
        'var mod = null;\n' +
        'self.onmessage = function (e) {\n' +
        '  (mod ? Promise.resolve(mod) : createGpucalc().then(function (m) { mod = m; return m; })).then(function (m) {\n' +
        '    var q = e.data; var tps = q.tps; var out = [];\n' +
        '    for (var i = 0; i < tps.length; i++) {\n' +
        '      var sc = JSON.parse(q.scenario); sc.plan = { tp: tps[i], top_k: 10 };\n' +
        '      var r = JSON.parse(m.plan(JSON.stringify(sc)));\n' +
        '      self.postMessage({ id: q.id, done: i + 1, total: tps.length, result: r });\n' +
        '    }\n' +
        '  });\n' +
        '};\n';
      workerUrl = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    }
    return new Worker(workerUrl);
  }
  return { create };
})();
