// Section "Serve": can I run this model on these GPUs, how fast for each user, how many GPUs for the
// traffic and at what cost. Batch left blank serves at the largest batch that fits (maximum
// throughput); latency targets search the fewest GPUs that meet them; speculative decoding,
// separate prefill/decode GPUs, GGUF formats and CPU offload are in the form. Page bundle: scripts/bundle.mjs.
const ServeSection = (function () {
  const { h, kvTable, bar, dataTable, warnings } = Dom;
  const locale = Scenario.locale;

  function build(el, body) {
    body.appendChild(Forms.form(el, 'serve'));
    body.appendChild(
      h(
        'details',
        { class: 'details', open: !el.hasAttribute('compact') },
        h('summary', { text: 'Details: memory, decode step, costs, batch curve' }),
        h('div', { class: 'results', 'data-results': 'serve' })
      )
    );
  }
  const tok = (x) => F.count(x) + ' tok/s';
  // Writes a configuration of the latency-target search into the form.
  function useCandidate(el, c) {
    const s = el._state.serve;
    s.weights = c.weight_precision;
    s.kv_precision = c.kv_precision;
    s.tp = Parse.text(c.tp, locale());
    s.batch = Parse.text(c.batch, locale()); // the latency targets stay: the configuration is checked against them
    Forms.sync(el, 'serve');
    el._update('serve');
    el._focusAnswer('serve');
  }

  // The batch a speed is at: "at the largest batch" (max throughput) or "at batch 200" (as typed).
  const atBatchText = (t) => (t.batch_source === 'max_throughput' ? 'at the largest batch' : 'at batch ' + F.count(t.batch));

  function answer(el, r) {
    const t = r.inference;
    ServeNotes.chosenTp(el, t);
    const name = r.inputs.hardware.device_name;
    const o = { figures: [], notes: [] };
    o.fit = t.fits;
    const per = t.instance_gpus > 1 ? F.count(t.instance_gpus) + ' \u00d7 ' + name : name;
    o.fitText = t.fits
      ? 'Runs on ' + per + ': ' + F.bytes(t.memory_per_gpu_bytes) + ' of ' + F.bytes(t.memory_capacity_bytes) + ' per GPU in use.'
      : 'Does not fit: ' + Words.humanize(t.infeasible_reason, 'serve') + '.';
    if (!t.fits) return Card.card('serve', ServeNotes.wouldFit(el, r, o));
    // It runs, but the GPUs given fall short of the traffic, or the context is longer than the
    // model's: said in the headline, not only below it.
    const shortfall = ServeNotes.shortfall(r) + ServeNotes.beyondContext(t);
    if (shortfall) {
      o.fit = 'short';
      o.fitText += shortfall;
    }
    // With traffic, the speed a user sees at its peak on the GPUs given (the load's batch, Little's
    // law); the largest batch's speed is what a full copy gives.
    const a = t.at_traffic;
    const atBatch = atBatchText(t);
    o.figures.push(...ServeNotes.oneUser(t, a));
    if (a)
      o.figures.push([
        'Speed per user',
        tok(a.output_tokens_per_second_per_user),
        'at the traffic\u2019s peak (' + F.counted(a.batch, 'sequence') + ' per copy); ' + tok(t.output_tokens_per_second_per_user) + ' ' + atBatch,
        'speed'
      ]);
    else
      o.figures.push([
        'Speed per user',
        tok(t.output_tokens_per_second_per_user),
        F.duration(t.tpot_seconds) + ' per output token' + (o.fit === 'short' ? ServeNotes.busy(atBatch) : ' ' + atBatch) + ServeNotes.alone(t),
        'speed'
      ]);
    o.figures.push([
      'First token',
      F.duration(a ? a.ttft_seconds : t.ttft_seconds),
      a ? 'per user at the peak, on these GPUs' : ServeNotes.perDay(r) > 0 ? ServeNotes.ttftWords(r) : 'on an idle copy',
      'ttft'
    ]);
    o.figures.push([
      'Batch',
      F.count(t.batch),
      t.batch_source === 'max_throughput'
        ? 'the most that fit (max throughput: the cheapest per token, the slowest per user; type a batch or latency targets for faster answers)'
        : 'as given; at most ' + F.count(t.max_batch) + ' fit',
      'batch'
    ]);
    o.figures.push([
      'Throughput',
      tok(t.throughput_tokens_per_second_per_gpu) + ' per GPU',
      F.count(t.requests_per_second_per_instance) + ' requests/s per copy',
      'throughput'
    ]);
    if (t.gpus_needed !== null) o.figures.push(['GPUs for the traffic', F.count(t.gpus_needed), ServeNotes.trafficWords(r), 'gpus']);
    const given = ServeNotes.gpusGiven(r) || ServeNotes.capacity(r);
    if (given) o.notes.push(given);
    if (t.cost_per_day_usd !== null) o.figures.push(['Cost per day', F.usd(t.cost_per_day_usd), ServeNotes.costWords(r), 'cost']);
    else if (t.cost_per_million_output_tokens_usd !== null)
      o.figures.push([
        'Cost',
        F.usd(t.cost_per_million_output_tokens_usd),
        'per million output tokens, ' + F.usd(t.cost_per_million_input_tokens_usd) + ' per million input',
        'cost'
      ]);
    if (t.speculative)
      o.figures.push([
        'Speculative decoding',
        t.speculative.speedup < 1 ? F.ratio(1 / t.speculative.speedup) + ' slower' : F.ratio(t.speculative.speedup) + ' faster',
        F.count(t.speculative.tokens_per_step) + ' tokens per step; the decode step, against none ' + atBatchText(t),
        'speculative'
      ]);
    if (t.host_weights_bytes > 0)
      o.notes.push(
        h('p', {
          class: 'muted',
          text: F.bytes(t.host_weights_bytes) + ' of the weights are read from CPU memory for every token: that, not the GPU, sets the speed.'
        })
      );
    if (t.disaggregation)
      o.notes.push(
        h('p', {
          class: 'muted',
          text:
            'Prefill on ' +
            F.count(t.disaggregation.prefill_instances) +
            ' copies, decode on ' +
            F.count(t.disaggregation.decode_instances) +
            '; moving one request\u2019s KV cache takes ' +
            F.duration(t.disaggregation.kv_transfer_seconds) +
            '.'
        })
      );
    const slo = ServeNotes.slo(t.slo, (c) => useCandidate(el, c), r.inputs.inference);
    if (slo) {
      o.notes.push(slo.note);
      if (slo.action) o.actions = [slo.action];
    }
    return Card.card('serve', o);
  }

  // The served speeds at each batch as the answer counts them (the other requests' prefills
  // included), so the curve passes through the answer's batch; the decode step alone in the table.
  function batchChart(el, res, t) {
    const c = t.batch_curve;
    if (!c || c.length < 2) return;
    // The batch where decode turns compute-bound can lie beyond what fits in memory: said, not implied.
    const beyond = t.max_batch > 0 && t.turn_batch > t.max_batch ? ', more than the ' + F.count(t.max_batch) + ' that fit' : '';
    Charts.chart(
      el,
      res,
      'Tokens/s vs batch, prefills included (compute-bound from batch ' + F.count(t.turn_batch) + beyond + ')',
      {
        markX:
          t.turn_batch > 0
            ? {
                x: t.turn_batch,
                label: 'compute-bound from ' + F.count(t.turn_batch) + (beyond ? ' (does not fit)' : ''),
                short: F.count(t.turn_batch) + (beyond ? ': does not fit' : '')
              }
            : null,
        x: { label: 'batch', log: 2, fmt: F.count },
        y: { label: 'tokens/s', log: 10, fmt: F.count },
        series: [
          { label: 'per GPU', color: 'c1' },
          { label: 'per user', color: 'c3' }
        ]
      },
      [c.map((p) => p.batch), c.map((p) => p.throughput_tokens_per_second_per_gpu), c.map((p) => p.output_tokens_per_second_per_user)],
      dataTable(
        ['batch', 'tok/s per GPU', 'tok/s per user', 'per user, decode step alone', 'bound', 'fits'],
        c.map((p) => [
          F.count(p.batch),
          F.count(p.throughput_tokens_per_second_per_gpu),
          F.count(p.output_tokens_per_second_per_user),
          F.count(p.tokens_per_second_per_user),
          p.bound,
          p.fits ? 'yes' : 'no'
        ]),
        'Batch curve data'
      )
    );
  }

  function show(el, res, r) {
    const t = r.inference;
    const price = el._sections.serve.querySelector('[data-field="gpu_hour_usd"]');
    if (price) price.placeholder = F.hourPlaceholder(r.inputs.costs, t.gpu_hour_usd);
    const batch = el._sections.serve.querySelector('[data-field="batch"]');
    if (batch) batch.placeholder = t.batch_source === 'max_throughput' ? 'max: ' + F.count(t.batch) : 'max throughput';
    for (const k of ['prompt_tokens', 'output_tokens']) F.defaultPlaceholder(el._sections.serve, k, r.inputs.inference[k]);
    res.appendChild(
      kvTable(
        'Serving',
        t,
        [
          ['params', 'Parameters'],
          ['weights_bytes', 'Weights'],
          ['speculative.draft_weights_bytes', 'Draft model weights (speculative decoding; the copy\u2019s GPUs together)'],
          ['kv_cache_bytes_per_token', 'KV cache per token'],
          ['kv_cache_bytes', 'KV cache (batch, full context)'],
          ['speculative.draft_kv_cache_bytes_per_gpu', "Draft model's KV cache per GPU (in the KV cache)"],
          ['max_batch', 'Most sequences that fit'],
          ['instance_gpus', 'GPUs per copy'],
          ['ttft_seconds', 'Time to first token (per user; with traffic, at its peak on the GPUs it needs)'],
          ['prefill_seconds', 'Prefill on an idle copy'],
          ['prefill_tokens_per_second_per_gpu', 'Prompt tokens per GPU per second (copies only prefilling, at full load)'],
          ['tpot_seconds', 'Time per output token (' + atBatchText(t) + ')'],
          ['decode_bound', 'Decode is'],
          ['turn_batch', 'Batch where GEMMs turn compute-bound'],
          ['output_tokens_per_second_per_user', 'Speed per user (' + atBatchText(t) + ')'],
          ['throughput_tokens_per_second_per_gpu', 'Output throughput per GPU'],
          ['request_seconds', 'One request, start to end'],
          ['replicas', 'Copies the GPUs can hold'],
          ['cluster_throughput_tokens_per_second', 'Output throughput of those copies'],
          ['concurrent_sequences', 'Users answered at once (every copy full)'],
          ...(t.implied_requests_per_day !== null ? [['implied_requests_per_day', 'Requests a day the requests in flight make']] : []),
          ['gpus_needed', 'GPUs for the traffic'],
          ['cost_per_day_usd', 'Cost per day'],
          ['energy_per_day_kwh', 'Energy per day'],
          ['cost_per_million_output_tokens_usd', '$ per million output tokens'],
          ['cost_per_million_input_tokens_usd', '$ per million input tokens'],
          ['fits', 'Fits']
        ],
        el._derivations('serve'),
        'inference'
      )
    );
    const cap = t.memory_capacity_bytes;
    res.appendChild(
      bar(
        'Memory per GPU',
        [
          ['weights', t.weights_bytes_per_gpu],
          ['KV cache', t.kv_cache_bytes_per_gpu],
          ['overhead', t.overhead_bytes_per_gpu]
        ],
        cap,
        F.bytes
      )
    );
    const d = t.decode_breakdown_seconds;
    if (t.fits && d)
      res.append(
        bar(
          t.speculative ? 'One decode step of the target model alone (the draft: below)' : 'One decode step',
          [
            ['weights', d.weights],
            ['dequantisation', d.dequantization],
            ['CPU offload', d.host_offload],
            ['compute', d.compute],
            ['attention / KV', d.attention],
            ['kernel launches', d.kernel_overhead],
            ['per-sequence work', d.sequence_overhead],
            ['TP comm', d.tp_comm],
            ['EP comm', d.ep_comm]
          ],
          0,
          F.duration
        ),
        ...ServeNotes.afterStep(r)
      );
    if (t.cost_split)
      res.appendChild(
        h('p', {
          class: 'band',
          text:
            'How the cost is split: ' +
            Words.humanize(t.cost_split, 'serve').replace(
              /price_in|price_out|cost_per_day_usd/g,
              (m) => ({ price_in: 'input price', price_out: 'output price', cost_per_day_usd: 'the cost per day' })[m]
            ) +
            '.'
        })
      );
    if (t.slo && t.slo.candidates && t.slo.candidates.length) {
      res.appendChild(
        dataTable(
          ['weights', 'KV cache', 'GPUs per copy', 'batch', 'GPUs', 'first token', 'per token', 'meets the targets'],
          t.slo.candidates.map((c) => [
            c.weight_precision.toUpperCase(),
            c.kv_precision.toUpperCase(),
            F.count(c.tp),
            F.count(c.batch),
            F.count(c.gpus),
            F.duration(c.ttft_seconds),
            F.duration(c.tpot_seconds),
            c.met ? (c.reason ? 'yes (' + Words.humanize(c.reason, 'serve') + ')' : 'yes, fewest GPUs') : 'no: ' + Words.humanize(c.reason, 'serve')
          ]),
          'Latency-target search'
        )
      );
    }
    if (t.fits) batchChart(el, res, t);
    const w = warnings(r.warnings, 'serve');
    if (w) res.appendChild(w);
  }

  return { build, answer, show };
})();
