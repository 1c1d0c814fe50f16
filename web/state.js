// Page state: the form values of every section (all strings, as typed: "15T" stays "15T"), the
// section in view, their defaults (from fields.js), sanitising, the URL hash (shareable links: the
// whole state, only what differs from the defaults) and local storage.
// Part of the page bundle (scripts/bundle.mjs).
const State = (function () {
  const MAX_HASH = 100000; // a link holds the editor's text too (at most Guard.MAX_EDITOR_CHARS)
  // The saved state: short form values plus the editor's text, which JSON escapes may grow up to 6x.
  const MAX_STORED = 6 * Guard.MAX_EDITOR_CHARS + 65536;
  const STORAGE_KEY = 'gpucalc-state';
  const MAX_FIELD = 120;
  const MAX_EXTRA = 4000; // settings from an opened scenario that the form has no field for (JSON)

  const SECTIONS = ['train', 'serve', 'finetune', 'plan', 'cluster', 'explain', 'reality', 'json'];
  const TITLES = {
    train: 'Train',
    serve: 'Serve',
    finetune: 'Fine-tune',
    plan: 'Plan search',
    cluster: 'Cluster',
    explain: 'Explain: GPU vs CPU',
    reality: 'Reality check',
    json: 'Scenario JSON',
    view: 'View'
  };
  const WITH_EXTRA = ['train', 'serve', 'finetune'];

  const DEFAULTS = (function () {
    const d = {};
    for (const sec of Object.keys(Fields.SPECS)) {
      d[sec] = {};
      for (const s of Fields.SPECS[sec]) d[sec][s.key] = s.value;
      if (WITH_EXTRA.includes(sec)) d[sec].extra = '';
    }
    d.plan.own = ''; // '1': the Plan form is the reader's own setup, not the Train section's (follow.js)
    d.json = { text: '' };
    d.view = { section: '' };
    return d;
  })();

  function cloneDefaults() {
    return JSON.parse(JSON.stringify(DEFAULTS));
  }
  function limitOf(sec, key) {
    return sec === 'json' ? Guard.MAX_EDITOR_CHARS : key === 'extra' ? MAX_EXTRA : MAX_FIELD;
  }

  // Copies only known sections/keys with short primitive values: hostile input (prototype keys,
  // huge strings, nested objects) cannot get in. `sections` limits what is taken (default: all);
  // `problems`, if given, collects the known keys whose values were dropped.
  function sanitizeState(obj, sections, problems) {
    const out = cloneDefaults();
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return out;
    for (const sec of sections || Object.keys(DEFAULTS)) {
      if (!Object.prototype.hasOwnProperty.call(obj, sec)) continue;
      const src = obj[sec];
      if (!src || typeof src !== 'object' || Array.isArray(src)) {
        if (problems) problems.push(TITLES[sec]);
        continue;
      }
      for (const key of Object.keys(DEFAULTS[sec])) {
        if (!Object.prototype.hasOwnProperty.call(src, key)) continue;
        const v = src[key];
        if (typeof v === 'string' && v.length <= limitOf(sec, key)) out[sec][key] = v;
        else if (typeof v === 'number' && isFinite(v)) out[sec][key] = String(v);
        else if (problems) problems.push(TITLES[sec] + ' (' + key + ')');
      }
    }
    if (!SECTIONS.includes(out.view.section)) out.view.section = '';
    // Settings carried from an opened scenario must be a small JSON object, or they are dropped.
    for (const sec of WITH_EXTRA) {
      const x = out[sec].extra;
      if (!x) continue;
      let ok = Guard.depth(x, 8) <= 8;
      try {
        ok = ok && JSON.parse(x) && typeof JSON.parse(x) === 'object' && !Array.isArray(JSON.parse(x));
      } catch (e) {
        ok = false;
      }
      if (!ok) {
        out[sec].extra = '';
        if (problems) problems.push(TITLES[sec] + ' (settings from an opened scenario)');
      }
    }
    return out;
  }

  // Only what differs from the defaults: short links.
  function diff(st) {
    const small = {};
    for (const sec of Object.keys(DEFAULTS)) {
      for (const key of Object.keys(DEFAULTS[sec])) {
        const v = st[sec] && st[sec][key];
        if (typeof v === 'string' && v !== DEFAULTS[sec][key]) (small[sec] = small[sec] || {})[key] = v;
      }
    }
    return small;
  }

  function base64url(text) {
    const bytes = new TextEncoder().encode(text);
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function encodeState(st) {
    const small = diff(st);
    // The editor's text travels only when the editor would evaluate it.
    if (small.json && Guard.check(small.json.text, Guard.MAX_EDITOR_CHARS)) delete small.json;
    return 's=' + base64url(JSON.stringify(small));
  }

  // A link's state: { state, problems } or null when the hash holds no state. The editor's text
  // passes the editor's own checks (size, nesting, claims in claims) or is dropped, said so.
  function decodeHash(hash) {
    try {
      if (typeof hash !== 'string' || hash.length > MAX_HASH) return null;
      const m = /^#?s=([A-Za-z0-9_-]+)$/.exec(hash);
      if (!m) return null;
      const b64 = m[1].replace(/-/g, '+').replace(/_/g, '/');
      const bin = atob(b64 + '==='.slice((b64.length + 3) % 4));
      const text = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
      if (Guard.depth(text, 8) > 8) return null;
      const problems = [];
      const state = sanitizeState(JSON.parse(text), null, problems);
      const why = state.json.text ? Guard.check(state.json.text, Guard.MAX_EDITOR_CHARS) : null;
      if (why) {
        state.json.text = '';
        problems.push('Scenario JSON from the link: ' + why);
      }
      return { state, problems };
    } catch (e) {
      return null;
    }
  }
  function decodeState(hash) {
    const d = decodeHash(hash);
    return d ? d.state : null;
  }

  // The state saved by an earlier visit: { state, problems } (problems: what was dropped, for the
  // reader), or null when nothing is saved. Bounded: a size limit and a one-pass shape check come
  // before parsing; the editor's text gets the editor's own checks (Guard), so a poisoned entry
  // never reaches the module. The caller saves the cleaned state at once.
  function loadStored() {
    let saved;
    try {
      saved = localStorage.getItem(STORAGE_KEY);
    } catch (e) {
      return null; /* storage unavailable (privacy mode, sandbox) */
    }
    if (typeof saved !== 'string' || saved === '') return null;
    const problems = [];
    let obj = null;
    if (saved.length > MAX_STORED) problems.push('the saved settings were too large');
    else if (Guard.depth(saved, 8) > 8)
      problems.push('the saved settings were not in the expected form'); // the state is 2 deep; a little more is dropped key by key
    else {
      try {
        obj = JSON.parse(saved);
      } catch (e) {
        problems.push('the saved settings were not readable');
      }
      if (obj !== null && (typeof obj !== 'object' || Array.isArray(obj))) {
        problems.push('the saved settings were not in the expected form');
        obj = null;
      }
    }
    const state = sanitizeState(obj, null, problems);
    const why = state.json.text ? Guard.check(state.json.text, Guard.MAX_EDITOR_CHARS) : null;
    if (why) {
      state.json.text = '';
      problems.push('Scenario JSON: ' + why);
    }
    return { state, problems };
  }

  // Writes the state to the URL hash and to local storage; editor text that the editor would not
  // evaluate is not saved.
  function save(st) {
    try {
      history.replaceState(null, '', '#' + encodeState(st));
    } catch (e) {
      /* sandboxed iframe */
    }
    let keep = st;
    if (st.json.text && Guard.check(st.json.text, Guard.MAX_EDITOR_CHARS)) keep = Object.assign({}, st, { json: { text: '' } });
    try {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(keep));
    } catch (e) {
      /* no storage */
    }
  }

  return { DEFAULTS, SECTIONS, TITLES, WITH_EXTRA, cloneDefaults, sanitizeState, encodeState, decodeHash, decodeState, loadStored, save, base64url };
})();
