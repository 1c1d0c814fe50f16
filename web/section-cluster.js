// Section "Cluster": totals of N devices (cores, memory, bandwidth, peaks, power, price).
// Part of the page bundle (scripts/bundle.mjs).
const ClusterSection = (function () {
  const { h, kvTable } = Dom;

  function build(el, sec) {
    const f = Forms.fieldsOf(el, 'cluster');
    sec.appendChild(Forms.form('cluster', [
      f('device', 'Device', { options: Forms.deviceOptions(el) }),
      f('count', 'Count', { unit: 'devices' })]));
    sec.appendChild(h('div', { class: 'results', 'data-results': 'cluster' }));
  }

  function show(el, res, r) {
    res.appendChild(kvTable('Cluster totals', r.cluster, [['devices', 'Devices'], ['nodes', 'Nodes'], ['cores', 'Cores (shipping SKU)'],
      ['full_die_cores', 'Cores if every chip were a full die'], ['matrix_units', 'Tensor/matrix cores'], ['cpu_cores', 'CPU cores'],
      ['memory_bytes', 'Memory'], ['memory_bandwidth_bytes_per_second', 'Aggregate bandwidth'], ['peak_flops_per_second.fp64', 'Peak FP64'],
      ['peak_flops_per_second.fp32', 'Peak FP32'], ['peak_flops_per_second.bf16', 'Peak BF16 (dense)'], ['peak_flops_per_second.fp8', 'Peak FP8 (dense)'],
      ['power_watts', 'Power (TDP sum)'], ['facility_power_watts', 'Facility power (× PUE)'], ['price_usd', 'Purchase price (devices)'], ['cloud_usd_per_hour', 'Cloud cost per hour']],
    r.explain, 'cluster'));
  }

  return { build, show };
})();
