// Derivations on demand: explain(scenario, key) gives the derivations that estimate() puts under
// "explain" with "explain": true, natively and in wasm byte for byte, for one figure or all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { wasm, fixtures, cli } from './common.mjs';

test("explain(scenario, key) matches the report's derivations, natively and in wasm", async () => {
  const m = await wasm();
  let keys = 0;
  for (const f of fixtures().filter((x) => !x.name.startsWith('invalid'))) {
    const sc = JSON.parse(f.text);
    if (sc.inverse || sc.claim) continue;
    const off = JSON.stringify({ ...sc, explain: false });
    const report = JSON.parse(m.estimate(JSON.stringify({ ...sc, explain: true })));
    assert.equal(JSON.parse(m.estimate(off)).explain, undefined, f.name);
    const all = m.explain(off, '');
    assert.deepEqual(JSON.parse(all).explain, report.explain, f.name);
    assert.deepEqual(JSON.parse(all), JSON.parse(execFileSync(cli, ['explain', '-'], { input: off }).toString()), f.name);
    for (const key of Object.keys(report.explain).slice(0, 5)) {
      const one = JSON.parse(m.explain(off, key));
      assert.deepEqual(one.explain, { [key]: report.explain[key] }, `${f.name} ${key}`);
      keys++;
    }
    assert.deepEqual(JSON.parse(m.explain(off, 'no.such.figure')).explain, {});
  }
  assert.ok(keys > 40, `only ${keys} derivations checked`);
  const bad = JSON.parse(m.explain('{"hardware": {"device": "nope"}}', ''));
  assert.equal(bad.errors[0].code, 'unknown_device');
  assert.equal(JSON.parse(m.explain('{'.repeat(100), '')).errors[0].code, 'too_deep');
});
