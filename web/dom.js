// DOM helpers of the page: elements built from text only (never HTML), report tables with their
// derivations, stacked bars, data tables, downloads. Security: no user-controlled string reaches
// innerHTML; every text goes through textContent or a text node.
// Page modules are plain scripts that scripts/bundle.mjs concatenates, in a fixed order, inside one
// function scope: each declares one namespace (here `Dom`, plus the formatter alias `F`).
const F = globalThis.gpucalcFormat;

const Dom = (function () {
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

  // Value at a dotted report path ("peak_flops_per_second.bf16"), undefined where absent.
  function at(obj, path) {
    return path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
  }

  // A wide table scrolls sideways inside its own box on a phone (the page never does); the box is
  // focusable so that keyboard users can scroll it too.
  function scroller(table, label) {
    return h('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': label || 'table' }, table);
  }

  function dataTable(headers, rows, label) {
    return scroller(
      h(
        'table',
        { class: 'data' },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            headers.map((x) => h('th', { scope: 'col', text: x }))
          )
        ),
        h(
          'tbody',
          null,
          rows.map((r) =>
            h(
              'tr',
              null,
              r.map((c, i) => h('td', { 'data-label': headers[i] }, c))
            )
          )
        )
      ),
      label
    );
  }

  // The derivation is built when the reader opens it: most are never opened, and building them all
  // would dominate the time of an update.
  // A derivation's number as people read it (four significant digits, a fraction as a percentage),
  // the exact value on hover: 0.46464386023920684 fraction -> 46.5 %.
  function readable(x, unit) {
    if (typeof x !== 'number' || !Number.isFinite(x)) return h('span', { text: F.exact(x) + (unit ? ' ' + unit : '') });
    // Yes/no results: 'boolean', or '1 = what, 0 = other' (the word for the value, not the digit).
    const two = /^1 = ([^,]+)(?:, 0 = (.+))?$/.exec(unit || '');
    if (unit === 'boolean' || two) {
      const yes = x === 1 || x === true;
      return h('span', { title: F.exact(x), text: unit === 'boolean' ? (yes ? 'yes' : 'no') : yes ? two[1] : two[2] || 'not ' + two[1] });
    }
    const text = unit === 'fraction' ? F.percent(x) : (Number.isInteger(x) ? F.exact(x) : F.exact(Number(x.toPrecision(4)))) + (unit ? ' ' + unit : '');
    return h('span', { title: F.exact(x), text });
  }
  // `name`: what the figure is ("Days"), so that each toggle has its own accessible name (a keyboard
  // user heard sixteen "show the work" in a row).
  // A value that is itself a figure with a derivation (the report's sibling key: training.days's
  // "seconds" is training.seconds) opens to it in turn, so the work reaches the inputs (a newcomer's
  // review: "seconds / 86400, seconds = 14,840,000" said nothing of where the seconds came from).
  function derivation(ex, name, all, key) {
    const d = h('details', { class: 'work' }, h('summary', { text: 'show the work', 'aria-label': 'show the work: ' + name }));
    d.addEventListener('toggle', () => {
      if (!d.open || d.childNodes.length > 1) return;
      const vals = h('ul');
      const base = key ? key.slice(0, key.lastIndexOf('.') + 1) : '';
      for (const k of Object.keys(ex.values)) {
        const sub = all && base && base + k !== key ? all[base + k] : null;
        vals.appendChild(h('li', null, h('code', { text: k }), ' = ', readable(ex.values[k]), sub ? derivation(sub, k, all, base + k) : ''));
      }
      d.append(
        h('div', null, h('code', { text: ex.formula })),
        vals,
        h('div', null, '= ', readable(ex.result, ex.unit)),
        ex.source ? h('div', { class: 'source', text: 'Source: ' + ex.source }) : ''
      );
    });
    return d;
  }

  // A table of report values: label, formatted value (exact value on hover), and the derivation.
  function kvTable(caption, obj, rows, explain, prefix) {
    const tb = h('tbody');
    const cells = [];
    for (const [key, label] of rows) {
      const v = at(obj, key);
      if (v === undefined) continue;
      // The unit is in the key: 'peak_flops_per_second.bf16' and 'memory_per_gpu_bytes.total' take their parent's.
      const parts = key.split('.');
      const unitKey = parts.length > 1 && !/_/.test(parts[parts.length - 1]) ? parts[parts.length - 2] : parts[parts.length - 1];
      const shown = v === null ? '\u2014' : F.byKey(unitKey, v);
      const cell = h(
        'td',
        { class: 'value', 'data-key': prefix + '.' + key, title: typeof v === 'number' ? F.exact(v) : undefined },
        h('span', { class: 'v', text: shown })
      );
      cells.push([cell, prefix + '.' + key]);
      tb.appendChild(h('tr', null, h('th', { scope: 'row', text: label }), cell));
    }
    attachDerivations(cells, explain);
    return h('table', { class: 'kv' }, h('caption', { text: caption }), tb);
  }

  // Runs fn when the browser is idle (at the latest after `timeout` ms).
  function idle(fn, timeout) {
    return globalThis.requestIdleCallback ? requestIdleCallback(fn, { timeout }) : setTimeout(fn, 0);
  }

  // Gives each [cell, key] its "show the work". `explain` is the report's derivations, or a function
  // that asks the core for them: the page estimates without derivations (they are most of an
  // estimate's time and of its JSON) and fetches them once the answer is on screen and the browser is
  // idle (issue 20), so that nothing the reader waits for computes them.
  function attachDerivations(cells, explain) {
    if (!explain || !cells.length) return;
    const attach = (all) => {
      for (const [cell, k] of cells) {
        const th = cell.closest('tr') && cell.closest('tr').querySelector('th');
        if (all && all[k]) cell.appendChild(derivation(all[k], th ? th.textContent : Words.label(k), all, k));
      }
    };
    if (typeof explain === 'function')
      idle(() => {
        const got = explain(); // the derivations, or a promise of them (the module still starting)
        if (got && typeof got.then === 'function') got.then(attach);
        else attach(got);
      }, 500);
    else attach(explain);
  }

  // A stacked horizontal bar (memory, step time) with an optional capacity marker and a legend. Its
  // parts take the colours c0..c11 of style.css (the step time has 12).
  const BAR_COLOURS = 12;
  function bar(caption, parts, capacity, fmt) {
    const total = parts.reduce((a, [, v]) => a + v, 0);
    const scale = Math.max(total, capacity || 0) || 1;
    const b = h('div', {
      class: 'bar',
      role: 'img',
      'aria-label': caption + ': ' + parts.map(([n, v]) => n + ' ' + fmt(v)).join(', ') + (capacity ? '; capacity ' + fmt(capacity) : '')
    });
    parts.forEach(([name, v], i) => {
      if (v <= 0) return;
      const seg = h('div', { class: 'seg c' + (i % BAR_COLOURS), title: name + ': ' + fmt(v) });
      seg.style.width = ((100 * v) / scale).toFixed(3) + '%';
      b.appendChild(seg);
    });
    if (capacity) {
      const cap = h('div', { class: 'cap', title: 'capacity ' + fmt(capacity) });
      cap.style.left = ((100 * capacity) / scale).toFixed(3) + '%';
      b.appendChild(cap);
    }
    // The legend names what is there (a zero part is left out of it, as it is of the bar).
    const legend = h(
      'ul',
      { class: 'legend' },
      parts.map(([name, v], i) => (v > 0 ? h('li', null, h('span', { class: 'swatch c' + (i % BAR_COLOURS) }), name + ' ' + fmt(v)) : null))
    );
    return h('figure', { class: 'barfig' }, h('figcaption', { text: caption }), b, legend);
  }

  // The report's warnings in the page's words, as a list, or null when there are none.
  function warnings(list, sec) {
    const shown = (list || []).filter((w) => !/no parallel layout given: the plan search chose/.test(w));
    return shown.length
      ? h(
          'ul',
          { class: 'warnings', 'aria-label': 'Warnings' },
          shown.map((w) => h('li', { text: Words.humanize(w, sec) }))
        )
      : null;
  }

  // The catalog's sources of some devices, as links (the catalog holds https URLs only).
  function sources(devices) {
    const items = [];
    for (const d of devices) {
      for (const src of (d && d.sources) || []) {
        if (typeof src.url !== 'string' || !/^https:\/\//.test(src.url)) continue;
        items.push(
          h(
            'li',
            null,
            d.name + ', ' + (src.what || 'figures') + ': ',
            h('a', { href: src.url, target: '_blank', rel: 'noopener noreferrer' }, src.url.replace(/^https:\/\/(www\.)?/, '').slice(0, 60))
          )
        );
      }
    }
    return items.length
      ? h('details', { class: 'sources' }, h('summary', { text: 'Sources of the catalog figures (' + items.length + ')' }), h('ul', null, items))
      : null;
  }

  // Offers text as a file download (a blob URL; no network).
  function download(root, name, text, type) {
    const a = h('a', { download: name, href: URL.createObjectURL(new Blob([text], { type })) });
    root.appendChild(a);
    a.click();
    a.remove();
  }

  return { h, at, scroller, dataTable, derivation, kvTable, idle, bar, warnings, sources, download };
})();
