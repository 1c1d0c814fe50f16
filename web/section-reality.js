// Section "Reality check": famous runs (our estimate vs the published figure), claims with
// verdicts, and the inverse questions (what can this cluster train; GPUs needed for a deadline).
// Part of the page bundle (scripts/bundle.mjs).
const RealitySection = (function () {
  const { h, kvTable } = Dom;

  function build(el, sec) {
    const f = Forms.fieldsOf(el, 'reality');
    sec.appendChild(h('p', { class: 'prose', text: 'Published training runs next to our estimate, and claims people repeat, each checked with the same model. "Open" loads the scenario into the calculator.' }));
    sec.appendChild(h('div', { class: 'reality-tables' }));
    sec.appendChild(h('h3', { text: 'What can this cluster train?' }));
    sec.appendChild(Forms.form('reality', [
      f('device', 'Device', { options: Forms.deviceOptions(el, Forms.notCpu) }),
      f('count', 'GPUs', { unit: 'devices' }),
      f('days', 'Days', { unit: 'days' }),
      f('model', 'Model (GPUs needed)', { options: Forms.modelOptions(el, false) }),
      f('tokens', 'Tokens (GPUs needed)', { unit: 'tokens' }),
      f('deadline', 'Deadline (GPUs needed)', { unit: 'days' })]));
    sec.appendChild(h('div', { class: 'results', 'data-results': 'reality' }));
  }

  const pct = (x) => (typeof x === 'number' ? (x >= 0 ? '+' : '') + (x * 100).toFixed(1) + '\u00a0%' : '—');

  function runsTable(el, rep) {
    const runRows = [];
    for (const run of rep.runs) {
      for (const c of run.comparisons) {
        const flag = (c.unofficial ? 'unofficial' : '') + (c.from_assumptions ? (c.unofficial ? ', ' : '') + 'computed from assumptions' : '');
        runRows.push(h('tr', { 'data-run': run.id },
          h('th', { scope: 'row', text: run.name }),
          h('td', { text: c.metric }),
          h('td', { title: F.exact(c.published) }, F.byKey(c.metric, c.published)),
          h('td', { title: F.exact(c.estimate) }, c.estimate === null ? '—' : F.byKey(c.metric, c.estimate)),
          h('td', { class: 'err', text: pct(c.error) }),
          h('td', { class: 'note' }, flag ? h('strong', { text: flag + '. ' }) : null, c.note || '', ' ', h('span', { class: 'source', text: c.source })),
          h('td', null, h('button', { type: 'button', 'aria-label': 'Open ' + run.name, onclick: () => el.importScenario(JSON.stringify(run.scenario)) }, 'Open'))));
      }
    }
    return h('table', { class: 'data runs' }, h('caption', { text: 'Famous runs: our estimate vs the published figure' }),
      h('thead', null, h('tr', null, ['Run', 'Figure', 'Published', 'Our estimate', 'Error', 'Notes and source', ''].map((x) => h('th', { scope: 'col', text: x })))),
      h('tbody', null, runRows));
  }

  // The famous runs and claims (one call to the core, cached on the element).
  function renderTables(el, box) {
    box.textContent = '';
    const rep = el._reality || el._ask('reality', undefined, () => renderTables(el, box));
    if (rep.errors) { box.appendChild(h('p', { class: 'field-error', text: rep.errors.map((e) => e.message).join(' ') })); return; }
    el._reality = rep;
    box.appendChild(runsTable(el, rep));
    box.appendChild(h('p', { class: 'prose', text: 'Assumptions behind each estimate: ' + rep.runs.map((r) => r.name + ': ' + r.assumptions).join('. ') + '.' }));
    const claimRows = rep.claims.map((c) => h('li', { class: 'claim', 'data-claim': c.id },
      h('span', { class: 'verdict ' + c.verdict, text: c.verdict }), ' ', h('q', { text: c.text }), ' — ', c.reason, '. ',
      h('span', { class: 'prose', text: c.explanation || '' }), ' ',
      h('button', { type: 'button', 'aria-label': 'Open the scenario of: ' + c.text, onclick: () => el.importScenario(JSON.stringify(c.scenario)) }, 'Open')));
    box.appendChild(h('h3', { text: 'Claims checked' }));
    box.appendChild(h('ul', { class: 'claims' }, claimRows));
  }

  function show(el, res, r) {
    const a = r.inverse;
    res.appendChild(kvTable('In ' + el._state.reality.days + ' days', a, [['compute_flops', 'Compute budget'], ['mfu', 'MFU (' + a.mfu_source + ')'],
      ['compute_optimal_params', 'Compute-optimal model (parameters)'], ['compute_optimal_tokens', 'Compute-optimal tokens'],
      ['largest_fitting_params', 'Largest model whose training state fits (ZeRO-3)']], null, 'inverse'));
    res.appendChild(h('p', { class: 'prose', text: a.formula + '. ' + a.source + '.' }));
    const g = el._ask('estimate', JSON.stringify(Scenario.gpusNeeded(el._state.reality)), () => el._update('reality'));
    if (g.errors) res.appendChild(h('p', { class: 'field-error', text: g.errors.map((e) => e.message).join(' ') }));
    else res.appendChild(kvTable('GPUs needed for the model, tokens and deadline', g.inverse, [['gpus', 'GPUs'], ['mfu', 'Predicted MFU'],
      ['seconds_at_gpus', 'Time at that count'], ['gpu_hours', 'GPU-hours'], ['cost_usd', 'Cost']], null, 'inverse'));
  }

  return { build, renderTables, show };
})();
