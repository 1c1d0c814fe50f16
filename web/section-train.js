// Section "Train": a training run's time, cost and energy, memory per GPU, step-time breakdown and
// the scaling curve. Part of the page bundle (scripts/bundle.mjs).
const TrainSection = (function () {
  const { h, kvTable, bar, dataTable, warnings } = Dom;

  function build(el, sec) {
    const f = Forms.fieldsOf(el, 'train');
    sec.appendChild(Forms.form('train', [
      f('model', 'Model', { options: Forms.modelOptions(el, true) }),
      f('params', 'Parameters (custom)', { unit: 'count', placeholder: 'e.g. 7e9' }),
      f('device', 'Device', { options: Forms.deviceOptions(el, Forms.notCpu) }),
      f('count', 'GPUs', { unit: 'devices' }),
      f('tokens', 'Training tokens', { unit: 'tokens' }),
      f('mfu', 'MFU (blank: predicted)', { unit: '0–1', placeholder: 'predicted' }),
      f('tp', 'Tensor parallel', { unit: 'GPUs' }),
      f('pp', 'Pipeline parallel', { unit: 'stages' }),
      f('vpp', 'Interleaving', { unit: 'chunks per GPU' }),
      f('ep', 'Expert parallel (MoE)', { unit: 'GPUs' }),
      f('precision', 'Precision', { options: [['bf16', 'BF16'], ['fp16', 'FP16'], ['fp8', 'FP8'], ['tf32', 'TF32'], ['fp32', 'FP32']] }),
      f('zero', 'ZeRO stage', { options: [['0', '0'], ['1', '1'], ['2', '2'], ['3', '3 / FSDP']] }),
      f('recompute', 'Recomputation', { options: [['none', 'none'], ['selective', 'selective'], ['full', 'full']] }),
      f('micro_batch', 'Micro-batch', { unit: 'sequences' }),
      f('global_batch', 'Global batch', { unit: 'sequences' }),
      f('gpu_hour_usd', 'Price', { unit: '$ per GPU-hour' })]));
    sec.appendChild(h('div', { class: 'results', 'data-results': 'train' }));
  }

  function scaling(el, res, sc) {
    Charts.chart(el, res, 'Scaling: tokens/s and efficiency vs GPU count (same model and batch)', {
      scales: { x: { distr: 3, log: 2 }, eff: { range: [0, 1.05] } },
      axes: [{ label: 'GPUs' }, { label: 'tokens/s', size: 70, values: (u, v) => v.map((x) => F.count(x)) }, { side: 1, scale: 'eff', label: 'efficiency', values: (u, v) => v.map((x) => F.percent(x)) }],
      series: [{ label: 'GPUs' }, { label: 'tokens/s', stroke: '#1971c2', width: 2, value: (u, v) => F.count(v) }, { label: 'efficiency', scale: 'eff', stroke: '#d9480f', width: 2, value: (u, v) => F.percent(v) }]
    }, [sc.map((p) => p.gpus), sc.map((p) => p.tokens_per_second), sc.map((p) => p.efficiency)],
    dataTable(['GPUs', 'tokens/s', 'efficiency', 'MFU'], sc.map((p) => [F.count(p.gpus), F.count(p.tokens_per_second), F.percent(p.efficiency), F.percent(p.mfu)])));
  }

  function show(el, res, r) {
    const t = r.training;
    res.appendChild(kvTable('Run', t, [['days', 'Days'], ['seconds', 'Wall-clock time'], ['gpu_hours', 'GPU-hours'], ['cost_usd', 'Cost'],
      ['energy_kwh', 'Energy'], ['co2_kg', 'CO2'], ['flops', 'Model FLOPs'], ['flops_6nd', '6·N·D'], ['mfu', 'MFU (' + t.mfu_source + ')'], ['hfu', 'HFU'],
      ['tokens_per_second', 'Throughput'], ['achieved_flops_per_second_per_gpu', 'Achieved per GPU'], ['step_seconds', 'Step time'], ['fits', 'Fits in memory']], r.explain, 'training'));
    const u = t.uncertainty;
    if (u.seconds_high > 0) res.appendChild(h('p', { class: 'band', 'data-key': 'training.uncertainty' },
      'Expected range: ' + F.duration(u.seconds_low) + ' – ' + F.duration(u.seconds_high) + ', ' + F.usd(u.cost_usd_low) + ' – ' + F.usd(u.cost_usd_high) +
      (t.mfu_source === 'given' ? ' (MFU given: no model uncertainty)' : ' (from the hold-out validation error, docs/VALIDATION.md)')));
    const m = t.memory_per_gpu_bytes;
    res.appendChild(bar('Memory per GPU', [['weights', m.weights], ['gradients', m.gradients], ['optimizer', m.optimizer], ['activations', m.activations], ['overhead', m.overhead]],
      t.memory_capacity_bytes, F.bytes));
    const sb = t.step_breakdown_seconds;
    res.appendChild(bar('Step time breakdown', [['GEMM', sb.gemm], ['attention', sb.attention], ['memory-bound', sb.memory_bound], ['TP comm', sb.tp_comm],
      ['PP comm', sb.pp_comm], ['EP all-to-all', sb.ep_comm], ['PP bubble', sb.pp_bubble], ['DP comm (exposed)', sb.dp_comm], ['optimizer', sb.optimizer]], 0, F.duration));
    if (r.scaling && r.scaling.length > 1) scaling(el, res, r.scaling);
    const w = warnings(r.warnings);
    if (w) res.appendChild(w);
  }

  return { build, show };
})();
