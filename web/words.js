// Messages for people: the core names fields by their JSON paths ("training.tp must divide ...",
// "set costs.gpu_hour_usd"); the page shows the form's labels instead ("Tensor parallel must divide
// ..."). JSON paths appear only in derivations ("show the work") and the Scenario JSON section.
// Part of the page bundle (scripts/bundle.mjs).
const Words = (function () {
  const PATH = /\b(model|hardware|training|inference|finetune|costs|compare|roofline|inverse|plan|claim)\.[a-z0-9_]+(?:\.[a-z0-9_]+)*/g;
  const EXTRA = {
    'training.dp': 'Data parallel',
    'inverse.budget_usd': 'a budget in $',
    'hardware.count': 'GPUs',
    'inference.batch_limit': 'the engine\u2019s batch limit',
    'inference.slo': 'the latency targets',
    'training.layout': 'Layout',
    'model.heads': 'the model\u2019s attention heads',
    'model.kv_heads': 'the model\u2019s key/value heads',
    'model.experts': 'the model\u2019s experts',
    'model.layers': 'the model\u2019s layers',
    // The report figures the famous runs compare.
    days: 'Days',
    seconds: 'Time',
    flops: 'Model FLOPs',
    flops_6nd: 'FLOPs (6\u00b7N\u00b7D)',
    energy_kwh: 'Energy',
    co2_kg: 'CO2',
    cost_usd: 'Cost',
    gpu_hours: 'GPU-hours',
    mfu: 'MFU',
    tokens_per_second: 'Throughput',
    step_seconds: 'Step time',
    achieved_flops_per_second_per_gpu: 'Achieved per GPU'
  };

  // The label of a scenario path: the section's own field first, then any section's, then words.
  function label(path, sec) {
    const own = sec && Fields.bySpecPath(sec, path);
    if (own) return own.label;
    if (EXTRA[path]) return EXTRA[path];
    for (const s of Object.keys(Fields.SPECS)) {
      const sp = Fields.bySpecPath(s, path);
      if (sp) return sp.label;
    }
    // A key without a label in words: its unit suffix goes (the value shows it): cost_per_day_usd -> "cost per day".
    return path
      .split('.')
      .pop()
      .replace(/_(usd|seconds|bytes|kwh|kg|watts)$/, '')
      .replace(/_/g, ' ');
  }

  // 1e+12 -> 1,000,000,000,000; beyond 10^18 the exponent stays (1e308, not 309 digits).
  function bigNumber(m) {
    const x = Number(m);
    return Number.isFinite(x) && Math.abs(x) < 1e18 ? F.en(x) : m.replace('e+', 'e');
  }

  // A core message (error, warning, infeasible reason) in the page's words.
  function humanize(text, sec) {
    if (typeof text !== 'string') return '';
    return (
      text
        .replace(/\s*\(run `gpucalc [^`]*`\)/g, '')
        .replace(/^(cluster|training|inference|finetune): /, '')
        .replace(/^does not fit: /, '')
        .replace(/\b(\d{4,}(?:\.\d+)?|\d+\.\d{2,})(?= GiB)/g, (m) => {
          const x = Number(m);
          return x >= 1000 ? F.exact(Math.round(x)) : x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
        })
        // The Scenario JSON section keeps the paths its reader typed ("training.overlap_moe_com", not
        // "overlap moe com"); the forms show their labels.
        .replace(PATH, (p) => (sec === 'json' ? p : label(p, sec)))
        .replace(/ >= /g, ' at least ')
        .replace(/ <= /g, ' at most ')
        .replace(/, got /g, ', not ')
        .replace(/\b\d(?:\.\d+)?e\+\d+\b/g, bigNumber)
        .replace(/\((\d{4,})\)/g, (m, n) => '(' + bigNumber(n) + ')')
        .replace(/ x /g, ' \u00d7 ')
    );
  }

  // Text ended as a sentence: one full stop, not a second after one already there.
  function sentence(text) {
    return /[.!?]$/.test(text) ? text : text + '.';
  }

  return { label, humanize, sentence };
})();
