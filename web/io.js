// Export (scenario, report, CSV of the report tables) and import (a scenario file, or the "Open"
// buttons of the reality section), and the toolbar that offers them. Part of the page bundle.
const IO = (function () {
  const { h, download } = Dom;

  function toolbar(el) {
    const file = h('input', { type: 'file', accept: 'application/json,.json', class: 'visually-hidden', id: 'import-file', 'aria-label': 'Import scenario file',
      onchange: () => { const f = file.files[0]; if (f) f.text().then((t) => el.importScenario(t)); file.value = ''; } });
    const status = h('div', { class: 'import-status', role: 'status', 'aria-live': 'polite' });
    el._importStatus = status;
    const save = (name, text, type) => download(el._root, name, text, type);
    return h('footer', { class: 'toolbar' },
      h('button', { type: 'button', onclick: () => save('gpucalc-scenario.json', JSON.stringify(el.exportScenario(), null, 2), 'application/json') }, 'Export scenario'),
      h('button', { type: 'button', onclick: () => save('gpucalc-report.json', JSON.stringify(el.exportReport(), null, 2), 'application/json') }, 'Export report'),
      h('button', { type: 'button', onclick: () => save('gpucalc-tables.csv', el.exportCsv(), 'text/csv') }, 'Export CSV'),
      h('label', { for: 'import-file', class: 'button' }, 'Import scenario'), file, status,
      h('p', { class: 'fineprint', text: 'Runs entirely in your browser. Figures: vendor datasheets and papers (sources in the catalog).' }));
  }

  // The section an export refers to when none is named: the training run if shown, else the first.
  function activeSection(el) {
    const vis = el._visibleSections().filter((s) => s !== 'json' && el._last[s]);
    return vis.includes('train') ? 'train' : vis[0];
  }
  function exportScenario(el, sec) { sec = sec || activeSection(el); return el._last[sec] ? el._last[sec].scenario : null; }
  function exportReport(el, sec) { sec = sec || activeSection(el); return el._last[sec] ? el._last[sec].report : null; }

  function exportCsv(el) {
    const lines = ['section,key,value'];
    const q = (s) => '"' + String(s).replace(/"/g, '""') + '"';
    for (const sec of Object.keys(el._last)) {
      const walk = (o, p) => {
        if (o === null || typeof o !== 'object') { lines.push([sec, p, o].map(q).join(',')); return; }
        if (Array.isArray(o)) return;
        for (const k of Object.keys(o)) if (k !== 'explain' && k !== 'inputs') walk(o[k], p ? p + '.' + k : k);
      };
      walk(el._last[sec].report, '');
    }
    return lines.join('\n') + '\n';
  }

  // Validates with the core first; on any problem the current state is kept and the errors shown.
  function importScenario(el, text) {
    const say = (msg, bad) => { if (el._importStatus) { el._importStatus.textContent = msg; el._importStatus.classList.toggle('bad', !!bad); } };
    if (typeof text !== 'string' || text.length > 1 << 20) { say('Import failed: the file is too large.', true); return false; }
    const why = Guard.check(text, Guard.MAX_IMPORT_CHARS);
    if (why) { say('Import failed: ' + why + '.', true); return false; }
    const report = el._ask('estimate', text, () => el.importScenario(text));
    if (report.errors) { say('Import failed: ' + report.errors.map((e) => e.message).join('; '), true); return false; }
    const mapped = Scenario.toState(JSON.parse(text));
    if (!mapped) {
      if (!el._sections.json) { say('Import failed: this scenario needs the Scenario JSON section, which this view does not show.', true); return false; }
      el._state.json.text = text;
      const ta = el._root.getElementById('json-text');
      if (ta) ta.value = text;
      el._update('json');
      el._sections.json.scrollIntoView();
      say('Imported into Scenario JSON (settings beyond the forms).');
      return true;
    }
    Object.assign(el._state[mapped.section], mapped.state[mapped.section]);
    el._state = State.sanitizeState(el._state);
    el._render();
    if (el._sections[mapped.section]) el._sections[mapped.section].scrollIntoView();
    say('Imported into ' + State.TITLES[mapped.section] + '.');
    return true;
  }

  return { toolbar, exportScenario, exportReport, exportCsv, importScenario };
})();
