// Scenarios from the forms, and form state from a scenario (imports, "Open" buttons, the element's
// scenario attribute). No formulas: the core validates and computes. Part of the page bundle.
const Scenario = (function () {
  // A number field: numeric text becomes a number; anything else is passed through as a string so
  // that the core reports the error against the field's path.
  function num(v) {
    const t = String(v).trim();
    if (t === '') return undefined;
    const x = Number(t);
    return Number.isFinite(x) ? x : t;
  }
  function put(obj, key, v) { if (v !== undefined) obj[key] = v; }

  function modelOf(s) {
    if (s.model === 'custom-params') return { params: num(s.params) };
    return { preset: s.model };
  }

  // One builder per section: form state -> scenario (the JSON section's is its text).
  const build = {
    explain(s) {
      return {
        compare: { a: s.a, b: s.b, precision: s.precision },
        roofline: { devices: s.a === s.b ? [s.a] : [s.a, s.b], precision: s.precision, matmul_n: num(s.matmul_n), model: { preset: s.model } }
      };
    },
    cluster(s) { return { hardware: { device: s.device, count: num(s.count) } }; },
    train(s) {
      const t = {};
      for (const k of ['tokens', 'mfu', 'tp', 'pp', 'vpp', 'ep', 'zero', 'micro_batch', 'global_batch']) put(t, k, num(s[k]));
      t.recompute = s.recompute;
      t.precision = s.precision;
      const costs = {};
      put(costs, 'gpu_hour_usd', num(s.gpu_hour_usd));
      return { model: modelOf(s), hardware: { device: s.device, count: num(s.count) }, training: t, costs, scaling: true };
    },
    serve(s) {
      const t = { weight_precision: s.weight_precision, kv_precision: s.kv_precision };
      for (const k of ['batch', 'prompt_tokens', 'output_tokens', 'tp', 'requests_per_day', 'peak_to_average']) put(t, k, num(s[k]));
      const costs = {};
      put(costs, 'gpu_hour_usd', num(s.gpu_hour_usd));
      return { model: { preset: s.model }, hardware: { device: s.device, count: num(s.count) }, inference: t, costs };
    },
    plan(s) {
      return { model: { preset: s.model }, hardware: { device: s.device, count: num(s.count) }, training: { global_batch: num(s.global_batch) } };
    },
    reality(s) {
      return { hardware: { device: s.device, count: num(s.count) }, inverse: { question: 'what_can_train', days: num(s.days) } };
    },
    json(s) { return s.text; }
  };

  // The reality section's second question: how many GPUs for this model, tokens and deadline.
  function gpusNeeded(s) {
    return { model: { preset: s.model }, hardware: { device: s.device }, training: { tokens: num(s.tokens) }, inverse: { question: 'gpus_needed', days: num(s.deadline) } };
  }

  // Scenario (from an import) -> form state of a section; returns null if it does not map.
  function toState(sc) {
    if (!sc || typeof sc !== 'object') return null;
    const st = {};
    const str = (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : undefined);
    const hw = sc.hardware && typeof sc.hardware === 'object' ? sc.hardware : {};
    const model = sc.model && typeof sc.model === 'object' ? sc.model : {};
    if (typeof hw.device === 'object') return null;  // custom devices: use the Scenario JSON section
    // Anything the forms cannot hold (architectures, MoE counts, extra settings) goes to the JSON section.
    const only = (o, keys) => !o || (typeof o === 'object' && Object.keys(o).every((k) => keys.includes(k)));
    if (!only(model, ['preset', 'params']) || !only(hw, ['device', 'count']) || !only(sc.costs, ['gpu_hour_usd'])) return null;
    if (!only(sc, ['model', 'hardware', 'training', 'inference', 'costs', 'compare', 'scaling', 'explain', 'name', 'description'])) return null;
    if (sc.training && !only(sc.training, ['tokens', 'mfu', 'tp', 'pp', 'vpp', 'ep', 'zero', 'micro_batch', 'global_batch', 'recompute', 'precision'])) return null;
    if (sc.inference && !only(sc.inference, ['weight_precision', 'kv_precision', 'batch', 'prompt_tokens', 'output_tokens', 'tp', 'requests_per_day', 'peak_to_average'])) return null;
    if (sc.training && typeof sc.training === 'object') {
      const t = sc.training;
      st.train = { device: str(hw.device), count: str(hw.count), model: model.preset ? model.preset : 'custom-params', params: str(model.params) || '' };
      // Numeric fields left out of the scenario take the core's defaults (blank); choices keep the form's.
      for (const k of ['tokens', 'mfu', 'tp', 'pp', 'vpp', 'ep', 'micro_batch', 'global_batch']) st.train[k] = str(t[k]) || '';
      for (const k of ['zero', 'recompute', 'precision']) if (t[k] !== undefined) st.train[k] = str(t[k]);
      if (sc.costs && sc.costs.gpu_hour_usd !== undefined) st.train.gpu_hour_usd = str(sc.costs.gpu_hour_usd);
      return { section: 'train', state: st };
    }
    if (sc.inference && typeof sc.inference === 'object') {
      const t = sc.inference;
      st.serve = { device: str(hw.device), count: str(hw.count), model: str(model.preset) };
      for (const k of ['weight_precision', 'kv_precision', 'batch', 'prompt_tokens', 'output_tokens', 'tp', 'requests_per_day', 'peak_to_average'])
        if (t[k] !== undefined) st.serve[k] = str(t[k]);
      return { section: 'serve', state: st };
    }
    if (sc.compare && typeof sc.compare === 'object') {
      st.explain = { a: str(sc.compare.a), b: str(sc.compare.b), precision: str(sc.compare.precision) || 'bf16' };
      return { section: 'explain', state: st };
    }
    if (sc.hardware) {
      st.cluster = { device: str(hw.device), count: str(hw.count) };
      return { section: 'cluster', state: st };
    }
    return null;
  }

  return { num, build, gpusNeeded, toState };
})();
