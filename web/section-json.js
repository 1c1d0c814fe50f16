// Section "Scenario JSON": any scenario as text (custom devices, architectures, claims); the
// report as returned by the core. The element checks the text (Guard: size, nesting) before the
// module sees it; long texts are evaluated once typing pauses. Part of the page bundle.
const JsonSection = (function () {
  const { h } = Dom;
  const TYPE_AHEAD_CHARS = 4096; // up to this length, every keystroke recomputes
  const PAUSE_MS = 150;

  function typed(el, ta) {
    el._state.json.text = ta.value;
    el._userEdit('json');
    clearTimeout(el._jsonTimer);
    if (ta.value.length <= TYPE_AHEAD_CHARS) el._update('json');
    else el._jsonTimer = setTimeout(() => el._update('json'), PAUSE_MS);
  }

  function build(el, sec) {
    sec.appendChild(
      h('p', {
        class: 'prose',
        text: 'Any scenario, including custom devices and architectures (the keys are listed in docs/SCHEMA.md). The report is shown as returned by the core.'
      })
    );
    const ta = h('textarea', {
      id: 'json-text',
      'data-field': 'text',
      rows: '8',
      spellcheck: 'false',
      'aria-label': 'Scenario JSON',
      'aria-describedby': 'json-text-error',
      oninput: () => typed(el, ta)
    });
    ta.value = el._state.json.text || Scenario.build.json(el._state.json, el._state).scenario;
    sec.appendChild(ta);
    sec.appendChild(h('div', { class: 'field-error', id: 'json-text-error', role: 'alert' }));
    sec.appendChild(h('div', { class: 'results', 'data-results': 'json' }));
  }

  // A short answer from whatever the report holds.
  function answer(el, r) {
    const o = { figures: [] };
    for (const [k, name] of [
      ['training', 'Training'],
      ['inference', 'Serving'],
      ['finetune', 'Fine-tuning']
    ]) {
      const x = r[k];
      if (!x || typeof x.fits !== 'boolean') continue;
      o.fit = x.fits;
      o.fitText = name + (x.fits ? ' fits in memory.' : ' does not fit: ' + Words.humanize(x.infeasible_reason, 'json') + '.');
    }
    const t = r.training;
    if (t && t.seconds) o.figures.push(['Time', F.duration(t.seconds), null, 'time'], ['Cost', F.usd(t.cost_usd), null, 'cost']);
    if (r.inference && r.inference.fits) o.figures.push(['Speed per user', F.count(r.inference.output_tokens_per_second_per_user) + ' tok/s', null, 'speed']);
    if (r.claim) o.lead = 'Claim: ' + r.claim.verdict + ' \u2014 ' + Words.humanize(r.claim.reason) + '.';
    if (!o.figures.length && !o.lead && o.fit === undefined) o.lead = 'The report is below.';
    return Card.card('json', o);
  }

  function show(el, res, r) {
    res.appendChild(
      h('pre', {
        class: 'report',
        tabindex: '0',
        'aria-label': 'Report JSON',
        text: JSON.stringify(r, (k, v) => (k === 'explain' || k === 'curve' ? undefined : v), 1).slice(0, 20000)
      })
    );
  }

  return { build, answer, show };
})();
