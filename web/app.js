// gpucalc page: the <gpu-calc> custom element. It builds scenarios from the forms, calls the
// WebAssembly core (createGpucalc from gpucalc.js) and renders the report. No formulas live here:
// every number shown comes from the core's report; the page only formats and draws.
// Security: no user-controlled string reaches innerHTML; the DOM is built with textContent.
// First paint: only the first section is built and computed at once; the others are built when
// they come near the viewport or when the browser is idle (web/lazy.js), so nothing below the fold
// delays the first answer. This file is the last of the page modules that scripts/bundle.mjs concatenates.
const SECTION_VIEWS = {
  train: TrainSection,
  serve: ServeSection,
  finetune: FinetuneSection,
  plan: PlanSection,
  cluster: ClusterSection,
  explain: ExplainSection,
  reality: RealitySection,
  json: JsonSection
};

class GpuCalc extends HTMLElement {
  connectedCallback() {
    if (this._root) return;
    performance.mark('gpucalc-connected');
    this._root = this.attachShadow({ mode: 'open' });
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(globalThis.__gpucalcCss || '');
    this._root.adoptedStyleSheets = [sheet];
    this._sections = {};
    this._built = {};
    this._last = {};
    this._notices = Dom.h('div', { class: 'notices' });
    this._root.appendChild(this._notices);
    this._state = this._initialState();
    const loading = Dom.h('div', { class: 'loading', role: 'status', text: 'Loading the calculator\u2026' });
    this._root.appendChild(loading);
    if (typeof globalThis.createGpucalc !== 'function') {
      this._startFailed(loading, 'its script (gpucalc-embed.js) did not load completely');
      return;
    }
    this._core = Core.page();
    Core.onRestart(() => this._notice('The calculator hit an internal error; it was restarted and the last step retried.'));
    if (this._syncUrl) addEventListener('hashchange', () => Boot.fromAddress(this));
    Boot.start(this, loading);
  }
  // Runs fn once the module answers (at once if it does): what was asked before it did waits.
  _whenLive(fn) {
    if (this._live || this._failed) fn();
    else (this._waiting = this._waiting || []).push(fn);
  }
  // The section computed first: the state's, where this element shows it, else the first shown.
  _firstSection() {
    const vis = this._visibleSections();
    return vis.includes(this._state.view.section) ? this._state.view.section : vis[0];
  }

  _startFailed(box, why) {
    Notice.startFailed(box, why);
  }
  _notice(text, alert) {
    Notice.show(this, text, alert);
  }

  // Asks the module through the shared handle (web/core.js): if the module throws, the handle
  // re-creates it and `again` (the same step) runs once more. Returns the parsed answer.
  _ask(name, arg, again) {
    return Boot.ask(this, name, arg, again);
  }

  _initialState() {
    return Boot.initialState(this);
  }

  // Saved by the element that owns the address (Boot: one per page) while it has sync-url; debounced:
  // browsers throttle history.replaceState (Chromium: 100 calls per 10 s), typing must not wait.
  _persist() {
    if (!this._syncUrl || !this.hasAttribute('sync-url')) return;
    clearTimeout(this._persistTimer);
    this._persistTimer = setTimeout(() => this.persistNow(), 150);
  }
  persistNow() {
    clearTimeout(this._persistTimer);
    if (this._syncUrl && this.hasAttribute('sync-url')) State.save(this._state);
  }

  _visibleSections() {
    const want = (this._sectionOverride || this.getAttribute('section') || 'all').split(/[\s,]+/);
    return State.SECTIONS.filter((s) => want.includes('all') || want.includes(s));
  }

