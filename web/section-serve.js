// Section "Serve": serving a model (memory, latency, throughput, cost per token, GPUs for the
// traffic) and the tokens/s vs batch chart. Part of the page bundle (scripts/bundle.mjs).
const ServeSection = (function () {
  const { h, kvTable, bar, dataTable, warnings } = Dom;

  function build(el, sec) {
    const f = Forms.fieldsOf(el, 'serve');
    const wp = ['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4'].map((p) => [p, p.toUpperCase()]);
    sec.appendChild(Forms.form('serve', [
      f('model', 'Model', { options: Forms.modelOptions(el, false) }),
      f('device', 'Device', { options: Forms.deviceOptions(el, Forms.notCpu) }),
      f('count', 'GPUs available', { unit: 'devices' }),
      f('weight_precision', 'Weights', { options: wp }),
      f('kv_precision', 'KV cache', { options: wp.filter(([p]) => p !== 'int4') }),
      f('batch', 'Batch', { unit: 'sequences' }),
      f('prompt_tokens', 'Prompt', { unit: 'tokens' }),
      f('output_tokens', 'Output', { unit: 'tokens' }),
      f('tp', 'Tensor parallel', { unit: 'GPUs per copy' }),
      f('requests_per_day', 'Traffic', { unit: 'requests/day' }),
      f('peak_to_average', 'Peak / average', { unit: '×' }),
      f('gpu_hour_usd', 'Price', { unit: '$ per GPU-hour' })]));
    sec.appendChild(h('div', { class: 'results', 'data-results': 'serve' }));
  }

  function batchChart(el, res, t) {
    const c = t.batch_curve;
    Charts.chart(el, res, 'Tokens/s vs batch (turn to compute-bound at batch ' + F.count(t.turn_batch) + ')', {
      markX: t.turn_batch > 0 ? { x: t.turn_batch, label: 'compute-bound from batch ' + F.count(t.turn_batch) } : null,
      scales: { x: { distr: 3, log: 2 }, y: { distr: 3, log: 10 } },
      axes: [{ label: 'batch' }, { label: 'tokens/s', size: 70, values: (u, v) => v.map((x) => F.count(x)) }],
      series: [{ label: 'batch' }, { label: 'per GPU', stroke: '#2f9e44', width: 2, value: (u, v) => F.count(v) }, { label: 'per user', stroke: '#9c36b5', width: 2, value: (u, v) => F.count(v) }]
    }, [c.map((p) => p.batch), c.map((p) => p.tokens_per_second_per_gpu), c.map((p) => p.tokens_per_second_per_user)],
    dataTable(['batch', 'tok/s per GPU', 'tok/s per user', 'bound', 'fits'], c.map((p) => [F.count(p.batch), F.count(p.tokens_per_second_per_gpu), F.count(p.tokens_per_second_per_user), p.bound, p.fits ? 'yes' : 'no'])));
  }

  function show(el, res, r) {
    const t = r.inference;
    res.appendChild(kvTable('Serving', t, [['weights_bytes', 'Weights'], ['kv_cache_bytes_per_token', 'KV cache per token'], ['kv_cache_bytes', 'KV cache (batch, full context)'],
      ['max_batch', 'Max batch at this context'], ['instances_per_gpu', 'Copies per GPU'], ['prefill_seconds', 'Time to first token'], ['decode_seconds_per_token', 'Time per output token'],
      ['decode_bound', 'Decode is'], ['turn_batch', 'Batch where GEMMs turn compute-bound'], ['decode_tokens_per_second_per_user', 'Speed per user'],
      ['throughput_tokens_per_second_per_gpu', 'Output throughput per GPU'], ['replicas', 'Copies the GPUs can serve'],
      ['cluster_throughput_tokens_per_second', 'Output throughput of those copies'], ['concurrent_sequences', 'Users answered at once'],
      ['gpus_needed', 'GPUs for the traffic'], ['cost_per_day_usd', 'Cost per day'],
      ['energy_per_day_kwh', 'Energy per day'], ['cost_per_million_output_tokens_usd', '$ per million output tokens'], ['cost_per_million_input_tokens_usd', '$ per million input tokens'],
      ['fits', 'Fits']], r.explain, 'inference'));
    res.appendChild(bar('Memory per GPU', [['weights', t.weights_bytes_per_gpu], ['KV cache', t.kv_cache_bytes_per_gpu], ['overhead', t.overhead_bytes_per_gpu]],
      r.inputs.hardware ? (el._devices.find((d) => d.id === r.inputs.hardware.device) || {}).memory_bytes : 0, F.bytes));
    batchChart(el, res, t);
    const w = warnings(r.warnings);
    if (w) res.appendChild(w);
  }

  return { build, show };
})();
