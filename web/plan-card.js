// The Plan search's answer card: how many layouts fit and the fastest, with its step time, MFU (and
// the band), memory and "Use the fastest plan"; a note when the model is a bare parameter count.
// Part of the page bundle (scripts/bundle.mjs).
const PlanCard = (function () {
  const { h } = Dom;

  // The plan's MFU band: its high end stops where the plan's hardware FLOP/s (HFU: recomputation
  // counted) reach the device's matmul ceiling (plan.band.mfu_ceiling: the fastest matmul measured
  // on it, MAMF), as a training estimate's band does.
  function mfuRange(b, band) {
    const mfu = b.mfu,
      top = mfu * band.high;
    const most = band.mfu_ceiling !== null && band.mfu_ceiling !== undefined && b.hfu > 0 ? (band.mfu_ceiling * mfu) / b.hfu : null;
    const capped = most !== null && top > most;
    return (
      F.percent(mfu * band.low) +
      ' \u2013 ' +
      F.percent(capped ? Math.max(mfu, most) : top) +
      (band.widened > 1 ? ' (' + Card.bandHolds(band.widened) + ')' : ' holds 9 in 10 published runs') +
      (capped ? ' (the top: the fastest matmul measured on this GPU)' : '')
    );
  }

  function answer(el, acc) {
    const b = acc.best[0];
    if (!b)
      return Card.card('plan', {
        fit: false,
        fitText:
          'No layout fits: ' +
          F.count(acc.oom) +
          ' are out of memory' +
          (acc.least ? ' (the leanest needs ' + F.bytes(acc.least) + ' per GPU: more GPUs, or a smaller model)' : '') +
          ', ' +
          F.count(acc.indivisible) +
          ' do not divide evenly.'
      });
    return Card.card('plan', {
      fit: true,
      fitText: F.count(acc.feasible) + ' of ' + F.count(acc.considered) + ' layouts fit; the fastest:',
      lead: Card.layoutText(Object.assign({}, b, { cp: b.training && b.training.cp, ep: b.training && b.training.ep })) + '.',
      figures: [
        ['Step time', F.duration(b.step_seconds), F.count(b.tokens_per_second) + ' tokens/s', 'step'],
        ['MFU', F.percent(b.mfu), acc.band ? 'predicted; ' + mfuRange(b, acc.band) : 'predicted', 'mfu'],
        ['Memory per GPU', F.bytes(b.memory_per_gpu_bytes), 'worst pipeline stage', 'memory']
      ],
      // A model given by its parameter count: the shape the search laid out (as Train times it).
      notes: [
        acc.shape &&
          h('p', {
            class: 'note',
            'data-note': 'shape',
            text:
              'A parameter count is laid out as a GPT-like shape: ' +
              F.exact(acc.shape.layers) +
              ' layers, hidden ' +
              F.exact(acc.shape.hidden) +
              ', as Train times it.'
          })
      ],
      actions: [h('button', { type: 'button', class: 'primary', 'data-action': 'use-plan', onclick: () => el.usePlan(b) }, 'Use the fastest plan')]
    });
  }

  return { answer };
})();
