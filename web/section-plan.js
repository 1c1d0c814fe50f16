// Section "Plan search": every parallel layout of a training run, searched in a background worker
// (one message per tensor-parallel degree) with progress and cancel; the best plans by throughput,
// a chart of throughput (the ranking; a shorter step can be a slower plan) vs memory, and "use this plan". Page bundle.
const PlanSection = (function () {
  const { h, dataTable } = Dom;
  const TPS = [1, 2, 4, 8];
  // The tensor-parallel sizes searched: within a node, at most 8, as the core's own default
  // (core/src/layout.cpp max_tp_within_node): devices_per_node as given (hardware, its one pool or
  // a device object), else the catalog device's (an object's base), else 1 as the core takes it.
  function tpsFor(el, scenario) {
    const hw = scenario.hardware || {};
    const pool = (hw.pools && hw.pools[0]) || {};
    const dev = hw.device || pool.device;
    const id = dev && typeof dev === 'object' ? dev.base : dev;
    const d = (el._devices || []).find((x) => x.id === id);
    const given = hw.devices_per_node || pool.devices_per_node || (dev && dev.devices_per_node);
    const node = given || (d && d.scale_up && d.scale_up.devices_per_node) || 1;
    return TPS.filter((t) => t === 1 || t <= node);
  }

  function build(el, sec) {
    sec.appendChild(
      h('p', {
        class: 'prose',
        text: 'Every valid layout — tensor, pipeline (with interleaving), data, context (long sequences) and expert (mixture-of-experts) parallelism, ZeRO stage, micro-batch, recomputation, sequence parallelism, overlap — evaluated with the training model, in a background worker. The best plans by throughput (tokens/s: a batch left blank is chosen per plan, so step times compare only at one batch):'
      })
    );
    sec.appendChild(Forms.form(el, 'plan'));
    sec.appendChild(h('p', { class: 'muted plan-follow', 'data-plan-follow': '' }));
    const progress = h('progress', { max: String(TPS.length), value: '0', 'aria-label': 'Plan search progress' });
    const status = h('span', { class: 'plan-status', role: 'status', 'aria-live': 'polite' });
    const cancelButton = h('button', { type: 'button', class: 'plan-cancel', onclick: () => cancel(el, 'cancelled') }, 'Cancel');
    sec.appendChild(h('div', { class: 'plan-controls' }, progress, ' ', status, ' ', cancelButton));
    el._planUi = { progress, status, cancel: cancelButton };
    sec.appendChild(
      h(
        'details',
        { class: 'details', open: !el.hasAttribute('compact') },
        h('summary', { text: 'Details: the best plans, throughput vs memory' }),
        h('div', { class: 'results', 'data-results': 'plan' })
      )
    );
  }

  // The same plan can come twice: recomputation that costs nothing (selective recompute with flash
  // attention outside Megatron-Core) gives the same step time; the one needing less memory is kept.
  function dedupe(plans) {
    const seen = new Map();
    for (const p of plans) {
      const k = [
        p.tp,
        p.pp,
        p.dp,
        p.vpp,
        p.micro_batch,
        p.zero,
        p.sequence_parallel,
        p.overlap_dp_comm,
        p.training && p.training.cp,
        p.training && p.training.ep,
        p.step_seconds.toPrecision(12)
      ].join('|');
      const old = seen.get(k);
      if (!old || p.memory_per_gpu_bytes < old.memory_per_gpu_bytes) seen.set(k, p);
    }
    // By throughput, as the core ranks them (with the batch left blank each plan has its own, and a
    // smaller batch's shorter step is not a faster plan).
    return [...seen.values()].sort((a, b) => b.tokens_per_second - a.tokens_per_second || a.memory_per_gpu_bytes - b.memory_per_gpu_bytes);
  }

  function cancel(el, why) {
    if (el._worker) {
      el._worker.terminate();
      el._worker = null;
    }
    if (why && el._planUi) el._planUi.status.textContent = why === 'cancelled' ? 'Search cancelled.' : '';
    if (el._planUi) el._planUi.cancel.disabled = true;
  }

  // Validates the scenario at once (a one-plan search), then searches in the worker.
  function start(el) {
    cancel(el);
    const built = Follow.planScenario(el);
    const following = el._planFollowing; // this search's: "use" keeps Train's settings only if it followed them
    const scenario = built.scenario;
    Forms.showParsed(el, 'plan', built.parsed);
    const check = built.problems.length
      ? { errors: built.problems }
      : el._ask('plan', JSON.stringify(Object.assign({}, scenario, { plan: { tp: 1, top_k: 1, max_vpp: 1, max_micro_batch: 1 } })), () => start(el));
    const marked = Forms.showErrors(el, 'plan', check.pending ? [] : check.errors || []);
    el._persist();
    const res = el._sections.plan.querySelector('.results');
    if (check.errors) {
      res.textContent = '';
      el._setAnswer('plan', check.pending ? Card.waiting('plan', 'Computing\u2026') : Card.blocked('plan', check.errors.length, marked));
      el._planUi.status.textContent = '';
      return;
    }
    el._setAnswer('plan', Card.waiting('plan', 'Searching every layout…'));
    const ui = el._planUi;
    const tps = tpsFor(el, scenario);
    ui.progress.max = tps.length;
    ui.progress.value = 0;
    ui.status.textContent = 'Searching…';
    ui.cancel.disabled = false;
    res.setAttribute('aria-busy', 'true');
    const id = (el._planId = (el._planId || 0) + 1);
    const acc = { considered: 0, feasible: 0, oom: 0, indivisible: 0, best: [], layouts: [], t0: performance.now() };
    const onmessage = (e) => {
      const d = e.data;
      if (d.id !== id || el._planId !== id) return; // a search replaced since (its worker's last messages)
      const failed = (d.result.errors || []).filter((x) => x.code === 'internal');
      if (failed.length) {
        // the worker's module failed twice on this search
        cancel(el);
        ui.status.textContent = 'Search failed: ' + failed.map((x) => x.message).join(' ');
        res.removeAttribute('aria-busy');
        return;
      }
      const p = d.result.plan;
      if (p) {
        acc.considered += p.considered;
        acc.feasible += p.feasible;
        acc.oom += p.rejected.out_of_memory;
        acc.indivisible += p.rejected.indivisible;
        acc.band = p.band;
        if (p.least_memory_per_gpu_bytes > 0) acc.least = Math.min(acc.least || Infinity, p.least_memory_per_gpu_bytes);
        acc.shape = p.assumed_shape;
        acc.best = dedupe(acc.best.concat(p.best)).slice(0, 10);
        acc.layouts = acc.layouts.concat(p.best_per_layout).sort((a, b) => b.tokens_per_second - a.tokens_per_second);
      }
      ui.progress.value = d.done;
      if (d.done === d.total) {
        cancel(el);
        const secs = (performance.now() - acc.t0) / 1e3;
        ui.status.textContent =
          'Done: ' +
          F.count(acc.considered) +
          ' plans considered, ' +
          F.count(acc.feasible) +
          ' feasible (' +
          F.count(acc.oom) +
          ' out of memory, ' +
          F.count(acc.indivisible) +
          ' indivisible) in ' +
          F.duration(secs) +
          '.';
        res.removeAttribute('aria-busy');
        res.classList.remove('stale');
        res.textContent = '';
        el._last.plan = { scenario, report: { plan: acc }, following };
        el._setAnswer('plan', PlanCard.answer(el, acc));
        show(el, res, acc);
        el.dispatchEvent(new CustomEvent('gpucalc-update', { detail: { section: 'plan' } }));
      }
    };
    // The automatic layout's bounds (core/src/layout.cpp auto_options: interleaving up to 8), so the
    // fastest plan is never slower than the layout Train chose by itself.
    const query = { id, scenario: JSON.stringify(scenario), tps, top_k: 20, max_vpp: 8 };
    let w = null;
    try {
      w = PlanWorker.create();
    } catch (e) {
      w = null;
    }
    if (w) {
      el._worker = w;
      w.onmessage = onmessage;
      w.onerror = () => {
        if (el._worker === w) {
          cancel(el);
          el._planInPage = true;
          inPage(el, query, onmessage);
        }
      };
      w.postMessage(query);
    } else inPage(el, query, onmessage);
  }

  // Without a worker (a host page whose Content-Security-Policy forbids blob: workers): the same
  // search on the page, one tensor-parallel degree per idle moment, said so in the status.
  function inPage(el, q, onmessage) {
    let i = 0;
    const step = () => {
      if (el._planId !== q.id) return;
      const sc = JSON.parse(q.scenario);
      sc.plan = { tp: q.tps[i], top_k: q.top_k, max_vpp: q.max_vpp };
      const result = el._ask('plan', JSON.stringify(sc));
      i++;
      onmessage({ data: { id: q.id, done: i, total: q.tps.length, result } });
      if (i < q.tps.length) Dom.idle(step, 100);
      else if (el._planUi) el._planUi.status.textContent += ' (This page\u2019s security policy blocks background workers: the search ran on the page.)';
    };
    el._planUi.cancel.disabled = true;
    Dom.idle(step, 100);
  }

  function show(el, res, acc) {
    res.textContent = '';
    // Context and expert parallelism get their columns when a plan uses them.
    const extra = ['cp', 'ep'].filter((k) => acc.best.some((p) => p.training && p.training[k] > 1));
    const layout = ['#', 'TP', 'PP', 'DP', ...extra.map((k) => k.toUpperCase()), 'VPP', 'micro', 'ZeRO', 'recompute'];
    const heads = layout.concat(['SP', 'overlap', 'batch', 'step', 'memory/GPU', 'MFU']);
    const cells = (p, i) => [i + 1, p.tp, p.pp, p.dp, ...extra.map((k) => p.training[k]), p.vpp, p.micro_batch, p.zero, p.recompute];
    const on = (p) => (p.sequence_parallel ? 'on' : 'off');
    const tail = (p) => [
      on(p),
      p.overlap_dp_comm ? 'on' : 'off',
      F.count(p.global_batch),
      F.duration(p.step_seconds),
      F.bytes(p.memory_per_gpu_bytes),
      F.percent(p.mfu)
    ];
    // data-label: on a phone each plan reflows into a card of labelled values (style.css).
    const rows = acc.best.map((p, i) =>
      h(
        'tr',
        { 'data-plan': String(i) },
        ...cells(p, i)
          .concat(tail(p))
          .map((x, k) => h('td', { text: String(x), 'data-label': heads[k] })),
        h('td', null, h('button', { type: 'button', 'aria-label': 'Use plan ' + (i + 1), onclick: () => el.usePlan(p) }, 'Use this plan'))
      )
    );
    res.appendChild(
      Dom.scroller(
        h(
          'table',
          { class: 'data plans' },
          h('caption', { text: 'Best plans by throughput' }),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              heads.map((x) => h('th', { scope: 'col', text: x })),
              h('th', { scope: 'col' }, h('span', { class: 'visually-hidden', text: 'Use' }))
            )
          ),
          h('tbody', null, rows)
        ),
        'Best plans'
      )
    );
    // The point marked is the plan the answer names (a plan of its layout can tie with it: ZeRO 2 beside 3).
    const top = acc.best[0];
    const same = (p) => top && p.tp === top.tp && p.pp === top.pp;
    const pts = acc.layouts
      .map((p) => (same(p) && p.tokens_per_second <= top.tokens_per_second ? top : p))
      .sort((a, b) => a.memory_per_gpu_bytes - b.memory_per_gpu_bytes);
    if (pts.length > 1) {
      Charts.chart(
        el,
        res,
        'Best plan of each (TP, PP) layout: throughput vs memory per GPU',
        {
          x: { label: 'memory per GPU', unit: 1024, fmt: F.bytes },
          y: { label: 'tokens/s', zero: true, fmt: F.count },
          series: [{ label: 'tokens/s', color: 'c0', line: false }],
          pick: pts.includes(top) ? pts.indexOf(top) : pts.indexOf(pts.reduce((a, b) => (b.tokens_per_second > a.tokens_per_second ? b : a))),
          note: (i) => 'TP ' + pts[i].tp + ', PP ' + pts[i].pp + ', MFU ' + F.percent(pts[i].mfu) + ', step ' + F.duration(pts[i].step_seconds)
        },
        [pts.map((p) => p.memory_per_gpu_bytes), pts.map((p) => p.tokens_per_second)],
        dataTable(
          ['TP', 'PP', 'tokens/s', 'memory/GPU', 'MFU', 'step'],
          pts.map((p) => [p.tp, p.pp, F.count(p.tokens_per_second), F.bytes(p.memory_per_gpu_bytes), F.percent(p.mfu), F.duration(p.step_seconds)].map(String)),
          'Plans per layout'
        )
      );
    }
  }

  // Fills the training form with a plan (every field the search chose, the plan's model, GPUs and
  // batch), computes it there and moves to its answer: the Train result is the plan's. A search that
  // followed the Train section keeps Train's other settings (they were the search's); one of the
  // Plan form's own setup takes the plan's precision and defaults for the rest.
  function use(el, p) {
    const s = el._state.train;
    const plan = el._state.plan;
    Object.assign(s, { model: plan.model, device: plan.device, count: plan.count });
    const followed = Boolean(el._last.plan && el._last.plan.following);
    TrainSection.applyLayout(el, p.training || p, !followed);
    s.global_batch = Parse.text(p.global_batch, Scenario.locale());
    el._ensure('train');
    Forms.sync(el, 'train');
    el._update('train');
    el._goto('train', true);
  }

  // Draws the last search's results again (a change of colour scheme) without searching again.
  function redraw(el) {
    const last = el._last.plan;
    const res = el._sections.plan && el._sections.plan.querySelector('.results');
    if (last && res) show(el, res, last.report.plan);
  }

  return { build, start, cancel, use, dedupe, redraw };
})();
