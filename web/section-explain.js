// Section "Explain: GPU vs CPU": two devices side by side, how many of B match one A, the
// roofline chart and where typical workloads fall. Part of the page bundle (scripts/bundle.mjs).
const ExplainSection = (function () {
  const { h, at, kvTable, dataTable } = Dom;

  function build(el, sec) {
    sec.appendChild(
      h('p', {
        class: 'prose',
        text:
          'A GPU is thousands of simple cores fed by very wide on-package memory (HBM); a CPU is a few dozen complex cores with large caches and ordinary DDR memory. ' +
          'GPUs run the same instruction across groups of threads (SIMT); CPUs vectorise inside each core (SIMD). Tensor/matrix cores add dedicated hardware for small matrix multiplies, ' +
          'which is where most of a GPU\u2019s AI FLOPS come from. The roofline below shows when a job is limited by compute or by memory bandwidth.'
      })
    );
    sec.appendChild(Forms.form(el, 'explain'));
    sec.appendChild(
      h(
        'details',
        { class: 'details', open: !el.hasAttribute('compact') },
        h('summary', { text: 'Details: side by side, roofline, typical workloads' }),
        h('div', { class: 'results', 'data-results': 'explain' })
      )
    );
  }

  function answer(el, r) {
    const c = r.compare;
    // Two precisions (a CPU lists no BF16 peak): the ratio at one precision both list beside it, or
    // a GPU's BF16 against a CPU's FP32 reads as a 134x gap that is 9x like for like.
    const mixed = c.precision_a !== c.precision_b;
    const same = mixed && c.compute_ratio_same_precision !== null ? c.compute_ratio_same_precision : null;
    const P = (p) => String(p).toUpperCase();
    const figs = [
      [
        'Compute',
        F.ratio(c.compute_ratio),
        'A\u2019s peak over B\u2019s (' +
          P(c.precision_a) +
          ' vs ' +
          P(c.precision_b) +
          (mixed ? ': B lists no ' + P(c.precision_a) + ' peak' : '') +
          ')' +
          (same !== null ? '; both at ' + P(c.same_precision) + ': ' + F.ratio(same) : ''),
        'compute'
      ],
      ['Memory bandwidth', F.ratio(c.bandwidth_ratio), 'A over B', 'bandwidth']
    ];
    if (c.cpu_cores_equivalent !== null && c.cpu_cores_equivalent !== undefined)
      figs.push([
        'CPU cores',
        F.count(c.cpu_cores_equivalent),
        'of B match one ' +
          c.a.name +
          (same !== null ? ' (' + F.count((c.cpu_cores_equivalent * same) / c.compute_ratio) + ' at ' + P(c.same_precision) + ' both)' : ''),
        'cores'
      ]);
    return Card.card('explain', { lead: 'One ' + c.a.name + ' against one ' + c.b.name + ':', figures: figs });
  }

  function compareTable(c) {
    const rows = [
      ['name', 'Name'],
      ['cores.simt_cores', 'Cores'],
      ['cores.cpu_cores', 'CPU cores'],
      ['cores.full_die_simt_cores', 'Cores (full die, not shipped)'],
      ['memory_bytes', 'Memory'],
      ['memory_type', 'Memory type'],
      ['memory_bandwidth_bytes_per_second', 'Bandwidth'],
      ['tdp_watts', 'TDP']
    ];
    const tb = h('tbody');
    for (const [key, label] of rows) {
      const get = (o) => at(o, key);
      const fmtv = (v) => (v === null || v === undefined ? '—' : F.byKey(key.split('.').pop(), v));
      tb.appendChild(h('tr', null, h('th', { scope: 'row', text: label }), h('td', { text: fmtv(get(c.a)) }), h('td', { text: fmtv(get(c.b)) })));
    }
    tb.appendChild(
      h(
        'tr',
        null,
        h('th', { scope: 'row', text: 'Peak (' + c.precision_a.toUpperCase() + ' / ' + c.precision_b.toUpperCase() + ')' }),
        h('td', { 'data-key': 'compare.peak_a', title: F.exact(c.peak_a_flops_per_second) }, F.flops(c.peak_a_flops_per_second)),
        h('td', { 'data-key': 'compare.peak_b', title: F.exact(c.peak_b_flops_per_second) }, F.flops(c.peak_b_flops_per_second))
      )
    );
    tb.appendChild(
      h(
        'tr',
        null,
        h('th', { scope: 'row', text: 'Peak per watt' }),
        h('td', { text: F.flops(c.flops_per_watt_a) + ' per W' }),
        h('td', { text: F.flops(c.flops_per_watt_b) + ' per W' })
      )
    );
    tb.appendChild(
      h(
        'tr',
        null,
        h('th', { scope: 'row', text: 'Peak per dollar of price' }),
        h('td', { text: F.flops(c.flops_per_usd_a) + ' per $' }),
        h('td', { text: F.flops(c.flops_per_usd_b) + ' per $' })
      )
    );
    return Dom.scroller(
      h(
        'table',
        { class: 'compare' },
        h('caption', { text: 'Side by side (dense peaks; vendors print sparse figures at 2×)' }),
        h('thead', null, h('tr', null, h('td', null), h('th', { scope: 'col', text: c.a.name }), h('th', { scope: 'col', text: c.b.name }))),
        tb
      ),
      'Side by side'
    );
  }

  function roofline(el, res, rf) {
    const xs = rf.devices[0].curve.map((p) => p[0]);
    const series = [];
    const data = [xs];
    const colors = ['c2', 'c0', 'c1', 'c3'];
    rf.devices.forEach((d, i) => {
      series.push({ label: d.name + ' (' + d.precision + ')', color: colors[i % 4] });
      data.push(d.curve.map((p) => p[1]));
    });
    Charts.chart(
      el,
      res,
      'Roofline: attainable FLOP/s vs arithmetic intensity (log–log)',
      {
        // Intensities under 1 as the fractions they are on this axis (1/8, not 0.13).
        x: { label: 'FLOP per byte', log: 2, fmt: (v) => (v < 1 && Number.isInteger(1 / v) ? '1/' + F.count(1 / v) : F.count(v)) },
        y: { label: 'FLOP/s', log: 10, fmt: F.flops },
        series
      },
      data,
      dataTable(
        ['intensity'].concat(rf.devices.map((d) => d.name)),
        xs.filter((_, i) => i % 8 === 0).map((x, j) => [F.count(x)].concat(rf.devices.map((d) => F.flops(d.curve[j * 8][1])))),
        'Roofline data'
      )
    );
  }

  function kernels(rf) {
    const kt = [];
    for (const k of rf.kernels) {
      const row = [k.name, F.count(k.intensity_flops_per_byte)];
      for (const d of rf.devices) {
        const kd = d.kernels.find((x) => x.id === k.id);
        row.push(F.duration(kd.seconds) + ' at ' + F.flops(kd.attainable_flops_per_second) + ' (' + kd.bound + '-bound)');
      }
      kt.push(row);
    }
    return h(
      'div',
      { class: 'kernels' },
      h('h3', { text: 'Where typical workloads fall, and the least time they take (at the roofline: peak or bandwidth)' }),
      dataTable(['kernel', 'FLOP/byte'].concat(rf.devices.map((d) => d.name)), kt, 'Workloads'),
      h('p', {
        class: 'prose',
        text:
          'Ridge points: ' +
          rf.devices.map((d) => d.name + ' ' + F.count(d.ridge_flops_per_byte) + ' FLOP/byte').join('; ') +
          '. Below the ridge a kernel is memory-bound: LLM decode at small batch reads every weight for 1–2 FLOPs, so it runs at bandwidth, not at peak. ' +
          'The times are lower bounds: real kernels reach part of the roofline (FlashAttention-3 about 75 % of an H100\u2019s peak; Shah et al. 2024), and the attention rows are one head of one layer.'
      })
    );
  }

  function show(el, res, r) {
    const c = r.compare;
    res.appendChild(compareTable(c));
    res.appendChild(
      kvTable(
        'How many of B match one A',
        c,
        [
          ['compute_ratio', 'Compute (peak)'],
          ['bandwidth_ratio', 'Memory bandwidth'],
          ['cpu_cores_equivalent', 'CPU cores equal to one A']
        ],
        el._derivations('explain'),
        'compare'
      )
    );
    roofline(el, res, r.roofline);
    res.appendChild(kernels(r.roofline));
    const src = Dom.sources(
      [
        r.inputs.compare && el._devices.find((d) => d.id === r.inputs.compare.a),
        r.inputs.compare && el._devices.find((d) => d.id === r.inputs.compare.b)
      ].filter(Boolean)
    );
    if (src) res.appendChild(src);
  }

  return { build, answer, show };
})();
