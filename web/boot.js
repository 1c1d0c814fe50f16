// How the element starts: its state from the defaults, the scenario attribute, the address
// (#s=<state> with sync-url, #section=...&scenario=... with hash-params) or the saved state (what
// cannot be used is said, never silently replaced by the defaults: a scenario or a section that
// cannot be shown stops the start, with the reason in the element); its first answer (recorded by
// the build for the default page) and the module; how it asks the module.
// Part of the page bundle (scripts/bundle.mjs).
const Boot = (function () {
  // A scenario's text (the scenario attribute, a frame's #scenario=) into the state. One that cannot
  // be used is the element's answer (el._blocked), with what is wrong: not the defaults' answer
  // under a notice, which a reader takes for the answer to the scenario the page meant.
  function scenarioInto(el, st, text, what) {
    const fail = (why) => (el._blocked = el._blocked || []).push(what + ' ' + why + '.');
    const why = Guard.check(text, Guard.MAX_IMPORT_CHARS);
    if (why) return fail('was not used: ' + why);
    let sc;
    try {
      sc = JSON.parse(text);
    } catch (e) {
      return fail('is not valid JSON (' + e.message + ')');
    }
    const want = el._visibleSections();
    const mapped = Scenario.toState(sc, el._sectionOverride || (want.length === 1 ? want[0] : null));
    if (!mapped || !want.includes(mapped.section)) {
      if (want.includes('json')) {
        st.json.text = text;
        st.view.section = 'json';
        return;
      }
      return fail(
        'was not used: ' +
          (mapped
            ? 'it is a ' + State.TITLES[mapped.section] + ' scenario, and this view shows ' + want.map((s) => State.TITLES[s]).join(', ')
            : 'the forms cannot hold it (use the Scenario JSON section)')
      );
    }
    Object.assign(st[mapped.section], mapped.state[mapped.section]);
    st.view.section = mapped.section;
  }

  // The section attribute (or a frame's #section=): names that are no section are said, with the
  // names there are; where none is left to show, that is the element's answer.
  function sectionNames(el, fromAddress) {
    const what = fromAddress !== null ? 'The section in the address' : 'The section attribute';
    const names = (fromAddress !== null ? fromAddress : el.getAttribute('section') || 'all').split(/[\s,]+/).filter(Boolean);
    const unknown = names.filter((s) => s !== 'all' && !State.SECTIONS.includes(s));
    if (!unknown.length) return;
    const quoted = unknown.map((s) => '\u201c' + s + '\u201d').join(', ');
    const text = what + ' names no section ' + quoted + '; the sections are ' + State.SECTIONS.join(', ') + ' and all.';
    el._noDefaults = !el._visibleSections().length;
    if (el._noDefaults) el._blocked = [text];
    else el._notice(text, true);
  }

  // One element per page keeps its state in the address (sync-url): the first connected. Two
  // would overwrite each other's #s= at every change, and each would read the other's on reload;
  // a second one keeps its state to itself, and says so to the page's author in the console.
  function ownsAddress(el) {
    if (!el.hasAttribute('sync-url')) return false;
    const owner = globalThis.__gpucalcAddressOwner;
    if (owner && owner !== el && owner.isConnected) {
      console.warn(
        'gpucalc: only one <gpu-calc sync-url> per page keeps its state in the address; another element already does, so this one neither reads nor writes it.',
        el
      );
      return false;
    }
    globalThis.__gpucalcAddressOwner = el;
    return true;
  }

  // Settings that could not be restored, said (they were reset).
  const resetNotice = (el, what, problems) => el._notice('Some ' + what + ' could not be restored and were reset: ' + problems.join('; ') + '.');

  // Defaults, then the scenario attribute, then the URL hash (#s=<state> with sync-url, or
  // #section=...&scenario=... with hash-params), or the saved state.
  function initialState(el) {
    el._syncUrl = ownsAddress(el);
    let st = State.cloneDefaults();
    const hash = typeof location !== 'undefined' ? location.hash : '';
    const params = /^#?(section|scenario)=/.test(hash) && (el.hasAttribute('hash-params') || el._syncUrl) ? new URLSearchParams(hash.slice(1)) : null;
    const hashSection = params && params.get('section');
    if (State.SECTIONS.includes(hashSection)) el._sectionOverride = hashSection;
    sectionNames(el, hashSection && !el._sectionOverride ? hashSection : null);
    const theme = el.getAttribute('theme');
    if (theme !== null && !['light', 'dark', 'auto'].includes(theme))
      el._notice('The theme attribute \u201c' + theme + '\u201d is none of light, dark or auto; the calculator follows the system\u2019s colour scheme.', true);
    if (el._noDefaults) return State.sanitizeState(st);
    const attr = el.getAttribute('scenario');
    if (attr !== null) scenarioInto(el, st, attr, 'The scenario attribute');
    if (params && params.get('scenario')) scenarioInto(el, st, params.get('scenario'), 'The scenario in the address');
    if (el._syncUrl && !params) {
      const fromHash = State.decodeHash(hash);
      const saved = fromHash ? null : State.loadStored();
      const got = fromHash || saved;
      if (!fromHash && /^#s=/.test(hash))
        el._notice(
          'The settings in the link could not be read (is it cut short?); ' + (saved ? 'your saved settings' : 'the defaults') + ' are shown instead.',
          true
        );
      if (got) st = got.state;
      if (got && got.problems.length) {
        // Dropped, said so, and the cleaned state saved at once: nothing broken survives a reload.
        resetNotice(el, fromHash ? 'settings from the link' : 'saved settings', got.problems);
        State.save(State.sanitizeState(st));
      }
    }
    return State.sanitizeState(st);
  }

  // The calculator's start. Where the build recorded this element's first question (the default
  // page; scripts/bundle.mjs records it with the module it bundles, whose answers are the same
  // bytes), that answer and the form's option lists are shown at once, and the module starts after
  // that first frame: it is unpacked and compiled while the reader reads. Else the module first.
  // Until the module answers (el._live), other questions wait for it (el._whenLive).
  function start(el, loading) {
    tellParent(el);
    if (el._blocked) return Notice.blocked(el, loading, el._noDefaults ? null : () => start(el, loading));
    const rec = recorded(el);
    if (!rec) return catalogs(el, loading);
    el._recorded = rec;
    el._devices = rec.devices;
    el._presets = rec.models;
    el._networks = rec.networks;
    el._render();
    let started = false;
    const go = () => {
      if (!started) catalogs(el, loading);
      started = true;
    };
    requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, 200); // a hidden frame paints nothing
  }

  // The recording, if this element's first question is the one recorded.
  function recorded(el) {
    const rec = globalThis.__gpucalcFirst;
    const sec = el._firstSection();
    if (!rec || rec.section !== sec || typeof requestAnimationFrame !== 'function') return null;
    const built = Scenario.build[sec](el._state[sec], el._state);
    return !built.problems.length && Scenario.requestText(built) === rec.request ? rec : null;
  }

  // In a frame (frame.html, hash-params): the page's height to the parent as it changes, which a
  // host page sizes the iframe from (README: {type: 'gpucalc-height', height} by postMessage; the
  // height carries nothing else, so any origin may have it, file:// included).
  function tellParent(el) {
    if (el._tellsParent || !el.hasAttribute('hash-params') || globalThis.parent === globalThis || !globalThis.ResizeObserver) return;
    el._tellsParent = true;
    const html = document.documentElement;
    let last = 0;
    new ResizeObserver(() => {
      const height = Math.ceil(html.getBoundingClientRect().height);
      if (height === last) return;
      last = height;
      parent.postMessage({ type: 'gpucalc-height', height }, '*');
    }).observe(html);
  }

  // The catalogs from the module; then every answer is the module's.
  function catalogs(el, loading) {
    const core = el._core;
    Promise.all([core.call('devices'), core.call('presets'), core.call('networks')]).then((answers) => {
      const [d, p, n] = answers.map((a) => JSON.parse(a));
      if (!d.devices || !p.models || !n.networks) {
        const why = (d.errors || p.errors || n.errors)[0].message;
        el._startFailed(loading, why);
        if (!el._recorded) return;
        // Above the recorded answer, which stays; what waited for the module now says it could not start.
        el._notices.after(loading);
        el._recorded = null;
        el._failed = why;
        return drain(el);
      }
      el._devices = d.devices;
      el._presets = p.models;
      el._networks = n.networks;
      const shown = !!el._recorded;
      el._recorded = null;
      el._live = true;
      performance.mark('gpucalc-live');
      if (!shown) return el._render();
      drain(el);
    });
  }

  // Runs what waited for the module (el._whenLive), once.
  function drain(el) {
    const waiting = el._waiting || [];
    el._waiting = [];
    for (const fn of waiting) fn();
  }

  // Asks the module through the shared handle (web/core.js): if the module throws, the handle
  // re-creates it and `again` (the same step) runs once more. Returns the parsed answer. Before
  // the module answers: the recorded answer to the recorded question, else a pending answer and
  // `again` once it does.
  function ask(el, name, arg, again) {
    const rec = el._recorded;
    if (rec && name === 'estimate' && arg === rec.request) return JSON.parse(rec.answer);
    if (el._failed) return { errors: [{ code: 'internal', field: '', message: 'The calculator could not start: ' + el._failed }] };
    if (!el._live) {
      if (again) el._whenLive(again);
      return { pending: true, errors: [{ code: 'loading', field: '', message: 'The calculator is still loading; this is computed once it is ready.' }] };
    }
    const out = el._core.tryCall(name, arg);
    if (out !== null) return JSON.parse(out);
    const retry = again && !el._retrying;
    if (retry)
      el._core.load().then(
        () => {
          el._retrying = true;
          try {
            again();
          } finally {
            el._retrying = false;
          }
        },
        () => {}
      );
    return { errors: [{ code: 'internal', field: '', message: 'The calculator failed on this input' + (retry ? '; trying once more.' : '.') }] };
  }

  // A link pasted into the address bar of a page already open changes only the hash: the page
  // shows the link's settings, as a reload would (what cannot be read is said, and the page keeps
  // what it shows). The page's own saves (replaceState) fire no hashchange.
  function fromAddress(el) {
    const hash = location.hash;
    if (!/^#s=/.test(hash) || hash === '#' + State.encodeState(el._state)) return;
    const got = State.decodeHash(hash);
    if (!got) return el._notice('The settings in the link could not be read (is it cut short?); the page keeps what it shows.', true);
    el._state = State.sanitizeState(got.state);
    if (got.problems.length) resetNotice(el, 'settings from the link', got.problems);
    el._last = {};
    el._render();
    Nav.goto(el, el._firstSection(), false);
  }

  return { initialState, scenarioInto, start, ask, fromAddress };
})();