  // The page's frame: header with the questions, nav, one empty section per view (heading, answer
  // slot, body), toolbar. The first section is filled at once, the rest when near or idle.
  _render() {
    const h = Dom.h;
    const root = this._root;
    root.textContent = '';
    root.appendChild(this._notices);
    const compact = this.hasAttribute('compact');
    const wrap = h('div', { class: 'gpucalc' + (compact ? ' compact' : '') });
    if (!compact) wrap.append(Nav.header(this), Nav.nav(this));
    this._sections = {};
    this._built = {};
    for (const s of this._visibleSections()) {
      const sec = h(
        'section',
        { id: s, 'data-section': s, 'aria-labelledby': 'h-' + s },
        h('h2', { id: 'h-' + s, tabindex: '-1', text: State.TITLES[s] }),
        h('div', { class: 'origin-slot' }),
        h('div', { class: 'answer-slot', 'aria-live': 'polite' }, Card.waiting(s, 'Computing\u2026')),
        h('div', { class: 'body' })
      );
      this._sections[s] = sec;
      wrap.appendChild(sec);
    }
    if (!compact) wrap.appendChild(IO.toolbar(this));
    root.appendChild(wrap);
    this._chartCache = {};
    this._chartWidth = 0;
    Charts.watchTheme(this, () => {
      // The plan search is not run again (nor by Train's recolouring): its results are redrawn.
      for (const s of Object.keys(this._last)) if (s !== 'plan') this._update(s, { recolour: true });
      PlanSection.redraw(this);
    });
    const vis = this._visibleSections();
    const first = this._firstSection();
    this._update(first);
    if (first !== vis[0]) Lazy.pin(this, first);
    // The other sections once the module answers (with the first answer recorded, it starts after it).
    this._whenLive(() =>
      Lazy.fill(
        this,
        vis.filter((s) => s !== first)
      )
    );
  }
  // Builds a section's form (once); the Plan form shows Train's run from the start, not from its first search.
  _ensure(sec) {
    if (this._built[sec] || !this._sections[sec]) return;
    this._built[sec] = true;
    SECTION_VIEWS[sec].build(this, this._sections[sec].querySelector('.body'));
    if (sec === 'plan') Follow.planFromTrain(this);
    if (sec === 'reality') RealitySection.renderTables(this, this._sections.reality.querySelector('.reality-tables'));
  }

  _setAnswer(sec, card) {
    const slot = this._sections[sec] && this._sections[sec].querySelector('.answer-slot');
    if (!slot) return;
    if (!card.classList.contains('blocked') && !card.classList.contains('waiting') && !this.hasAttribute('compact')) card.appendChild(Share.buttons(this, sec));
    slot.replaceChildren(card);
  }

  // What was opened into a section (a famous run, a claim), until the reader changes the form.
  _setOrigin(sec, text) {
    const slot = this._sections[sec] && this._sections[sec].querySelector('.origin-slot');
    if (!slot) return;
    slot.replaceChildren(text ? Dom.h('p', { class: 'origin', 'data-origin': '' }, Dom.h('strong', { text: 'Opened: ' }), text) : '');
  }
  _userEdit(sec) {
    this._setOrigin(sec, '');
    this._state.view.section = sec;
  }

  // Estimates one section from its form state and shows the answer and the details; when a field
  // cannot be read or the core refuses, the reasons instead (never a stale result beside an error).
  _update(sec, opts) {
    if (!this._devices || !this._sections[sec]) return;
    this._ensure(sec);
    if (sec === 'plan') return PlanSection.start(this);
    if (sec === 'train' && this._built.plan && !(opts && opts.recolour)) Follow.trainChanged(this);
    const built = Scenario.build[sec](this._state[sec], this._state);
    if (sec !== 'json') Forms.showParsed(this, sec, built.parsed);
    // Asked without derivations unless the scenario says otherwise: _derivations fetches them later.
    const text = Scenario.requestText(built);
    const why = sec === 'json' ? Guard.check(text, Guard.MAX_EDITOR_CHARS) : null;
    let report = built.problems.length
      ? { errors: Forms.withCoreErrors(this, sec, built, text) }
      : why
        ? { errors: [{ code: 'refused', field: '', message: 'Not evaluated: ' + why + '.' }] }
        : this._ask('estimate', text, () => this._update(sec));
    if (report.pending) {
      // Waiting for the module: nothing of the previous answer stays (its details, its exports).
      delete this._last[sec];
      this._sections[sec].querySelector('.results').textContent = '';
      Forms.showErrors(this, sec, []);
      this._persist();
      return this._setAnswer(sec, Card.waiting(sec, 'Computing\u2026'));
    }
    // The editor's text as a value (kept with the answer): the core refuses all that JSON.parse does
    // but a byte-order mark, so this fails only if they ever disagree, and then the answer is an error.
    let scenario = built.scenario;
    if (typeof scenario === 'string' && !report.errors)
      try {
        scenario = JSON.parse(scenario.replace(/^\uFEFF/, ''));
      } catch (e) {
        report = { errors: [{ code: 'malformed_json', field: '', message: 'The scenario is not valid JSON: ' + e.message }] };
      }
    const marked = Forms.showErrors(this, sec, report.errors || []);
    this._persist();
    const res = this._sections[sec].querySelector('.results');
    res.textContent = '';
    if (report.errors) {
      delete this._last[sec];
      this._setAnswer(sec, Card.blocked(sec, report.errors.length, marked));
      this.dispatchEvent(new CustomEvent('gpucalc-error', { detail: { section: sec, errors: report.errors } }));
      return;
    }
    this._last[sec] = { scenario, report };
    this._setAnswer(sec, SECTION_VIEWS[sec].answer(this, report));
    if (!this._firstResult) return Lazy.firstAnswer(this, sec, res, report);
    this._showDetails(sec, res, report);
  }
  _showDetails(sec, res, report) {
    this._last[sec].shown = true;
    SECTION_VIEWS[sec].show(this, res, report);
    this.dispatchEvent(new CustomEvent('gpucalc-update', { detail: { section: sec } }));
  }

