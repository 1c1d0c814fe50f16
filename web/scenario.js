// Scenarios from the forms, and form state from a scenario (imports, "Open" buttons, the element's
// scenario attribute, links). The field table (fields.js) says where each field goes; Parse reads
// what people type. No formulas: the core validates and computes. Part of the page bundle.
const Scenario = (function () {
  // The reader's locale, in which the forms read and write numbers (en-US without a navigator).
  const locale = () => (globalThis.navigator && navigator.language) || 'en-US';
  const SHAPE_KEYS = ['name', 'description', 'explain', 'scaling'];

  function getPath(obj, path) {
    return path.split('.').reduce((o, k) => (o && typeof o === 'object' ? o[k] : undefined), obj);
  }
  function setPath(obj, path, v) {
    const ks = path.split('.');
    let o = obj;
    for (const k of ks.slice(0, -1)) o = o[k] && typeof o[k] === 'object' ? o[k] : (o[k] = {});
    o[ks[ks.length - 1]] = v;
  }
  // Deletes a path and the objects it leaves empty.
  function delPath(obj, path) {
    const ks = path.split('.');
    const chain = [obj];
    for (const k of ks.slice(0, -1)) {
      const n = chain[chain.length - 1][k];
      if (!n || typeof n !== 'object') return;
      chain.push(n);
    }
    delete chain[chain.length - 1][ks[ks.length - 1]];
    for (let i = chain.length - 1; i > 0; i--) if (Object.keys(chain[i]).length === 0) delete chain[i - 1][ks[i - 1]];
  }
  // Adds b's keys that a lacks (deeply); a's own values win.
  function fill(a, b) {
    for (const k of Object.keys(b)) {
      if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
      if (a[k] && typeof a[k] === 'object' && b[k] && typeof b[k] === 'object' && !Array.isArray(b[k])) fill(a[k], b[k]);
      else if (!(k in a)) a[k] = b[k];
    }
    return a;
  }

  // Form state of a section -> { scenario, problems: [{key, message}], parsed: {key: value} }.
  // A field that cannot be read is a problem named by its key; the scenario then is not evaluated.
  function fromSpecs(sec, s) {
    const scenario = {};
    const problems = [];
    const parsed = {};
    for (const sp of Fields.specs(sec)) {
      const raw = s[sp.key] === undefined ? '' : String(s[sp.key]);
      if (!Fields.applies(sp, s)) continue;
      if (sp.kind === 'select') {
        // '' and the core's own default leave the field out: the scenario says only what was chosen.
        if (raw === '' || raw === sp.dflt || (sp.key === 'model' && raw === 'custom-params')) continue;
        if (sp.key === 'weights' && raw.startsWith('gguf:')) {
          setPath(scenario, 'inference.weight_format', raw.slice(5));
          continue;
        }
        setPath(scenario, sp.path, raw === 'on' ? true : raw === 'off' ? false : sp.number ? Number(raw) : raw);
        continue;
      }
      const r = Parse.parse(raw, sp.kind, locale(), sp.unit);
      if (r.empty) continue;
      if (r.error) {
        problems.push({ key: sp.key, message: r.error });
        continue;
      }
      parsed[sp.key] = r.value;
      setPath(scenario, sp.path, sp.scale ? r.value * sp.scale : r.value);
    }
    if (s.extra) {
      try {
        fill(scenario, JSON.parse(s.extra));
      } catch (e) {
        problems.push({ key: 'extra', message: 'the settings from the opened scenario are not readable' });
      }
    }
    return { scenario, problems, parsed };
  }

  // One builder per section: form state -> { scenario, problems, parsed } (the JSON section's
  // scenario is its text).
  const build = {
    // The section's own part is always there (every field left blank is still a training question).
    train(s) {
      const b = fromSpecs('train', s);
      b.scenario.training = b.scenario.training || {};
      b.scenario.scaling = true;
      return b;
    },
    serve(s) {
      const b = fromSpecs('serve', s);
      b.scenario.inference = b.scenario.inference || {};
      return b;
    },
    finetune(s) {
      const b = fromSpecs('finetune', s);
      b.scenario.finetune = b.scenario.finetune || {};
      return b;
    },
    cluster(s) {
      return fromSpecs('cluster', s);
    },
    plan(s) {
      // The section is always there: a batch left blank is chosen by the search.
      const b = fromSpecs('plan', s);
      b.scenario.training = b.scenario.training || {};
      return b;
    },
    explain(s) {
      const b = fromSpecs('explain', s);
      const c = b.scenario.compare || {};
      const r = b.scenario.roofline || {};
      r.devices = c.a === c.b ? [c.a] : [c.a, c.b];
      if (c.precision) r.precision = c.precision;
      b.scenario.roofline = r;
      return b;
    },
    reality(s) {
      const b = fromSpecs('reality', s);
      const sc = b.scenario;
      const inv = sc.inverse || {};
      b.scenario = { hardware: sc.hardware, inverse: { question: 'what_can_train', days: inv.days, compare_networks: inv.compare_networks } };
      return b;
    },
    json(s, st) {
      return { scenario: s.text || JSON.stringify(build.train(st ? st.train : State.DEFAULTS.train).scenario, null, 1), problems: [], parsed: {} };
    }
  };

  // The reality section's second question: how many GPUs for this model, tokens and deadline.
  function gpusNeeded(s) {
    const b = fromSpecs('reality', s);
    const sc = b.scenario;
    return {
      model: sc.model,
      hardware: { device: s.device },
      training: sc.training,
      inverse: { question: 'gpus_needed', days: sc.inverse ? sc.inverse.deadline : undefined }
    };
  }

  // `prefer`: the section asked for (a frame's #section=, a one-section element): a model on hardware
  // with no training/inference/finetune of its own goes there, with that section's defaults.
  function sectionOf(sc, prefer) {
    const kinds = ['training', 'inference', 'finetune'].filter((k) => sc[k] !== undefined);
    if (kinds.length > 1) return null;
    if (kinds.length === 1) return { training: 'train', inference: 'serve', finetune: 'finetune' }[kinds[0]];
    if (sc.model !== undefined && sc.compare === undefined && ['train', 'serve', 'finetune'].includes(prefer)) return prefer;
    if (sc.compare !== undefined) return 'explain';
    if (sc.inverse !== undefined || sc.roofline !== undefined) return null;
    return sc.hardware !== undefined ? 'cluster' : null;
  }

  // Scenario -> { section, state: { [section]: the whole form state } }, or null when the forms
  // cannot hold it (custom devices, claims: the Scenario JSON section). Every field the scenario
  // leaves out takes the core's default, so the form reproduces the scenario's result; settings
  // the form has no field for travel along as `extra` (shown under the form).
  function toState(sc, prefer) {
    if (!sc || typeof sc !== 'object' || Array.isArray(sc) || sc.claim !== undefined) return null;
    const sec = sectionOf(sc, prefer);
    if (!sec) return null;
    const hw = sc.hardware;
    if (hw && typeof hw === 'object' && typeof hw.device === 'object') return null;
    if (hw && typeof hw === 'object' && hw.pools !== undefined) return null; // a mixed fleet: the JSON editor holds it
    const rest = JSON.parse(JSON.stringify(sc));
    for (const k of SHAPE_KEYS) delete rest[k];
    const st = {};
    const str = (v, sp) =>
      typeof v === 'number'
        ? Parse.text(sp && sp.scale ? v / sp.scale : v, locale())
        : typeof v === 'boolean'
          ? v
            ? 'on'
            : 'off'
          : typeof v === 'string'
            ? v
            : undefined;
    for (const sp of Fields.specs(sec)) {
      let v = getPath(sc, sp.path);
      if (sp.key === 'model' && sp.path === 'model.preset' && v === undefined && getPath(sc, 'model.params') !== undefined && Fields.spec(sec, 'params'))
        v = 'custom-params';
      if (sp.key === 'weights' && typeof getPath(sc, 'inference.weight_format') === 'string' && getPath(sc, 'inference.weight_format') !== 'native') {
        v = 'gguf:' + getPath(sc, 'inference.weight_format');
        delPath(rest, 'inference.weight_format');
      }
      if (sp.key === 'model' && v === undefined && sc.model !== undefined) return null; // a model this form cannot name
      if (v !== undefined && typeof v === 'object') return null;
      const text = str(v, sp);
      if (sp.kind === 'select' && text !== undefined && text !== '' && !optionValues(sp).includes(text) && !Array.isArray(sp.options)) st[sp.key] = text;
      else if (text !== undefined && (sp.kind !== 'select' || optionValues(sp).includes(text))) st[sp.key] = text;
      else if (text !== undefined)
        return null; // a choice the form does not offer
      else st[sp.key] = sp.keep ? sp.value : sp.dflt !== undefined ? sp.dflt : sp.kind === 'select' && !optionValues(sp).includes('') ? sp.value : '';
      if (v !== undefined) delPath(rest, sp.path);
    }
    // The explain section draws the compared devices at the compared precision: those are not settings.
    if (sec === 'explain') {
      delPath(rest, 'roofline.devices');
      delPath(rest, 'roofline.precision');
    }
    delPath(rest, 'inference.weight_format');
    if (getPath(rest, 'inference.weight_format') === 'native') delPath(rest, 'inference.weight_format');
    if (Object.keys(rest).length) {
      if (!State.WITH_EXTRA.includes(sec)) return null;
      const extra = JSON.stringify(rest);
      if (extra.length > 4000) return null;
      st.extra = extra;
    } else if (State.WITH_EXTRA.includes(sec)) st.extra = '';
    return { section: sec, state: { [sec]: st } };
  }

  function optionValues(sp) {
    return Array.isArray(sp.options) ? sp.options.map((o) => o[0]) : [];
  }

  // The text a section's built scenario is asked with: without derivations unless it says otherwise
  // (the page fetches them later, when idle). scripts/bundle.mjs records the default page's first one.
  function requestText(built) {
    if (typeof built.scenario === 'string') return built.scenario;
    return JSON.stringify('explain' in built.scenario ? built.scenario : Object.assign({}, built.scenario, { explain: false }));
  }

  return { build, gpusNeeded, toState, getPath, setPath, fromSpecs, requestText, locale };
})();
