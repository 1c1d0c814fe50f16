// The page's forms and scenarios (web/fields.js, scenario.js, state.js, words.js) without a browser:
// every fixture and every famous run maps to a form and back to the same scenario, links hold only
// what differs from the defaults and come back whole, messages lose their JSON paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createContext, runInContext } from 'node:vm';
import { root, cli, nativeEstimates, pageFormat } from './common.mjs';

// The modules in one context, in the bundle's order (no DOM needed by these).
const ctx = createContext({ TextEncoder, TextDecoder, btoa, atob, Intl, navigator: { language: 'en-US' }, console, F: pageFormat });
for (const f of ['guard.js', 'parse.js', 'fields.js', 'words.js', 'state.js', 'scenario.js'])
  runInContext(readFileSync(join(root, 'web', f), 'utf8'), ctx, { filename: 'web/' + f });
const [State, Scenario, Words] = ['State', 'Scenario', 'Words'].map((n) => runInContext(n, ctx));
const plain = (x) => JSON.parse(JSON.stringify(x));
const SHAPE = ['name', 'description', 'explain', 'scaling'];
const strip = (sc) => {
  const c = plain(sc);
  for (const k of SHAPE) delete c[k];
  return c;
};

test('each section\u2019s default form builds a scenario that maps back to the same form values\u2019 scenario', () => {
  for (const sec of ['train', 'serve', 'finetune', 'cluster', 'explain']) {
    const b = Scenario.build[sec](State.DEFAULTS[sec]);
    assert.deepEqual(plain(b.problems), [], sec);
    const mapped = Scenario.toState(b.scenario);
    assert.equal(mapped.section, sec);
    const again = Scenario.build[sec](Object.assign({}, State.DEFAULTS[sec], mapped.state[sec]));
    assert.deepEqual(plain(again.scenario), plain(b.scenario), sec);
  }
});

// Same report from the core (defaults spelled out or left out alike); scaling as the original asks.
function sameReport(original, built, label, part) {
  const b = plain(built);
  for (const k of SHAPE) delete b[k];
  const o = strip(original);
  if (original.scaling !== undefined) {
    b.scaling = original.scaling;
    o.scaling = original.scaling;
  }
  const [ro, rb] = nativeEstimates([JSON.stringify(o), JSON.stringify(b)]).map((x) => JSON.parse(x));
  assert.ok(!ro.errors && !rb.errors, label + ': ' + JSON.stringify(ro.errors || rb.errors));
  assert.deepEqual(part ? rb[part] : rb, part ? ro[part] : ro, label);
}

test('every fixture the forms can hold maps to its form, and the form gives the same report', () => {
  const dir = join(root, 'tests', 'fixtures');
  let mappedCount = 0;
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.json'))) {
    const sc = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    const m = Scenario.toState(sc);
    if (!m) continue;
    mappedCount++;
    const b = Scenario.build[m.section](Object.assign({}, State.DEFAULTS[m.section], m.state[m.section]));
    assert.deepEqual(plain(b.problems), [], f);
    // The explain section always draws a roofline of the compared devices: its comparison is the fixture's.
    sameReport(sc, b.scenario, f, m.section === 'explain' ? 'compare' : null);
  }
  assert.ok(mappedCount >= 10, mappedCount + ' fixtures map to a form');
});

test('every famous run opens in the Train form (none needs the JSON editor), and builds its own scenario', () => {
  const reality = JSON.parse(execFileSync(cli, ['reality']).toString());
  for (const run of reality.runs) {
    const m = Scenario.toState(run.scenario);
    assert.ok(m, run.id + ' maps to a form');
    assert.equal(m.section, 'train', run.id);
    const b = Scenario.build.train(Object.assign({}, State.DEFAULTS.train, m.state.train));
    assert.deepEqual(strip(b.scenario), strip(run.scenario), run.id); // the runs spell out no default
    sameReport(run.scenario, b.scenario, run.id);
  }
  for (const c of reality.claims) assert.ok(Scenario.toState(c.scenario), c.id + ' maps to a form');
});

