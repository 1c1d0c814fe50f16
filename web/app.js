// gpucalc page: the <gpu-calc> custom element. It builds scenarios from the form, calls the
// WebAssembly core (createGpucalc from gpucalc.js) and renders the report. No formulas live here:
// every number shown comes from the core's report; this file only formats and draws.
// Security: no user-controlled string reaches innerHTML; the DOM is built with textContent.
(function () {
  'use strict';
  const F = globalThis.gpucalcFormat;
  const MAX_HASH = 8192;

  // ---------- tiny DOM helper (text only, never HTML) ----------
  function h(tag, attrs, ...kids) {
    const el = document.createElement(tag);
    if (attrs) {
      for (const k of Object.keys(attrs)) {
        const v = attrs[k];
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') el.className = v;
        else if (k === 'text') el.textContent = v;
        else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
        else el.setAttribute(k, v === true ? '' : String(v));
      }
    }
    for (const kid of kids.flat()) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.appendChild(typeof kid === 'string' || typeof kid === 'number' ? document.createTextNode(String(kid)) : kid);
    }
    return el;
  }

  // ---------- module loading (one instance per page) ----------
  let modulePromise = null;
  function loadModule() {
    if (!modulePromise) {
      performance.mark('gpucalc-module-start');
      modulePromise = globalThis.createGpucalc().then((m) => { performance.mark('gpucalc-module-ready'); return m; });
    }
    return modulePromise;
  }

  // ---------- default state ----------
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
        const limit = sec === 'json' ? 65536 : 120;
        if (typeof v === 'string' && v.length <= limit) out[sec][key] = v;
        else if (typeof v === 'number' && isFinite(v)) out[sec][key] = String(v);
      }
    }
    return out;
  }

  function encodeState(st) {
    const small = {};
    for (const sec of ['explain', 'cluster', 'train', 'plan', 'serve', 'reality']) small[sec] = st[sec];
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

  // A number field: numeric text becomes a number; anything else is passed through as a string so
  // that the core reports the error against the field's path.
  function num(v) {
    const t = String(v).trim();
    if (t === '') return undefined;
    const x = Number(t);
    return Number.isFinite(x) ? x : t;
  }
  function put(obj, key, v) { if (v !== undefined) obj[key] = v; }
  // Value at a dotted report path ("peak_flops_per_second.bf16"), undefined where absent.
  function at(obj, path) { return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj); }

  // ---------- scenarios built from the form ----------
  function modelOf(s) {
    if (s.model === 'custom-params') return { params: num(s.params) };
    return { preset: s.model };
  }
  const build = {
    explain(s) {
      return {
        compare: { a: s.a, b: s.b, precision: s.precision },
        roofline: { devices: s.a === s.b ? [s.a] : [s.a, s.b], precision: s.precision, matmul_n: num(s.matmul_n), model: { preset: s.model } }
      };
    },
    cluster(s) { return { hardware: { device: s.device, count: num(s.count) } }; },
    train(s) {
      const t = {};
      for (const k of ['tokens', 'mfu', 'tp', 'pp', 'vpp', 'ep', 'zero', 'micro_batch', 'global_batch']) put(t, k, num(s[k]));
      t.recompute = s.recompute;
      t.precision = s.precision;
      const costs = {};
      put(costs, 'gpu_hour_usd', num(s.gpu_hour_usd));
      return { model: modelOf(s), hardware: { device: s.device, count: num(s.count) }, training: t, costs, scaling: true };
    },
    serve(s) {
      const t = { weight_precision: s.weight_precision, kv_precision: s.kv_precision };
      for (const k of ['batch', 'prompt_tokens', 'output_tokens', 'tp', 'requests_per_day', 'peak_to_average']) put(t, k, num(s[k]));
      const costs = {};
      put(costs, 'gpu_hour_usd', num(s.gpu_hour_usd));
      return { model: { preset: s.model }, hardware: { device: s.device, count: num(s.count) }, inference: t, costs };
    },
    plan(s) {
      return { model: { preset: s.model }, hardware: { device: s.device, count: num(s.count) }, training: { global_batch: num(s.global_batch) } };
    },
    reality(s) {
      return { hardware: { device: s.device, count: num(s.count) }, inverse: { question: 'what_can_train', days: num(s.days) } };
    },
    json(s) { return s.text; }
  };
  function gpusNeededScenario(s) {
    return { model: { preset: s.model }, hardware: { device: s.device }, training: { tokens: num(s.tokens) }, inverse: { question: 'gpus_needed', days: num(s.deadline) } };
  }

  // ---------- plan search in a Web Worker (blob URL: works from file://) ----------
  let workerUrl = null;
  function planWorker() {
    if (!workerUrl) {
      const src = 'var _scriptDir = undefined;\nvar createGpucalc = (' + globalThis.createGpucalc.toString() + ');\n' +
        'var mod = null;\n' +
        'self.onmessage = function (e) {\n' +
        '  (mod ? Promise.resolve(mod) : createGpucalc().then(function (m) { mod = m; return m; })).then(function (m) {\n' +
        '    var q = e.data; var tps = q.tps; var out = [];\n' +
        '    for (var i = 0; i < tps.length; i++) {\n' +
        '      var sc = JSON.parse(q.scenario); sc.plan = { tp: tps[i], top_k: 10 };\n' +
        '      var r = JSON.parse(m.plan(JSON.stringify(sc)));\n' +
        '      self.postMessage({ id: q.id, done: i + 1, total: tps.length, result: r });\n' +
        '    }\n' +
        '  });\n' +
        '};\n';
      workerUrl = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    }
    return new Worker(workerUrl);
  }

  // Scenario (from an import) -> form state of a section; returns null if it does not map.
  function stateFromScenario(sc) {
    if (!sc || typeof sc !== 'object') return null;
    const st = {};
    const str = (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v : undefined);
    const hw = sc.hardware && typeof sc.hardware === 'object' ? sc.hardware : {};
    const model = sc.model && typeof sc.model === 'object' ? sc.model : {};
    if (typeof hw.device === 'object') return null;  // custom devices: use the Scenario JSON section
    // Anything the forms cannot hold (architectures, MoE counts, extra settings) goes to the JSON section.
    const only = (o, keys) => !o || (typeof o === 'object' && Object.keys(o).every((k) => keys.includes(k)));
    if (!only(model, ['preset', 'params']) || !only(hw, ['device', 'count']) || !only(sc.costs, ['gpu_hour_usd'])) return null;
    if (!only(sc, ['model', 'hardware', 'training', 'inference', 'costs', 'compare', 'scaling', 'explain', 'name', 'description'])) return null;
    if (sc.training && !only(sc.training, ['tokens', 'mfu', 'tp', 'pp', 'vpp', 'ep', 'zero', 'micro_batch', 'global_batch', 'recompute', 'precision'])) return null;
    if (sc.inference && !only(sc.inference, ['weight_precision', 'kv_precision', 'batch', 'prompt_tokens', 'output_tokens', 'tp', 'requests_per_day', 'peak_to_average'])) return null;
    if (sc.training && typeof sc.training === 'object') {
      const t = sc.training;
      st.train = { device: str(hw.device), count: str(hw.count), model: model.preset ? model.preset : 'custom-params', params: str(model.params) || '' };
      // Numeric fields left out of the scenario take the core's defaults (blank); choices keep the form's.
      for (const k of ['tokens', 'mfu', 'tp', 'pp', 'vpp', 'ep', 'micro_batch', 'global_batch']) st.train[k] = str(t[k]) || '';
      for (const k of ['zero', 'recompute', 'precision']) if (t[k] !== undefined) st.train[k] = str(t[k]);
      if (sc.costs && sc.costs.gpu_hour_usd !== undefined) st.train.gpu_hour_usd = str(sc.costs.gpu_hour_usd);
      return { section: 'train', state: st };
    }
    if (sc.inference && typeof sc.inference === 'object') {
      const t = sc.inference;
      st.serve = { device: str(hw.device), count: str(hw.count), model: str(model.preset) };
      for (const k of ['weight_precision', 'kv_precision', 'batch', 'prompt_tokens', 'output_tokens', 'tp', 'requests_per_day', 'peak_to_average'])
        if (t[k] !== undefined) st.serve[k] = str(t[k]);
      return { section: 'serve', state: st };
    }
    if (sc.compare && typeof sc.compare === 'object') {
      st.explain = { a: str(sc.compare.a), b: str(sc.compare.b), precision: str(sc.compare.precision) || 'bf16' };
      return { section: 'explain', state: st };
    }
    if (sc.hardware) {
      st.cluster = { device: str(hw.device), count: str(hw.count) };
      return { section: 'cluster', state: st };
    }
    return null;
  }

  // ---------- the element ----------
  class GpuCalc extends HTMLElement {
    connectedCallback() {
      if (this._root) return;
      this._root = this.attachShadow({ mode: 'open' });
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(globalThis.__gpucalcCss || '');
      this._root.adoptedStyleSheets = [sheet];
      this._sections = {};
      this._last = {};
      this._state = this._initialState();
      this._root.appendChild(h('div', { class: 'loading', role: 'status', text: 'Loading the calculator…' }));
      loadModule().then((m) => {
        this._m = m;
        this._devices = JSON.parse(m.devices()).devices;
        this._presets = JSON.parse(m.presets()).models;
        this._render();
      });
    }

    _initialState() {
      let st = cloneDefaults();
      const attr = this.getAttribute('scenario');
      if (attr) {
        try {
          const mapped = stateFromScenario(JSON.parse(attr));
          if (mapped) for (const sec of Object.keys(mapped.state)) Object.assign(st[sec], mapped.state[sec]);
        } catch (e) { /* an invalid attribute leaves the defaults */ }
      }
      if (this.hasAttribute('sync-url')) {
        const fromHash = decodeState(location.hash);
        if (fromHash) st = fromHash;
        else {
          try {
            const saved = localStorage.getItem('gpucalc-state');
            if (saved && saved.length < 100000) st = sanitizeState(JSON.parse(saved));
          } catch (e) { /* storage unavailable (file://, privacy mode) */ }
        }
      }
      return sanitizeState(st);
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
      try { history.replaceState(null, '', '#' + encodeState(this._state)); } catch (e) { /* sandboxed iframe */ }
      try { localStorage.setItem('gpucalc-state', JSON.stringify(this._state)); } catch (e) { /* no storage */ }
    }

    _visibleSections() {
      const want = (this.getAttribute('section') || 'all').split(/[\s,]+/);
      return SECTIONS.filter((s) => want.includes('all') || want.includes(s));
    }

    _render() {
      const root = this._root;
      root.textContent = '';
      const compact = this.hasAttribute('compact');
      const wrap = h('div', { class: 'gpucalc' + (compact ? ' compact' : '') });
      if (!compact) {
        wrap.appendChild(h('header', null,
          h('h1', { text: 'gpucalc' }),
          h('p', { class: 'tagline', text: 'AI hardware questions, answered from datasheets and papers — every figure with its derivation.' })));
        const nav = h('nav', { 'aria-label': 'Sections' });
        for (const s of this._visibleSections()) nav.appendChild(h('a', { href: '#' + s, 'data-section': s, onclick: (e) => { e.preventDefault(); this._sections[s].scrollIntoView(); } }, TITLES[s]));
        wrap.appendChild(nav);
      }
      for (const s of this._visibleSections()) {
        const sec = h('section', { id: s, 'data-section': s, 'aria-labelledby': 'h-' + s });
        sec.appendChild(h('h2', { id: 'h-' + s, text: TITLES[s] }));
        this._sections[s] = sec;
        wrap.appendChild(sec);
        this['_build_' + s](sec);
      }
      if (!compact) wrap.appendChild(this._toolbar());
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
        if (heavy.includes(s)) later(() => { if (gen === this._renderGen) { if (s === 'reality') this._renderRealityTables(this._sections.reality.querySelector('.reality-tables')); this._update(s); } });
    }

    // ---------- form controls ----------
    _field(sec, key, label, opts) {
      opts = opts || {};
      const id = sec + '-' + key;
      let input;
      const onchange = () => { this._state[sec][key] = input.value; this._update(sec); };
      if (opts.options) {
        input = h('select', { id, name: key, 'data-field': key, onchange });
        for (const [value, text] of opts.options) input.appendChild(h('option', { value }, text));
      } else {
        input = h('input', { id, name: key, 'data-field': key, type: 'text', inputmode: 'decimal', autocomplete: 'off', oninput: onchange, placeholder: opts.placeholder });
      }
      input.value = this._state[sec][key];
      if (opts.options && input.value !== this._state[sec][key]) { input.value = opts.options[0][0]; this._state[sec][key] = input.value; }
      const err = h('div', { class: 'field-error', id: id + '-error', role: 'alert', 'aria-live': 'polite' });
      input.setAttribute('aria-describedby', id + '-error');
      return h('div', { class: 'field', 'data-key': key },
        h('label', { for: id }, label, opts.unit ? h('span', { class: 'unit', text: ' (' + opts.unit + ')' }) : null),
        input, err);
    }
    _deviceOptions(filter) {
      return this._devices.filter(filter || (() => true)).map((d) => [d.id, d.name]);
    }
    _modelOptions(withParams) {
      const opts = this._presets.map((p) => [p.id, p.name + ' (' + F.count(p.params) + ')']);
      if (withParams) opts.push(['custom-params', 'Custom: parameter count only']);
      return opts;
    }
    _form(sec, fields) {
      const f = h('form', { class: 'inputs', onsubmit: (e) => e.preventDefault(), 'aria-label': TITLES[sec] + ' inputs' });
      for (const x of fields) f.appendChild(x);
      return f;
    }

    _build_explain(sec) {
      const all = this._deviceOptions();
      const precs = ['fp64', 'fp32', 'tf32', 'bf16', 'fp16', 'fp8', 'int8'].map((p) => [p, p.toUpperCase()]);
      sec.appendChild(h('p', { class: 'prose', text:
        'A GPU is thousands of simple cores fed by very wide on-package memory (HBM); a CPU is a few dozen complex cores with large caches and ordinary DDR memory. ' +
        'GPUs run the same instruction across groups of threads (SIMT); CPUs vectorise inside each core (SIMD). Tensor/matrix cores add dedicated hardware for small matrix multiplies, ' +
        'which is where most of a GPU\u2019s AI FLOPS come from. The roofline below shows when a job is limited by compute or by memory bandwidth.' }));
      sec.appendChild(this._form('explain', [
        this._field('explain', 'a', 'Device A', { options: all }),
        this._field('explain', 'b', 'Device B', { options: all }),
        this._field('explain', 'precision', 'Precision', { options: precs }),
        this._field('explain', 'matmul_n', 'Matrix multiply N', { unit: 'N×N×N' }),
        this._field('explain', 'model', 'Model (forward pass)', { options: this._modelOptions(false) })]));
      sec.appendChild(h('div', { class: 'results', 'data-results': 'explain' }));
    }
    _build_cluster(sec) {
      sec.appendChild(this._form('cluster', [
        this._field('cluster', 'device', 'Device', { options: this._deviceOptions() }),
        this._field('cluster', 'count', 'Count', { unit: 'devices' })]));
      sec.appendChild(h('div', { class: 'results', 'data-results': 'cluster' }));
    }
    _build_train(sec) {
      const gpus = this._deviceOptions((d) => d.kind !== 'cpu');
      sec.appendChild(this._form('train', [
        this._field('train', 'model', 'Model', { options: this._modelOptions(true) }),
        this._field('train', 'params', 'Parameters (custom)', { unit: 'count', placeholder: 'e.g. 7e9' }),
        this._field('train', 'device', 'Device', { options: gpus }),
        this._field('train', 'count', 'GPUs', { unit: 'devices' }),
        this._field('train', 'tokens', 'Training tokens', { unit: 'tokens' }),
        this._field('train', 'mfu', 'MFU (blank: predicted)', { unit: '0–1', placeholder: 'predicted' }),
        this._field('train', 'tp', 'Tensor parallel', { unit: 'GPUs' }),
        this._field('train', 'pp', 'Pipeline parallel', { unit: 'stages' }),
        this._field('train', 'vpp', 'Interleaving', { unit: 'chunks per GPU' }),
        this._field('train', 'ep', 'Expert parallel (MoE)', { unit: 'GPUs' }),
        this._field('train', 'precision', 'Precision', { options: [['bf16', 'BF16'], ['fp16', 'FP16'], ['fp8', 'FP8'], ['tf32', 'TF32'], ['fp32', 'FP32']] }),
        this._field('train', 'zero', 'ZeRO stage', { options: [['0', '0'], ['1', '1'], ['2', '2'], ['3', '3 / FSDP']] }),
        this._field('train', 'recompute', 'Recomputation', { options: [['none', 'none'], ['selective', 'selective'], ['full', 'full']] }),
        this._field('train', 'micro_batch', 'Micro-batch', { unit: 'sequences' }),
        this._field('train', 'global_batch', 'Global batch', { unit: 'sequences' }),
        this._field('train', 'gpu_hour_usd', 'Price', { unit: '$ per GPU-hour' })]));
      sec.appendChild(h('div', { class: 'results', 'data-results': 'train' }));
    }
    _build_serve(sec) {
      const gpus = this._deviceOptions((d) => d.kind !== 'cpu');
      const wp = ['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4'].map((p) => [p, p.toUpperCase()]);
      sec.appendChild(this._form('serve', [
        this._field('serve', 'model', 'Model', { options: this._modelOptions(false) }),
        this._field('serve', 'device', 'Device', { options: gpus }),
        this._field('serve', 'count', 'GPUs available', { unit: 'devices' }),
        this._field('serve', 'weight_precision', 'Weights', { options: wp }),
        this._field('serve', 'kv_precision', 'KV cache', { options: wp.filter(([p]) => p !== 'int4') }),
        this._field('serve', 'batch', 'Batch', { unit: 'sequences' }),
        this._field('serve', 'prompt_tokens', 'Prompt', { unit: 'tokens' }),
        this._field('serve', 'output_tokens', 'Output', { unit: 'tokens' }),
        this._field('serve', 'tp', 'Tensor parallel', { unit: 'GPUs per copy' }),
        this._field('serve', 'requests_per_day', 'Traffic', { unit: 'requests/day' }),
        this._field('serve', 'peak_to_average', 'Peak / average', { unit: '×' }),
        this._field('serve', 'gpu_hour_usd', 'Price', { unit: '$ per GPU-hour' })]));
      sec.appendChild(h('div', { class: 'results', 'data-results': 'serve' }));
    }
    _build_plan(sec) {
      sec.appendChild(h('p', { class: 'prose', text: 'Every valid layout — tensor, pipeline (with interleaving), data parallelism, ZeRO stage, micro-batch, recomputation, sequence parallelism, overlap — evaluated with the training model, in a background worker. The best plans by step time:' }));
      sec.appendChild(this._form('plan', [
        this._field('plan', 'model', 'Model', { options: this._modelOptions(false) }),
        this._field('plan', 'device', 'Device', { options: this._deviceOptions((d) => d.kind !== 'cpu') }),
        this._field('plan', 'count', 'GPUs', { unit: 'devices' }),
        this._field('plan', 'global_batch', 'Global batch', { unit: 'sequences' })]));
      const progress = h('progress', { max: '4', value: '0', 'aria-label': 'Plan search progress' });
      const status = h('span', { class: 'plan-status', role: 'status', 'aria-live': 'polite' });
      const cancel = h('button', { type: 'button', class: 'plan-cancel', onclick: () => this._cancelPlan('cancelled') }, 'Cancel');
      sec.appendChild(h('div', { class: 'plan-controls' }, progress, ' ', status, ' ', cancel));
      this._planUi = { progress, status, cancel };
      sec.appendChild(h('div', { class: 'results', 'data-results': 'plan' }));
    }
    _build_reality(sec) {
      sec.appendChild(h('p', { class: 'prose', text: 'Published training runs next to our estimate, and claims people repeat, each checked with the same model. "Open" loads the scenario into the calculator.' }));
      sec.appendChild(h('div', { class: 'reality-tables' }));
      sec.appendChild(h('h3', { text: 'What can this cluster train?' }));
      sec.appendChild(this._form('reality', [
        this._field('reality', 'device', 'Device', { options: this._deviceOptions((d) => d.kind !== 'cpu') }),
        this._field('reality', 'count', 'GPUs', { unit: 'devices' }),
        this._field('reality', 'days', 'Days', { unit: 'days' }),
        this._field('reality', 'model', 'Model (GPUs needed)', { options: this._modelOptions(false) }),
        this._field('reality', 'tokens', 'Tokens (GPUs needed)', { unit: 'tokens' }),
        this._field('reality', 'deadline', 'Deadline (GPUs needed)', { unit: 'days' })]));
      sec.appendChild(h('div', { class: 'results', 'data-results': 'reality' }));
    }
    _renderRealityTables(box) {
      const rep = this._reality || (this._reality = JSON.parse(this._m.reality()));
      const pct = (x) => (typeof x === 'number' ? (x >= 0 ? '+' : '') + (x * 100).toFixed(1) + '\u00a0%' : '—');
      const runRows = [];
      for (const run of rep.runs) {
        for (const c of run.comparisons) {
          const flag = (c.unofficial ? 'unofficial' : '') + (c.from_assumptions ? (c.unofficial ? ', ' : '') + 'computed from assumptions' : '');
          runRows.push(h('tr', { 'data-run': run.id },
            h('th', { scope: 'row', text: run.name }),
            h('td', { text: c.metric }),
            h('td', { title: F.exact(c.published) }, F.byKey(c.metric, c.published)),
            h('td', { title: F.exact(c.estimate) }, c.estimate === null ? '—' : F.byKey(c.metric, c.estimate)),
            h('td', { class: 'err', text: pct(c.error) }),
            h('td', { class: 'note' }, flag ? h('strong', { text: flag + '. ' }) : null, c.note || '', ' ', h('span', { class: 'source', text: c.source })),
            h('td', null, h('button', { type: 'button', 'aria-label': 'Open ' + run.name, onclick: () => this.importScenario(JSON.stringify(run.scenario)) }, 'Open'))));
        }
      }
      box.appendChild(h('table', { class: 'data runs' }, h('caption', { text: 'Famous runs: our estimate vs the published figure' }),
        h('thead', null, h('tr', null, ['Run', 'Figure', 'Published', 'Our estimate', 'Error', 'Notes and source', ''].map((x) => h('th', { scope: 'col', text: x })))),
        h('tbody', null, runRows)));
      box.appendChild(h('p', { class: 'prose', text: 'Assumptions behind each estimate: ' + rep.runs.map((r) => r.name + ': ' + r.assumptions).join('. ') + '.' }));
      const claimRows = rep.claims.map((c) => h('li', { class: 'claim', 'data-claim': c.id },
        h('span', { class: 'verdict ' + c.verdict, text: c.verdict }), ' ', h('q', { text: c.text }), ' — ', c.reason, '. ',
        h('span', { class: 'prose', text: c.explanation || '' }), ' ',
        h('button', { type: 'button', 'aria-label': 'Open the scenario of: ' + c.text, onclick: () => this.importScenario(JSON.stringify(c.scenario)) }, 'Open')));
      box.appendChild(h('h3', { text: 'Claims checked' }));
      box.appendChild(h('ul', { class: 'claims' }, claimRows));
    }
    _build_json(sec) {
      sec.appendChild(h('p', { class: 'prose', text: 'Any scenario, including custom devices and architectures (schema: docs/SCHEMA.md). The report is shown as returned by the core.' }));
      const ta = h('textarea', { id: 'json-text', 'data-field': 'text', rows: '8', spellcheck: 'false', 'aria-label': 'Scenario JSON',
        oninput: () => { this._state.json.text = ta.value; this._update('json'); } });
      if (!this._state.json.text) this._state.json.text = JSON.stringify(build.train(this._state.train), null, 1);
      ta.value = this._state.json.text;
      sec.appendChild(ta);
      sec.appendChild(h('div', { class: 'field-error', id: 'json-text-error', role: 'alert' }));
      sec.appendChild(h('div', { class: 'results', 'data-results': 'json' }));
    }

    // ---------- estimate + render ----------
    _update(sec) {
      if (!this._m) return;
      if (sec === 'plan') return this._startPlan();
      const scenario = build[sec](this._state[sec]);
      const text = typeof scenario === 'string' ? scenario : JSON.stringify(scenario);
      let report;
      try { report = JSON.parse(this._m.estimate(text)); } catch (e) { report = { errors: [{ code: 'internal', field: '', message: String(e) }] }; }
      this._showErrors(sec, report.errors || []);
      this._persist();
      if (report.errors) {
        const res = this._sections[sec].querySelector('.results');
        res.classList.add('stale');
        res.setAttribute('aria-busy', 'false');
        this.dispatchEvent(new CustomEvent('gpucalc-error', { detail: { section: sec, errors: report.errors } }));
        return;  // the last good result stays visible
      }
      this._last[sec] = { scenario: typeof scenario === 'string' ? JSON.parse(scenario) : scenario, report };
      const res = this._sections[sec].querySelector('.results');
      res.classList.remove('stale');
      res.textContent = '';
      this['_show_' + sec](res, report);
      if (!this._firstResult) { this._firstResult = true; performance.mark('gpucalc-first-result'); }
      this.dispatchEvent(new CustomEvent('gpucalc-update', { detail: { section: sec } }));
    }

    _showErrors(sec, errors) {
      const secEl = this._sections[sec];
      for (const el of secEl.querySelectorAll('.field-error')) el.textContent = '';
      for (const el of secEl.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
      const fieldMap = {
        'hardware.device': 'device', 'hardware.count': 'count', 'model.params': 'params', 'model.preset': 'model',
        'costs.gpu_hour_usd': 'gpu_hour_usd', 'compare.a': 'a', 'compare.b': 'b', 'compare.precision': 'precision'
      };
      const unplaced = [];
      for (const e of errors) {
        const key = fieldMap[e.field] || (e.field.split('.').slice(1).join('.') || null);
        const input = key ? secEl.querySelector('[data-field="' + CSS.escape(key) + '"]') : null;
        if (input) {
          input.setAttribute('aria-invalid', 'true');
          const box = this._root.getElementById(input.id + '-error');
          if (box) box.textContent = (box.textContent ? box.textContent + ' ' : '') + e.message;
        } else unplaced.push(e.message);
      }
      const generic = secEl.querySelector('#json-text-error') || secEl.querySelector('.section-error') ||
        secEl.insertBefore(h('div', { class: 'field-error section-error', role: 'alert' }), secEl.querySelector('.results'));
      generic.textContent = unplaced.join(' ');
    }

    // A table of report values: label, formatted value (exact value on hover), and the derivation.
    _table(caption, obj, rows, explain, prefix) {
      const tb = h('tbody');
      for (const [key, label] of rows) {
        const v = at(obj, key);
        if (v === undefined) continue;
        const shown = v === null ? 'unknown' : F.byKey(key.split('.').pop(), v);
        const cell = h('td', { class: 'value', 'data-key': prefix + '.' + key, title: typeof v === 'number' ? F.exact(v) : undefined }, shown);
        const ex = explain && explain[prefix + '.' + key];
        if (ex) cell.appendChild(this._derivation(ex));
        tb.appendChild(h('tr', null, h('th', { scope: 'row', text: label }), cell));
      }
      return h('table', { class: 'kv' }, h('caption', { text: caption }), tb);
    }
    // The derivation is built when the reader opens it: most are never opened, and building them all
    // would dominate the time of an update.
    _derivation(ex) {
      const d = h('details', { class: 'work' }, h('summary', { text: 'show the work' }));
      d.addEventListener('toggle', () => {
        if (!d.open || d.childNodes.length > 1) return;
        const vals = h('ul');
        for (const k of Object.keys(ex.values)) vals.appendChild(h('li', null, h('code', { text: k }), ' = ', F.exact(ex.values[k])));
        d.append(h('div', null, h('code', { text: ex.formula })), vals,
          h('div', null, '= ', F.exact(ex.result), ' ', ex.unit),
          ex.source ? h('div', { class: 'source', text: 'Source: ' + ex.source }) : '');
      });
      return d;
    }
    _bar(caption, parts, capacity, fmt) {
      const total = parts.reduce((a, [, v]) => a + v, 0);
      const scale = Math.max(total, capacity || 0) || 1;
      const bar = h('div', { class: 'bar', role: 'img', 'aria-label': caption + ': ' + parts.map(([n, v]) => n + ' ' + fmt(v)).join(', ') + (capacity ? '; capacity ' + fmt(capacity) : '') });
      parts.forEach(([name, v], i) => {
        if (v <= 0) return;
        const seg = h('div', { class: 'seg c' + i, title: name + ': ' + fmt(v) });
        seg.style.width = (100 * v / scale).toFixed(3) + '%';
        bar.appendChild(seg);
      });
      if (capacity) {
        const cap = h('div', { class: 'cap', title: 'capacity ' + fmt(capacity) });
        cap.style.left = (100 * capacity / scale).toFixed(3) + '%';
        bar.appendChild(cap);
      }
      const legend = h('ul', { class: 'legend' }, parts.map(([name, v], i) => h('li', null, h('span', { class: 'swatch c' + i }), name + ' ' + fmt(v))));
      return h('figure', { class: 'barfig' }, h('figcaption', { text: caption }), bar, legend);
    }
    // Charts are reused between updates (uPlot setData) when their series are unchanged: creating a
    // chart costs far more than updating one.
    _chart(target, title, opts, data, table) {
      if (typeof globalThis.uPlot !== 'function') return;
      // The host's width is read once per render: reading layout after DOM changes forces a reflow.
      if (!this._chartWidth) this._chartWidth = Math.max(280, Math.min(720, (this.getBoundingClientRect().width || 720) - 40));
      const width = this._chartWidth;
      const sec = target.closest('section');
      const key = (sec ? sec.dataset.section : '') + ':' + title.split(/[:(]/)[0];
      const labels = JSON.stringify(opts.series.map((x) => x.label)) + width + JSON.stringify(opts.markX || null);
      const fig = h('figure', { class: 'chart' }, h('figcaption', { text: title }));
      target.appendChild(fig);
      const holder = h('div', { role: 'img', 'aria-label': title });
      fig.appendChild(holder);
      this._chartCache = this._chartCache || {};
      const cached = this._chartCache[key];
      if (cached && cached.labels === labels) {
        holder.appendChild(cached.u.root);
        cached.u.setData(data);
      } else {
        if (cached) cached.u.destroy();
        // Every x axis here is a quantity, never a date (uPlot's default).
        const o = Object.assign({ width, height: 260 }, opts);
        delete o.markX;
        // Optional vertical marker (e.g. the batch where decode turns compute-bound), drawn on the canvas.
        if (opts.markX) {
          const mark = opts.markX;
          o.hooks = { draw: [(u) => {
            const x = u.valToPos(mark.x, 'x', true);
            if (!isFinite(x) || x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
            const c = u.ctx;
            c.save();
            c.strokeStyle = '#e8590c';
            c.fillStyle = '#e8590c';
            c.lineWidth = 2;
            c.setLineDash([6, 4]);
            c.beginPath();
            c.moveTo(x, u.bbox.top);
            c.lineTo(x, u.bbox.top + u.bbox.height);
            c.stroke();
            c.font = 'bold ' + Math.round(12 * devicePixelRatio) + 'px system-ui, sans-serif';
            const right = x > u.bbox.left + u.bbox.width / 2;  // keep the label inside the plot
            c.textAlign = right ? 'right' : 'left';
            c.fillText(mark.label, right ? x - 6 : x + 6, u.bbox.top + 14 * devicePixelRatio);
            c.restore();
          }] };
        }
        o.scales = Object.assign({}, o.scales, { x: Object.assign({ time: false }, (o.scales || {}).x) });
        const u = new globalThis.uPlot(o, data, holder);
        this._chartCache[key] = { u, labels };
      }
      if (table) fig.appendChild(h('details', null, h('summary', { text: 'data table' }), table));
    }
    _dataTable(headers, rows) {
      return h('table', { class: 'data' }, h('thead', null, h('tr', null, headers.map((x) => h('th', { scope: 'col', text: x })))),
        h('tbody', null, rows.map((r) => h('tr', null, r.map((c) => h('td', null, c))))));
    }

    _show_explain(res, r) {
      const c = r.compare;
      const rows = [['name', 'Name'], ['cores.simt_cores', 'Cores'], ['cores.cpu_cores', 'CPU cores'], ['cores.full_die_simt_cores', 'Cores (full die, not shipped)'],
        ['memory_bytes', 'Memory'], ['memory_type', 'Memory type'], ['memory_bandwidth_bytes_per_second', 'Bandwidth'], ['tdp_watts', 'TDP']];
      const tb = h('tbody');
      for (const [key, label] of rows) {
        const get = (o) => at(o, key);
        const fmtv = (v) => (v === null || v === undefined ? '—' : F.byKey(key.split('.').pop(), v));
        tb.appendChild(h('tr', null, h('th', { scope: 'row', text: label }), h('td', { text: fmtv(get(c.a)) }), h('td', { text: fmtv(get(c.b)) })));
      }
      tb.appendChild(h('tr', null, h('th', { scope: 'row', text: 'Peak (' + c.precision_a + ' / ' + c.precision_b + ')' }),
        h('td', { 'data-key': 'compare.peak_a', title: F.exact(c.peak_a_flops_per_second) }, F.flops(c.peak_a_flops_per_second)),
        h('td', { 'data-key': 'compare.peak_b', title: F.exact(c.peak_b_flops_per_second) }, F.flops(c.peak_b_flops_per_second))));
      tb.appendChild(h('tr', null, h('th', { scope: 'row', text: 'FLOP/s per watt' }), h('td', { text: F.count(c.flops_per_watt_a) }), h('td', { text: F.count(c.flops_per_watt_b) })));
      tb.appendChild(h('tr', null, h('th', { scope: 'row', text: 'FLOP/s per dollar' }), h('td', { text: F.count(c.flops_per_usd_a) }), h('td', { text: F.count(c.flops_per_usd_b) })));
      res.appendChild(h('table', { class: 'compare' }, h('caption', { text: 'Side by side (dense peaks; vendors print sparse figures at 2×)' }),
        h('thead', null, h('tr', null, h('th', { scope: 'col', text: '' }), h('th', { scope: 'col', text: c.a.name }), h('th', { scope: 'col', text: c.b.name }))), tb));
      res.appendChild(this._table('How many of B match one A', c, [['compute_ratio', 'Compute (peak)'], ['bandwidth_ratio', 'Memory bandwidth'],
        ['cpu_cores_equivalent', 'CPU cores equal to one A']], r.explain, 'compare'));
      const rf = r.roofline;
      const xs = rf.devices[0].curve.map((p) => p[0]);
      const series = [{ label: 'FLOP/byte' }];
      const data = [xs];
      const colors = ['#d9480f', '#1971c2', '#2f9e44', '#9c36b5'];
      rf.devices.forEach((d, i) => {
        series.push({ label: d.name + ' (' + d.precision + ')', stroke: colors[i % 4], width: 2, value: (u, v) => F.flops(v) });
        data.push(d.curve.map((p) => p[1]));
      });
      this._chart(res, 'Roofline: attainable FLOP/s vs arithmetic intensity (log–log)', {
        scales: { x: { distr: 3, log: 2 }, y: { distr: 3, log: 10 } },
        axes: [{ label: 'FLOP per byte', values: (u, v) => v.map((x) => F.count(x)) }, { label: 'FLOP/s', size: 70, values: (u, v) => v.map((x) => F.flops(x)) }],
        series
      }, data, this._dataTable(['intensity'].concat(rf.devices.map((d) => d.name)), xs.filter((_, i) => i % 8 === 0).map((x, j) => [F.count(x)].concat(rf.devices.map((d) => F.flops(d.curve[j * 8][1]))))));
      const kt = [];
      for (const k of rf.kernels) {
        const row = [k.name, F.count(k.intensity_flops_per_byte)];
        for (const d of rf.devices) {
          const kd = d.kernels.find((x) => x.id === k.id);
          row.push(F.duration(kd.seconds) + ' at ' + F.flops(kd.attainable_flops_per_second) + ' (' + kd.bound + '-bound)');
        }
        kt.push(row);
      }
      res.appendChild(h('div', { class: 'kernels' }, h('h3', { text: 'Where typical workloads fall, and how long they take' }),
        this._dataTable(['kernel', 'FLOP/byte'].concat(rf.devices.map((d) => d.name)), kt),
        h('p', { class: 'prose', text: 'Ridge points: ' + rf.devices.map((d) => d.name + ' ' + F.count(d.ridge_flops_per_byte) + ' FLOP/byte').join('; ') +
          '. Below the ridge a kernel is memory-bound: LLM decode at small batch reads every weight for 1–2 FLOPs, so it runs at bandwidth, not at peak.' })));
    }
    _show_cluster(res, r) {
      res.appendChild(this._table('Cluster totals', r.cluster, [['devices', 'Devices'], ['nodes', 'Nodes'], ['cores', 'Cores (shipping SKU)'],
        ['full_die_cores', 'Cores if every chip were a full die'], ['matrix_units', 'Tensor/matrix cores'], ['cpu_cores', 'CPU cores'],
        ['memory_bytes', 'Memory'], ['memory_bandwidth_bytes_per_second', 'Aggregate bandwidth'], ['peak_flops_per_second.fp64', 'Peak FP64'],
        ['peak_flops_per_second.fp32', 'Peak FP32'], ['peak_flops_per_second.bf16', 'Peak BF16 (dense)'], ['peak_flops_per_second.fp8', 'Peak FP8 (dense)'],
        ['power_watts', 'Power (TDP sum)'], ['facility_power_watts', 'Facility power (× PUE)'], ['price_usd', 'Purchase price (devices)'], ['cloud_usd_per_hour', 'Cloud cost per hour']],
      r.explain, 'cluster'));
    }
    _show_train(res, r) {
      const t = r.training;
      res.appendChild(this._table('Run', t, [['days', 'Days'], ['seconds', 'Wall-clock time'], ['gpu_hours', 'GPU-hours'], ['cost_usd', 'Cost'],
        ['energy_kwh', 'Energy'], ['co2_kg', 'CO2'], ['flops', 'Model FLOPs'], ['flops_6nd', '6·N·D'], ['mfu', 'MFU (' + t.mfu_source + ')'], ['hfu', 'HFU'],
        ['tokens_per_second', 'Throughput'], ['achieved_flops_per_second_per_gpu', 'Achieved per GPU'], ['step_seconds', 'Step time'], ['fits', 'Fits in memory']], r.explain, 'training'));
      const u = t.uncertainty;
      if (u.seconds_high > 0) res.appendChild(h('p', { class: 'band', 'data-key': 'training.uncertainty' },
        'Expected range: ' + F.duration(u.seconds_low) + ' – ' + F.duration(u.seconds_high) + ', ' + F.usd(u.cost_usd_low) + ' – ' + F.usd(u.cost_usd_high) +
        (t.mfu_source === 'given' ? ' (MFU given: no model uncertainty)' : ' (from the hold-out validation error, docs/VALIDATION.md)')));
      const m = t.memory_per_gpu_bytes;
      res.appendChild(this._bar('Memory per GPU', [['weights', m.weights], ['gradients', m.gradients], ['optimizer', m.optimizer], ['activations', m.activations], ['overhead', m.overhead]],
        t.memory_capacity_bytes, F.bytes));
      const sb = t.step_breakdown_seconds;
      res.appendChild(this._bar('Step time breakdown', [['GEMM', sb.gemm], ['attention', sb.attention], ['memory-bound', sb.memory_bound], ['TP comm', sb.tp_comm],
        ['PP comm', sb.pp_comm], ['EP all-to-all', sb.ep_comm], ['PP bubble', sb.pp_bubble], ['DP comm (exposed)', sb.dp_comm], ['optimizer', sb.optimizer]], 0, F.duration));
      if (r.scaling && r.scaling.length > 1) {
        const sc = r.scaling;
        this._chart(res, 'Scaling: tokens/s and efficiency vs GPU count (same model and batch)', {
          scales: { x: { distr: 3, log: 2 }, eff: { range: [0, 1.05] } },
          axes: [{ label: 'GPUs' }, { label: 'tokens/s', size: 70, values: (u, v) => v.map((x) => F.count(x)) }, { side: 1, scale: 'eff', label: 'efficiency', values: (u, v) => v.map((x) => F.percent(x)) }],
          series: [{ label: 'GPUs' }, { label: 'tokens/s', stroke: '#1971c2', width: 2, value: (u, v) => F.count(v) }, { label: 'efficiency', scale: 'eff', stroke: '#d9480f', width: 2, value: (u, v) => F.percent(v) }]
        }, [sc.map((p) => p.gpus), sc.map((p) => p.tokens_per_second), sc.map((p) => p.efficiency)],
        this._dataTable(['GPUs', 'tokens/s', 'efficiency', 'MFU'], sc.map((p) => [F.count(p.gpus), F.count(p.tokens_per_second), F.percent(p.efficiency), F.percent(p.mfu)])));
      }
      if (r.warnings.length) res.appendChild(h('ul', { class: 'warnings' }, r.warnings.map((w) => h('li', { text: w }))));
    }
    _show_serve(res, r) {
      const t = r.inference;
      res.appendChild(this._table('Serving', t, [['weights_bytes', 'Weights'], ['kv_cache_bytes_per_token', 'KV cache per token'], ['kv_cache_bytes', 'KV cache (batch, full context)'],
        ['max_batch', 'Max batch at this context'], ['instances_per_gpu', 'Copies per GPU'], ['prefill_seconds', 'Time to first token'], ['decode_seconds_per_token', 'Time per output token'],
        ['decode_bound', 'Decode is'], ['turn_batch', 'Batch where GEMMs turn compute-bound'], ['decode_tokens_per_second_per_user', 'Speed per user'],
        ['throughput_tokens_per_second_per_gpu', 'Output throughput per GPU'], ['replicas', 'Copies the GPUs can serve'],
        ['cluster_throughput_tokens_per_second', 'Output throughput of those copies'], ['concurrent_sequences', 'Users answered at once'],
        ['gpus_needed', 'GPUs for the traffic'], ['cost_per_day_usd', 'Cost per day'],
        ['energy_per_day_kwh', 'Energy per day'], ['cost_per_million_output_tokens_usd', '$ per million output tokens'], ['cost_per_million_input_tokens_usd', '$ per million input tokens'],
        ['fits', 'Fits']], r.explain, 'inference'));
      res.appendChild(this._bar('Memory per GPU', [['weights', t.weights_bytes_per_gpu], ['KV cache', t.kv_cache_bytes / r.inputs.inference.tp], ['overhead', t.overhead_bytes_per_gpu]],
        r.inputs.hardware ? (this._devices.find((d) => d.id === r.inputs.hardware.device) || {}).memory_bytes : 0, F.bytes));
      const c = t.batch_curve;
      this._chart(res, 'Tokens/s vs batch (turn to compute-bound at batch ' + F.count(t.turn_batch) + ')', {
        markX: t.turn_batch > 0 ? { x: t.turn_batch, label: 'compute-bound from batch ' + F.count(t.turn_batch) } : null,
        scales: { x: { distr: 3, log: 2 }, y: { distr: 3, log: 10 } },
        axes: [{ label: 'batch' }, { label: 'tokens/s', size: 70, values: (u, v) => v.map((x) => F.count(x)) }],
        series: [{ label: 'batch' }, { label: 'per GPU', stroke: '#2f9e44', width: 2, value: (u, v) => F.count(v) }, { label: 'per user', stroke: '#9c36b5', width: 2, value: (u, v) => F.count(v) }]
      }, [c.map((p) => p.batch), c.map((p) => p.tokens_per_second_per_gpu), c.map((p) => p.tokens_per_second_per_user)],
      this._dataTable(['batch', 'tok/s per GPU', 'tok/s per user', 'bound', 'fits'], c.map((p) => [F.count(p.batch), F.count(p.tokens_per_second_per_gpu), F.count(p.tokens_per_second_per_user), p.bound, p.fits ? 'yes' : 'no'])));
      if (r.warnings.length) res.appendChild(h('ul', { class: 'warnings' }, r.warnings.map((w) => h('li', { text: w }))));
    }
    _show_reality(res, r) {
      const a = r.inverse;
      res.appendChild(this._table('In ' + this._state.reality.days + ' days', a, [['compute_flops', 'Compute budget'], ['mfu', 'MFU (' + a.mfu_source + ')'],
        ['compute_optimal_params', 'Compute-optimal model (parameters)'], ['compute_optimal_tokens', 'Compute-optimal tokens'],
        ['largest_fitting_params', 'Largest model whose training state fits (ZeRO-3)']], null, 'inverse'));
      res.appendChild(h('p', { class: 'prose', text: a.formula + '. ' + a.source + '.' }));
      const g = JSON.parse(this._m.estimate(JSON.stringify(gpusNeededScenario(this._state.reality))));
      if (g.errors) res.appendChild(h('p', { class: 'field-error', text: g.errors.map((e) => e.message).join(' ') }));
      else res.appendChild(this._table('GPUs needed for the model, tokens and deadline', g.inverse, [['gpus', 'GPUs'], ['mfu', 'Predicted MFU'],
        ['seconds_at_gpus', 'Time at that count'], ['gpu_hours', 'GPU-hours'], ['cost_usd', 'Cost']], null, 'inverse'));
    }
    _cancelPlan(why) {
      if (this._worker) { this._worker.terminate(); this._worker = null; }
      if (why && this._planUi) this._planUi.status.textContent = why === 'cancelled' ? 'Search cancelled.' : '';
      if (this._planUi) this._planUi.cancel.disabled = true;
    }
    _startPlan() {
      this._cancelPlan();
      const scenario = build.plan(this._state.plan);
      const check = JSON.parse(this._m.plan(JSON.stringify(Object.assign({}, scenario, { plan: { tp: 1, top_k: 1, max_vpp: 1, max_micro_batch: 1 } }))));
      this._showErrors('plan', check.errors || []);
      this._persist();
      const res = this._sections.plan.querySelector('.results');
      if (check.errors) { res.classList.add('stale'); return; }
      const ui = this._planUi;
      const tps = [1, 2, 4, 8];
      ui.progress.max = tps.length;
      ui.progress.value = 0;
      ui.status.textContent = 'Searching…';
      ui.cancel.disabled = false;
      res.setAttribute('aria-busy', 'true');
      const id = (this._planId = (this._planId || 0) + 1);
      const acc = { considered: 0, feasible: 0, oom: 0, indivisible: 0, best: [], layouts: [], t0: performance.now() };
      const w = planWorker();
      this._worker = w;
      w.onmessage = (e) => {
        const d = e.data;
        if (d.id !== id) return;
        const p = d.result.plan;
        if (p) {
          acc.considered += p.considered; acc.feasible += p.feasible;
          acc.oom += p.rejected.out_of_memory; acc.indivisible += p.rejected.indivisible;
          acc.best = acc.best.concat(p.best).sort((a, b) => a.step_seconds - b.step_seconds).slice(0, 10);
          acc.layouts = acc.layouts.concat(p.best_per_layout).sort((a, b) => a.step_seconds - b.step_seconds);
        }
        ui.progress.value = d.done;
        if (d.done === d.total) {
          this._cancelPlan();
          const secs = (performance.now() - acc.t0) / 1e3;
          ui.status.textContent = 'Done: ' + F.count(acc.considered) + ' plans considered, ' + F.count(acc.feasible) + ' feasible (' +
            F.count(acc.oom) + ' out of memory, ' + F.count(acc.indivisible) + ' indivisible) in ' + F.duration(secs) + '.';
          res.removeAttribute('aria-busy');
          res.classList.remove('stale');
          res.textContent = '';
          this._last.plan = { scenario, report: { plan: acc } };
          this._showPlans(res, acc);
          this.dispatchEvent(new CustomEvent('gpucalc-update', { detail: { section: 'plan' } }));
        }
      };
      w.postMessage({ id, scenario: JSON.stringify(scenario), tps });
    }
    _showPlans(res, acc) {
      const rows = acc.best.map((p, i) => h('tr', { 'data-plan': String(i) },
        h('td', { text: String(i + 1) }), h('td', { text: String(p.tp) }), h('td', { text: String(p.pp) }), h('td', { text: String(p.dp) }),
        h('td', { text: String(p.vpp) }), h('td', { text: String(p.micro_batch) }), h('td', { text: String(p.zero) }), h('td', { text: p.recompute }),
        h('td', { text: p.sequence_parallel ? 'on' : 'off' }), h('td', { text: F.duration(p.step_seconds) }), h('td', { text: F.bytes(p.memory_per_gpu_bytes) }),
        h('td', { text: F.percent(p.mfu) }),
        h('td', null, h('button', { type: 'button', 'aria-label': 'Use plan ' + (i + 1), onclick: () => this.usePlan(p) }, 'Use this plan'))));
      res.appendChild(h('table', { class: 'data plans' }, h('caption', { text: 'Best plans by step time' }),
        h('thead', null, h('tr', null, ['#', 'TP', 'PP', 'DP', 'VPP', 'micro', 'ZeRO', 'recompute', 'SP', 'step', 'memory/GPU', 'MFU', ''].map((x) => h('th', { scope: 'col', text: x })))),
        h('tbody', null, rows)));
      const pts = acc.layouts.slice().sort((a, b) => a.memory_per_gpu_bytes - b.memory_per_gpu_bytes);
      if (pts.length > 1) {
        this._chart(res, 'Best plan of each (TP, PP) layout: step time vs memory per GPU', {
          mode: 1,
          scales: { x: { time: false } },
          axes: [{ label: 'memory per GPU', values: (u, v) => v.map((x) => F.bytes(x)) }, { label: 'step time', size: 70, values: (u, v) => v.map((x) => F.duration(x)) }],
          series: [{ label: 'memory' }, { label: 'step time', stroke: '#1971c2', width: 0, points: { show: true, size: 8, fill: '#1971c2' }, value: (u, v) => F.duration(v) }]
        }, [pts.map((p) => p.memory_per_gpu_bytes), pts.map((p) => p.step_seconds)],
        this._dataTable(['TP', 'PP', 'step', 'memory/GPU', 'MFU'], pts.map((p) => [String(p.tp), String(p.pp), F.duration(p.step_seconds), F.bytes(p.memory_per_gpu_bytes), F.percent(p.mfu)])));
      }
    }
    // Fills the training form with a plan and shows it there.
    usePlan(p) {
      const s = this._state.train;
      Object.assign(s, { model: this._state.plan.model, device: this._state.plan.device, count: this._state.plan.count, mfu: '',
        tp: String(p.tp), pp: String(p.pp), zero: String(p.zero), recompute: p.recompute, micro_batch: String(p.micro_batch), global_batch: String(p.global_batch) });
      this._render();
      if (this._sections.train) this._sections.train.scrollIntoView();
    }
    _show_json(res, r) {
      res.appendChild(h('pre', { class: 'report', tabindex: '0', 'aria-label': 'Report JSON', text: JSON.stringify(r, (k, v) => (k === 'explain' || k === 'curve' ? undefined : v), 1).slice(0, 20000) }));
    }

    // ---------- export / import ----------
    _toolbar() {
      const file = h('input', { type: 'file', accept: 'application/json,.json', class: 'visually-hidden', id: 'import-file', 'aria-label': 'Import scenario file',
        onchange: () => { const f = file.files[0]; if (f) f.text().then((t) => this.importScenario(t)); file.value = ''; } });
      const status = h('div', { class: 'import-status', role: 'status', 'aria-live': 'polite' });
      this._importStatus = status;
      return h('footer', { class: 'toolbar' },
        h('button', { type: 'button', onclick: () => this._download('gpucalc-scenario.json', JSON.stringify(this.exportScenario(), null, 2), 'application/json') }, 'Export scenario'),
        h('button', { type: 'button', onclick: () => this._download('gpucalc-report.json', JSON.stringify(this.exportReport(), null, 2), 'application/json') }, 'Export report'),
        h('button', { type: 'button', onclick: () => this._download('gpucalc-tables.csv', this.exportCsv(), 'text/csv') }, 'Export CSV'),
        h('label', { for: 'import-file', class: 'button' }, 'Import scenario'), file, status,
        h('p', { class: 'fineprint', text: 'Runs entirely in your browser. Figures: vendor datasheets and papers (sources in the catalog).' }));
    }
    _activeSection() {
      const vis = this._visibleSections().filter((s) => s !== 'json' && this._last[s]);
      return vis.includes('train') ? 'train' : vis[0];
    }
    exportScenario(sec) { sec = sec || this._activeSection(); return this._last[sec] ? this._last[sec].scenario : null; }
    exportReport(sec) { sec = sec || this._activeSection(); return this._last[sec] ? this._last[sec].report : null; }
    exportCsv() {
      const lines = ['section,key,value'];
      const q = (s) => '"' + String(s).replace(/"/g, '""') + '"';
      for (const sec of Object.keys(this._last)) {
        const walk = (o, p) => {
          if (o === null || typeof o !== 'object') { lines.push([sec, p, o].map(q).join(',')); return; }
          if (Array.isArray(o)) return;
          for (const k of Object.keys(o)) if (k !== 'explain' && k !== 'inputs') walk(o[k], p ? p + '.' + k : k);
        };
        walk(this._last[sec].report, '');
      }
      return lines.join('\n') + '\n';
    }
    // Validates with the core first; on any problem the current state is kept and the errors shown.
    importScenario(text) {
      const say = (msg, bad) => { if (this._importStatus) { this._importStatus.textContent = msg; this._importStatus.classList.toggle('bad', !!bad); } };
      if (typeof text !== 'string' || text.length > 1 << 20) { say('Import failed: the file is too large.', true); return false; }
      const report = JSON.parse(this._m.estimate(text));
      if (report.errors) { say('Import failed: ' + report.errors.map((e) => e.message).join('; '), true); return false; }
      const mapped = stateFromScenario(JSON.parse(text));
      if (!mapped) {
        if (!this._sections.json) { say('Import failed: this scenario needs the Scenario JSON section, which this view does not show.', true); return false; }
        this._state.json.text = text;
        const ta = this._root.getElementById('json-text');
        if (ta) ta.value = text;
        this._update('json');
        this._sections.json.scrollIntoView();
        say('Imported into Scenario JSON (settings beyond the forms).');
        return true;
      }
      Object.assign(this._state[mapped.section], mapped.state[mapped.section]);
      this._state = sanitizeState(this._state);
      this._render();
      if (this._sections[mapped.section]) this._sections[mapped.section].scrollIntoView();
      say('Imported into ' + TITLES[mapped.section] + '.');
      return true;
    }
    _download(name, text, type) {
      const a = h('a', { download: name, href: URL.createObjectURL(new Blob([text], { type })) });
      this._root.appendChild(a);
      a.click();
      a.remove();
    }
  }

  if (!customElements.get('gpu-calc')) customElements.define('gpu-calc', GpuCalc);
  globalThis.gpucalcPage = { encodeState, decodeState, sanitizeState };
})();
