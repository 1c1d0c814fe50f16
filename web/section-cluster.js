// Section "Cluster": totals of N devices (cores, memory, bandwidth, peaks, power, price), with the
// catalog's sources. Part of the page bundle (scripts/bundle.mjs).
const ClusterSection = (function () {
  const { h, kvTable } = Dom;

  function build(el, body) {
    body.appendChild(Forms.form(el, 'cluster'));
    body.appendChild(
      h(
        'details',
        { class: 'details', open: !el.hasAttribute('compact') },
        h('summary', { text: 'Details: every total, with sources' }),
        h('div', { class: 'results', 'data-results': 'cluster' })
      )
    );
  }

  function answer(el, r) {
    const c = r.cluster;
    const name = r.inputs.hardware.device_name;
    const peak = c.peak_flops_per_second || {};
    return Card.card('cluster', {
      lead: F.count(c.devices) + ' \u00d7 ' + name + (c.nodes > 1 ? ' in ' + F.count(c.nodes) + ' nodes' : '') + '.',
      figures: [
        ['Memory', F.bytes(c.memory_bytes), F.bandwidth(c.memory_bandwidth_bytes_per_second) + ' together', 'memory'],
        peak.bf16 ? ['Peak BF16', F.flops(peak.bf16), 'dense', 'peak'] : ['Peak FP32', F.flops(peak.fp32), 'dense', 'peak'],
        ['Power', F.watts(c.facility_power_watts || c.power_watts), c.facility_power_watts ? 'facility, cooling included' : 'board power', 'power'],
        c.cloud_usd_per_hour !== null ? ['Rent', F.usd(c.cloud_usd_per_hour) + ' per hour', F.usd(c.cloud_usd_per_hour * 24) + ' per day', 'rent'] : null,
        c.network && c.network.sites > 1
          ? [
              'Between sites',
              F.bandwidth(c.network.wan_bytes_per_second),
              F.count(c.network.sites) + ' sites of ' + F.count(c.network.devices_per_site) + ' GPUs',
              'wan'
            ]
          : null
      ]
    });
  }

  function show(el, res, r) {
    res.appendChild(
      kvTable(
        'Cluster totals',
        r.cluster,
        [
          ['devices', 'Devices'],
          ['nodes', 'Nodes'],
          ['cores', 'Cores (shipping SKU)'],
          ['full_die_cores', 'Cores if every chip were a full die'],
          ['matrix_units', 'Tensor/matrix cores'],
          ['cpu_cores', 'CPU cores'],
          ['memory_bytes', 'Memory'],
          ['memory_bandwidth_bytes_per_second', 'Aggregate bandwidth'],
          ['peak_flops_per_second.fp64', 'Peak FP64'],
          ['peak_flops_per_second.fp32', 'Peak FP32'],
          ['peak_flops_per_second.bf16', 'Peak BF16 (dense)'],
          ['peak_flops_per_second.fp8', 'Peak FP8 (dense)'],
          ['power_watts', 'Power (GPUs\u2019 TDP sum)'],
          ['node_power_watts', 'Power of the servers (GPUs, CPUs, memory, fans)'],
          ['facility_power_watts', 'Facility power (servers × PUE)'],
          ['price_usd', 'Purchase price (devices)'],
          ['cloud_usd_per_hour', 'Cloud cost per hour']
        ],
        el._derivations('cluster'),
        'cluster'
      )
    );
    NetworkView.cluster(el, res, r);
    const src = Dom.sources([el._devices.find((d) => d.id === r.inputs.hardware.device)]);
    if (src) res.appendChild(src);
  }

  return { build, answer, show };
})();
