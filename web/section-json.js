// Section "Scenario JSON": any scenario as text (custom devices, architectures, claims); the
// report as returned by the core. The element checks the text (Guard: size, nesting) before the
// module sees it; long texts are evaluated once typing pauses. Part of the page bundle.
const JsonSection = (function () {
  const { h } = Dom;
  const TYPE_AHEAD_CHARS = 4096;  // up to this length, every keystroke recomputes
  const PAUSE_MS = 150;

  function typed(el, ta) {
    el._state.json.text = ta.value;
    clearTimeout(el._jsonTimer);
    if (ta.value.length <= TYPE_AHEAD_CHARS) el._update('json');
    else el._jsonTimer = setTimeout(() => el._update('json'), PAUSE_MS);
  }

  function build(el, sec) {
    sec.appendChild(h('p', { class: 'prose', text: 'Any scenario, including custom devices and architectures (schema: docs/SCHEMA.md). The report is shown as returned by the core.' }));
    const ta = h('textarea', { id: 'json-text', 'data-field': 'text', rows: '8', spellcheck: 'false', 'aria-label': 'Scenario JSON',
      oninput: () => typed(el, ta) });
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
