// Notes under the Serve answer and its form: whether the GPUs given carry the traffic, the GPUs per
// copy the core chose, and the latency-target search's outcome with its one-click configuration.
// Part of the page bundle (scripts/bundle.mjs).
const ServeNotes = (function () {
  const { h } = Dom;
  const gpus = (n) => F.count(n) + (n === 1 ? ' GPU' : ' GPUs');

  // Whether the GPUs given fall short of what the traffic needs (null without traffic).
  function short(r) {
    const have = r.inputs.hardware.count;
    return r.inference.gpus_needed === null || !(have > 0) ? null : have < r.inference.gpus_needed;
  }

  // The headline's sentence when they fall short ('' otherwise).
  function shortfall(r) {
    const have = r.inputs.hardware.count;
    if (!short(r)) return '';
    return ' The ' + gpus(have) + ' given ' + (have === 1 ? 'is' : 'are') + ' not enough for the traffic: ' + F.count(r.inference.gpus_needed) + ' are needed.';
  }

  // A prompt and output longer than the model's context: said in the headline (the core's warning
  // is at the foot of the section), '' otherwise.
  function beyondContext(t) {
    if (t.context_limit_tokens === null || !(t.context_tokens > t.context_limit_tokens)) return '';
    return (
      ' The prompt and output (' +
      F.count(t.context_tokens) +
      ' tokens) are longer than the model\u2019s context (' +
      F.count(t.context_limit_tokens) +
      '): it was not trained for them.'
    );
  }

  // The GPUs given against the traffic: enough (with the users answered at once at the peak), or
  // what they serve of the peak (null without traffic).
  function gpusGiven(r) {
    const t = r.inference;
    const have = r.inputs.hardware.count;
    const falls = short(r);
    if (falls === null) return null;
    const enough = !falls;
    const peak = (perDay(r) * r.inputs.inference.peak_to_average) / 86400;
    const served = t.replicas * t.requests_per_second_per_instance;
    return h('p', {
      class: enough ? 'muted' : 'suggestion',
      'data-gpus-given': enough ? 'enough' : 'short',
      text: enough
        ? 'The ' +
          gpus(have) +
          ' given ' +
          (have === 1 ? 'is' : 'are') +
          ' enough for this traffic (' +
          F.count(t.gpus_needed) +
          ' needed)' +
          (t.at_traffic ? ': at the peak they answer about ' + F.count(Math.round(t.at_traffic.concurrent_sequences)) + ' users at once.' : '.')
        : 'The ' +
          gpus(have) +
          ' given ' +
          (have === 1 ? 'is' : 'are') +
          ' not enough: ' +
          F.count(t.replicas) +
          (t.replicas === 1 ? ' copy serves ' : ' copies serve ') +
          F.count(served) +
          ' requests/s against a peak of ' +
          F.count(peak) +
          '; ' +
          gpus(t.gpus_needed) +
          (t.gpus_needed === 1 ? ' is needed.' : ' are needed.')
    });
  }

  // "GPUs per copy" left blank: the core chose it (inference.tp_source); said beside the field. With
  // expert parallelism a copy is tp x ep GPUs: said too.
  function chosenTp(el, t) {
    const out = el._sections.serve.querySelector('#serve-tp-parsed');
    if (!out) return;
    if (t.tp_source === 'chosen') out.textContent = '= ' + gpus(t.tp) + ', chosen for the model (type a number to set your own)';
    out.textContent = out.textContent.replace(/; \u00d7 .*$/, '');
    if (t.instance_gpus > t.tp && out.textContent)
      out.textContent += '; \u00d7 ' + F.count(t.instance_gpus / t.tp) + ' for the experts = ' + gpus(t.instance_gpus) + ' per copy';
  }

  // The latency-target search: { note, action } (action: use the configuration found), or null.
  // `given`: the scenario's inference inputs (a precision the search lowered is said as such).
  function slo(result, use, given) {
    if (!result) return null;
    const c = result.chosen;
    if (!(result.met && c))
      return {
        note: h('p', {
          class: 'suggestion',
          'data-slo': 'missed',
          text: 'No configuration tried meets the latency targets; the closest are in the details below.'
        })
      };
    return {
      note: h(
        'p',
        { class: 'suggestion', 'data-slo': 'met' },
        h('strong', { text: 'The latency targets are met with ' + gpus(c.gpus) + ': ' }),
        precisionText('weights', c.weight_precision, given && given.weight_precision) +
          ', ' +
          precisionText('KV cache', c.kv_precision, given && given.kv_precision) +
          ', ' +
          F.count(c.tp) +
          ' GPU' +
          (c.tp > 1 ? 's' : '') +
          ' per copy, batch ' +
          F.count(c.batch) +
          ' (first token ' +
          F.duration(c.ttft_seconds) +
          ', ' +
          F.duration(c.tpot_seconds) +
          ' per token).'
      ),
      action: h('button', { type: 'button', class: 'primary', 'data-action': 'use-slo', onclick: () => use(c) }, 'Use this configuration')
    };
  }

  // "weights FP8 (quantized: you set BF16)" when the search chose a lower precision than the one set.
  function precisionText(what, chosen, set) {
    const text = what + ' ' + chosen.toUpperCase();
    return set && set !== chosen ? text + ' (quantized: you set ' + set.toUpperCase() + ')' : text;
  }

  // The traffic sized, in requests a day: given, or implied by the requests in flight (Little's law).
  const perDay = (r) => (r.inference.implied_requests_per_day !== null ? r.inference.implied_requests_per_day : r.inputs.inference.requests_per_day);
  // What the GPUs are sized for, in words.
  function trafficWords(r) {
    const c = r.inputs.inference.concurrent_requests;
    if (c > 0)
      return (
        F.count(c) +
        ' requests in flight at the peak: ' +
        F.count(perDay(r)) +
        ' a day if the peak is ' +
        F.ratio(r.inputs.inference.peak_to_average) +
        ' the average'
      );
    return F.count(r.inputs.inference.requests_per_day) + ' requests a day, peak ' + F.ratio(r.inputs.inference.peak_to_average);
  }

  // What a decode step costs with the draft: the bar above it is the target's plain step.
  function draftStep(r) {
    const t = r.inference,
      s = t.speculative;
    const g = r.inputs.inference.speculative.draft_tokens;
    return h('p', {
      class: 'muted',
      text:
        'With the draft model, each verification runs ' +
        F.count(g) +
        ' draft steps of ' +
        F.duration(s.draft_step_seconds) +
        ' and one verify step of ' +
        F.duration(s.verify_step_seconds) +
        ' for ' +
        F.count(s.tokens_per_step) +
        ' tokens on average: ' +
        F.duration(t.decode_seconds_per_token) +
        ' per token, against ' +
        F.duration(t.decode_seconds_per_token * s.speedup) +
        ' for the step above.'
    });
  }

  // Under the decode-step bar: the draft's steps, and how the step becomes the time per output token
  // a user sees (the new requests' prefills run between decode steps): the parts of the bar add up
  // to the step, not to the headline (a newcomer added them up: 59 ms against 148).
  function afterStep(r) {
    const t = r.inference,
      out = [];
    if (t.speculative) out.push(draftStep(r));
    const step = t.decode_seconds_per_token,
      tpot = t.tpot_seconds;
    if (step > 0 && tpot > step * 1.005)
      out.push(
        h('p', {
          class: 'muted',
          text:
            'A user waits ' +
            F.duration(tpot) +
            ' per output token at batch ' +
            F.count(t.batch) +
            ': ' +
            F.duration(step) +
            ' of decoding and ' +
            F.duration(tpot - step) +
            ' of the new requests\u2019 prefills, which run between decode steps.'
        })
      );
    return out;
  }

  // The first token's words with traffic: its queueing is at the peak on the GPUs the traffic needs
  // (the core sizes the copies for it), which the headline must say when fewer are given.
  function ttftWords(r) {
    return short(r)
      ? 'per user on the ' + gpus(r.inference.gpus_needed) + ' the traffic needs, queueing at the peak included'
      : 'per user, queueing at the peak included';
  }

  // The cost per day's words: per million output tokens, and whose GPUs it pays for when the traffic
  // needs more than are given.
  function costWords(r) {
    const t = r.inference;
    return (
      F.usd(t.cost_per_million_output_tokens_usd) + ' per million output tokens' + (short(r) ? '; for the ' + gpus(t.gpus_needed) + ' the traffic needs' : '')
    );
  }

  // The speed's words when every copy is busy and the traffic still outruns them.
  const busy = (atBatch) => ', every copy busy (' + atBatch + '): the traffic is more than these GPUs serve';

  // Beside a speed at a large batch, what one user alone gets (the batch curve's batch 1): a newcomer
  // read 2.66 tok/s at the largest batch as "unusable" for a model that answers one user at ~34.
  function alone(t) {
    const one = (t.batch_curve || []).find((p) => p.batch === 1 && p.fits);
    // (At the largest batch it is a figure of its own: oneUser.)
    return t.batch > 1 && one && t.batch_source !== 'max_throughput' ? '; ' + F.count(one.output_tokens_per_second_per_user) + ' tok/s for one user alone' : '';
  }

  // Without traffic and at the largest batch, the speed one user gets alone comes first ("can I run it,
  // how fast?"; a reviewer read 2.66 tok/s at batch 74 as the speed of Llama 3 70B on 8 RTX 4090):
  // [] or the one figure.
  function oneUser(t, atTraffic) {
    const one = (t.batch_curve || []).find((p) => p.batch === 1 && p.fits);
    if (atTraffic || t.batch_source !== 'max_throughput' || !(t.batch > 1) || !one) return [];
    return [
      [
        'Speed, one user',
        F.count(one.output_tokens_per_second_per_user) + ' tok/s',
        'a copy serving only them; fully loaded, each user gets the next figure',
        'speed-one'
      ]
    ];
  }

  // Without traffic, what the GPUs given serve: their copies, and the requests they carry at full
  // load (a newcomer's review: "what can 1,000 H100s serve?" had only per-copy figures).
  function capacity(r) {
    const t = r.inference;
    const have = r.inputs.hardware.count;
    if (t.gpus_needed !== null || !(t.replicas >= 1) || !(t.requests_per_second_per_instance > 0)) return null;
    const rps = t.replicas * t.requests_per_second_per_instance;
    return h('p', {
      class: 'muted',
      'data-capacity': '',
      text:
        'The ' +
        gpus(have) +
        ' given run ' +
        F.count(t.replicas) +
        (t.replicas === 1 ? ' copy' : ' copies') +
        ': about ' +
        F.count(rps) +
        ' requests/s at full load, ' +
        F.count(rps * 86400) +
        ' a day (give Traffic for the GPUs a load needs, with room for its peak).'
    });
  }

  // A copy that does not fit: the GPUs per copy the core found it fits on, one click to use them (and
  // as many GPUs available, if fewer were given).
  function wouldFit(el, r, o) {
    const n = r.inference.fits_with_tp;
    if (!(n > 1)) return o;
    const use = () => {
      const [s, lang] = [el._state.serve, Scenario.locale()];
      const copy = n * (r.inputs.inference.ep || 1) * (r.inputs.inference.disaggregated ? 2 : 1); // devices of one copy
      s.tp = Parse.text(n, lang);
      if (!(r.inputs.hardware.count >= copy)) s.count = Parse.text(copy, lang);
      Forms.sync(el, 'serve');
      el._update('serve');
      el._focusAnswer('serve');
    };
    o.actions = [h('button', { type: 'button', class: 'primary', 'data-action': 'use-tp', onclick: use }, 'Use ' + gpus(n) + ' per copy')];
    return o;
  }

  return {
    gpusGiven,
    shortfall,
    beyondContext,
    chosenTp,
    slo,
    perDay,
    trafficWords,
    draftStep,
    afterStep,
    alone,
    busy,
    ttftWords,
    costWords,
    capacity,
    wouldFit,
    oneUser
  };
})();
