// Charts: the page's charts (drawn by ChartSvg), each in a figure with its legend and its data table,
// folded. A chart is drawn when it comes near the viewport or when the browser is idle (never before
// the first answer), and at once on an update of a chart already drawn. Colours follow the light/dark
// scheme: axes and tick labels in the text colour, grid in a line colour of 3:1, series from a palette
// with enough contrast on either background. The legend names each series with its colour and shows
// the values at the selected point (the marker's, or the last, until a point is hovered, tapped or
// chosen with the arrow keys). Part of the page bundle.
//
// Charts.chart(el, target, title, spec, data, table): spec = { x, y, y2 (axes: label, fmt, log: base,
// range: [lo, hi], zero, unit: 1024), series: [{ label, color ('c0'-'c3'), fmt, axis: 'y2', line:
// false (points only) }], markX: { x, label }, pick (the index selected first), note: i => text about
// point i, shown in the legend }; data = [xs, ...ys].
const Charts = (function () {
  const { h } = Dom;
  const PALETTE = {
    // grid: 3:1 against the background (WCAG non-text contrast), lighter than the text.
    light: { c0: '#1864ab', c1: '#2b8a3e', c2: '#c2410c', c3: '#862e9c', mark: '#c2410c', grid: '#8c959f' },
    dark: { c0: '#74c0fc', c1: '#8ce99a', c2: '#ffa94d', c3: '#e599f7', mark: '#ffa94d', grid: '#646c77' }
  };

  // The element's scheme: its theme attribute's ("light", "dark"), else the system's.
  function dark(el) {
    const t = el && el.getAttribute('theme');
    if (t === 'dark' || t === 'light') return t === 'dark';
    return !!(globalThis.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches);
  }

  // The element's text and background colours (its CSS variables) and the palette of the scheme.
  function theme(el) {
    const cs = getComputedStyle(el);
    const v = (n, d) => (cs.getPropertyValue(n) || '').trim() || d;
    const d = dark(el);
    const base = { name: d ? 'dark' : 'light', fg: v('--fg', d ? '#e6edf3' : '#1b1f24'), bg: v('--bg', d ? '#0d1117' : '#ffffff') };
    return Object.assign(base, PALETTE[base.name]);
  }

  // A short line (or dot) in the series' colour, as drawn in the chart.
  function swatch(s, color) {
    const svg = ChartSvg.el('svg', { width: 16, height: 12, 'aria-hidden': 'true', class: 'swatch-line' });
    svg.appendChild(
      s.line === false
        ? ChartSvg.el('circle', { cx: 7, cy: 6, r: 4, fill: color })
        : ChartSvg.el('line', { x1: 1, y1: 6, x2: 15, y2: 6, stroke: color, 'stroke-width': 3 })
    );
    return svg;
  }

  // The legend: the selected x, then each series with its colour, name and value there.
  function legend(box, job, t, i) {
    const { spec, data } = job;
    const fmt = (f, v) => (typeof v === 'number' && isFinite(v) ? (f ? f(v) : String(v)) : '\u2014');
    const items = [h('span', { class: 'chart-x' }, h('b', { text: spec.x.label + ' ' }), h('span', { class: 'v', text: fmt(spec.x.fmt, data[0][i]) }))];
    spec.series.forEach((s, k) => {
      const f = s.fmt || (s.axis === 'y2' ? spec.y2 : spec.y).fmt;
      const v = h('span', { class: 'v', text: fmt(f, data[k + 1][i]) });
      items.push(h('span', { class: 'chart-key', 'data-series': s.label }, swatch(s, t[s.color] || s.color), s.label + ' ', v));
    });
    // What the point is, when the caller says (the plan chart: its layout).
    if (spec.note) items.push(h('span', { class: 'chart-note', text: spec.note(i) }));
    box.replaceChildren(...items);
    box.dataset.index = i;
  }

  // Index of the x closest to `x` (in value, on the axis's own scale).
  function closest(ax, xs, x) {
    const f = ax.log ? Math.log : (v) => v;
    let best = xs.length - 1;
    xs.forEach((v, i) => {
      if (Math.abs(f(v) - f(x)) < Math.abs(f(xs[best]) - f(x))) best = i;
    });
    return best;
  }

  // The scheme's colours, read once per scheme (reading styles after DOM changes recalculates them).
  function colours(el) {
    if (!el._chartTheme || el._chartTheme.name !== (dark(el) ? 'dark' : 'light')) el._chartTheme = theme(el);
    return el._chartTheme;
  }

  // A drawn chart: its svg, and show(i) that selects point i (cursor and legend).
  function make(job, t, dataKey, prev) {
    const { spec, data } = job;
    const xs = data[0];
    const c = ChartSvg.render(spec, data, t);
    const e = { sig: job.sig, dataKey, c, picked: prev ? prev.picked : null };
    e.show = (i, user) => {
      if (i < 0 || i >= xs.length) return;
      e.sel = i;
      c.select(i);
      // Read out once the reader moves through the points (not as the charts are first drawn).
      if (user) e.job.box.setAttribute('aria-live', 'polite');
      legend(e.job.box, e.job, t, i);
      if (user) e.picked = xs[i];
    };
    const at = (ev) => {
      const r = c.svg.getBoundingClientRect();
      e.show(c.nearest(ev.clientX - r.left, ev.clientY - r.top), true);
    };
    c.svg.addEventListener('pointermove', (ev) => ev.pointerType === 'mouse' && at(ev));
    c.svg.addEventListener('pointerdown', at);
    // First selected: the point the reader chose last time, else the marker's, the caller's or the last.
    const first = e.picked !== null ? e.picked : spec.markX ? spec.markX.x : null;
    e.sel = first !== null ? closest(spec.x, xs, first) : spec.pick !== undefined ? spec.pick : xs.length - 1;
    performance.mark('gpucalc-chart-drawn');
    return e;
  }

  // Puts the chart into its holder: drawn anew, or the one drawn before for the same series and data,
  // moved here as it is (an update that changes nothing in a chart costs next to nothing).
  function draw(el, job) {
    // The host's width is read once per render, when the first chart is drawn: after the first paint,
    // so that reading it forces no layout of a page still being built (~50 ms on a cold load).
    if (!el._chartWidth) el._chartWidth = Math.max(280, Math.min(720, (el.getBoundingClientRect().width || 720) - 40));
    if (!job.sig) setWidth(el, job, el._chartWidth);
    const t = colours(el);
    const cache = (el._chartCache = el._chartCache || {});
    const prev = cache[job.key] && cache[job.key].sig === job.sig ? cache[job.key] : null;
    const dataKey = JSON.stringify([job.data, job.spec]);
    const e = prev && prev.dataKey === dataKey ? prev : make(job, t, dataKey, prev);
    cache[job.key] = e;
    e.job = job;
    job.holder.replaceChildren(e.c.svg);
    e.show(e.sel);
    // The arrow keys step through the points in x order.
    job.holder.onkeydown = (ev) => {
      const d = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1 }[ev.key];
      if (!d) return;
      ev.preventDefault();
      const xs = job.data[0];
      const order = xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b]);
      e.show(order[Math.max(0, Math.min(order.length - 1, order.indexOf(e.sel) + d))], true);
    };
    job.holder.dataset.axisColor = t.fg;
    job.holder.dataset.gridColor = t.grid;
    job.holder.dataset.theme = t.name;
  }

  // Draws pending charts as they come near the viewport; the rest when the browser is idle.
  function schedule(el, job) {
    el._chartJobs = el._chartJobs || new Map();
    el._chartJobs.set(job.holder, job);
    const run = (holder) => {
      const j = el._chartJobs.get(holder);
      el._chartJobs.delete(holder);
      if (j && holder.isConnected) draw(el, j);
    };
    if (globalThis.IntersectionObserver) {
      el._chartIO =
        el._chartIO ||
        new IntersectionObserver(
          (entries) => {
            for (const e of entries)
              if (e.isIntersecting) {
                el._chartIO.unobserve(e.target);
                run(e.target);
              }
          },
          { rootMargin: '200px 0px' }
        );
      el._chartIO.observe(job.holder);
    }
    Dom.idle(() => {
      if (el._chartIO) el._chartIO.unobserve(job.holder);
      run(job.holder);
    }, 3000);
  }

  // Appends a figure with the chart (drawn now if it was drawn before, else when near or idle), its
  // legend and its data table, folded.
  function chart(el, target, title, spec, data, table) {
    const sec = target.closest('section');
    const key = (sec ? sec.dataset.section : '') + ':' + title.split(/[:(]/)[0];
    const holder = h('div', { class: 'chart-holder', role: 'img', 'aria-label': title, 'data-chart': key, tabindex: '0' });
    const box = h('div', { class: 'chart-legend', 'data-legend': key });
    const hint = h('p', { class: 'chart-hint muted', text: 'Hover or tap the chart (or use the arrow keys) for the values at other points.' });
    const fig = h('figure', { class: 'chart' }, h('figcaption', { text: title }), holder, box, hint);
    target.appendChild(fig);
    const job = { key, sig: null, holder, box, spec: Object.assign({}, spec), data };
    if (el._chartWidth) setWidth(el, job, el._chartWidth);
    const cached = el._chartCache && el._chartCache[key];
    if (cached && job.sig && cached.sig === job.sig) draw(el, job);
    else schedule(el, job);
    if (table) fig.appendChild(h('details', null, h('summary', { text: 'data table' }), table));
  }

  // The chart's width, and with it the signature under which it is cached (series, width, marker, theme).
  function setWidth(el, job, width) {
    job.spec.width = width;
    job.sig = JSON.stringify([job.spec.series.map((x) => x.label), width, job.spec.markX || null, dark(el)]);
  }

  // A change of colour scheme (the system's, or the theme attribute) redraws the charts of the sections shown.
  function watchTheme(el, redraw) {
    if (el._themeWatch) return;
    el._themeWatch = true;
    const again = () => {
      el._chartCache = {};
      redraw();
    };
    if (globalThis.matchMedia) matchMedia('(prefers-color-scheme: dark)').addEventListener('change', again);
    new MutationObserver(again).observe(el, { attributes: true, attributeFilter: ['theme'] });
  }

  return { chart, watchTheme, theme };
})();
