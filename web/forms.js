// Form controls of the sections, built from the field table (fields.js): labelled inputs and
// selects bound to the element's state (every change recomputes the section), the parsed value
// next to each number ("= 15 trillion"), option lists from the catalog (a value the catalog does
// not know stays visible, flagged, so the core's error sits next to it: never a silent default),
// and errors next to their fields. Part of the page bundle (scripts/bundle.mjs).
const Forms = (function () {
  const { h } = Dom;

  const DEVICE_GROUPS = [
    ['Data-centre GPUs', (d) => d.kind === 'gpu' && !/rtx|apple|geforce/i.test(d.id + d.name)],
    ['Consumer and workstation GPUs', (d) => d.kind === 'gpu' && /rtx/i.test(d.id)],
    ['Apple silicon (unified memory)', (d) => /^apple-/.test(d.id)],
    ['TPUs and other accelerators', (d) => d.kind === 'tpu' || d.kind === 'accelerator'],
    ['CPUs', (d) => d.kind === 'cpu']
  ];

  function options(el, sp, select) {
    const add = (parent, value, text) => parent.appendChild(h('option', { value }, text));
    if (Array.isArray(sp.options)) {
      for (const [v, t] of sp.options) add(select, v, t);
      return;
    }
    if (sp.options === 'networks' || sp.options === 'wans') {
      add(select, '', sp.auto || 'auto');
      for (const [level, name] of [
        ['datacenter', 'In a data centre'],
        ['wan', 'Between data centres (WAN, internet)']
      ]) {
        if (sp.options === 'wans' && level !== 'wan') continue;
        const g = h('optgroup', { label: name });
        for (const n of el._networks.filter((x) => x.level === level)) add(g, n.id, n.name);
        select.appendChild(g);
      }
      return;
    }
    if (sp.options === 'devices' || sp.options === 'gpus') {
      for (const [name, test] of DEVICE_GROUPS) {
        const list = el._devices.filter((d) => test(d) && (sp.options === 'devices' || d.kind !== 'cpu'));
        if (!list.length) continue;
        const g = h('optgroup', { label: name });
        for (const d of list) add(g, d.id, d.name);
        select.appendChild(g);
      }
      return;
    }
    if (sp.none) add(select, '', sp.none); // a select's '' leaves the field out
    for (const p of el._presets) add(select, p.id, p.name + ' (' + F.params(p.params) + ')');
    if (sp.options === 'presets+custom') add(select, 'custom-params', 'Custom: parameter count');
  }

  // A select shows exactly the state's value; one the list lacks is added, flagged, and selected.
  function setSelect(select, value) {
    select.value = value;
    if (select.value === value) return;
    const stale = select.querySelector('option[data-unknown]');
    if (stale) stale.remove();
    select.appendChild(h('option', { value, 'data-unknown': '' }, '\u26a0 not available: ' + value));
    select.value = value;
  }

  function field(el, sec, sp) {
    const id = sec + '-' + sp.key;
    let input;
    const onchange = () => {
      el._state[sec][sp.key] = input.value;
      el._userEdit(sec);
      Follow.formChanged(el, sec);
      toggleFields(el, sec); // a field typed can hide another (Traffic while requests in flight are given)
      el._update(sec);
    };
    if (sp.kind === 'select') {
      input = h('select', { id, name: sp.key, 'data-field': sp.key, onchange });
      options(el, sp, input);
      setSelect(input, el._state[sec][sp.key]);
    } else {
      input = h('input', {
        id,
        name: sp.key,
        'data-field': sp.key,
        type: 'text',
        inputmode: sp.kind === 'usd' || sp.kind === 'seconds' ? 'text' : 'decimal',
        autocomplete: 'off',
        spellcheck: 'false',
        oninput: onchange,
        placeholder: sp.placeholder
      });
      input.value = el._state[sec][sp.key];
    }
    // A select whose longest option would be cut in one column (~16 characters on a phone) takes two.
    const wide = sp.kind === 'select' && Math.max(...Array.from(input.options, (o) => o.text.length)) > 15;
    const parsed = sp.kind === 'select' ? null : h('span', { class: 'parsed', id: id + '-parsed', 'aria-live': 'off' });
    const err = h('div', { class: 'field-error', id: id + '-error', role: 'alert' });
    input.setAttribute('aria-describedby', (parsed ? id + '-parsed ' : '') + id + '-error');
    return h(
      'div',
      { class: 'field', 'data-key': sp.key, 'data-wide': wide ? '' : null, hidden: !Fields.applies(sp, el._state[sec]) },
      // The unit in brackets, unless the label already says it ("Days", not "Days (days)").
      h(
        'label',
        { for: id },
        sp.label,
        sp.unit && !sp.label.toLowerCase().includes(sp.unit.toLowerCase()) ? h('span', { class: 'unit', text: ' (' + sp.unit + ')' }) : null
      ),
      input,
      parsed,
      err
    );
  }

  // Shows the fields that apply to the form's state (a custom model's; LoRA's for LoRA), hides the rest.
  function toggleFields(el, sec) {
    for (const sp of Fields.specs(sec)) {
      if (!sp.custom && !sp.only) continue;
      const box = el._sections[sec].querySelector('.field[data-key="' + sp.key + '"]');
      if (box) box.hidden = !Fields.applies(sp, el._state[sec]);
    }
  }

  // The section's form: main fields, then each group (a fieldset, or folded "More settings").
  function form(el, sec) {
    const specs = Fields.specs(sec);
    const f = h('form', { class: 'inputs', onsubmit: (e) => e.preventDefault(), 'aria-label': State.TITLES[sec] + ' inputs' });
    const grid = h(
      'div',
      { class: 'grid' },
      specs.filter((s) => !s.group).map((s) => field(el, sec, s))
    );
    f.appendChild(grid);
    // Each group is folded unless one of its fields differs from the default.
    for (const g of Object.keys(Fields.GROUPS)) {
      const list = specs.filter((s) => s.group === g);
      if (!list.length) continue;
      const body = h(
        'div',
        { class: 'grid' },
        list.map((s) => field(el, sec, s))
      );
      const open = list.some((s) => el._state[sec][s.key] !== s.value);
      f.appendChild(h('details', { class: 'group', 'data-group': g, open }, h('summary', { text: Fields.GROUPS[g] }), body));
    }
    if (State.WITH_EXTRA.includes(sec)) f.appendChild(h('div', { class: 'extra', 'data-extra': sec }));
    f.appendChild(h('div', { class: 'field-error section-error', role: 'alert' }));
    showExtra(el, sec, f);
    return f;
  }

  // Settings from an opened scenario that the form has no field for: listed, with a way to drop them.
  function showExtra(el, sec, root) {
    const box = (root || el._sections[sec]).querySelector('.extra');
    if (!box) return;
    box.textContent = '';
    const text = el._state[sec].extra;
    if (!text) return;
    let obj;
    try {
      obj = JSON.parse(text);
    } catch (e) {
      obj = {};
    }
    const items = [];
    const walk = (o, p) => {
      for (const k of Object.keys(o)) {
        const v = o[k];
        if (v && typeof v === 'object' && !Array.isArray(v)) walk(v, p + k + '.');
        else items.push(Words.label(p + k, sec) + ': ' + (typeof v === 'object' ? JSON.stringify(v) : String(v)));
      }
    };
    walk(obj, '');
    box.append(
      h('span', { text: 'Also set by the opened scenario: ' + items.join('; ') + '. ' }),
      h(
        'button',
        {
          type: 'button',
          class: 'link',
          onclick: () => {
            el._state[sec].extra = '';
            showExtra(el, sec);
            el._update(sec);
          }
        },
        'Clear these'
      )
    );
  }

  // Writes the state into the inputs (after "Open", "Use this plan", an import), without rebuilding.
  function sync(el, sec) {
    const secEl = el._sections[sec];
    if (!secEl) return;
    for (const sp of Fields.specs(sec)) {
      const input = secEl.querySelector('[data-field="' + sp.key + '"]');
      if (!input) continue;
      if (input.tagName === 'SELECT') setSelect(input, el._state[sec][sp.key]);
      else input.value = el._state[sec][sp.key];
    }
    for (const d of secEl.querySelectorAll('details.group')) {
      if (Fields.specs(sec).some((s) => s.group === d.dataset.group && el._state[sec][s.key] !== s.value)) d.open = true;
    }
    toggleFields(el, sec);
    showExtra(el, sec);
  }

  // The parsed value next to each number field: "= 15 trillion".
  function showParsed(el, sec, parsed) {
    const secEl = el._sections[sec];
    for (const sp of Fields.specs(sec)) {
      const out = secEl.querySelector('#' + sec + '-' + sp.key + '-parsed');
      if (!out) continue;
      const v = parsed && parsed[sp.key];
      // "= 1 device", "= 1,024 devices": the unit after the value, singular for one.
      let unit = sp.unit && !/\bor\b|0–1|tensor/.test(sp.unit) ? ' ' + sp.unit : '';
      if (sp.kind === 'usd') unit = unit.replace(/^ \$ ?/, ' '); // "= $2.50 per GPU-hour", one dollar sign
      if (v === 1) unit = unit.replace(/^ (device|token|sequence|day|stage|layer|GPU|step|request)s\b/, ' $1').replace(/^ copies$/, ' copy');
      out.textContent = v !== undefined && v !== null ? '= ' + Parse.describe(v, sp.kind) + unit : '';
    }
  }

  // Problems ({key, message} from reading the fields, or the core's {field, message}) next to
  // their inputs, in the page's words; the rest in the section's error box. Returns the labels of
  // the fields marked (each once), for the answer card to name them.
  function showErrors(el, sec, errors) {
    const secEl = el._sections[sec];
    for (const e of secEl.querySelectorAll('.field-error')) e.textContent = '';
    for (const e of secEl.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
    const unplaced = [],
      marked = [];
    for (const e of errors) {
      let key = e.key;
      if (!key && e.field) {
        const sp =
          Fields.specs(sec).find((s) => s.path === e.field || e.field.startsWith(s.path + '.')) ||
          (e.field === 'inference.weight_format'
            ? Fields.spec(sec, 'weights')
            : e.field === 'model.params' || e.field === 'model'
              ? Fields.spec(sec, el._state[sec].model === 'custom-params' ? 'params' : 'model')
              : null);
        key = sp ? sp.key : null;
      }
      const input = key ? secEl.querySelector('[data-field="' + CSS.escape(key) + '"]') : null;
      const msg = Words.humanize(e.message, sec);
      if (input && !input.closest('[hidden]')) {
        input.setAttribute('aria-invalid', 'true');
        const label = (Fields.spec(sec, key) || {}).label;
        if (label && !marked.includes(label)) marked.push(label);
        const more = input.closest('details');
        if (more) more.open = true;
        const box = el._root.getElementById(input.id + '-error');
        if (box) box.textContent = (box.textContent ? box.textContent + ' ' : '') + msg;
      } else unplaced.push(msg);
    }
    const generic = secEl.querySelector('#json-text-error') || secEl.querySelector('.section-error');
    if (generic) generic.textContent = unplaced.join(' ');
    marked.all = unplaced.length === 0; // every problem sits at a field
    return marked;
  }

  // A form with fields the page cannot read: their problems, and what the core says of the fields it
  // could read (the scenario without the unreadable ones), so that every field in error is marked at
  // once; "missing" errors are left out (an unreadable field reads as missing).
  function withCoreErrors(el, sec, built, text) {
    const errors = built.problems.slice();
    if (typeof built.scenario === 'string') return errors;
    const unread = new Set(built.problems.map((p) => (Fields.spec(sec, p.key) || {}).path));
    const core = el._ask('estimate', text, () => el._update(sec));
    if (core.pending) return errors; // the module still starting: the form's own problems only
    // An error on a readable field that names an unreadable one (the core's messages name fields by
    // path) comes from that field's default, not from the reader: left out.
    const named = (e) => [...unread].some((p) => p && String(e.message).includes(p));
    for (const e of core.errors || []) if (e.code !== 'missing' && e.code !== 'internal' && !unread.has(e.field) && !named(e)) errors.push(e);
    return errors;
  }

  return { form, field, sync, showParsed, showErrors, showExtra, setSelect, withCoreErrors };
})();
