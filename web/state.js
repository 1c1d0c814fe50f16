// Page state: the form values of every section (all strings), their defaults, sanitising, the URL
// hash encoding (shareable links) and local storage. Part of the page bundle (scripts/bundle.mjs).
const State = (function () {
  const MAX_HASH = 8192;
  // The saved state: short form values plus the editor's text, which JSON escapes may grow up to 6x.
  const MAX_STORED = 6 * Guard.MAX_EDITOR_CHARS + 16384;
  const STORAGE_KEY = 'gpucalc-state';
  const MAX_FIELD = 120;

  const DEFAULTS = {
    explain: { a: 'nvidia-h100-sxm5-80gb', b: 'amd-epyc-9654', precision: 'bf16', matmul_n: '8192', model: 'llama2-7b' },
    cluster: { device: 'nvidia-h100-sxm5-80gb', count: '1000' },
    train: {
      model: 'gpt3-175b', params: '', device: 'nvidia-a100-sxm4-80gb', count: '1024', tokens: '300e9', mfu: '',
      tp: '8', pp: '8', vpp: '1', ep: '1', zero: '1', recompute: 'selective', precision: 'bf16', micro_batch: '1', global_batch: '1536', gpu_hour_usd: '2'
    },
    serve: {
      model: 'llama2-70b', device: 'nvidia-h100-sxm5-80gb', count: '8', weight_precision: 'bf16', kv_precision: 'bf16',
      batch: '32', prompt_tokens: '1000', output_tokens: '300', tp: '4', requests_per_day: '1e6', peak_to_average: '2',
      gpu_hour_usd: '2.5'
    },
    plan: { model: 'gpt3-175b', device: 'nvidia-a100-sxm4-80gb', count: '1024', global_batch: '1536' },
    reality: { device: 'nvidia-h100-sxm5-80gb', count: '1000', days: '30', model: 'llama2-70b', tokens: '2e12', deadline: '30' },
    json: { text: '' }
  };
  const SECTIONS = ['explain', 'cluster', 'train', 'plan', 'serve', 'reality', 'json'];
  const TITLES = { explain: 'Explain: GPU vs CPU', cluster: 'Cluster', train: 'Train', plan: 'Plan search', serve: 'Serve', reality: 'Reality check', json: 'Scenario JSON' };
  // The sections a shared link carries (the JSON editor's text is not one of them).
  const SHARED = ['explain', 'cluster', 'train', 'plan', 'serve', 'reality'];

  function cloneDefaults() { return JSON.parse(JSON.stringify(DEFAULTS)); }

  // Copies only known sections/keys with short primitive values: hostile input (prototype keys,
  // huge strings, nested objects) cannot get in. `sections` limits what is taken (default: all);
  // `problems`, if given, collects the known keys whose values were dropped.
  function sanitizeState(obj, sections, problems) {
    const out = cloneDefaults();
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return out;
    for (const sec of sections || Object.keys(DEFAULTS)) {
      if (!Object.prototype.hasOwnProperty.call(obj, sec)) continue;
      const src = obj[sec];
      if (!src || typeof src !== 'object' || Array.isArray(src)) { if (problems) problems.push(TITLES[sec]); continue; }
      for (const key of Object.keys(DEFAULTS[sec])) {
        if (!Object.prototype.hasOwnProperty.call(src, key)) continue;
        const v = src[key];
        const limit = sec === 'json' ? Guard.MAX_EDITOR_CHARS : MAX_FIELD;
        if (typeof v === 'string' && v.length <= limit) out[sec][key] = v;
        else if (typeof v === 'number' && isFinite(v)) out[sec][key] = String(v);
        else if (problems) problems.push(TITLES[sec] + ' (' + key + ')');
      }
    }
    return out;
  }

  function encodeState(st) {
    const small = {};
    for (const sec of SHARED) small[sec] = st[sec];
    const bytes = new TextEncoder().encode(JSON.stringify(small));
    let bin = '';
    for (const b of bytes) bin += String.fromCharCode(b);
    return 's=' + btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function decodeState(hash) {
    try {
      if (typeof hash !== 'string' || hash.length > MAX_HASH) return null;
      const m = /^#?s=([A-Za-z0-9_-]+)$/.exec(hash);
      if (!m) return null;
      const b64 = m[1].replace(/-/g, '+').replace(/_/g, '/');
      const bin = atob(b64 + '==='.slice((b64.length + 3) % 4));
      const text = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
      if (Guard.depth(text, 8) > 8) return null;
      return sanitizeState(JSON.parse(text), SHARED);  // never the editor's text
    } catch (e) {
      return null;
    }
  }

  // The state saved by an earlier visit: { state, problems } (problems: what was dropped, for the
  // reader), or null when nothing is saved. Bounded: a size limit and a one-pass shape check come
  // before parsing; the editor's text gets the editor's own checks (Guard), so a poisoned entry
  // never reaches the module. The caller saves the cleaned state at once.
  function loadStored() {
    let saved;
    try { saved = localStorage.getItem(STORAGE_KEY); } catch (e) { return null; /* storage unavailable (privacy mode, sandbox) */ }
    if (typeof saved !== 'string' || saved === '') return null;
    const problems = [];
    let obj = null;
    if (saved.length > MAX_STORED) problems.push('the saved settings were too large');
    else if (Guard.depth(saved, 8) > 8) problems.push('the saved settings were not in the expected form');  // the state is 2 deep; a little more is dropped key by key
    else {
      try { obj = JSON.parse(saved); } catch (e) { problems.push('the saved settings were not readable'); }
      if (obj !== null && (typeof obj !== 'object' || Array.isArray(obj))) { problems.push('the saved settings were not in the expected form'); obj = null; }
    }
    const state = sanitizeState(obj, null, problems);
    const why = state.json.text ? Guard.check(state.json.text, Guard.MAX_EDITOR_CHARS) : null;
    if (why) { state.json.text = ''; problems.push('Scenario JSON: ' + why); }
    return { state, problems };
  }

  // Writes the state to the URL hash (shared sections only) and to local storage; editor text that
  // the editor would not evaluate is not saved.
  function save(st) {
    try { history.replaceState(null, '', '#' + encodeState(st)); } catch (e) { /* sandboxed iframe */ }
    let keep = st;
    if (st.json.text && Guard.check(st.json.text, Guard.MAX_EDITOR_CHARS)) keep = Object.assign({}, st, { json: { text: '' } });
    try { localStorage.setItem(STORAGE_KEY, JSON.stringify(keep)); } catch (e) { /* no storage */ }
  }

  return { DEFAULTS, SECTIONS, TITLES, SHARED, cloneDefaults, sanitizeState, encodeState, decodeState, loadStored, save };
})();