test('settings a form has no field for travel as "extra" and come back; custom devices and claims go to the JSON editor', () => {
  const sc = {
    model: { preset: 'llama3-70b', dropout: true },
    hardware: { device: 'nvidia-h100-sxm5-80gb', count: 64 },
    training: { tokens: 1e12, optimizer: 'sgd' }
  };
  const m = Scenario.toState(sc);
  assert.equal(m.section, 'train');
  assert.deepEqual(JSON.parse(m.state.train.extra), { model: { dropout: true }, training: { optimizer: 'sgd' } });
  const b = Scenario.build.train(Object.assign({}, State.DEFAULTS.train, m.state.train));
  assert.deepEqual(strip(b.scenario), sc);
  assert.equal(Scenario.toState({ hardware: { device: { base: 'nvidia-h100-sxm5-80gb', memory_bytes: 1e11 } }, training: {} }), null);
  assert.equal(Scenario.toState({ hardware: { device: 'nvidia-h100-sxm5-80gb' }, claim: { checks: [] } }), null);
  assert.equal(Scenario.toState({ training: {}, inference: {} }), null);
});

test('a link holds only what differs from the defaults, and brings back the whole state', () => {
  const st = State.cloneDefaults();
  assert.equal(State.encodeState(st), 's=' + Buffer.from('{}').toString('base64').replace(/=+$/, ''));
  st.serve.batch = '64';
  st.view.section = 'serve';
  st.json.text = '{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":3}}';
  const enc = State.encodeState(st);
  assert.ok(enc.length < 200, enc);
  const back = State.decodeHash('#' + enc);
  assert.deepEqual(plain(back.problems), []);
  assert.deepEqual(plain(back.state), plain(st));
  // Unknown sections and keys, objects and prototype keys are dropped; a bad section name is cleared.
  const hostile = Buffer.from(JSON.stringify({ view: { section: 'evil' }, serve: { batch: { a: 1 }, nope: '1' }, __proto__: { x: 1 } })).toString('base64');
  const h = State.decodeHash('#s=' + hostile.replace(/=+$/, ''));
  assert.equal(h.state.view.section, '');
  assert.equal(h.state.serve.batch, '');
  assert.deepEqual(plain(h.problems), ['Serve (batch)']);
});

test('messages in the form\u2019s words: labels for JSON paths, no CLI hints, "at least", grouped digits', () => {
  assert.equal(
    Words.humanize('hardware.count (1000) must be divisible by training.tp x training.cp x training.pp (64)', 'train'),
    'GPUs (1,000) must be divisible by Tensor parallel \u00d7 Context parallel \u00d7 Pipeline parallel (64)'
  );
  assert.equal(Words.humanize('hardware.count must be >= 1 and at most 1e+08, got -5', 'cluster'), 'Count must be at least 1 and at most 100,000,000, not -5');
  assert.equal(Words.humanize('model.preset: unknown model preset "x" (run `gpucalc presets`)', 'serve'), 'Model: unknown model preset "x"');
  assert.equal(Words.humanize('training: no $/GPU-hour: set costs.gpu_hour_usd', 'train'), 'no $/GPU-hour: set Price');
  assert.equal(Words.humanize('does not fit: needs 596.564 GiB per device', 'train'), 'needs 597 GiB per device');
  // Four digits and more are grouped, decimals or not (a page review read "needs 49608.5 GiB" and "1251 GiB").
  assert.equal(Words.humanize('does not fit: needs 49608.5 GiB per device', 'serve'), 'needs 49,609 GiB per device');
  assert.equal(Words.humanize('the weights alone need 1251 GiB per device', 'serve'), 'the weights alone need 1,251 GiB per device');
  // Beyond 10^18 the exponent stays: 1e308, not 309 digits.
  assert.equal(Words.humanize('training.mfu must be greater than 0 and at most 1, got 1e+308', 'train'), 'MFU must be greater than 0 and at most 1, not 1e308');
  // A key with no label loses its unit suffix (the value shows the unit).
  assert.equal(Words.label('inference.cost_per_day_usd'), 'cost per day');
  // The Scenario JSON section keeps the paths its reader typed (page review, 2026-12-05: "overlap moe com").
  assert.equal(
    Words.humanize('training.overlap_moe_com is not a known field (did you mean training.overlap_moe_comm?)', 'json'),
    'training.overlap_moe_com is not a known field (did you mean training.overlap_moe_comm?)'
  );
});
