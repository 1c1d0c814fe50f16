// Fields that follow other fields until the reader types them: the Plan search follows the run
// typed in Train (all of it but the layout), and Serve's "GPUs per copy" follows the model, GPU,
// count, weight format and expert parallelism. Part of the page bundle (scripts/bundle.mjs).
const Follow = (function () {
  const locale = () => (globalThis.navigator && navigator.language) || 'en-US';

  // The search follows the Train section (the run a reader sized there) until the reader changes one
  // of the Plan form's fields (state plan.own, kept in links and storage like the fields): model,
  // GPUs and batch are copied into the Plan form from Train's (the batch Train's answer used when its
  // form leaves it blank); the rest of Train's run comes in trainRun. Returns whether it follows.
  function planFromTrain(el) {
    const p = el._state.plan;
    const t = el._state.train;
    if (p.own === '1' || !t || !t.model || t.model === 'custom') return false;
    const last = el._last.train && el._last.train.report && el._last.train.report.inputs;
    const batch = t.global_batch || (last && last.training && last.training.global_batch ? Parse.text(last.training.global_batch, locale()) : p.global_batch);
    Object.assign(p, { model: t.model, device: t.device, count: t.count, global_batch: batch });
    Forms.sync(el, 'plan');
    return true;
  }

  // The layout fields the search chooses (core/src/layout.cpp kLayoutFields) and what rests on them.
  const SEARCHED = [
    'tp',
    'pp',
    'dp',
    'cp',
    'ep',
    'expert_tp',
    'vpp',
    'micro_batch',
    'zero',
    'recompute',
    'sequence_parallel',
    'overlap_dp_comm',
    'global_batch',
    'layout',
    'mfu'
  ];

  // The Train section's run without its layout (none when Train's form cannot be read, or is a
  // fleet): everything else it says (precision, framework, sequence, network, DualPipe, the settings
  // of an opened scenario) is what the followed search evaluates, so the plan it finds runs as found.
  function trainRun(el) {
    const b = Scenario.build.train(el._state.train, el._state);
    if (b.problems.length || !b.scenario.hardware || b.scenario.hardware.pools) return null;
    const sc = JSON.parse(JSON.stringify(b.scenario));
    for (const k of SEARCHED) delete sc.training[k];
    delete sc.scaling;
    return sc;
  }

  // The Plan section's scenario: its form's, or, when it follows Train, Train's run with the Plan
  // form's batch (said in the line under the form).
  function planScenario(el) {
    const run = planFromTrain(el) ? trainRun(el) : null;
    el._planFollowing = Boolean(run);
    const note = el._sections.plan.querySelector('[data-plan-follow]');
    if (note)
      note.replaceChildren(
        run
          ? 'Searching the Train section\u2019s run (its model, GPUs, batch, precision, sequence length, network and other settings). Change a field here to search another.'
          : 'Searching the setup in these fields (the Train section\u2019s settings are not used). ',
        run
          ? ''
          : Dom.h(
              'button',
              {
                type: 'button',
                'data-action': 'follow-train',
                onclick: () => {
                  el._state.plan.own = '';
                  PlanSection.start(el);
                }
              },
              'Search the Train run again'
            )
      );
    const built = Scenario.build.plan(el._state.plan);
    if (run) {
      run.training.global_batch = (built.scenario.training || {}).global_batch;
      built.scenario = run;
    }
    return built;
  }

  // A change in the Train section: a search that follows it runs again once the reader pauses.
  function trainChanged(el) {
    if (!el._planFollowing) return;
    clearTimeout(el._planTimer);
    el._planTimer = setTimeout(() => {
      if (el._planFollowing) PlanSection.start(el);
    }, 400);
  }

  // Bits per weight of the form's weight formats (GGUF: llama.cpp's block sizes, as the core's
  // gguf_bits_per_weight; only to choose "GPUs per copy", the core sizes the memory itself).
  const WEIGHT_BITS = {
    fp32: 32,
    bf16: 16,
    fp16: 16,
    fp8: 8,
    int8: 8,
    int4: 4,
    fp4: 4,
    'gguf:q8_0': 8.5,
    'gguf:q6_k': 6.5625,
    'gguf:q5_k_m': 5.5,
    'gguf:q4_k_m': 4.85,
    'gguf:q4_0': 4.5
  };

  // "GPUs per copy" follows the model, GPU, count, weight format and expert parallelism until the
  // reader types it: the smallest power of two (tp x ep within the GPUs available) whose share of the
  // weights leaves a fifth of the usable memory for the KV cache; the largest when none does (the
  // answer then says it does not fit). Returns the value, or null when the form cannot tell (a model or GPU unknown).
  function serveTp(el) {
    const s = el._state.serve;
    const m = (el._presets || []).find((p) => p.id === s.model);
    const d = (el._devices || []).find((x) => x.id === s.device);
    const n = Parse.parse(s.count || '1', 'count', locale()).value;
    if (!m || !d || !d.memory_bytes || !(n >= 1)) return null;
    const ep = Parse.parse(s.ep || '1', 'count', locale()).value || 1;
    // Routed experts split over tp x ep GPUs, the rest over tp (SwiGLU experts: 3 matrices each).
    const moeLayers = m.experts > 0 ? m.layers - (m.dense_layers || 0) : 0;
    const expert = Math.min(m.params, moeLayers * m.experts * 3 * m.hidden * (m.expert_ffn_hidden || 0));
    const bytes = (WEIGHT_BITS[s.weights] || 16) / 8;
    const usable = d.memory_bytes * (d.usable_memory_fraction || 1);
    let tp = 1;
    for (let t = 1; t * ep <= n && t <= 64; t *= 2) {
      if (m.heads && m.heads % t !== 0) continue; // GPUs beyond whole copies stay idle (the answer says so)
      tp = t;
      if (((m.params - expert) / t + expert / (t * ep)) * bytes <= 0.8 * usable) break;
    }
    return tp;
  }

  // A reader's change in a form. Plan: its setup becomes the reader's own (no longer Train's).
  // Serve: "GPUs per copy" typed is theirs (state serve.tp_typed; blank: it follows again);
  // otherwise it follows what sizes it.
  function formChanged(el, sec, key) {
    if (sec === 'plan') el._state.plan.own = '1';
    if (sec !== 'serve') return;
    const s = el._state.serve;
    if (key === 'tp') {
      s.tp_typed = s.tp !== '' ? '1' : '';
      if (s.tp_typed) return;
    } else if (!['model', 'device', 'count', 'weights', 'ep'].includes(key) || s.tp_typed === '1') return;
    const tp = serveTp(el);
    if (tp === null) return;
    s.tp = Parse.text(tp, locale());
    Forms.sync(el, 'serve');
  }

  return { planScenario, trainChanged, serveTp, formChanged };
})();
