// Section "Train": how long and how much to train a model on a cluster. The answer card says first
// whether it fits (and, when it does not, the nearest layout that does, one click away), then days,
// cost and the uncertainty band; below: the layout used, memory per GPU, step-time breakdown,
// goodput and the scaling curve. Part of the page bundle (scripts/bundle.mjs).
const TrainSection = (function () {
  const { h, kvTable, bar, warnings } = Dom;
  const LAYOUT_KEYS = ['tp', 'pp', 'dp', 'cp', 'ep', 'vpp', 'micro_batch', 'global_batch'];
  const locale = Scenario.locale;
  function build(el, body) {
    body.appendChild(Forms.form(el, 'train'));
    body.appendChild(
      h(
        'details',
        { class: 'details', open: !el.hasAttribute('compact') },
        h('summary', { text: 'Details: layout, memory, step time, goodput, scaling' }),
        h('div', { class: 'results', 'data-results': 'train' })
      )
    );
  }

  // Writes a training layout (a report's inputs.training, a suggested layout, a plan's training) into
  // the form. `all`: every training field, so that the form reproduces exactly what was searched.
  function applyLayout(el, t, all) {
    const s = el._state.train;
    for (const k of LAYOUT_KEYS) if (t[k] !== undefined) s[k] = t[k] === null ? '' : Parse.text(t[k], locale());
    if (t.zero !== undefined) s.zero = String(t.zero);
    if (t.recompute !== undefined) s.recompute = t.recompute;
    for (const k of ['sequence_parallel', 'overlap_dp_comm']) if (typeof t[k] === 'boolean') s[k] = t[k] ? 'on' : 'off';
    s.layout = '';
    if (all) {
      for (const k of ['precision', 'attention', 'framework']) s[k] = typeof t[k] === 'string' ? t[k] : Fields.spec('train', k).dflt || '';
      s.mfu = '';
      s.seq_len = '';
      s.extra = '';
    }
  }

  function useLayout(el, t) {
    applyLayout(el, t, false);
    Forms.sync(el, 'train');
    el._update('train');
    el._focusAnswer('train');
  }

  // "138 – 218 days" (one unit when both ends share it).
  function range(a, b) {
    const ua = a.split('\u00a0');
    const ub = b.split('\u00a0');
    return ua.length === 2 && ub.length === 2 && ua[1] === ub[1] ? ua[0] + ' \u2013 ' + b : a + ' \u2013 ' + b;
  }

  function answer(el, r) {
    const t = r.training;
    const u = t.uncertainty || {};
    const cap = t.memory_capacity_bytes;
    const need = t.memory_per_gpu_bytes.total;
    const searched = t.layout_searched;
    const o = { figures: [], notes: [] };
    o.fit = t.fits;
    o.fitText = t.fits
      ? 'Fits in memory: ' + F.bytes(need) + ' of ' + F.bytes(cap) + ' per GPU.'
      : 'Does not fit: ' + Words.humanize(t.infeasible_reason || 'needs ' + F.bytes(need) + ' per GPU, which has ' + F.bytes(cap), 'train') + '.';
    if (!t.fits) {
      const s = t.suggested_layout;
      if (s) {
        o.notes.push(h('p', { class: 'suggestion', 'data-suggestion': '' }, h('strong', { text: 'A layout that fits: ' }), Card.layoutText(s) + '. '));
        o.actions = [h('button', { type: 'button', class: 'primary', 'data-action': 'use-layout', onclick: () => useLayout(el, s) }, 'Use this layout')];
      }
      o.notes.push(h('p', { class: 'muted', text: 'No time or cost is shown for a run that cannot start.' }));
      return Card.card('train', o);
    }
    if (t.seconds === null) o.lead = 'Give the training tokens to see the time and cost.';
    else {
      o.figures.push(['Time', F.duration(t.seconds), F.count(t.gpu_hours) + ' GPU-hours', 'days']);
      o.figures.push([
        'Cost',
        F.usd(t.cost_usd),
        'at ' + F.usd(t.gpu_hour_usd) + ' per GPU-hour' + (F.hourBasis(r.inputs.costs) && ' (' + F.hourBasis(r.inputs.costs) + ')'),
        'cost'
      ]);
      if (u.seconds_low !== null && u.seconds_high !== null && t.mfu_source !== 'given')
        o.figures.push([
          'Range',
          range(F.duration(u.seconds_low), F.duration(u.seconds_high)),
          F.usd(u.cost_usd_low) + ' \u2013 ' + F.usd(u.cost_usd_high) + ' (' + Card.bandHolds(u.widened) + ')',
          'range'
        ]);
      else o.figures.push(['Range', 'none', 'MFU given: the band is yours', 'range']);
    }
    o.figures.push([
      'MFU',
      F.percent(t.mfu),
      (t.mfu_source === 'given' ? 'given' : 'predicted') +
        ', of ' +
        String(t.mfu_peak_precision).toUpperCase() +
        ' peak' +
        // Long sequences: attention is a large share of the model FLOPs, counted whole (s x s) as PaLM
        // and Llama 3 count it, although a causal kernel skips the masked half (a newcomer's review).
        (t.model_flops_per_token > 1.3 * 6 * t.active_params ? '; attention counted whole (PaLM\u2019s convention)' : ''),
      'mfu'
    ]);
    o.figures.push(['Goodput', F.percent(t.goodput), 'time on useful steps', 'goodput']);
    const layout = Card.layoutText(r.inputs.training);
    o.notes.push(
      h(
        'p',
        { class: 'layout-line', 'data-layout': searched ? 'auto' : 'given' },
        h('strong', { text: searched ? 'Layout chosen by the plan search: ' : 'Layout: ' }),
        layout + '. ',
        h('span', { class: 'muted', text: 'Framework: ' + t.framework + '.' })
      )
    );
    return Card.card('train', o);
  }

  // The form shows what "auto" and "catalog" became: placeholders like "auto: 8".
  function placeholders(el, r) {
    const sec = el._sections.train;
    const t = r.inputs.training || {};
    for (const k of LAYOUT_KEYS) {
      const input = sec.querySelector('[data-field="' + k + '"]');
      if (input) input.placeholder = t[k] !== undefined && t[k] !== null ? 'auto: ' + F.count(t[k]) : 'auto';
    }
    const price = sec.querySelector('[data-field="gpu_hour_usd"]');
    if (price && r.training) price.placeholder = F.hourPlaceholder(r.inputs.costs, r.training.gpu_hour_usd);
    const mfu = sec.querySelector('[data-field="mfu"]');
    if (mfu && r.training) mfu.placeholder = r.training.mfu_predicted !== null ? 'predicted: ' + F.percent(r.training.mfu_predicted) : 'predicted';
  }

  function show(el, res, r) {
    const t = r.training;
    placeholders(el, r);
    const g = t.goodput_breakdown || {};
    res.appendChild(
      kvTable(
        'Run',
        t,
        [
          ['days', 'Wall-clock time'], // training.seconds is the same time: one row
          ['gpu_hours', 'GPU-hours'],
          ['cost_usd', 'Cost'],
          ['energy_kwh', 'Energy'],
          ['co2_kg', 'CO2'],
          ['params', 'Parameters'],
          ['active_params', 'Active parameters'],
          ['flops', 'Model FLOPs'],
          ['flops_6nd', '6·N·D'],
          ['mfu', 'MFU (' + t.mfu_source + ', of ' + String(t.mfu_peak_precision).toUpperCase() + ' peak)'],
          ['hfu', 'HFU'],
          ['tokens_per_second', 'Throughput'],
          ['achieved_flops_per_second_per_gpu', 'Achieved per GPU'],
          ['step_seconds', 'Step time'],
          ['goodput', 'Goodput'],
          ['fits', 'Fits in memory']
        ],
        el._derivations('train'),
        'training'
      )
    );
    const used = r.inputs.training;
    res.appendChild(
      h(
        'div',
        { class: 'kv-wrap' },
        h(
          'table',
          { class: 'kv layout' },
          h('caption', { text: t.layout_searched ? 'Layout (chosen by the plan search)' : 'Layout (as given)' }),
          h(
            'tbody',
            null,
            [
              ['tp', 'Tensor parallel'],
              ['pp', 'Pipeline parallel'],
              ['dp', 'Data parallel'],
              ['cp', 'Context parallel'],
              ['ep', 'Expert parallel'],
              ['vpp', 'Interleaving'],
              ['micro_batch', 'Micro-batch'],
              ['global_batch', 'Global batch'],
              ['zero', 'ZeRO stage'],
              ['recompute', 'Recomputation'],
              ['sequence_parallel', 'Sequence parallel'],
              ['precision', 'Precision']
            ].map(([k, label]) =>
              h(
                'tr',
                null,
                h('th', { scope: 'row', text: label }),
                h('td', {
                  'data-key': 'inputs.training.' + k,
                  text: typeof used[k] === 'boolean' ? (used[k] ? 'on' : 'off') : used[k] === null || used[k] === undefined ? '\u2014' : String(used[k])
                })
              )
            )
          )
        )
      )
    );
    const m = t.memory_per_gpu_bytes;
    res.appendChild(
      bar(
        'Memory per GPU',
        [
          ['weights', m.weights],
          ['gradients', m.gradients],
          ['optimizer', m.optimizer],
          ['activations', m.activations],
          ['overhead', m.overhead]
        ],
        t.memory_capacity_bytes,
        F.bytes
      )
    );
    const sb = t.step_breakdown_seconds;
    if (sb.total !== null)
      res.appendChild(
        bar(
          'Step time breakdown',
          [
            ['GEMM', sb.gemm],
            ['attention', sb.attention],
            ['memory-bound', sb.memory_bound],
            ['TP comm', sb.tp_comm],
            ['CP comm', sb.cp_comm],
            ['PP comm', sb.pp_comm],
            ['EP all-to-all', sb.ep_comm],
            ['PP bubble', sb.pp_bubble],
            ['DP comm (exposed)', sb.dp_comm],
            ['exchange across sites', sb.outer_comm || 0],
            ['optimizer', sb.optimizer],
            ['kernel overhead', sb.overhead]
          ],
          0,
          F.duration
        )
      );
    res.appendChild(
      h(
        'div',
        { class: 'kv-wrap' },
        h(
          'table',
          { class: 'kv goodput' },
          h('caption', { text: 'Goodput: ' + F.percent(t.goodput) + ' of the wall time on useful steps' }),
          h(
            'tbody',
            null,
            [
              ['Failures per hour (whole cluster)', F.count(g.failures_per_hour)],
              ['Checkpoint write', F.duration(g.checkpoint_seconds)],
              ['Checkpoint every', F.duration(g.checkpoint_interval_seconds)],
              ['Restart after a failure', F.duration(g.restart_seconds)],
              ['From', g.source === 'training.goodput' ? 'the Goodput field' : 'the failure and checkpoint model']
            ].map(([a, b]) => h('tr', null, h('th', { scope: 'row', text: a }), h('td', { text: b })))
          )
        )
      )
    );
    if (t.uncertainty && t.uncertainty.band_basis)
      res.appendChild(h('p', { class: 'band', 'data-key': 'training.uncertainty' }, 'Range: ' + t.uncertainty.band_basis + '.'));
    NetworkView.training(el, res, r);
    if (r.scaling && r.scaling.length > 1) TrainScaling.show(el, res, r);
    const w = warnings(r.warnings, 'train');
    if (w) res.appendChild(w);
  }

  return { build, answer, show, applyLayout, useLayout };
})();
