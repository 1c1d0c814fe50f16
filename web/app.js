// gpucalc page: the <gpu-calc> custom element. It builds scenarios from the form, calls the
// WebAssembly core (createGpucalc from gpucalc.js) and renders the report. No formulas live here:
// every number shown comes from the core's report; the page only formats and draws.
// Security: no user-controlled string reaches innerHTML; the DOM is built with textContent.
// This file is the last of the page modules that scripts/bundle.mjs concatenates into one script:
// dom, guard, state, scenario, core, worker, charts, forms, one file per section, io, the element.
const SECTION_VIEWS = {
  explain: ExplainSection, cluster: ClusterSection, train: TrainSection, plan: PlanSection,
  serve: ServeSection, reality: RealitySection, json: JsonSection
};

class GpuCalc extends HTMLElement {
  connectedCallback() {
    if (this._root) return;
    this._root = this.attachShadow({ mode: 'open' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(globalThis.__gpucalcCss || '');
    this._root.adoptedStyleSheets = [sheet];
    this._sections = {};
    this._last = {};
    this._notices = Dom.h('div', { class: 'notices', role: 'status', 'aria-live': 'polite' });
    this._root.appendChild(this._notices);
    this._state = this._initialState();
    const loading = Dom.h('div', { class: 'loading', role: 'status', text: 'Loading the calculator…' });
    this._root.appendChild(loading);
    this._core = Core.page();
    Core.onRestart(() => this._notice('The calculator hit an internal error; it was restarted and the last step retried.'));
    Promise.all([this._core.call('devices'), this._core.call('presets')]).then(([d, p]) => {
      const devices = JSON.parse(d).devices;
      const presets = JSON.parse(p).models;
      if (!devices || !presets) { loading.textContent = 'The calculator could not start: ' + (JSON.parse(d).errors || JSON.parse(p).errors)[0].message; return; }
      this._devices = devices;
      this._presets = presets;
      this._render();
    });
  }

  // Every call into the module goes through the shared core handle (web/core.js): if the module
  // throws, the handle discards it and creates a fresh one, and `again` (the same step) runs once
  // more on it; a second failure stays an error report. Returns the parsed answer.
  _ask(name, arg, again) {
    const out = this._core.tryCall(name, arg);
    if (out !== null) return JSON.parse(out);
    const retry = again && !this._retrying;
    if (retry) this._core.load().then(() => { this._retrying = true; try { again(); } finally { this._retrying = false; } }, () => {});
    return { errors: [{ code: 'internal', field: '', message: 'The calculator failed on this input' + (retry ? '; trying once more.' : '.') }] };
  }

  // A short message above the calculator (restored settings dropped, module restarted).
  _notice(text) {
    for (const p of this._notices.children) if (p.firstChild.textContent === text) return;
    const p = Dom.h('p', { class: 'notice' }, Dom.h('span', { text }), ' ',
      Dom.h('button', { type: 'button', class: 'notice-close', 'aria-label': 'Dismiss notice', onclick: () => p.remove() }, '×'));
    this._notices.appendChild(p);
  }

  // Defaults, then the scenario attribute, then (with sync-url) the URL hash or the saved state.
  _initialState() {
    let st = State.cloneDefaults();
    const attr = this.getAttribute('scenario');
    if (attr && !Guard.checkText(attr, Guard.MAX_IMPORT_CHARS)) {
      try {
        const mapped = Scenario.toState(JSON.parse(attr));
        if (mapped) for (const sec of Object.keys(mapped.state)) Object.assign(st[sec], mapped.state[sec]);
      } catch (e) { /* an invalid attribute leaves the defaults */ }
    }
    if (this.hasAttribute('sync-url')) {
      const fromHash = State.decodeState(location.hash);
      if (fromHash) st = fromHash;
      else {
        const saved = State.loadStored();
        if (saved) st = saved.state;
        if (saved && saved.problems.length) {
          // Dropped, said so, and the cleaned state saved at once: nothing broken survives a reload.
          this._notice('Some saved settings could not be restored and were reset: ' + saved.problems.join('; ') + '.');
          State.save(st);
        }
      }
    }
    return State.sanitizeState(st);
  }

  // Saving the state is debounced: browsers throttle history.replaceState (Chromium: 100 calls per
  // 10 s) and typing must not wait for storage.
  _persist() {
    if (!this.hasAttribute('sync-url')) return;
    clearTimeout(this._persistTimer);
    this._persistTimer = setTimeout(() => this.persistNow(), 150);
  }
  persistNow() {
    clearTimeout(this._persistTimer);
    if (!this.hasAttribute('sync-url')) return;
    State.save(this._state);
  }

  _visibleSections() {
    const want = (this.getAttribute('section') || 'all').split(/[\s,]+/);
    return State.SECTIONS.filter((s) => want.includes('all') || want.includes(s));
  }

  _render() {
    const h = Dom.h;
    const root = this._root;
    root.textContent = '';
    root.appendChild(this._notices);
    const compact = this.hasAttribute('compact');
    const wrap = h('div', { class: 'gpucalc' + (compact ? ' compact' : '') });
    if (!compact) {
      wrap.appendChild(h('header', null,
        h('h1', { text: 'gpucalc' }),
        h('p', { class: 'tagline', text: 'AI hardware questions, answered from datasheets and papers — every figure with its derivation.' })));
      const nav = h('nav', { 'aria-label': 'Sections' });
      for (const s of this._visibleSections()) nav.appendChild(h('a', { href: '#' + s, 'data-section': s, onclick: (e) => { e.preventDefault(); this._sections[s].scrollIntoView(); } }, State.TITLES[s]));
      wrap.appendChild(nav);
    }
    for (const s of this._visibleSections()) {
      const sec = h('section', { id: s, 'data-section': s, 'aria-labelledby': 'h-' + s });
      sec.appendChild(h('h2', { id: 'h-' + s, text: State.TITLES[s] }));
      this._sections[s] = sec;
      wrap.appendChild(sec);
      SECTION_VIEWS[s].build(this, sec);
    }
    if (!compact) wrap.appendChild(IO.toolbar(this));
    root.appendChild(wrap);
    this._chartCache = {};
    this._chartWidth = 0;
    // Light sections first so the first results appear at once; the plan search (a worker) and the
    // reality tables (many estimates) follow when the browser is idle.
    const heavy = ['plan', 'reality'];
    const later = (fn) => (globalThis.requestIdleCallback ? requestIdleCallback(fn, { timeout: 200 }) : setTimeout(fn, 0));
    for (const s of this._visibleSections()) if (!heavy.includes(s)) this._update(s);
    const gen = (this._renderGen = (this._renderGen || 0) + 1);
    for (const s of this._visibleSections())
      if (heavy.includes(s)) later(() => { if (gen === this._renderGen) { if (s === 'reality') RealitySection.renderTables(this, this._sections.reality.querySelector('.reality-tables')); this._update(s); } });
  }

  // Estimates one section from its form state and shows the report (or the errors, keeping the
  // last good result visible). The editor's text is checked (size, nesting) before the module
  // sees it.
  _update(sec) {
    if (!this._devices) return;
    if (sec === 'plan') return PlanSection.start(this);
    const scenario = Scenario.build[sec](this._state[sec]);
    const text = typeof scenario === 'string' ? scenario : JSON.stringify(scenario);
    const why = sec === 'json' ? Guard.check(text, Guard.MAX_EDITOR_CHARS) : null;
    const report = why ? { errors: [{ code: 'refused', field: '', message: 'Not evaluated: ' + why + '.' }] } : this._ask('estimate', text, () => this._update(sec));
    Forms.showErrors(this, sec, report.errors || []);
    this._persist();
    const res = this._sections[sec].querySelector('.results');
    if (report.errors) {
      res.classList.add('stale');
      res.setAttribute('aria-busy', 'false');
      this.dispatchEvent(new CustomEvent('gpucalc-error', { detail: { section: sec, errors: report.errors } }));
      return;  // the last good result stays visible
    }
    this._last[sec] = { scenario: typeof scenario === 'string' ? JSON.parse(scenario) : scenario, report };
    res.classList.remove('stale');
    res.textContent = '';
    SECTION_VIEWS[sec].show(this, res, report);
    if (!this._firstResult) { this._firstResult = true; performance.mark('gpucalc-first-result'); }
    this.dispatchEvent(new CustomEvent('gpucalc-update', { detail: { section: sec } }));
  }

  // Public API (also used by the tests and the embedding page).
  usePlan(p) { PlanSection.use(this, p); }
  exportScenario(sec) { return IO.exportScenario(this, sec); }
  exportReport(sec) { return IO.exportReport(this, sec); }
  exportCsv() { return IO.exportCsv(this); }
  importScenario(text) { return IO.importScenario(this, text); }
}

if (!customElements.get('gpu-calc')) customElements.define('gpu-calc', GpuCalc);
globalThis.gpucalcPage = { encodeState: State.encodeState, decodeState: State.decodeState, sanitizeState: State.sanitizeState, csvCell: IO.csvCell, core: Core.page };
