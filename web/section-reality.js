// Section "Reality check": famous runs (our estimate vs the published figure), claims with
// verdicts, and the inverse questions (what can this cluster train; GPUs needed for a deadline).
// Part of the page bundle (scripts/bundle.mjs).
const RealitySection = (function () {
  const { h, kvTable } = Dom;

  function build(el, sec) {
    sec.appendChild(h('h3', { text: 'What can this cluster train, and how many GPUs for a deadline?' }));
    sec.appendChild(Forms.form(el, 'reality'));
    sec.appendChild(h('div', { class: 'results', 'data-results': 'reality' }));
    sec.appendChild(
      h('p', {
        class: 'prose',
        text: 'Published training runs next to our estimate, and claims people repeat, each checked with the same model. \u201cOpen\u201d loads the scenario into its form.'
      })
    );
    sec.appendChild(h('div', { class: 'reality-tables' }));
  }

  function answer(el, r) {
    const a = r.inverse;
    // The days and the count the answer is for (the report's echo: a blank GPUs field is 1, not "—").
    const p = { days: r.inputs.inverse.days, count: r.inputs.hardware.count };
    return Card.card('reality', {
      lead:
        'In ' +
        F.count(p.days) +
        ' days, ' +
        F.count(p.count) +
        ' \u00d7 ' +
        ((el._devices.find((d) => d.id === el._state.reality.device) || {}).name || el._state.reality.device) +
        ' can train:',
      notes: a.networks
        ? [
            h('p', {
              class: 'note',
              text: NetworkView.differ(a)
                ? 'Where the GPUs sit changes the answer; why, in the table below. \u201cMemory bound\u201d is 16 bytes a parameter in 90 % of the memory, before activations, not what trains in the time.'
                : 'On this few GPUs the three places give the same answer (the links between nodes are not used).'
            })
          ]
        : [],
      figures: a.networks
        ? NetworkView.figures(a).concat([
            ['Memory bound', F.params(a.largest_fitting_params), 'training state at 16 bytes a parameter, ZeRO-3, before activations', 'largest']
          ])
        : [
            a.limited_by === 'memory'
              ? [
                  'Trains in the time',
                  a.trainable_params === null ? 'nothing' : F.params(a.trainable_params),
                  a.trainable_params === null
                    ? 'no model fits these GPUs'
                    : 'the largest that fits, on ' +
                      F.count(a.trainable_tokens) +
                      ' tokens; the compute-optimal ' +
                      F.params(a.compute_optimal_params) +
                      ' does not fit',
                  'params'
                ]
              : [
                  'Compute-optimal model',
                  F.params(a.compute_optimal_params),
                  'on ' + F.count(a.compute_optimal_tokens) + ' tokens (20 per parameter)',
                  'params'
                ],
            a.limited_by === 'memory' && a.trainable_params !== null
              ? [
                  'Compute',
                  F.flopCount(6 * a.trainable_params * a.trainable_tokens),
                  'at ' + F.percent(a.trainable_mfu) + ' MFU, the largest model that fits',
                  'compute'
                ]
              : ['Compute', F.flopCount(a.compute_flops), 'at ' + F.percent(a.mfu) + ' MFU, ' + a.mfu_source, 'compute'],
            ['Memory bound', F.params(a.largest_fitting_params), 'training state at 16 bytes a parameter, ZeRO-3, before activations', 'largest']
          ]
    });
  }

  // The case of a claim to open: the one the claim is about (open_case: io.net's GPUs over the
  // internet, not in one data centre), else where the verdict shows (a case that holds, for
  // "depends"); each evaluation carries the scenario it was judged on.
  function claimScenario(c) {
    const ev = c.evaluations || [];
    const pick = (Number.isInteger(c.open_case) ? ev[c.open_case] : null) || (c.verdict === 'depends' ? ev.find((e) => e.consistent) : null) || ev[0];
    return { scenario: JSON.parse(JSON.stringify((pick && pick.scenario) || c.scenario)), pick };
  }

  // A claim case in words: "hardware = {...}, training.local_steps = 100" -> "count 1000, device ...,
  // network internet-1g; Local steps (DiLoCo) 100".
  function caseWords(el, label) {
    return label
      .split(', ')
      .reduce((parts, p) => {
        // A JSON value was split at its commas: join it back.
        if (parts.length && (parts[parts.length - 1].match(/\{/g) || []).length > (parts[parts.length - 1].match(/\}/g) || []).length)
          parts[parts.length - 1] += ', ' + p;
        else parts.push(p);
        return parts;
      }, [])
      .map((p) => {
        const m = /^([a-z_.0-9]+) = (.+)$/.exec(p);
        if (!m) return Words.humanize(p);
        let v = m[2];
        try {
          const o = JSON.parse(v);
          if (o && typeof o === 'object')
            return Object.entries(o)
              .map(([k, x]) => Words.label(m[1] + '.' + k) + ' ' + named(el, x))
              .join(', ');
        } catch (e) {
          /* a plain value */
        }
        // A number in the words of its key ("50 M", "$2.00"), never the core's 50000000.0.
        const x = Number(v);
        if (v.trim() !== '' && Number.isFinite(x)) return Words.label(m[1]) + ' ' + F.byKey(m[1].split('.').pop(), x);
        return Words.label(m[1]) + ' ' + named(el, v);
      })
      .join('; ');
  }
  // A catalog id (device, network) by its name; anything else as it is.
  const named = (el, x) => ((el._devices || []).find((d) => d.id === x) || {}).name || NetworkView.netName(el, x);
  const valueWords = (k, v) => {
    if (k.endsWith('.fits')) return v ? 'fits' : 'does not fit';
    const lab = Words.label(k);
    const val = F.byKey(k.split('.').pop(), v);
    return val.includes(lab) ? val : lab + ' ' + val;
  };

  function openClaim(el, c) {
    const { scenario, pick } = claimScenario(c);
    const shown = pick
      ? Object.keys(pick.values || {})
          .map((k) => valueWords(k, pick.values[k]))
          .join(', ')
      : '';
    const fails = (c.evaluations || []).filter((e) => !e.consistent).map((e) => caseWords(el, e.case));
    const when =
      pick && pick.case !== 'as given'
        ? ' Shown at ' +
          caseWords(el, pick.case) +
          ': ' +
          shown +
          (pick.consistent ? ' (the claim holds here).' : ' (the claim fails here).') +
          (c.verdict === 'depends' && fails.length
            ? ' It fails at ' + fails.slice(0, 2).join(' and at ') + (fails.length > 2 ? ', and ' + F.count(fails.length - 2) + ' more cases' : '') + '.'
            : '')
        : '';
    el.openScenario(scenario, 'Claim \u201c' + c.text + '\u201d: ' + c.verdict + ' \u2014 ' + Words.sentence(Words.humanize(c.reason)) + when);
  }

  function openRun(el, run) {
    const c = (run.comparisons || []).find((x) => x.metric === 'days') || (run.comparisons || [])[0];
    const fig = c
      ? ' Published ' +
        Words.label(c.metric) +
        ': ' +
        F.byKey(c.metric, c.published) +
        '; our estimate ' +
        (c.estimate === null ? '\u2014' : F.byKey(c.metric, c.estimate)) +
        '.'
      : '';
    el.openScenario(run.scenario, 'Famous run: ' + run.name + '.' + fig);
  }

  const pct = (x) => (typeof x === 'number' ? (x >= 0 ? '+' : '') + (x * 100).toFixed(1) + '\u00a0%' : '—');

  function runsTable(el, rep) {
    const runRows = [];
    for (const run of rep.runs) {
      for (const c of run.comparisons) {
        const flag = (c.unofficial ? 'unofficial' : '') + (c.from_assumptions ? (c.unofficial ? ', ' : '') + 'computed from assumptions' : '');
        runRows.push(
          h(
            'tr',
            { 'data-run': run.id },
            h('th', { scope: 'row', text: run.name }),
            h('td', { class: 'metric', text: Words.label(c.metric) }),
            h('td', { 'data-label': 'Published', title: F.exact(c.published) }, F.byKey(c.metric, c.published)),
            h('td', { 'data-label': 'Our estimate', title: F.exact(c.estimate) }, c.estimate === null ? '—' : F.byKey(c.metric, c.estimate)),
            h('td', { class: 'err', 'data-label': 'Error', text: pct(c.error) }),
            h('td', { class: 'note' }, flag ? h('strong', { text: flag + '. ' }) : null, c.note || '', ' ', h('span', { class: 'source', text: c.source })),
            h(
              'td',
              { class: 'open' },
              h('button', { type: 'button', 'aria-label': 'Open ' + run.name, 'data-open-run': run.id, onclick: () => openRun(el, run) }, 'Open')
            )
          )
        );
      }
    }
    return Dom.scroller(
      h(
        'table',
        { class: 'data runs', id: 'famous-runs', tabindex: '-1' },
        h('caption', { text: 'Famous runs: our estimate vs the published figure' }),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            ['Run', 'Figure', 'Published', 'Our estimate', 'Error', 'Notes and source'].map((x) => h('th', { scope: 'col', text: x })),
            h('th', { scope: 'col' }, h('span', { class: 'visually-hidden', text: 'Open' }))
          )
        ),
        h('tbody', null, runRows)
      ),
      'Famous runs'
    );
  }

  // The famous runs and claims (one call to the core, cached on the element).
  function renderTables(el, box) {
    box.textContent = '';
    const rep = el._reality || el._ask('reality', undefined, () => renderTables(el, box));
    if (rep.pending) return box.appendChild(h('p', { class: 'prose', text: 'Computing\u2026' }));
    if (rep.errors) {
      box.appendChild(h('p', { class: 'field-error', text: rep.errors.map((e) => e.message).join(' ') }));
      return;
    }
    el._reality = rep;
    const claimRows = rep.claims.map((c) =>
      h(
        'li',
        { class: 'claim', 'data-claim': c.id },
        h('span', { class: 'verdict ' + c.verdict, text: c.verdict }),
        ' ',
        h('q', { text: c.text }),
        ' — ',
        Words.sentence(Words.humanize(c.reason)),
        ' ',
        h('span', { class: 'prose', text: c.explanation || '' }),
        ' ',
        h('button', { type: 'button', 'aria-label': 'Open the scenario of: ' + c.text, 'data-open-claim': c.id, onclick: () => openClaim(el, c) }, 'Open')
      )
    );
    // The claims first: they answer "is this claim right?" in a few lines; the famous runs follow.
    box.appendChild(h('h3', { id: 'claims-checked', tabindex: '-1', text: 'Claims checked' }));
    box.appendChild(h('ul', { class: 'claims' }, claimRows));
    box.appendChild(runsTable(el, rep));
    box.appendChild(
      h('p', { class: 'prose', text: 'Assumptions behind each estimate: ' + rep.runs.map((r) => Words.sentence(r.name + ': ' + r.assumptions)).join(' ') })
    );
  }

  function show(el, res, r) {
    const a = r.inverse;
    res.appendChild(
      kvTable(
        'What this cluster can train',
        a,
        [
          ['compute_flops', 'Compute budget'],
          ['mfu', 'MFU, ' + a.mfu_source],
          ['compute_optimal_params', 'Compute-optimal model (parameters)'],
          ['compute_optimal_tokens', 'Compute-optimal tokens'],
          ['largest_fitting_params', 'Largest model whose training state fits (ZeRO-3)'],
          ['trainable_params', a.limited_by === 'memory' ? 'Trains in the time: the largest a layout fits (parameters)' : 'Trains in the time (parameters)'],
          ['trainable_tokens', 'on tokens'],
          ['trainable_mfu', 'at MFU (an estimate of that model reports it)']
        ],
        null,
        'inverse'
      )
    );
    NetworkView.compare(el, res, a);
    res.appendChild(h('p', { class: 'prose', text: Words.humanize(a.formula) + '. ' + a.source + '.' }));
    const g = el._ask('estimate', JSON.stringify(Scenario.gpusNeeded(el._state.reality)), () => el._update('reality'));
    if (g.pending) res.appendChild(h('p', { class: 'prose', text: 'Computing\u2026' }));
    else if (g.errors) res.appendChild(h('p', { class: 'field-error', text: g.errors.map((e) => Words.humanize(e.message, 'reality')).join(' ') }));
    else if (g.inverse.infeasible_reason)
      res.appendChild(
        h('p', {
          class: 'field-error',
          'data-key': 'inverse.infeasible_reason',
          text: 'GPUs needed: none \u2014 ' + Words.humanize(g.inverse.infeasible_reason, 'reality') + '.'
        })
      );
    else
      res.appendChild(
        kvTable(
          'GPUs needed for the model, tokens and deadline',
          g.inverse,
          [
            ['gpus', 'GPUs'],
            ['mfu', 'Predicted MFU'],
            ['seconds_at_gpus', 'Time at that count'],
            ['gpu_hours', 'GPU-hours'],
            ['cost_usd', 'Cost']
          ],
          null,
          'inverse'
        )
      );
  }

  return { build, answer, renderTables, show, claimScenario };
})();
