// Section "Plan search": every parallel layout of a training run, searched in a background worker
// (one message per tensor-parallel degree) with progress and cancel; the best plans by step time,
// a chart of step time vs memory, and "use this plan" into the training form.
// Part of the page bundle (scripts/bundle.mjs).
const PlanSection = (function () {
  const { h, dataTable } = Dom;
  const TPS = [1, 2, 4, 8];

  function build(el, sec) {
    const f = Forms.fieldsOf(el, 'plan');
    sec.appendChild(h('p', { class: 'prose', text: 'Every valid layout — tensor, pipeline (with interleaving), data parallelism, ZeRO stage, micro-batch, recomputation, sequence parallelism, overlap — evaluated with the training model, in a background worker. The best plans by step time:' }));
    sec.appendChild(Forms.form('plan', [
      f('model', 'Model', { options: Forms.modelOptions(el, false) }),
      f('device', 'Device', { options: Forms.deviceOptions(el, Forms.notCpu) }),
      f('count', 'GPUs', { unit: 'devices' }),
      f('global_batch', 'Global batch', { unit: 'sequences' })]));
    const progress = h('progress', { max: String(TPS.length), value: '0', 'aria-label': 'Plan search progress' });
    const status = h('span', { class: 'plan-status', role: 'status', 'aria-live': 'polite' });
    const cancelButton = h('button', { type: 'button', class: 'plan-cancel', onclick: () => cancel(el, 'cancelled') }, 'Cancel');
    sec.appendChild(h('div', { class: 'plan-controls' }, progress, ' ', status, ' ', cancelButton));
    el._planUi = { progress, status, cancel: cancelButton };
    sec.appendChild(h('div', { class: 'results', 'data-results': 'plan' }));
  }

  function cancel(el, why) {
    if (el._worker) { el._worker.terminate(); el._worker = null; }
    if (why && el._planUi) el._planUi.status.textContent = why === 'cancelled' ? 'Search cancelled.' : '';
    if (el._planUi) el._planUi.cancel.disabled = true;
  }

  // Validates the scenario at once (a one-plan search), then searches in the worker.
  function start(el) {
    cancel(el);
    const scenario = Scenario.build.plan(el._state.plan);
    const check = el._ask('plan', JSON.stringify(Object.assign({}, scenario, { plan: { tp: 1, top_k: 1, max_vpp: 1, max_micro_batch: 1 } })), () => start(el));
    Forms.showErrors(el, 'plan', check.errors || []);
    el._persist();
    const res = el._sections.plan.querySelector('.results');
    if (check.errors) { res.classList.add('stale'); return; }
    const ui = el._planUi;
    ui.progress.max = TPS.length;
    ui.progress.value = 0;
    ui.status.textContent = 'Searching…';
    ui.cancel.disabled = false;
    res.setAttribute('aria-busy', 'true');
    const id = (el._planId = (el._planId || 0) + 1);
    const acc = { considered: 0, feasible: 0, oom: 0, indivisible: 0, best: [], layouts: [], t0: performance.now() };
    const w = PlanWorker.create();
    el._worker = w;
    w.onmessage = (e) => {
      const d = e.data;
      if (d.id !== id) return;
      const failed = (d.result.errors || []).filter((x) => x.code === 'internal');
      if (failed.length) {  // the worker's module failed twice on this search
        cancel(el);
        ui.status.textContent = 'Search failed: ' + failed.map((x) => x.message).join(' ');
        res.removeAttribute('aria-busy');
        return;
      }
      const p = d.result.plan;
      if (p) {
        acc.considered += p.considered; acc.feasible += p.feasible;
        acc.oom += p.rejected.out_of_memory; acc.indivisible += p.rejected.indivisible;
        acc.best = acc.best.concat(p.best).sort((a, b) => a.step_seconds - b.step_seconds).slice(0, 10);
        acc.layouts = acc.layouts.concat(p.best_per_layout).sort((a, b) => a.step_seconds - b.step_seconds);
      }
      ui.progress.value = d.done;
      if (d.done === d.total) {
        cancel(el);
        const secs = (performance.now() - acc.t0) / 1e3;
        ui.status.textContent = 'Done: ' + F.count(acc.considered) + ' plans considered, ' + F.count(acc.feasible) + ' feasible (' +
          F.count(acc.oom) + ' out of memory, ' + F.count(acc.indivisible) + ' indivisible) in ' + F.duration(secs) + '.';
        res.removeAttribute('aria-busy');
        res.classList.remove('stale');
        res.textContent = '';
        el._last.plan = { scenario, report: { plan: acc } };
        show(el, res, acc);
        el.dispatchEvent(new CustomEvent('gpucalc-update', { detail: { section: 'plan' } }));
      }
    };
    w.postMessage({ id, scenario: JSON.stringify(scenario), tps: TPS });
  }

  function show(el, res, acc) {
    const rows = acc.best.map((p, i) => h('tr', { 'data-plan': String(i) },
      h('td', { text: String(i + 1) }), h('td', { text: String(p.tp) }), h('td', { text: String(p.pp) }), h('td', { text: String(p.dp) }),
      h('td', { text: String(p.vpp) }), h('td', { text: String(p.micro_batch) }), h('td', { text: String(p.zero) }), h('td', { text: p.recompute }),
      h('td', { text: p.sequence_parallel ? 'on' : 'off' }), h('td', { text: F.duration(p.step_seconds) }), h('td', { text: F.bytes(p.memory_per_gpu_bytes) }),
      h('td', { text: F.percent(p.mfu) }),
      h('td', null, h('button', { type: 'button', 'aria-label': 'Use plan ' + (i + 1), onclick: () => el.usePlan(p) }, 'Use this plan'))));
    res.appendChild(h('table', { class: 'data plans' }, h('caption', { text: 'Best plans by step time' }),
      h('thead', null, h('tr', null, ['#', 'TP', 'PP', 'DP', 'VPP', 'micro', 'ZeRO', 'recompute', 'SP', 'step', 'memory/GPU', 'MFU', ''].map((x) => h('th', { scope: 'col', text: x })))),
      h('tbody', null, rows)));
    const pts = acc.layouts.slice().sort((a, b) => a.memory_per_gpu_bytes - b.memory_per_gpu_bytes);
    if (pts.length > 1) {
      Charts.chart(el, res, 'Best plan of each (TP, PP) layout: step time vs memory per GPU', {
        mode: 1,
        scales: { x: { time: false } },
        axes: [{ label: 'memory per GPU', values: (u, v) => v.map((x) => F.bytes(x)) }, { label: 'step time', size: 70, values: (u, v) => v.map((x) => F.duration(x)) }],
        series: [{ label: 'memory' }, { label: 'step time', stroke: '#1971c2', width: 0, points: { show: true, size: 8, fill: '#1971c2' }, value: (u, v) => F.duration(v) }]
      }, [pts.map((p) => p.memory_per_gpu_bytes), pts.map((p) => p.step_seconds)],
      dataTable(['TP', 'PP', 'step', 'memory/GPU', 'MFU'], pts.map((p) => [String(p.tp), String(p.pp), F.duration(p.step_seconds), F.bytes(p.memory_per_gpu_bytes), F.percent(p.mfu)])));
    }
  }

  // Fills the training form with a plan and shows it there.
  function use(el, p) {
    const s = el._state.train;
    const plan = el._state.plan;
    Object.assign(s, { model: plan.model, device: plan.device, count: plan.count, mfu: '',
      tp: String(p.tp), pp: String(p.pp), zero: String(p.zero), recompute: p.recompute, micro_batch: String(p.micro_batch), global_batch: String(p.global_batch) });
    el._render();
    if (el._sections.train) el._sections.train.scrollIntoView();
  }

  return { build, start, cancel, use };
})();
