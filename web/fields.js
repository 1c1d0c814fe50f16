// The form fields of every section, in one table: the form state key, the scenario path it fills,
// how its text is read (Parse kinds), its label, unit and group. The forms are built from it
// (forms.js), scenarios are built from it and mapped back to it (scenario.js), the defaults come
// from it (state.js), and messages name fields by its labels instead of JSON paths (words.js).
// Part of the page bundle (scripts/bundle.mjs).
const Fields = (function () {
  // options: a list of [value, text], or the name of a catalog list ('devices', 'gpus', 'presets',
  // 'presets+custom'). A select's '' option means "the core's default"; 'on'/'off' are booleans.
  const AUTO = (what) => [['', what || 'auto']];
  const ONOFF = (dflt) =>
    AUTO(dflt).concat([
      ['on', 'on'],
      ['off', 'off']
    ]);
  const PRECISIONS = ['bf16', 'fp16', 'fp8', 'tf32', 'fp32'].map((p) => [p, p.toUpperCase()]);
  const MOE_DISPATCH = AUTO('auto (all-to-all)').concat([
    ['alltoall', 'all-to-all: a copy per routed expert'],
    ['deepep', 'DeepEP / HybridEP: once per node']
  ]);
  // LoRA's own fields: for LoRA and QLoRA only ('' is the core's default method, LoRA).
  const LORA = ['method', ['lora', 'qlora', '']];
  const SERVE_WEIGHTS = [['', 'As released']]
    .concat(['fp32', 'bf16', 'fp16', 'fp8', 'int8', 'int4', 'fp4'].map((p) => [p, p.toUpperCase()]))
    .concat(['q8_0', 'q6_k', 'q5_k_m', 'q4_k_m', 'q4_0'].map((q) => ['gguf:' + q, 'GGUF ' + q.toUpperCase()]));

  // key, path, kind ('select' for choices), label, extra: { unit, options, value (the form's default),
  // placeholder, group, auto (the text of a catalog list's blank choice), custom (only for a custom model),
  // only ([key, values]: shown and sent only while that field of the form holds one of the values), dflt (a select's value when a scenario leaves
  // the field out: the core's default), keep (a scenario that leaves it out keeps the form's default),
  // scale (the field's unit in SI: GB/s -> B/s), number (a select whose values are numbers) }
  const f = (key, path, kind, label, extra) => Object.assign({ key, path, kind, label, value: '' }, extra || {});
  // Where the devices are (Train and Cluster share these rows; a fresh copy each).
  const NETWORK = () => [
    f('network', 'hardware.network', 'select', 'Between nodes', { options: 'networks', auto: 'the GPU\u2019s own (catalog)', group: 'network' }),
    f('sites', 'hardware.sites', 'count', 'Sites', { unit: 'data centres of equal size', placeholder: '1', group: 'network' }),
    f('wan', 'hardware.wan', 'select', 'Between sites', { options: 'wans', auto: 'internet 1 Gb/s when sites > 1', group: 'network' })
  ];
  // A model given by its parameter count (the model select's 'custom-params'): Train and Plan search.
  const CUSTOM_MODEL = () => [
    f('params', 'model.params', 'count', 'Parameters', { unit: 'total', placeholder: 'e.g. 70B', custom: true }),
    f('active_params', 'model.active_params', 'count', 'Active parameters', { unit: 'per token (MoE)', placeholder: 'all', custom: true })
  ];
  const SPECS = {
    train: [
      f('model', 'model.preset', 'select', 'Model', { options: 'presets+custom', value: 'llama3-70b' }),
      ...CUSTOM_MODEL(),
      f('device', 'hardware.device', 'select', 'GPU', { options: 'gpus', value: 'nvidia-h100-sxm5-80gb' }),
      f('count', 'hardware.count', 'count', 'GPUs', { unit: 'devices', value: '1024', placeholder: '1' }),
      f('tokens', 'training.tokens', 'count', 'Training tokens', { unit: 'tokens', value: '15T' }),
      f('gpu_hour_usd', 'costs.gpu_hour_usd', 'usd', 'Price', { unit: '$ per GPU-hour', placeholder: 'catalog price' }),
      f('mfu', 'training.mfu', 'fraction', 'MFU', { unit: '0–1 or %', placeholder: 'predicted' }),
      f('precision', 'training.precision', 'select', 'Precision', { options: PRECISIONS, value: 'bf16', dflt: 'bf16' }),
      f('tp', 'training.tp', 'count', 'Tensor parallel', { unit: 'GPUs', placeholder: 'auto', group: 'layout' }),
      f('pp', 'training.pp', 'count', 'Pipeline parallel', { unit: 'stages', placeholder: 'auto', group: 'layout' }),
      f('dp', 'training.dp', 'count', 'Data parallel', { unit: 'copies', placeholder: 'auto', group: 'layout' }),
      f('cp', 'training.cp', 'count', 'Context parallel', { unit: 'GPUs per sequence', placeholder: 'auto', group: 'layout' }),
      f('ep', 'training.ep', 'count', 'Expert parallel', { unit: 'GPUs, MoE', placeholder: 'auto', group: 'layout' }),
      // How MoE tokens reach experts on other nodes, and the schedules that hide the all-to-all (page
      // review, 2026-12-05: reachable only through the Scenario JSON before).
      f('moe_dispatcher', 'training.moe_dispatcher', 'select', 'Expert dispatch (MoE)', { options: MOE_DISPATCH, group: 'layout' }),
      f('overlap_moe_comm', 'training.overlap_moe_comm', 'select', 'Hide the all-to-all (1F1B overlap)', { options: ONOFF('auto (off)'), group: 'layout' }),
      f('dualpipe', 'training.dualpipe', 'select', 'DualPipe schedule (DeepSeek-V3)', { options: ONOFF('auto (off)'), group: 'layout' }),
      f('vpp', 'training.vpp', 'count', 'Interleaving', { unit: 'chunks per GPU', placeholder: 'auto', group: 'layout' }),
      f('micro_batch', 'training.micro_batch', 'count', 'Micro-batch', { unit: 'sequences', placeholder: 'auto', group: 'layout' }),
      f('global_batch', 'training.global_batch', 'count', 'Global batch', { unit: 'sequences', placeholder: 'auto', group: 'layout' }),
      f('zero', 'training.zero', 'select', 'ZeRO stage', {
        options: AUTO().concat([
          ['0', '0'],
          ['1', '1'],
          ['2', '2'],
          ['3', '3 / FSDP']
        ]),
        number: true,
        group: 'layout'
      }),
      f('recompute', 'training.recompute', 'select', 'Recomputation', {
        options: AUTO().concat([
          ['none', 'none'],
          ['selective', 'selective'],
          ['full', 'full']
        ]),
        group: 'layout'
      }),
      f('sequence_parallel', 'training.sequence_parallel', 'select', 'Sequence parallel', { options: ONOFF(), group: 'layout' }),
      f('layout', 'training.layout', 'select', 'Layout', {
        options: [
          ['', 'search when TP, PP and DP are blank'],
          ['auto', 'search every blank field'],
          ['given', 'as given (blanks: defaults)']
        ],
        group: 'layout'
      }),
      f('framework', 'training.framework', 'select', 'Framework', {
        options: AUTO('default (Megatron; MaxText on TPUs)').concat([
          ['megatron', 'Megatron-LM / NeMo'],
          ['fsdp', 'PyTorch FSDP'],
          ['torchtitan', 'torchtitan'],
          ['llm-foundry', 'LLM Foundry'],
          ['deepspeed', 'DeepSpeed'],
          ['maxtext', 'MaxText (JAX)'],
          ['megatron-legacy', 'Megatron 2020–22'],
          ['nemo', 'NeMo']
        ]),
        group: 'more'
      }),
      f('seq_len', 'model.seq_len', 'count', 'Sequence length', { unit: 'tokens', placeholder: 'the model\u2019s', group: 'more' }),
      f('goodput', 'training.goodput', 'fraction', 'Goodput', { unit: '0–1 or %', placeholder: 'from failure rates', group: 'more' }),
      f('attention', 'training.attention', 'select', 'Attention kernel', {
        options: AUTO('flash (default)').concat([
          ['flash', 'flash'],
          ['materialized', 'materialised scores']
        ]),
        group: 'more'
      }),
      f('overlap_dp_comm', 'training.overlap_dp_comm', 'select', 'Overlap gradient reduction', { options: ONOFF('auto (on)'), group: 'more' }),
      f('pue', 'costs.pue', 'number', 'PUE', { unit: 'facility / IT power', placeholder: '1.2', group: 'more' }),
      ...NETWORK(),
      f('local_steps', 'training.local_steps', 'count', 'Local steps (DiLoCo)', {
        unit: 'steps between exchanges',
        placeholder: '1 = synchronous',
        group: 'network'
      }),
      f('outer_precision', 'training.outer_precision', 'select', 'Values exchanged as', {
        options: AUTO('auto (fp32; gradients when synchronous)').concat([
          ['bf16', 'BF16'],
          ['int8', 'INT8 (INTELLECT-1)'],
          ['int4', 'INT4'],
          ['fp4', 'FP4 (Streaming DiLoCo)']
        ]),
        group: 'network'
      })
    ],
    serve: [
      f('model', 'model.preset', 'select', 'Model', { options: 'presets', value: 'llama3-70b' }),
      f('device', 'hardware.device', 'select', 'GPU', { options: 'gpus', value: 'nvidia-h100-sxm5-80gb' }),
      f('count', 'hardware.count', 'count', 'GPUs available', { unit: 'devices', value: '8', placeholder: '1' }),
      f('weights', 'inference.weight_precision', 'select', 'Weights', { options: SERVE_WEIGHTS, value: '', dflt: '' }),
      f('kv_precision', 'inference.kv_precision', 'select', 'KV cache', {
        options: [
          ['bf16', 'BF16'],
          ['fp16', 'FP16'],
          ['fp8', 'FP8'],
          ['int8', 'INT8'],
          ['fp32', 'FP32']
        ],
        value: 'bf16',
        dflt: 'bf16'
      }),
      f('tp', 'inference.tp', 'count', 'GPUs per copy', { unit: 'tensor parallel', placeholder: 'auto' }),
      f('batch', 'inference.batch', 'count', 'Batch', { unit: 'sequences', placeholder: 'max throughput' }),
      f('prompt_tokens', 'inference.prompt_tokens', 'count', 'Prompt', { unit: 'tokens', value: '1000' }),
      f('output_tokens', 'inference.output_tokens', 'count', 'Output', { unit: 'tokens', value: '300' }),
      f('concurrent_requests', 'inference.concurrent_requests', 'count', 'In flight at once', {
        unit: 'requests at the peak',
        placeholder: 'instead of Traffic'
      }),
      f('requests_per_day', 'inference.requests_per_day', 'count', 'Traffic', {
        unit: 'requests per day',
        value: '1M',
        only: ['concurrent_requests', ['', '0']]
      }),
      f('peak_to_average', 'inference.peak_to_average', 'number', 'Peak / average', { unit: '×', placeholder: '2' }),
      f('gpu_hour_usd', 'costs.gpu_hour_usd', 'usd', 'Price', { unit: '$ per GPU-hour', placeholder: 'catalog price' }),
      f('ttft', 'inference.slo.ttft_seconds', 'seconds', 'Time to first token at most', { unit: 's or ms', group: 'slo' }),
      f('tpot', 'inference.slo.tpot_seconds', 'seconds', 'Time per output token at most', { unit: 's or ms', group: 'slo' }),
      f('draft_model', 'inference.speculative.draft_model.preset', 'select', 'Draft model', { options: 'presets', none: 'none', group: 'more' }),
      f('draft_params', 'inference.speculative.draft_params', 'count', 'Draft params', { unit: 'per token', placeholder: 'its own', group: 'more' }),
      f('draft_tokens', 'inference.speculative.draft_tokens', 'count', 'Draft tokens', { unit: 'per step', placeholder: '4', group: 'more' }),
      f('acceptance_rate', 'inference.speculative.acceptance_rate', 'fraction', 'Acceptance rate', { unit: '0–1 or %', placeholder: '70 %', group: 'more' }),
      f('disaggregated', 'inference.disaggregated', 'select', 'Prefill and decode', {
        options: [
          ['', 'on the same GPUs'],
          ['on', 'on separate GPUs']
        ],
        group: 'more'
      }),
      f('prefix_cache_hit_rate', 'inference.prefix_cache_hit_rate', 'fraction', 'Prefix cache hits', {
        unit: 'share of input',
        placeholder: '0 %',
        group: 'more'
      }),
      f('ep', 'inference.ep', 'count', 'Expert parallel', { unit: 'GPUs, MoE', placeholder: '1', group: 'more' }),
      f('gpu_layers', 'inference.gpu_layers', 'count', 'Layers on the GPU', { unit: 'rest from CPU memory', placeholder: 'all', group: 'more' }),
      f('host_bandwidth', 'inference.host_memory_bandwidth_bytes_per_second', 'number', 'CPU memory bandwidth', {
        unit: 'GB/s',
        placeholder: '89.6',
        scale: 1e9,
        group: 'more'
      })
    ],
    finetune: [
      f('model', 'model.preset', 'select', 'Model', { options: 'presets', value: 'llama3-8b' }),
      f('device', 'hardware.device', 'select', 'GPU', { options: 'gpus', value: 'nvidia-rtx-4090' }),
      f('count', 'hardware.count', 'count', 'GPUs', { unit: 'devices', value: '1', placeholder: '1' }),
      f('method', 'finetune.method', 'select', 'Method', {
        options: [
          ['qlora', 'QLoRA (4-bit base)'],
          ['lora', 'LoRA (16-bit base)'],
          ['full', 'full fine-tuning']
        ],
        value: 'qlora',
        dflt: 'lora'
      }),
      f('lora_rank', 'finetune.lora_rank', 'count', 'LoRA rank', { placeholder: '8', only: LORA }),
      f('lora_modules', 'finetune.lora_modules', 'select', 'Adapted layers', {
        only: LORA,
        options: [
          ['', 'q and v'],
          ['qkv', 'q, k and v'],
          ['attention', 'all attention'],
          ['qvo_mlp', 'q, v, o and the MLP'],
          ['all_linear', 'every linear layer']
        ],
        value: 'all_linear'
      }),
      f('batch', 'finetune.batch', 'count', 'Batch', { unit: 'sequences per GPU', placeholder: '2' }),
      f('seq_len', 'finetune.seq_len', 'count', 'Sequence length', { unit: 'tokens', placeholder: '2,048' }),
      f('tokens', 'finetune.tokens', 'count', 'Tokens to train on', { unit: 'tokens', value: '50M' }),
      f('gpu_hour_usd', 'costs.gpu_hour_usd', 'usd', 'Price', { unit: '$ per GPU-hour', placeholder: 'catalog price' }),
      f('optimizer', 'finetune.optimizer', 'select', 'Optimizer', {
        options: AUTO('AdamW (default)').concat([
          ['adamw_8bit', 'AdamW 8-bit'],
          ['paged_adamw_8bit', 'paged AdamW 8-bit'],
          ['sgd', 'SGD']
        ]),
        group: 'more'
      }),
      f('gradient_checkpointing', 'finetune.gradient_checkpointing', 'select', 'Activation checkpointing', { options: ONOFF('on (default)'), group: 'more' }),
      f('master_weights', 'finetune.master_weights', 'select', 'FP32 master weights', { options: ONOFF('off (default)'), group: 'more' }),
      f('optimizer_in_backward', 'finetune.optimizer_in_backward', 'select', 'Optimizer in backward', { options: ONOFF('off (default)'), group: 'more' }),
      f('activation_offload', 'finetune.activation_offload', 'select', 'Activations in CPU memory', { options: ONOFF('off (default)'), group: 'more' }),
      f('cpu_offload', 'finetune.cpu_offload', 'select', 'FSDP CPU offload', { options: ONOFF('off (default)'), group: 'more' })
    ],
    cluster: [
      f('device', 'hardware.device', 'select', 'Device', { options: 'devices', value: 'nvidia-h100-sxm5-80gb' }),
      f('count', 'hardware.count', 'count', 'Count', { unit: 'devices', value: '1000', placeholder: '1' }),
      ...NETWORK()
    ],
    plan: [
      f('model', 'model.preset', 'select', 'Model', { options: 'presets+custom', value: 'gpt3-175b' }),
      ...CUSTOM_MODEL(),
      f('device', 'hardware.device', 'select', 'GPU', { options: 'gpus', value: 'nvidia-a100-sxm4-80gb' }),
      f('count', 'hardware.count', 'count', 'GPUs', { unit: 'devices', value: '1024', placeholder: '1' }),
      f('global_batch', 'training.global_batch', 'count', 'Global batch', { unit: 'sequences', placeholder: 'auto' })
    ],
    explain: [
      f('a', 'compare.a', 'select', 'Device A', { options: 'devices', value: 'nvidia-h100-sxm5-80gb' }),
      f('b', 'compare.b', 'select', 'Device B', { options: 'devices', value: 'amd-epyc-9654' }),
      f('precision', 'compare.precision', 'select', 'Precision', {
        options: ['fp64', 'fp32', 'tf32', 'bf16', 'fp16', 'fp8', 'int8'].map((p) => [p, p.toUpperCase()]),
        value: 'bf16',
        dflt: 'bf16'
      }),
      f('matmul_n', 'roofline.matmul_n', 'count', 'Matrix multiply N', { unit: 'N×N×N', value: '8192', keep: true }),
      f('model', 'roofline.model.preset', 'select', 'Model (forward pass)', { options: 'presets', value: 'llama2-7b', keep: true })
    ],
    reality: [
      f('device', 'hardware.device', 'select', 'GPU', { options: 'gpus', value: 'nvidia-h100-sxm5-80gb' }),
      f('count', 'hardware.count', 'count', 'GPUs', { unit: 'devices', value: '1000' }),
      f('days', 'inverse.days', 'number', 'Days available', { unit: 'days', value: '30' }),
      // The second question's fields say so first ("GPUs needed: deadline (days)", not
      // "Deadline (GPUs needed) (days)"); its model and tokens as Train's defaults.
      f('model', 'model.preset', 'select', 'GPUs needed: model', { options: 'presets', value: 'llama3-70b' }),
      f('tokens', 'training.tokens', 'count', 'GPUs needed: tokens', { unit: 'tokens', value: '15T' }),
      f('deadline', 'inverse.deadline', 'number', 'GPUs needed: deadline', { unit: 'days', value: '30' }),
      f('compare_networks', 'inverse.compare_networks', 'select', 'Where the GPUs are', {
        options: [
          ['on', 'compare all 3'],
          ['off', 'one data centre']
        ],
        value: 'on',
        dflt: 'off'
      })
    ]
  };
  const GROUPS = {
    layout: 'Parallel layout (blank fields: chosen by the plan search)',
    slo: 'Latency targets: the fewest GPUs that meet them',
    network: 'Network: one data centre, several sites, or the internet (decentralized)',
    more: 'More settings'
  };

  function specs(sec) {
    return SPECS[sec] || [];
  }
  function spec(sec, key) {
    return specs(sec).find((s) => s.key === key);
  }
  function bySpecPath(sec, path) {
    return specs(sec).find((s) => s.path === path);
  }
  // Whether a field applies to the form's state: a custom model's fields, and those `only` names.
  function applies(sp, state) {
    if (sp.custom && state.model !== 'custom-params') return false;
    return !sp.only || sp.only[1].includes(state[sp.only[0]] === undefined ? '' : String(state[sp.only[0]]));
  }

  return { SPECS, GROUPS, specs, spec, bySpecPath, applies };
})();
