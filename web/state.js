// Page state: the form values of every section (all strings), their defaults, sanitising, the URL
// hash encoding (shareable links) and local storage. Part of the page bundle (scripts/bundle.mjs).
const State = (function () {
  const MAX_HASH = 8192;
  const MAX_STORED = 100000;
  const STORAGE_KEY = 'gpucalc-state';

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
  // huge strings, nested objects) cannot get in.
  function sanitizeState(obj) {
    const out = cloneDefaults();
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return out;
    for (const sec of Object.keys(DEFAULTS)) {
      if (!Object.prototype.hasOwnProperty.call(obj, sec)) continue;
      const src = obj[sec];
      if (!src || typeof src !== 'object' || Array.isArray(src)) continue;
      for (const key of Object.keys(DEFAULTS[sec])) {
        if (!Object.prototype.hasOwnProperty.call(src, key)) continue;
        const v = src[key];
        const limit = sec === 'json' ? Guard.MAX_EDITOR_CHARS : 120;
        if (typeof v === 'string' && v.length <= limit) out[sec][key] = v;
        else if (typeof v === 'number' && isFinite(v)) out[sec][key] = String(v);
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
      const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
      return sanitizeState(JSON.parse(new TextDecoder().decode(bytes)));
    } catch (e) {
      return null;
    }
  }

  // The state saved by an earlier visit, or null.
  function loadStored() {
    try {
      const saved = localStorage.getItem(STORAGE_KEY);
      if (saved && saved.length < MAX_STORED) return sanitizeState(JSON.parse(saved));
    } catch (e) { /* storage unavailable (file://, privacy mode) */ }
    return null;
  }

  // Writes the state to the URL hash (shared sections only) and to local storage.
  function save(st) {
    try { history.replaceState(null, '', '#' + encodeState(st)); } catch (e) { /* sandboxed iframe */ }
    try { localStorage.setItem(STORAGE_KEY, JSON.stringify(st)); } catch (e) { /* no storage */ }
  }

  return { DEFAULTS, SECTIONS, TITLES, SHARED, cloneDefaults, sanitizeState, encodeState, decodeState, loadStored, save };
})();
