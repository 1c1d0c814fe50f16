// The headline answer that opens each section: does it fit (✔/✘, said in words too), the few
// figures people came for (days, cost, range; speed per user, GPUs; ...), and what to do next.
// Details and tables follow below it, folded. Part of the page bundle (scripts/bundle.mjs).
const Card = (function () {
  const { h } = Dom;

  // o: { fit: true|false|'short'|undefined, fitText, lead (text or node), figures: [[label, value, sub, key]],
  //      notes: [nodes], actions: [nodes] } ('short': it runs, but the GPUs given fall short of the question)
  const FIT = { true: ['yes', '\u2714'], false: ['no', '\u2718'], short: ['short', '\u26a0'] };
  function card(sec, o) {
    const c = h('div', { class: 'answer', 'data-answer': sec });
    if (Object.hasOwn(FIT, o.fit)) {
      const [state, mark] = FIT[o.fit];
      c.appendChild(h('p', { class: 'fit ' + state, 'data-fit': state }, h('span', { class: 'mark', 'aria-hidden': 'true', text: mark }), ' ', o.fitText));
    }
    if (o.lead) c.appendChild(h('p', { class: 'lead' }, o.lead));
    const figs = (o.figures || []).filter(Boolean);
    if (figs.length) {
      c.appendChild(
        h(
          'dl',
          { class: 'figures' },
          figs.map(([label, value, sub, key]) =>
            h(
              'div',
              { class: 'figure', 'data-figure': key || label },
              h('dt', { text: label }),
              h('dd', null, h('span', { class: 'big', text: value }), sub ? h('span', { class: 'sub', text: sub }) : null)
            )
          )
        )
      );
    }
    for (const n of o.notes || []) if (n) c.appendChild(n);
    if (o.actions && o.actions.length) c.appendChild(h('div', { class: 'actions' }, o.actions));
    return c;
  }

  // No answer while a field cannot be read or the core refuses the scenario: the reasons, never a
  // stale figure beside them.
  function blocked(sec, count, marked) {
    // The fields named when every problem sits at one ("GPUs needs fixing"), else counted.
    const named = marked && marked.length && marked.all ? marked.join(', ').replace(/, ([^,]*)$/, ' and $1') : '';
    return h(
      'div',
      { class: 'answer blocked', 'data-answer': sec },
      h(
        'p',
        { class: 'fit no', 'data-fit': 'error' },
        h('span', { class: 'mark', 'aria-hidden': 'true', text: '!' }),
        ' ',
        'No answer yet: ' +
          (named ? named + (marked.length === 1 ? ' needs' : ' need') : count === 1 ? 'one field needs' : count + ' fields need') +
          ' fixing (marked below).'
      )
    );
  }

  function waiting(sec, text) {
    return h('div', { class: 'answer waiting', 'data-answer': sec }, h('p', { class: 'lead', text }));
  }

  // "TP 8 · PP 4 · DP 32 · micro-batch 1 · ZeRO 1 · recompute selective": a layout in words.
  function layoutText(t) {
    if (!t) return '';
    const parts = [
      ['TP', t.tp],
      ['PP', t.pp],
      ['DP', t.dp],
      ['CP', t.cp],
      ['EP', t.ep],
      ['VPP', t.vpp],
      ['micro-batch', t.micro_batch],
      ['ZeRO', t.zero],
      ['recompute', t.recompute],
      ['sequence parallel', t.sequence_parallel === undefined ? undefined : t.sequence_parallel ? 'on' : 'off'],
      ['global batch', t.global_batch]
    ];
    return parts
      .filter(([k, v]) => v !== undefined && v !== null && !((k === 'CP' || k === 'EP' || k === 'VPP') && v === 1))
      .map(([k, v]) => k + ' ' + (typeof v === 'number' ? F.en(Math.round(v)) : v)) // degrees exactly: DP 25,000, not 25.0 k
      .join(' \u00b7 ');
  }

  // What a band holds: 9 in 10 published runs, or, widened for an extrapolation (more devices, sites,
  // a longer sequence... than any published run: training.uncertainty.widened > 1), no published run.
  function bandHolds(widened) {
    return widened > 1 ? 'widened ' + F.ratio(widened) + ': beyond the published runs' : '9 in 10 published runs';
  }

  return { card, blocked, waiting, layoutText, bandHolds };
})();
