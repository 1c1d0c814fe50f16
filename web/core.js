// The WebAssembly core (createGpucalc from gpucalc.js). Every call into the module goes through a
// core handle made by createCore: if the module ever throws (RangeError, "memory access out of
// bounds", abort), the instance is discarded, a fresh one is created, and the call can be retried
// once. The page shares one handle; the plan worker makes its own from the same source.
// Part of the page bundle (scripts/bundle.mjs); loadable on its own for the node tests.
const Core = (function () {
  // Self-contained (the worker is given its source text): uses no name from outside.
  // factory() -> Promise of a module instance; onRestart(error, name) is told of each discard.
  function createCore(factory, onRestart) {
    var inst = null;
    var loading = null;
    var restarts = 0;
    function load() {
      if (inst) return Promise.resolve(inst);
      if (!loading) {
        loading = Promise.resolve()
          .then(factory)
          .then(
            function (m) {
              inst = m;
              loading = null;
              return m;
            },
            function (e) {
              loading = null;
              throw e;
            }
          );
      }
      return loading;
    }
    // One call, now: the module's answer, or null when there is no instance or it threw (the
    // instance is then discarded and a fresh one is on its way). Several arguments come as an array.
    function tryCall(name, arg) {
      if (!inst) return null;
      try {
        return arg === undefined ? inst[name]() : Array.isArray(arg) ? inst[name].apply(inst, arg) : inst[name](arg);
      } catch (e) {
        inst = null;
        restarts++;
        if (onRestart) {
          try {
            onRestart(e, name);
          } catch (ignored) {
            /* a listener cannot break the core */
          }
        }
        load().catch(function () {
          /* reported when a call waits for it */
        });
        return null;
      }
    }
    function failure(name, why) {
      return JSON.stringify({ errors: [{ code: 'internal', field: '', message: 'the calculator failed (' + name + '): ' + why }] });
    }
    // One call that survives a failure: waits for an instance, retries once on a fresh one, and
    // answers an error report if that fails too. Never rejects.
    function call(name, arg) {
      var attempt = function () {
        return load().then(function () {
          return tryCall(name, arg);
        });
      };
      return attempt()
        .then(function (a) {
          return a !== null
            ? a
            : attempt().then(function (b) {
                return b !== null ? b : failure(name, 'it threw again on a fresh instance');
              });
        })
        .catch(function (e) {
          return failure(name, 'the module could not be loaded: ' + String((e && e.message) || e));
        });
    }
    return {
      load: load,
      tryCall: tryCall,
      call: call,
      get ready() {
        return inst !== null;
      },
      get restarts() {
        return restarts;
      },
      get instance() {
        return inst;
      } // for tests
    };
  }

  // The page's shared handle (one instance per page), and who to tell when it restarts.
  var shared = null;
  var listeners = [];
  function page() {
    if (!shared) {
      shared = createCore(
        function () {
          performance.mark('gpucalc-module-start');
          return globalThis.createGpucalc().then(function (m) {
            performance.mark('gpucalc-module-ready');
            return m;
          });
        },
        function (e, name) {
          listeners.forEach(function (fn) {
            fn(e, name);
          });
        }
      );
    }
    return shared;
  }
  function onRestart(fn) {
    listeners.push(fn);
    return function () {
      listeners = listeners.filter(function (x) {
        return x !== fn;
      });
    };
  }

  return { createCore: createCore, page: page, onRestart: onRestart };
})();