  // The derivations of a section's last answer, as a function kvTable calls when the browser is idle:
  // the first call estimates the scenario once more with derivations; later calls reuse them.
  _derivations(sec) {
    const last = this._last[sec];
    if (!last) return null;
    if (last.report.explain) return last.report.explain;
    const get = () => {
      // Before the module answers: a promise of them (Dom.attachDerivations waits for it).
      if (!this._live) return new Promise((done) => this._whenLive(() => done(get())));
      // An answer already replaced by newer input needs none; a failed fetch is not kept: the retry
      // (a fresh module, the section computed again) asks afresh.
      if (this._last[sec] !== last || last.explainFailed) return null;
      if (!last.explain) {
        const out = this._ask('explain', [JSON.stringify(last.scenario), ''], () => this._update(sec));
        if (out.errors) {
          last.explainFailed = true;
          return null;
        }
        last.explain = out.explain;
      }
      return last.explain;
    };
    return get;
  }

  // Opens a scenario in the form that holds it (or the Scenario JSON section), computes it there
  // and, unless told not to, moves focus to that section's heading. Returns the section or null.
  openScenario(sc, origin, opts) {
    const mapped = Scenario.toState(sc);
    let sec = mapped && this._sections[mapped.section] ? mapped.section : null;
    if (sec) {
      Object.assign(this._state[sec], mapped.state[sec]);
      this._state = State.sanitizeState(this._state);
      this._ensure(sec);
      Forms.sync(this, sec);
    } else if (this._sections.json) {
      sec = 'json';
      this._state.json.text = JSON.stringify(sc, null, 1);
      this._ensure('json');
      this._root.getElementById('json-text').value = this._state.json.text;
    } else return null;
    this._update(sec);
    this._setOrigin(sec, origin || '');
    if (!opts || opts.focus !== false) Nav.goto(this, sec, true);
    return sec;
  }

  _goto(sec, focus) {
    Nav.goto(this, sec, focus);
  }
  _focusAnswer(sec) {
    Nav.focusAnswer(this, sec);
  }

  // Public API (also used by the tests and the embedding page).
  usePlan(p) {
    PlanSection.use(this, p);
  }
  exportScenario(sec) {
    return IO.exportScenario(this, sec);
  }
  exportReport(sec) {
    return IO.exportReport(this, sec);
  }
  exportCsv() {
    return IO.exportCsv(this);
  }
  importScenario(text) {
    return IO.importScenario(this, text);
  }
  shareCode(sec, kind) {
    return Share.code(this, sec, kind);
  }
}

if (!customElements.get('gpu-calc')) customElements.define('gpu-calc', GpuCalc);
globalThis.gpucalcPage = {
  encodeState: State.encodeState,
  decodeState: State.decodeState,
  sanitizeState: State.sanitizeState,
  csvCell: IO.csvCell,
  core: Core.page,
  parse: Parse.parse
};
