// How the element starts: its state from the defaults, the scenario attribute, the address
// (#s=<state> with sync-url, #section=...&scenario=... with hash-params) or the saved state. What
// cannot be used is said in a notice, never silently replaced by the defaults.
// Part of the page bundle (scripts/bundle.mjs).
const Boot = (function () {
  // A scenario's text (the scenario attribute, a frame's #scenario=) into the state; what cannot be
  // used is said, never silently replaced by the defaults.
  function scenarioInto(el, st, text, what) {
    const why = Guard.check(text, Guard.MAX_IMPORT_CHARS);
    if (why) return el._notice(what + ' was not used: ' + why + '.', true);
    let sc;
    try {
      sc = JSON.parse(text);
    } catch (e) {
      return el._notice(what + ' is not valid JSON (' + e.message + '); the calculator shows its defaults instead.', true);
    }
    const want = el._visibleSections();
    const mapped = Scenario.toState(sc, el._sectionOverride || (want.length === 1 ? want[0] : null));
    if (!mapped || !want.includes(mapped.section)) {
      if (want.includes('json')) {
        st.json.text = text;
        st.view.section = 'json';
        return;
      }
      return el._notice(
        what +
          ' was not used: ' +
          (mapped
            ? 'it is a ' + State.TITLES[mapped.section] + ' scenario, and this view shows ' + want.map((s) => State.TITLES[s]).join(', ')
            : 'the forms cannot hold it (use the Scenario JSON section)') +
          '.',
        true
      );
    }
    Object.assign(st[mapped.section], mapped.state[mapped.section]);
    st.view.section = mapped.section;
  }

  // Defaults, then the scenario attribute, then the URL hash (#s=<state> with sync-url, or
  // #section=...&scenario=... with hash-params), or the saved state.
  function initialState(el) {
    let st = State.cloneDefaults();
    const hash = typeof location !== 'undefined' ? location.hash : '';
    const params =
      /^#?(section|scenario)=/.test(hash) && (el.hasAttribute('hash-params') || el.hasAttribute('sync-url')) ? new URLSearchParams(hash.slice(1)) : null;
    if (params && State.SECTIONS.includes(params.get('section'))) el._sectionOverride = params.get('section');
    const attr = el.getAttribute('scenario');
    if (attr !== null) scenarioInto(el, st, attr, 'The scenario attribute');
    if (params && params.get('scenario')) scenarioInto(el, st, params.get('scenario'), 'The scenario in the address');
    if (el.hasAttribute('sync-url') && !params) {
      const fromHash = State.decodeHash(hash);
      const saved = fromHash ? null : State.loadStored();
      const got = fromHash || saved;
      if (got) st = got.state;
      if (got && got.problems.length) {
        // Dropped, said so, and the cleaned state saved at once: nothing broken survives a reload.
        el._notice(
          'Some ' + (fromHash ? 'settings from the link' : 'saved settings') + ' could not be restored and were reset: ' + got.problems.join('; ') + '.'
        );
        State.save(State.sanitizeState(st));
      }
    }
    return State.sanitizeState(st);
  }

  return { initialState, scenarioInto };
})();
