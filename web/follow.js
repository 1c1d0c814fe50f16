// Fields that follow other fields until the reader types them: the Plan search follows the run
// typed in Train (all of it but the layout). (Serve's "GPUs per copy" left blank is chosen by the
// core, inference.tp omitted.) Part of the page bundle (scripts/bundle.mjs).
const Follow = (function () {
  // The search follows the Train section (the run a reader sized there) until the reader changes one
  // of the Plan form's fields (state plan.own, kept in links and storage like the fields): model,
  // GPUs and batch are copied into the Plan form from Train's (a batch left blank in Train is left
  // blank here too: both searches then choose it by the same rule); the rest of Train's run comes in
  // trainRun. Returns whether it follows.
  function planFromTrain(el) {
    const p = el._state.plan;
    const t = el._state.train;
    if (p.own === '1' || !t || !t.model) return false;
    const custom = t.model === 'custom-params';
    Object.assign(p, {
      model: t.model,
      params: custom ? t.params || '' : '',
      active_params: custom ? t.active_params || '' : '',
      device: t.device,
      count: t.count,
      global_batch: t.global_batch || ''
    });
    Forms.sync(el, 'plan');
    return true;
  }

  // The layout fields the search chooses (core/src/layout.cpp kLayoutFields) and what rests on them.
  const SEARCHED = [
    'tp',
    'pp',
    'dp',
    'cp',
    'ep',
    'expert_tp',
    'vpp',
    'micro_batch',
    'zero',
    'recompute',
    'sequence_parallel',
    'overlap_dp_comm',
    'global_batch',
    'layout',
    'mfu'
  ];

  // The Train section's run without its layout (none when Train's form cannot be read, or is a
  // fleet): everything else it says (precision, framework, sequence, network, DualPipe, the settings
  // of an opened scenario) is what the followed search evaluates, so the plan it finds runs as found.
  function trainRun(el) {
    const b = Scenario.build.train(el._state.train, el._state);
    if (b.problems.length || !b.scenario.hardware || b.scenario.hardware.pools) return null;
    const sc = JSON.parse(JSON.stringify(b.scenario));
    for (const k of SEARCHED) delete sc.training[k];
    delete sc.scaling;
    return sc;
  }

  // The Plan section's scenario: its form's, or, when it follows Train, Train's run with the Plan
  // form's batch (said in the line under the form).
  function planScenario(el) {
    const run = planFromTrain(el) ? trainRun(el) : null;
    el._planFollowing = Boolean(run);
    const note = el._sections.plan.querySelector('[data-plan-follow]');
    if (note)
      note.replaceChildren(
        run
          ? 'Searching the Train section\u2019s run (its model, GPUs, batch, precision, sequence length, network and other settings). Change a field here to search another.'
          : 'Searching the setup in these fields (the Train section\u2019s settings are not used). ',
        run
          ? ''
          : Dom.h(
              'button',
              {
                type: 'button',
                'data-action': 'follow-train',
                onclick: () => {
                  el._state.plan.own = '';
                  PlanSection.start(el);
                }
              },
              'Search the Train run again'
            )
      );
    const built = Scenario.build.plan(el._state.plan);
    if (run) {
      run.training.global_batch = (built.scenario.training || {}).global_batch;
      built.scenario = run;
    }
    return built;
  }

  // A change in the Train section: a search that follows it runs again once the reader pauses.
  function trainChanged(el) {
    if (!el._planFollowing) return;
    clearTimeout(el._planTimer);
    el._planTimer = setTimeout(() => {
      if (el._planFollowing) PlanSection.start(el);
    }, 400);
  }

  // A reader's change in a form. Plan: its setup becomes the reader's own (no longer Train's).
  // (Serve's "GPUs per copy" left blank is chosen by the core: inference.tp omitted.)
  function formChanged(el, sec) {
    if (sec === 'plan') el._state.plan.own = '1';
  }

  return { planScenario, trainChanged, formChanged, planFromTrain };
})();
