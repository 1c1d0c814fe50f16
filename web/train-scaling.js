// Train's scaling curve: tokens/s and efficiency against the GPU count, the run's own count marked;
// with an MFU given, the core levels the model's curve to it (report.scaling_level) and the note
// says by how much. Part of the page bundle (scripts/bundle.mjs).
const TrainScaling = (function () {
  const { h, dataTable } = Dom;
  const SCALING_NOTE =
    'Efficiency is tokens/s per GPU against the fewest GPUs that hold the model, at the same global batch and layout (more GPUs, fewer micro-batches each): ' +
    '100 % while the data-parallel traffic hides behind compute, less once it shows or the pipeline bubble widens. Failures and restarts are in the days, not here.';

  function show(el, res, r) {
    const sc = r.scaling,
      n = r.inputs.hardware.count,
      level = r.scaling_level;
    Charts.chart(
      el,
      res,
      'Scaling: tokens/s and efficiency vs GPU count (same model, batch and layout; from the fewest GPUs that hold it)',
      {
        x: { label: 'GPUs', log: 2, fmt: F.count },
        y: { label: 'tokens/s', zero: true, fmt: F.count },
        y2: { label: 'efficiency', range: [0, 1.05], fmt: F.percent },
        markX: { x: n, label: 'this run' },
        series: [
          { label: 'tokens/s', color: 'c0' },
          { label: 'efficiency', color: 'c2', axis: 'y2' }
        ]
      },
      [sc.map((p) => p.gpus), sc.map((p) => p.tokens_per_second), sc.map((p) => p.efficiency)],
      dataTable(
        ['GPUs', 'tokens/s', 'efficiency', 'MFU'],
        sc.map((p) => [F.count(p.gpus), F.count(p.tokens_per_second), F.percent(p.efficiency), F.percent(p.mfu)]),
        'Scaling data'
      )
    );
    // What the curve holds fixed, so that 100 % reads as a result, not an assumption.
    const given =
      level !== 1 && level !== null
        ? ' Levelled to the MFU given: the model predicts ' +
          F.percent(r.training.mfu / level) +
          ' at ' +
          F.count(n) +
          ' GPUs, so every point is scaled by ' +
          level.toFixed(2) +
          '.'
        : level === null && r.training.mfu_source === 'given'
          ? ' This curve is the model\u2019s own prediction, not levelled to the MFU given (the warnings below say why).'
          : '';
    res.appendChild(h('p', { class: 'muted', 'data-note': 'scaling', text: SCALING_NOTE + given }));
  }

  return { show };
})();
