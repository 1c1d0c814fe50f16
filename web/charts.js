// Charts: a thin wrapper over uPlot (bundled). Charts are reused between updates (uPlot setData)
// when their series are unchanged: creating a chart costs far more than updating one. The cache
// and the width live on the element (reset on each full render). Part of the page bundle.
const Charts = (function () {
  const { h } = Dom;

  // Optional vertical marker (e.g. the batch where decode turns compute-bound), drawn on the canvas.
  function markHook(mark) {
    return (u) => {
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
    };
  }

  // Appends a figure with the chart (and its data table, folded) to target.
  function chart(el, target, title, opts, data, table) {
    if (typeof globalThis.uPlot !== 'function') return;
    // The host's width is read once per render: reading layout after DOM changes forces a reflow.
    if (!el._chartWidth) el._chartWidth = Math.max(280, Math.min(720, (el.getBoundingClientRect().width || 720) - 40));
    const width = el._chartWidth;
    const sec = target.closest('section');
    const key = (sec ? sec.dataset.section : '') + ':' + title.split(/[:(]/)[0];
    const labels = JSON.stringify(opts.series.map((x) => x.label)) + width + JSON.stringify(opts.markX || null);
    const fig = h('figure', { class: 'chart' }, h('figcaption', { text: title }));
    target.appendChild(fig);
    const holder = h('div', { role: 'img', 'aria-label': title });
    fig.appendChild(holder);
    el._chartCache = el._chartCache || {};
    const cached = el._chartCache[key];
    if (cached && cached.labels === labels) {
      holder.appendChild(cached.u.root);
      cached.u.setData(data);
    } else {
      if (cached) cached.u.destroy();
      // Every x axis here is a quantity, never a date (uPlot's default).
      const o = Object.assign({ width, height: 260 }, opts);
      delete o.markX;
      if (opts.markX) o.hooks = { draw: [markHook(opts.markX)] };
      o.scales = Object.assign({}, o.scales, { x: Object.assign({ time: false }, (o.scales || {}).x) });
      const u = new globalThis.uPlot(o, data, holder);
      el._chartCache[key] = { u, labels };
    }
    if (table) fig.appendChild(h('details', null, h('summary', { text: 'data table' }), table));
  }

  return { chart };
})();
