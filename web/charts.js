// Charts: a thin wrapper over uPlot (bundled). A chart is drawn when it comes near the viewport or
// when the browser is idle (never before the first answer), and reused between updates (uPlot
// setData) when its series are unchanged: creating a chart costs far more than updating one.
// Colours follow the light/dark scheme: axes and tick labels in the text colour, grid in the line
// colour, series from a palette with enough contrast on either background; axes are sized to their
// longest tick label so that titles never overlap ticks. Part of the page bundle.
const Charts = (function () {
  const { h } = Dom;
  const PALETTE = {
    // grid: 3:1 against the background (WCAG non-text contrast), lighter than the text.
    light: { c0: '#1864ab', c1: '#2b8a3e', c2: '#c2410c', c3: '#862e9c', mark: '#c2410c', grid: '#8c959f' },
    dark: { c0: '#74c0fc', c1: '#8ce99a', c2: '#ffa94d', c3: '#e599f7', mark: '#ffa94d', grid: '#646c77' }
  };

  function dark() {
    return !!(globalThis.matchMedia && matchMedia('(prefers-color-scheme: dark)').matches);
  }

  // The element's text and line colours (its CSS variables) and the palette of the scheme.
  function theme(el) {
    const cs = getComputedStyle(el);
    const v = (n, d) => (cs.getPropertyValue(n) || '').trim() || d;
    const d = dark();
    return Object.assign({ name: d ? 'dark' : 'light', fg: v('--fg', d ? '#e6edf3' : '#1b1f24') }, PALETTE[d ? 'dark' : 'light']);
  }

  // Optional vertical marker (e.g. the batch where decode turns compute-bound), drawn on the canvas.
  function markHook(mark, color) {
    return (u) => {
      const x = u.valToPos(mark.x, 'x', true);
      if (!isFinite(x) || x < u.bbox.left || x > u.bbox.left + u.bbox.width) return;
      const c = u.ctx;
      c.save();
      c.strokeStyle = color;
      c.fillStyle = color;
      c.lineWidth = 2;
      c.setLineDash([6, 4]);
      c.beginPath();
      c.moveTo(x, u.bbox.top);
      c.lineTo(x, u.bbox.top + u.bbox.height);
      c.stroke();
      c.font = 'bold ' + Math.round(12 * devicePixelRatio) + 'px system-ui, sans-serif';
      const right = x > u.bbox.left + u.bbox.width / 2; // keep the label inside the plot
      c.textAlign = right ? 'right' : 'left';
      c.fillText(mark.label, right ? x - 6 : x + 6, u.bbox.top + 14 * devicePixelRatio);
      c.restore();
    };
  }

  // A y axis as wide as its longest tick label, plus the tick, the gap and room for its title.
  function sizeToLabels(u, values, i, cycle) {
    const axis = u.axes[i];
    if (cycle > 1 && axis._size) return axis._size;
    let w = 0;
    u.ctx.font = axis.font[0];
    for (const v of values || []) w = Math.max(w, u.ctx.measureText(String(v)).width / devicePixelRatio);
    return Math.ceil(w + axis.ticks.size + axis.gap + 6);
  }

  function styled(opts, t) {
    const o = Object.assign({}, opts);
    // Grid lines and ticks only where a tick has a label (a log axis has unlabelled minor splits).
    const labelled = (u, splits, i, space, incr) => u.axes[i].filter(u, splits, i, space, incr);
    o.axes = (opts.axes || []).map((a, i) => {
      const x = Object.assign(
        {
          stroke: t.fg,
          font: '12px system-ui, sans-serif',
          labelFont: 'bold 12px system-ui, sans-serif',
          labelSize: 18,
          labelGap: 2,
          grid: { stroke: t.grid, width: 1, filter: labelled },
          ticks: { stroke: t.grid, width: 1, size: 5, filter: labelled }
        },
        a,
        i > 0 ? { size: sizeToLabels } : {},
        a.grid ? { grid: Object.assign({ stroke: t.grid, width: 1, filter: labelled }, a.grid) } : {}
      );
      // A split without a label stays without one (never a '—').
      if (typeof a.values === 'function')
        x.values = (u, vals, ...rest) => {
          const out = a.values(u, vals, ...rest);
          return vals.map((v, j) => (v == null ? null : out[j]));
        };
      return x;
    });
    o.series = opts.series.map((s) => {
      const x = Object.assign({}, s);
      if (t[x.stroke]) x.stroke = t[x.stroke];
      if (x.points && t[x.points.fill]) x.points = Object.assign({}, x.points, { fill: t[x.points.fill], stroke: t[x.points.fill] });
      return x;
    });
    return o;
  }

  function draw(el, job) {
    const cache = (el._chartCache = el._chartCache || {});
    const cached = cache[job.key];
    if (cached && cached.sig === job.sig) {
      job.holder.replaceChildren(cached.u.root);
      cached.u.setData(job.data);
      return;
    }
    if (cached) cached.u.destroy();
    const t = theme(el);
    const o = Object.assign({ width: job.width, height: 260 }, styled(job.opts, t));
    delete o.markX;
    if (job.opts.markX) o.hooks = { draw: [markHook(job.opts.markX, t.mark)] };
    o.scales = Object.assign({}, o.scales, { x: Object.assign({ time: false }, (o.scales || {}).x) });
    job.holder.textContent = '';
    const u = new globalThis.uPlot(o, job.data, job.holder);
    job.holder.dataset.axisColor = t.fg;
    job.holder.dataset.gridColor = t.grid;
    performance.mark('gpucalc-chart-drawn');
    job.holder.dataset.theme = t.name;
    cache[job.key] = { u, sig: job.sig };
  }

  // Draws pending charts as they come near the viewport; the rest when the browser is idle.
  function schedule(el, job) {
    el._chartJobs = el._chartJobs || new Map();
    el._chartJobs.set(job.holder, job);
    const run = (holder) => {
      const j = el._chartJobs.get(holder);
      if (!j || !holder.isConnected) {
        el._chartJobs.delete(holder);
        return;
      }
      el._chartJobs.delete(holder);
      draw(el, j);
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

  // Appends a figure with the chart (drawn now if it exists already, else when near or idle) and
  // its data table, folded.
  function chart(el, target, title, opts, data, table) {
    if (typeof globalThis.uPlot !== 'function') return;
    // The host's width is read once per render: reading layout after DOM changes forces a reflow.
    if (!el._chartWidth) el._chartWidth = Math.max(280, Math.min(720, (el.getBoundingClientRect().width || 720) - 40));
    const width = el._chartWidth;
    const sec = target.closest('section');
    const key = (sec ? sec.dataset.section : '') + ':' + title.split(/[:(]/)[0];
    const sig = JSON.stringify(opts.series.map((x) => x.label)) + width + JSON.stringify(opts.markX || null) + (dark() ? 'dark' : 'light');
    const fig = h('figure', { class: 'chart' }, h('figcaption', { text: title }));
    target.appendChild(fig);
    const holder = h('div', { class: 'chart-holder', role: 'img', 'aria-label': title, 'data-chart': key });
    fig.appendChild(holder);
    const job = { key, sig, holder, opts, data, width };
    const cached = el._chartCache && el._chartCache[key];
    if (cached && cached.sig === sig) draw(el, job);
    else schedule(el, job);
    if (table) fig.appendChild(h('details', null, h('summary', { text: 'data table' }), table));
  }

  // A change of colour scheme redraws the charts of the sections shown.
  function watchTheme(el, redraw) {
    if (el._themeWatch || !globalThis.matchMedia) return;
    el._themeWatch = true;
    matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
      for (const k of Object.keys(el._chartCache || {})) el._chartCache[k].u.destroy();
      el._chartCache = {};
      redraw();
    });
  }

  return { chart, watchTheme, theme };
})();
