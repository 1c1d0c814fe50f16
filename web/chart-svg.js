// ChartSvg: the page's line and point charts drawn as SVG (issue 20: it replaced uPlot, 22 KB gzip,
// with what the page uses). Axes: log (ticks at powers of the base, every second or third power when
// crowded) or linear (1-2-5 steps; 1-2-5 times a power of 1024 for bytes); one or two y axes; grid
// lines at labelled ticks only; a y axis as wide as its longest tick label; tick labels never overlap
// (measured). A dashed vertical marker with its label; points where there are few; a cursor with a
// dot on each series at the selected point. Text via textContent only. Part of the page bundle.
const ChartSvg = (function () {
  const NS = 'http://www.w3.org/2000/svg';
  const HEIGHT = 260;
  const TOP = 12;
  const BOTTOM = 48; // tick, gap, tick labels, gap, axis title
  const widths = new Map();
  let measurer;

  function el(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k of Object.keys(attrs)) if (attrs[k] !== undefined && attrs[k] !== null) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // Width of a 12 px label in px (the SVG draws it in the same font), measured once per text.
  function textWidth(s) {
    if (!widths.has(s)) {
      measurer = measurer || document.createElement('canvas').getContext('2d');
      if (measurer) measurer.font = '12px system-ui, sans-serif';
      widths.set(s, measurer ? measurer.measureText(s).width : s.length * 7.5);
    }
    return widths.get(s);
  }

  const lg = (v, b) => Math.log(v) / Math.log(b);
  const ok = (v, ax) => typeof v === 'number' && isFinite(v) && (!ax.log || v > 0);

  // A 1-2-5 step at least `raw`; with unit 1024, 1-2-5 times a power of 1024 (10 GiB, not 9.31 GiB).
  function niceStep(raw, unit) {
    const p = unit ? unit ** Math.max(0, Math.floor(lg(raw, unit))) : 1;
    const d = 10 ** Math.floor(Math.log10(raw / p));
    const f = raw / p / d;
    return p * d * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
  }

  // The axis's extent: given, or the data's; a log y axis out to whole powers of its base, a linear
  // one padded (points) and out to whole steps, from 0 if asked.
  function domain(ax, vals, snap, pad) {
    if (ax.range) return ax.range.slice();
    const v = vals.filter((x) => ok(x, ax));
    if (!v.length) return ax.log ? [1, ax.log] : [0, 1];
    let lo = Math.min(...v);
    let hi = Math.max(...v);
    if (ax.log) {
      if (snap) [lo, hi] = [ax.log ** Math.floor(lg(lo, ax.log) + 1e-9), ax.log ** Math.ceil(lg(hi, ax.log) - 1e-9)];
      return hi > lo ? [lo, hi] : [lo / ax.log, hi * ax.log];
    }
    if (ax.zero) lo = Math.min(lo, 0);
    if (!isFinite(hi - lo)) return [lo, hi]; // wider than a double holds: drawn as it is, two ticks
    // Flat to rounding (a few ulps apart, or both tiny): a band around the value, so that the steps
    // below stay representable (i x step exact, not past 2^53).
    const mag = Math.max(Math.abs(lo), Math.abs(hi));
    if (hi - lo < mag * 1e-9 || mag < 1e-200) [lo, hi] = [lo - (mag / 10 || 1), hi + (mag / 10 || 1)];
    const p = (hi - lo) * pad;
    [lo, hi] = [lo >= 0 ? Math.max(0, lo - p) : lo - p, hi + p];
    if (hi <= lo) [lo, hi] = [lo - (Math.abs(lo) / 10 || 1), hi + (Math.abs(hi) / 10 || 1)];
    const s = niceStep((hi - lo) / 10, ax.unit);
    return [Math.floor(lo / s + 1e-9) * s, Math.ceil(hi / s - 1e-9) * s];
  }

  // Tick values in [lo, hi] at least `gap` px apart on an axis `len` px long.
  function tickValues(ax, lo, hi, len, gap) {
    const most = Math.max(2, Math.floor(len / gap) + 1);
    if (ax.log) {
      const k0 = Math.ceil(lg(lo, ax.log) - 1e-9);
      const k1 = Math.floor(lg(hi, ax.log) + 1e-9);
      const m = Math.ceil((k1 - k0 + 1) / most);
      const out = [];
      for (let k = Math.ceil(k0 / m) * m; k <= k1; k += m) out.push(ax.log ** k);
      if (out.length >= 2) return out;
    }
    const s = niceStep((hi - lo) / (most - 1), ax.unit);
    const first = Math.ceil(lo / s - 1e-9);
    // An extent the steps cannot cross in a few dozen ticks (see domain): its two ends only.
    if (!(s > 0) || !isFinite(first) || !((hi - lo) / s < 4 * most) || Math.abs(first) > 2 ** 52) return [lo, hi];
    const out = [];
    for (let i = first; i * s <= hi + s * 1e-9; i++) out.push(Number((i * s).toPrecision(12)));
    return out;
  }

  // px of a value on an axis drawn from px a (at lo) to px b (at hi).
  function scale(ax, lo, hi, a, b) {
    const f = ax.log ? Math.log : (v) => v;
    const [l, r] = [f(lo), f(hi)];
    return (v) => a + ((f(v) - l) / (r - l)) * (b - a);
  }

  // Ticks {v, s (label), w (width), p (px)} spaced so that their labels never overlap: the gap grows
  // until each label clears its neighbour by 10 px (x: by widths; y: by the 12 px line).
  function ticks(ax, lo, hi, a, b, horizontal) {
    const pos = scale(ax, lo, hi, a, b);
    let t = [];
    for (let gap = horizontal ? 40 : 24, n = 0; n < 12; gap *= 1.3, n++) {
      t = tickValues(ax, lo, hi, Math.abs(b - a), gap).map((v) => {
        // Ticks without trailing zero decimals: 20 GiB, 1 PFLOP/s, 3.5 M (the legend keeps the formatter's).
        const s = (ax.fmt ? ax.fmt(v) : String(v)).replace(/(\.\d*?[1-9])0+(?!\d)|\.0+(?!\d)/, '$1');
        return { v, s, w: textWidth(s), p: pos(v) };
      });
      const clear = (i) => Math.abs(t[i].p - t[i - 1].p) >= (horizontal ? (t[i].w + t[i - 1].w) / 2 : 12) + 10;
      if (t.every((_, i) => i === 0 || clear(i))) break;
    }
    return t;
  }

  // The layout: y axes sized to their labels, then the x axis in the width left.
  function layout(spec, data) {
    const W = spec.width;
    const bottom = HEIGHT - BOTTOM;
    const scatter = spec.series.every((s) => s.line === false);
    const ys = [spec.y, spec.y2].map((ax, side) => {
      if (!ax) return null;
      const vals = [].concat(...spec.series.map((s, i) => ((s.axis === 'y2' ? 1 : 0) === side ? data[i + 1] : [])));
      const [lo, hi] = domain(ax, vals, true, scatter ? 0.05 : 0);
      const t = ticks(ax, lo, hi, bottom, TOP, false);
      return { ax, lo, hi, t, w: Math.max(0, ...t.map((k) => k.w)), pos: scale(ax, lo, hi, bottom, TOP) };
    });
    let left = 34 + ys[0].w;
    let right = ys[1] ? 34 + ys[1].w : 12;
    const [lo, hi] = domain(spec.x, data[0], false, scatter ? 0.05 : 0);
    let xt;
    for (let pass = 0; pass < 2; pass++) {
      xt = ticks(spec.x, lo, hi, left, W - right, true);
      const first = xt[0];
      const last = xt[xt.length - 1];
      // The first and last tick labels stay inside the chart.
      if (first) left = Math.max(left, first.w / 2 + 2 - (first.p - left));
      if (last) right = Math.max(right, last.w / 2 + 2 - (W - right - last.p));
    }
    xt = ticks(spec.x, lo, hi, left, W - right, true);
    return { W, left, right, top: TOP, bottom, ys, x: { ax: spec.x, t: xt, pos: scale(spec.x, lo, hi, left, W - right) }, scatter };
  }

  // Grid lines, ticks and tick labels of the axes, and their titles.
  function axes(svg, L, t) {
    const { W, left, right, top, bottom } = L;
    const g = el('g', { class: 'axes', fill: t.fg });
    const line = (x1, y1, x2, y2, cls) => g.appendChild(el('line', { x1, y1, x2, y2, stroke: t.grid, class: cls }));
    for (const k of L.x.t) {
      const x = Math.round(k.p) + 0.5;
      line(x, top, x, bottom + 5, 'grid');
      g.appendChild(el('text', { x, y: bottom + 20, 'text-anchor': 'middle', class: 'tick tick-x', 'data-v': k.v }, k.s));
    }
    L.ys.forEach((a, side) => {
      if (!a) return;
      for (const k of a.t) {
        const y = Math.round(k.p) + 0.5;
        if (side === 0) line(left - 5, y, W - right, y, 'grid');
        else line(W - right, y, W - right + 5, y, 'tick');
        const x = side === 0 ? left - 8 : W - right + 8;
        g.appendChild(el('text', { x, y: y + 4, 'text-anchor': side ? 'start' : 'end', class: 'tick tick-y' + (side ? '2' : ''), 'data-v': k.v }, k.s));
      }
      const x = side === 0 ? 13 : W - 13;
      const y = (top + bottom) / 2;
      const tr = 'rotate(' + (side ? 90 : -90) + ' ' + x + ' ' + y + ')';
      g.appendChild(
        el('text', { x, y, transform: tr, 'text-anchor': 'middle', 'font-weight': 'bold', class: 'title title-y' + (side ? '2' : '') }, a.ax.label)
      );
    });
    const tx = (left + W - right) / 2;
    g.appendChild(el('text', { x: tx, y: HEIGHT - 6, 'text-anchor': 'middle', 'font-weight': 'bold', class: 'title title-x' }, L.x.ax.label));
    svg.appendChild(g);
  }

  // The heights of a polyline over the px span [a, b]: its vertices there and where it enters and leaves.
  function linesUnder(ps, [a, b]) {
    const out = [];
    for (let j = 1; j < ps.length; j++) {
      const [p, q] = [ps[j - 1], ps[j]];
      if (!p || !q || q[0] < a || p[0] > b) continue;
      for (const x of [Math.max(a, p[0]), Math.min(b, q[0])]) out.push(p[1] + ((q[1] - p[1]) * (x - p[0])) / (q[0] - p[0] || 1));
    }
    return out;
  }

  // The series (clipped to the plot area, with 3 px to spare for the line width) and the marker.
  function plot(svg, L, spec, data, t) {
    const { W, left, right, top, bottom } = L;
    const vb = [left - 3, top - 3, W - right - left + 6, bottom - top + 6];
    const area = el('svg', { x: vb[0], y: vb[1], width: vb[2], height: vb[3], viewBox: vb.join(' '), class: 'plot' });
    const xs = data[0];
    const pts = spec.series.map((s, i) => {
      const y = L.ys[s.axis === 'y2' ? 1 : 0];
      return xs.map((x, j) => (ok(x, L.x.ax) && ok(data[i + 1][j], y.ax) ? [L.x.pos(x), y.pos(data[i + 1][j])] : null));
    });
    spec.series.forEach((s, i) => {
      const c = t[s.color] || s.color;
      let d = '';
      pts[i].forEach((p, j) => {
        if (p) d += (j && pts[i][j - 1] ? 'L' : 'M') + p[0].toFixed(1) + ' ' + p[1].toFixed(1);
      });
      if (s.line !== false) area.appendChild(el('path', { d, fill: 'none', stroke: c, 'stroke-width': 2, 'stroke-linejoin': 'round', class: 'series' }));
      if (s.line === false || xs.length <= 24)
        for (const p of pts[i])
          if (p)
            area.appendChild(
              el('circle', { cx: p[0], cy: p[1], r: s.line === false ? 4 : 2.5, fill: s.line === false ? c : t.bg, stroke: c, 'stroke-width': 1.5 })
            );
    });
    const m = spec.markX;
    const mx = m && ok(m.x, L.x.ax) ? L.x.pos(m.x) : NaN;
    if (mx >= left && mx <= W - right) {
      const g = el('g', { class: 'mark', 'data-x': m.x, fill: t.mark });
      g.appendChild(el('line', { x1: mx, y1: top, x2: mx, y2: bottom, stroke: t.mark, 'stroke-width': 2, 'stroke-dasharray': '6 4' }));
      // Towards the plot's centre, unless only the other side has room for the label (or its short form).
      let end = mx > (left + W - right) / 2;
      const room = (e) => (e ? mx - 6 - left : W - right - mx - 6);
      const width = (s) => textWidth(s) * 1.1; // bold
      const squeeze = 0.7; // the narrowest a label is drawn (textLength)
      const label = Math.max(room(true), room(false)) >= squeeze * width(m.label) || !m.short ? m.label : m.short;
      const w = width(label);
      if (room(end) < w && room(!end) > room(end)) end = !end;
      const span = end ? [mx - 6 - w, mx - 6] : [mx + 6, mx + 6 + w];
      // At the top of the plot, or at the bottom where the lines under the label pass further from it.
      const clear = (y) => Math.min(...pts.flatMap((ps) => linesUnder(ps, span).map((v) => Math.abs(v - y + 4))));
      const y = clear(bottom - 6) > clear(top + 14) ? bottom - 6 : top + 14;
      const attrs = { x: mx + (end ? -6 : 6), y, 'text-anchor': end ? 'end' : 'start', 'font-weight': 'bold' };
      // Slightly too long for either side (a phone): drawn narrower, not cut at the plot's edge.
      if (room(end) < w && room(end) > squeeze * w) Object.assign(attrs, { textLength: room(end), lengthAdjust: 'spacingAndGlyphs' });
      g.appendChild(el('text', Object.assign(attrs, { stroke: t.bg, 'stroke-width': 4, 'paint-order': 'stroke', 'stroke-linejoin': 'round' }), label));
      area.appendChild(g);
    }
    svg.appendChild(area);
    return pts;
  }

  // The chart: an <svg> and what the page needs to move its cursor: select(i) shows the dots of
  // point i, nearest(x, y) is the index of the point closest to (x, y) in the svg's px.
  function render(spec, data, t) {
    const L = layout(spec, data);
    const svg = el('svg', { width: L.W, height: HEIGHT, viewBox: '0 0 ' + L.W + ' ' + HEIGHT, 'font-family': 'system-ui, sans-serif', 'font-size': 12 });
    axes(svg, L, t);
    const pts = plot(svg, L, spec, data, t);
    const cursor = el('g', { class: 'cursor' });
    svg.appendChild(cursor);
    const select = (i) => {
      cursor.replaceChildren();
      const p0 = pts.map((p) => p[i]).find(Boolean);
      if (!p0) return;
      if (!L.scatter) cursor.appendChild(el('line', { x1: p0[0], y1: L.top, x2: p0[0], y2: L.bottom, stroke: t.fg, 'stroke-opacity': 0.45 }));
      spec.series.forEach((s, k) => {
        const p = pts[k][i];
        if (p) cursor.appendChild(el('circle', { cx: p[0], cy: p[1], r: 5, fill: t[s.color] || s.color, stroke: t.fg, 'stroke-width': 1.5 }));
      });
    };
    const nearest = (x, y) => {
      let best = -1;
      let bd = Infinity;
      for (const ps of pts)
        ps.forEach((p, i) => {
          const d = p ? (p[0] - x) ** 2 + (L.scatter ? (p[1] - y) ** 2 : 0) : Infinity;
          if (d < bd) [best, bd] = [i, d];
        });
      return best;
    };
    return { svg, select, nearest, plot: { left: L.left, right: L.W - L.right, top: L.top, bottom: L.bottom } };
  }

  return { render, niceStep, tickValues, domain, el };
})();
