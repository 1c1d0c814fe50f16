// Section "Fine-tune": can I fine-tune this model on my GPU(s)? Full fine-tuning, LoRA or QLoRA:
// memory per GPU, whether it fits, the biggest batch and sequence that fit, step time, time and cost.
// Part of the page bundle (scripts/bundle.mjs).
const FinetuneSection = (function () {
  const { h, kvTable, bar, warnings } = Dom;

  function build(el, body) {
    body.appendChild(Forms.form(el, 'finetune'));
    body.appendChild(
      h(
        'details',
        { class: 'details', open: !el.hasAttribute('compact') },
        h('summary', { text: 'Details: memory per GPU, time' }),
        h('div', { class: 'results', 'data-results': 'finetune' })
      )
    );
  }

  function answer(el, r) {
    const t = r.finetune;
    const name = r.inputs.hardware.device_name;
    const method = { full: 'Full fine-tuning', lora: 'LoRA', qlora: 'QLoRA' }[r.inputs.finetune.method] || r.inputs.finetune.method;
    const o = { figures: [], notes: [] };
    o.fit = t.fits;
    o.fitText = t.fits
      ? method +
        ' fits on ' +
        (t.devices > 1 ? F.count(t.devices) + ' \u00d7 ' : '') +
        name +
        ': ' +
        F.bytes(t.memory_per_gpu_bytes.total) +
        ' of ' +
        F.bytes(t.memory_capacity_bytes) +
        ' per GPU' +
        ({
          fsdp: ', the weights, gradients and optimizer states sharded over them (FSDP).',
          fsdp_cpu_offload: ', the weights and states held in CPU memory (FSDP offload).'
        }[t.sharding] || '.')
      : method + ' does not fit: ' + Words.humanize(t.infeasible_reason, 'finetune') + '.';
    o.figures.push([
      'Biggest batch',
      t.max_batch === null ? 'unknown' : t.max_batch > 0 ? F.count(t.max_batch) : 'none',
      'sequences of ' + F.count(r.inputs.finetune.seq_len) + ' tokens per GPU',
      'max_batch'
    ]);
    o.figures.push([
      'Longest sequence',
      t.max_seq_len === null ? 'unknown' : t.max_seq_len > 0 ? F.count(t.max_seq_len) + ' tokens' : 'none',
      'at batch 1',
      'max_seq_len'
    ]);
    o.figures.push([
      'Trained',
      t.trainable_params === null ? 'unknown' : F.params(t.trainable_params),
      t.trainable_params === null ? 'LoRA\u2019s size needs the architecture' : 'of ' + F.params(t.params),
      'trainable'
    ]);
    // Full fine-tuning's memory rests on its precision: said, with the switch that changes it.
    if (r.inputs.finetune.method === 'full' && !r.inputs.finetune.master_weights)
      o.notes.push(
        h('p', {
          class: 'note',
          text: 'Full fine-tuning here keeps the weights, gradients and AdamW states in 16 bits with no FP32 master copy (2 + 2 + 4 bytes per parameter, as torchtune\u2019s bf16 recipes do). Mixed precision with an FP32 master copy and FP32 states takes 16 bytes per parameter sharded over several GPUs (18 on one, where autocast keeps 16-bit copies of the weights): \u201cFP32 master weights\u201d under More settings.'
        })
      );
    if (t.fits && t.step_seconds !== null) o.figures.push(['Step time', F.duration(t.step_seconds), F.count(t.tokens_per_second) + ' tokens/s', 'step']);
    if (t.fits && t.seconds !== null)
      o.figures.push(['Time and cost', F.duration(t.seconds), F.usd(t.cost_usd) + ' at ' + F.usd(t.gpu_hour_usd) + ' per GPU-hour', 'time']);
    else if (t.fits) o.lead = 'Give the tokens to train on to see the time and cost.';
    return Card.card('finetune', o);
  }

  function show(el, res, r) {
    const t = r.finetune;
    const price = el._sections.finetune.querySelector('[data-field="gpu_hour_usd"]');
    if (price) price.placeholder = F.hourPlaceholder(r.inputs.costs, t.gpu_hour_usd);
    // The parts alive at the peak (they add up to the total that "fits" is judged on): the loss
    // phase holds the logits, the layers' backward the gradients; both never peak together.
    const m = t.memory_at_peak_bytes;
    res.appendChild(
      bar(
        'Memory per GPU at the peak (' + (m.phase === 'loss' ? 'the loss and its backward' : "the layers' backward") + ')',
        [
          ['weights', m.weights],
          ['master weights', m.master_weights],
          ['gradients', m.gradients],
          ['optimizer', m.optimizer],
          ['activations', m.activations],
          ['logits', m.logits],
          ['output head gradient', m.head_gradient],
          ['FSDP working set', m.fsdp_working],
          ['overhead', m.overhead]
        ],
        t.memory_capacity_bytes,
        F.bytes
      )
    );
    res.appendChild(
      kvTable(
        'Fine-tuning',
        t,
        [
          ['params', 'Parameters'],
          ['trainable_params', 'Trainable parameters'],
          ['memory_per_gpu_bytes.total', 'Memory per GPU'],
          ['peak_active_bytes', 'Peak while running'],
          ['memory_capacity_bytes', 'Usable memory'],
          ['fits', 'Fits'],
          ['max_batch', 'Biggest batch that fits'],
          ['max_seq_len', 'Longest sequence at batch 1'],
          ['flops_per_token', 'FLOPs per token'],
          ['step_seconds', 'Step time'],
          ['tokens_per_second', 'Tokens per second'],
          ['seconds', 'Time'],
          ['gpu_hours', 'GPU-hours'],
          ['cost_usd', 'Cost']
        ],
        el._derivations('finetune'),
        'finetune'
      )
    );
    const w = warnings(r.warnings, 'finetune');
    if (w) res.appendChild(w);
  }

  return { build, answer, show };
})();
