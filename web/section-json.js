// Section "Scenario JSON": any scenario as text (custom devices, architectures, claims); the
// report as returned by the core. Part of the page bundle (scripts/bundle.mjs).
const JsonSection = (function () {
  const { h } = Dom;

  function build(el, sec) {
    sec.appendChild(h('p', { class: 'prose', text: 'Any scenario, including custom devices and architectures (schema: docs/SCHEMA.md). The report is shown as returned by the core.' }));
    const ta = h('textarea', { id: 'json-text', 'data-field': 'text', rows: '8', spellcheck: 'false', 'aria-label': 'Scenario JSON',
      oninput: () => { el._state.json.text = ta.value; el._update('json'); } });
    if (!el._state.json.text) el._state.json.text = JSON.stringify(Scenario.build.train(el._state.train), null, 1);
    ta.value = el._state.json.text;
    sec.appendChild(ta);
    sec.appendChild(h('div', { class: 'field-error', id: 'json-text-error', role: 'alert' }));
    sec.appendChild(h('div', { class: 'results', 'data-results': 'json' }));
  }

  function show(el, res, r) {
    res.appendChild(h('pre', { class: 'report', tabindex: '0', 'aria-label': 'Report JSON', text: JSON.stringify(r, (k, v) => (k === 'explain' || k === 'curve' ? undefined : v), 1).slice(0, 20000) }));
  }

  return { build, show };
})();
