// Form controls of the sections: labelled inputs and selects bound to the element's state (every
// change recomputes the section), option lists from the catalog, and the core's field errors shown
// next to their inputs. Part of the page bundle (scripts/bundle.mjs).
const Forms = (function () {
  const { h } = Dom;

  function field(el, sec, key, label, opts) {
    opts = opts || {};
    const id = sec + '-' + key;
    let input;
    const onchange = () => { el._state[sec][key] = input.value; el._update(sec); };
    if (opts.options) {
      input = h('select', { id, name: key, 'data-field': key, onchange });
      for (const [value, text] of opts.options) input.appendChild(h('option', { value }, text));
    } else {
      input = h('input', { id, name: key, 'data-field': key, type: 'text', inputmode: 'decimal', autocomplete: 'off', oninput: onchange, placeholder: opts.placeholder });
    }
    input.value = el._state[sec][key];
    if (opts.options && input.value !== el._state[sec][key]) { input.value = opts.options[0][0]; el._state[sec][key] = input.value; }
    const err = h('div', { class: 'field-error', id: id + '-error', role: 'alert', 'aria-live': 'polite' });
    input.setAttribute('aria-describedby', id + '-error');
    return h('div', { class: 'field', 'data-key': key },
      h('label', { for: id }, label, opts.unit ? h('span', { class: 'unit', text: ' (' + opts.unit + ')' }) : null),
      input, err);
  }

  // field() bound to one section: f('count', 'GPUs', { unit: 'devices' }).
  function fieldsOf(el, sec) { return (key, label, opts) => field(el, sec, key, label, opts); }

  function deviceOptions(el, filter) {
    return el._devices.filter(filter || (() => true)).map((d) => [d.id, d.name]);
  }
  const notCpu = (d) => d.kind !== 'cpu';

  function modelOptions(el, withParams) {
    const opts = el._presets.map((p) => [p.id, p.name + ' (' + F.count(p.params) + ')']);
    if (withParams) opts.push(['custom-params', 'Custom: parameter count only']);
    return opts;
  }

  function form(sec, fields) {
    const f = h('form', { class: 'inputs', onsubmit: (e) => e.preventDefault(), 'aria-label': State.TITLES[sec] + ' inputs' });
    for (const x of fields) f.appendChild(x);
    return f;
  }

  // The core's errors ({field, message}) next to their inputs; the rest in the section's error box.
  function showErrors(el, sec, errors) {
    const secEl = el._sections[sec];
    for (const e of secEl.querySelectorAll('.field-error')) e.textContent = '';
    for (const e of secEl.querySelectorAll('[aria-invalid]')) e.removeAttribute('aria-invalid');
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
        const box = el._root.getElementById(input.id + '-error');
        if (box) box.textContent = (box.textContent ? box.textContent + ' ' : '') + e.message;
      } else unplaced.push(e.message);
    }
    const generic = secEl.querySelector('#json-text-error') || secEl.querySelector('.section-error') ||
      secEl.insertBefore(h('div', { class: 'field-error section-error', role: 'alert' }), secEl.querySelector('.results'));
    generic.textContent = unplaced.join(' ');
  }

  return { field, fieldsOf, deviceOptions, notCpu, modelOptions, form, showErrors };
})();
