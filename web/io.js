// Export (scenario, report, CSV of the report tables) and import (a scenario file, or the "Open"
// buttons of the reality section), and the toolbar that offers them. Part of the page bundle.
const IO = (function () {
  const { h, download } = Dom;

  function toolbar(el) {
    const file = h('input', {
      type: 'file',
      accept: 'application/json,.json',
      class: 'visually-hidden',
      id: 'import-file',
      tabindex: '-1',
      'aria-hidden': 'true',
      onchange: () => {
        const f = file.files[0];
        if (f)
          f.text().then(
            (t) => el.importScenario(t),
            () => el.importScenario(null)
          );
        file.value = '';
      }
    });
    const status = h('div', { class: 'import-status', role: 'status', 'aria-live': 'polite' });
    el._importStatus = status;
    const save = (name, text, type) => download(el._root, name, text, type);
    // The import is a real button (keyboard focus, a visible ring) that opens the file picker.
    return h(
      'footer',
      { class: 'toolbar' },
      h(
        'div',
        { class: 'toolbar-row' },
        h(
          'button',
          { type: 'button', onclick: () => save('gpucalc-scenario.json', JSON.stringify(el.exportScenario(), null, 2), 'application/json') },
          'Export scenario'
        ),
        h(
          'button',
          { type: 'button', onclick: () => save('gpucalc-report.json', JSON.stringify(el.exportReport(), null, 2), 'application/json') },
          'Export report'
        ),
        h('button', { type: 'button', onclick: () => save('gpucalc-tables.csv', el.exportCsv(), 'text/csv') }, 'Export CSV'),
        h('button', { type: 'button', class: 'import-button', onclick: () => file.click() }, 'Import scenario'),
        file
      ),
      status,
      h('p', { class: 'fineprint', text: 'Runs entirely in your browser. Figures: vendor datasheets and papers (sources under each catalog figure).' })
    );
  }

  // The section an export refers to when none is named: the one in view, else the training run if
  // shown, else the first with a result.
  function activeSection(el) {
    const vis = el._visibleSections().filter((s) => el._last[s]);
    if (vis.includes(el._state.view.section)) return el._state.view.section;
    return vis.includes('train') ? 'train' : vis.filter((s) => s !== 'json')[0];
  }
  function exportScenario(el, sec) {
    sec = sec || activeSection(el);
    return el._last[sec] ? el._last[sec].scenario : null;
  }
  // The whole report, as the CLI writes it for the scenario: the page asked without derivations
  // (app.js _update), so an export asks once more with them.
  function exportReport(el, sec) {
    sec = sec || activeSection(el);
    const last = el._last[sec];
    if (!last) return null;
    const lean = last.report.inputs && last.report.inputs.explain === false && last.scenario && !('explain' in last.scenario);
    if (!lean) return last.report;
    const full = el._ask('estimate', JSON.stringify(last.scenario));
    if (full.errors) say(el, 'The report is exported without its derivations: the calculator ' + (full.pending ? 'is still starting.' : 'failed to add them.'));
    return full.errors ? last.report : full; // the module starting or failing now: the answer on screen, without derivations
  }

  // One CSV cell. Numbers are written as numbers (negative ones stay readable); text is quoted, and
  // text starting with = + - @ tab or CR gets a leading single quote so that a spreadsheet shows it
  // instead of running it as a formula (OWASP, CSV injection).
  function csvCell(v) {
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    let s = String(v);
    if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return '"' + s.replace(/"/g, '""') + '"';
  }

  function exportCsv(el) {
    const lines = ['section,key,value'];
    for (const sec of Object.keys(el._last)) {
      const walk = (o, p) => {
        if (o === null || typeof o !== 'object') {
          lines.push([sec, p, o].map(csvCell).join(','));
          return;
        }
        if (Array.isArray(o)) return;
        for (const k of Object.keys(o)) if (k !== 'explain' && k !== 'inputs') walk(o[k], p ? p + '.' + k : k);
      };
      walk(el._last[sec].report, '');
    }
    return lines.join('\n') + '\n';
  }

  // The import's outcome, next to the import button; a failure is an alert.
  function say(el, msg, bad) {
    const s = el._importStatus;
    if (!s) return;
    s.textContent = msg;
    s.classList.toggle('bad', !!bad);
    s.setAttribute('role', bad ? 'alert' : 'status');
    s.setAttribute('aria-live', bad ? 'assertive' : 'polite');
  }

  // Checks the text (size, nesting: Guard), then validates it with the core; on any problem, or
  // any exception on the way, the state from before the import is kept and the reason shown.
  function importScenario(el, text) {
    const before = JSON.stringify(el._state);
    try {
      return importChecked(el, text);
    } catch (e) {
      if (JSON.stringify(el._state) !== before) {
        el._state = State.sanitizeState(JSON.parse(before));
        try {
          for (const sec of Object.keys(el._built)) {
            Forms.sync(el, sec);
            el._update(sec);
          }
        } catch (e2) {
          /* the message below still tells the reader */
        }
      }
      say(el, 'Import failed: ' + String((e && e.message) || e) + '. Nothing was changed.', true);
      return false;
    }
  }

  function importChecked(el, text) {
    const fail = (msg) => {
      say(el, 'Import failed: ' + msg, true);
      return false;
    };
    if (typeof text !== 'string') return fail('the file could not be read as text.');
    const why = Guard.check(text, Guard.MAX_IMPORT_CHARS);
    if (why) return fail(why + '.');
    const report = el._ask('estimate', text, () => el.importScenario(text));
    if (report.pending) {
      say(el, 'The calculator is still starting: the scenario is imported as soon as it is ready.');
      return null;
    }
    if (report.errors) return fail(report.errors.map((e) => Words.humanize(e.message)).join('; '));
    const sc = JSON.parse(text);
    const mapped = Scenario.toState(sc);
    if (!mapped || !el._sections[mapped.section]) {
      if (!el._sections.json)
        return fail(
          mapped
            ? 'this is a ' + State.TITLES[mapped.section] + ' scenario, which this view does not show.'
            : 'this scenario needs the Scenario JSON section, which this view does not show.'
        );
      if (text.length > Guard.MAX_EDITOR_CHARS)
        return fail('this scenario needs the Scenario JSON section, which holds at most ' + F.en(Guard.MAX_EDITOR_CHARS) + ' characters.');
    }
    const sec = el.openScenario(sc, 'an imported scenario.', { focus: false });
    say(el, sec === 'json' ? 'Imported into Scenario JSON (settings beyond the forms).' : 'Imported into ' + State.TITLES[sec] + '.');
    return true;
  }

  return { toolbar, exportScenario, exportReport, csvCell, exportCsv, importScenario };
})();
