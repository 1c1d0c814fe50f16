// The network across nodes, sites and the internet, on the page: the training section's table of
// what crosses the WAN (synchronous data parallelism or DiLoCo) with the convergence caveat, and
// "what can this cluster train" side by side in one cluster, across sites, and across sites with
// DiLoCo, each with the core's explanation of why. Every number comes from the core's report.
// Part of the page bundle (scripts/bundle.mjs).
const NetworkView = (function () {
  const { h, kvTable } = Dom;
  // Small utilisations keep two significant digits (0.068 %, not 0.1 %).
  const pct = (x) => (typeof x === 'number' && x > 0 && x < 0.01 ? (100 * x).toPrecision(2) + '\u00a0%' : F.percent(x));
  const netName = (el, id) => ((el._networks || []).find((x) => x.id === id) || {}).name || id;

  // Training over more than one site, or with local steps: the exchange and what it costs.
  function training(el, res, r) {
    const t = r.training;
    const c = t.communication;
    const n = t.network || {};
    if (!c || (!(n.sites > 1) && !n.network && !(t.local_sgd && t.local_sgd.local_steps > 1))) return;
    const diloco = t.local_sgd && t.local_sgd.local_steps > 1;
    const rows = [
      ['compute_utilization', 'Time computing (not waiting for the network)'],
      ['inner_step_seconds', diloco ? 'Step without the exchange' : 'Step (the gradients cross the WAN in every step)'],
      ['exchange_seconds', 'One exchange across sites'],
      ['exchange_seconds_per_step', 'Exchange per step (spread over the local steps)'],
      ['exchange_hidden_fraction', 'Exchange hidden behind compute'],
      ['wan_bytes_per_site_per_step', 'Sent per site per step'],
      ['reduction_vs_synchronous', 'Less traffic than synchronous data parallelism (×)'],
      ['pipeline_wan_seconds_per_step', 'Pipeline activations over the WAN per step']
    ];
    const where =
      (n.sites > 1 ? F.count(n.sites) + ' sites of ' + F.count(n.devices_per_site) + ' GPUs' : 'one site') +
      (n.wan ? ', joined by ' + netName(el, n.wan) : '') +
      (n.network ? '; between nodes: ' + netName(el, n.network) : '');
    const shown = rows.filter(([k]) => c[k] !== null && c[k] !== undefined);
    res.appendChild(kvTable('Network: ' + where, c, shown, el._derivations('train'), 'training.communication'));
    const s = t.local_sgd;
    if (s && s.local_steps > 1)
      res.appendChild(
        h(
          'p',
          { class: 'prose', 'data-key': 'training.local_sgd' },
          'DiLoCo with ' +
            F.count(s.local_steps) +
            ' local steps: published perplexity at the same tokens ranges from ' +
            F.percent(s.perplexity_change_low) +
            ' to +' +
            F.percent(s.perplexity_change_high) +
            ' of synchronous training, so the same loss may take ' +
            F.duration(s.days_same_loss_low * 86400) +
            ' to ' +
            F.duration(s.days_same_loss_high * 86400) +
            (s.beyond_published ? ' (more local steps than any published run: a guess)' : '') +
            '. Source: ' +
            s.basis +
            '.'
        )
      );
  }

  // "What can this cluster train", side by side: one cluster, across sites, across sites with DiLoCo.
  function compare(el, res, inv) {
    const list = inv.networks;
    if (!list || !list.length) return;
    const head = ['Where the GPUs are, and why', 'MFU', 'Trains in the time', 'Memory bound'];
    const why = (x) => (x.explanation.startsWith(x.label + ': ') ? x.explanation.slice(x.label.length + 2) : x.explanation);
    const rows = list.map((x) =>
      h(
        'tr',
        { 'data-network': x.id },
        h('th', { scope: 'row' }, h('span', { text: x.label }), h('span', { class: 'note', text: why(x) })),
        h('td', { 'data-label': head[1], text: pct(mfuOf(x)) }),
        h('td', { 'data-label': head[2], text: x.trainable_params === null ? 'nothing fits' : F.params(x.trainable_params) }),
        h('td', { 'data-label': head[3], text: F.params(x.largest_fitting_params) })
      )
    );
    res.appendChild(
      Dom.scroller(
        h(
          'table',
          { class: 'data networks' },
          h('caption', { text: 'The same GPUs in one data centre, across sites, and across sites with DiLoCo' }),
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              head.map((x) => h('th', { scope: 'col', text: x }))
            )
          ),
          h('tbody', null, rows)
        ),
        'Networks side by side'
      )
    );
  }

  // The MFU of the model that trains in the time, as an estimate of it reports (that of the largest that fits, when the
  // compute-optimal does not).
  const mfuOf = (x) => (x.trainable_mfu !== null && x.trainable_mfu !== undefined ? x.trainable_mfu : x.mfu);
  // The answer card's figures: the model that trains in the time for each place the GPUs may be.
  const SHORT = { one_cluster: 'In one data centre', sites_synchronous: 'Across sites, synchronous', sites_diloco: 'Across sites, DiLoCo' };
  function figures(inv) {
    return (inv.networks || []).map((x) => [
      SHORT[x.id] || x.label,
      x.trainable_params === null ? 'nothing' : F.params(x.trainable_params),
      (x.limited_by === 'memory'
        ? 'the largest that fits (the compute-optimal ' + F.params(x.compute_optimal_params) + ' does not), at '
        : 'compute-optimal, at ') +
        pct(mfuOf(x)) +
        ' MFU' +
        (x.id === 'one_cluster' || !(x.hardware.sites > 1)
          ? ''
          : '; ' +
            F.count(x.hardware.sites) +
            ' sites \u00d7 ' +
            F.count(x.hardware.devices_per_site) +
            ' GPUs, ' +
            F.bandwidth(x.hardware.wan_bytes_per_second) +
            ' each'),
      'net-' + x.id
    ]);
  }
  // Whether the places differ at all (on one node they do not).
  function differ(inv) {
    const p = (inv.networks || []).map((x) => x.trainable_params);
    return p.length > 1 && Math.max(...p) > 1.01 * Math.min(...p);
  }

  // The Cluster section: the links of each level, and where they matter.
  function cluster(el, res, r) {
    const n = r.cluster.network;
    if (!n) return;
    const rows = [
      ['scale_up_bytes_per_second', 'Inside a node (' + (n.scale_up || 'scale-up') + '), per GPU'],
      ['devices_per_node', 'GPUs per node'],
      ['scale_out_bytes_per_second', 'Between nodes, per GPU (' + (n.network || n.scale_out_source || 'catalog') + ')'],
      ['sites', 'Sites'],
      ['devices_per_site', 'GPUs per site'],
      ['wan_bytes_per_second', 'Between sites, per site (' + (n.wan || '') + ')'],
      ['wan_latency_seconds', 'Between sites, one-way latency']
    ].filter(([k]) => n[k] !== null && n[k] !== undefined && !(k.startsWith('wan') && !(n.sites > 1)));
    res.appendChild(kvTable('Network: the links of each level', n, rows, el._derivations('cluster'), 'cluster.network'));
    res.appendChild(
      h('p', {
        class: 'prose',
        text: 'What these links mean for a training run: the Train section’s Network settings, and “What can this cluster train” in the Reality check, side by side in one data centre and across sites.'
      })
    );
  }

  return { training, compare, figures, differ, cluster, netName };
})();
