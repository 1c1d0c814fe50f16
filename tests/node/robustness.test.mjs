// The WebAssembly module under hostile input: deep nesting under every key, nested claims, huge
// strings. Every call returns JSON (an error report), never throws, and a valid scenario answers
// byte-identically before and after, natively and in wasm. Echoed inputs parse back to the same report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { wasm, nativeEstimates, rng, root } from './common.mjs';

const nest = (open, close, n, inner = '1') => open.repeat(n) + inner + close.repeat(n);

function hostileInputs() {
  const out = [];
  for (const key of ['claim', 'inverse', 'model', 'hardware', 'training', 'inference', 'plan', 'compare', 'roofline']) {
    out.push(`{"${key}": ${nest('[', ']', 20000)}}`);
    out.push(`{"${key}": ${nest('{"a":', '}', 10000)}}`);
  }
  out.push(
    '{"hardware": {"device": "nvidia-t4"}, "claim": ' +
      nest('{"checks": [{"metric": "cluster.devices", "expected": 1}], "vary": {"path": "claim", "values": [', ']}', 40, '{}') +
      '}'
  );
  out.push('{"model": {"preset": "' + 'x'.repeat(500000) + '"}}');
  out.push('{'.repeat(1 << 21));
  out.push(
    '"\\ud800"',
    '[]',
    'null',
    '',
    '{"hardware": {"device": {"peak_flops_per_second": {"bf16": 1e-300}, "memory_bytes": 8e10, "memory_bandwidth_bytes_per_second": 3e12}}}'
  );
  const dir = join(root, 'tests', 'fuzz', 'regressions');
  for (const f of readdirSync(dir)) out.push(readFileSync(join(dir, f), 'utf8'));
  return out;
}

test('hostile inputs give JSON answers from every entry point, and a valid scenario answers identically afterwards', async () => {
  const m = await wasm();
  const good = JSON.stringify({ model: { preset: 'llama2-7b' }, hardware: { device: 'nvidia-h100-sxm5-80gb', count: 8 }, training: { tokens: 1e12, tp: 1 } });
  const before = m.estimate(good);
  assert.equal(before, nativeEstimates([good])[0]);
  for (let round = 0; round < 3; round++) {
    for (const h of hostileInputs()) {
      for (const fn of ['estimate', 'plan']) {
        let out;
        assert.doesNotThrow(
          () => {
            out = m[fn](h);
          },
          `${fn} threw on ${h.slice(0, 60)}`
        );
        assert.equal(typeof JSON.parse(out), 'object');
      }
    }
  }
  assert.equal(m.estimate(good), before);
  const deep = JSON.parse(m.estimate(`{"claim": ${nest('[', ']', 20000)}}`));
  assert.equal(deep.errors[0].code, 'too_deep');
});

test('report.inputs is a valid scenario that gives the identical report (200 random scenarios, wasm)', async () => {
  const m = await wasm();
  const r = rng(7);
  const pick = (a) => a[Math.floor(r() * a.length)];
  let checked = 0;
  for (let i = 0; i < 200; i++) {
    const device = pick(['nvidia-a100-sxm4-80gb', 'nvidia-h100-sxm5-80gb', 'amd-mi300x', 'nvidia-h200-sxm-141gb']);
    const model = { preset: pick(['llama2-7b', 'llama3-8b', 'mixtral-8x7b', 'gpt3-175b', 'pythia-1b']) };
    const sc = pick([
      { model, hardware: { device, count: pick([8, 16, 64, 256]) }, training: { tokens: 1e11 + Math.floor(r() * 1e12) }, explain: false },
      { model, hardware: { device, count: 8 }, training: { tokens: 1e11, tp: pick([1, 2, 4, 8]), zero: pick([0, 1, 3]) }, explain: false },
      { model, hardware: { device, count: 8 }, inference: { batch: 1 + Math.floor(r() * 64), tp: pick([1, 2, 4, 8]) }, costs: { gpu_hour_usd: 2 } },
      { model: { params: 1e9 + Math.floor(r() * 1e11) }, hardware: { device, count: 64 }, training: { tokens: 1e12, mfu: 0.4 } }
    ]);
    const firstText = m.estimate(JSON.stringify(sc));
    const first = JSON.parse(firstText);
    if (first.errors) continue;
    const second = m.estimate(JSON.stringify(first.inputs));
    assert.equal(second, firstText, `round trip of ${JSON.stringify(sc)}`);
    checked++;
  }
  assert.ok(checked > 150, `only ${checked} valid`);
});

test('schema(): every input field with type, range, default and doc', async () => {
  const m = await wasm();
  const s = JSON.parse(m.schema());
  const training = s.sections.training.fields;
  const tp = training.find((f) => f.name === 'tp');
  assert.equal(tp.type, 'integer');
  assert.equal(tp.min, 1);
  assert.ok(tp.doc.length > 5);
  assert.deepEqual(training.find((f) => f.name === 'recompute').choices, ['none', 'selective', 'full']);
  assert.ok(s.sections.inference.fields.length >= 10);
  assert.ok(s.structured.some((k) => k.key === 'claim.vary'));
});
