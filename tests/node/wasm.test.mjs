// The WebAssembly module gives byte-identical reports to the native build, never throws, and
// exposes the catalog and presets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wasm, nativeEstimates, fixtures, rng, cli } from './common.mjs';
import { execFileSync } from 'node:child_process';

test('parity: every fixture gives the identical report natively and in wasm', async () => {
  const m = await wasm();
  const fx = fixtures();
  const native = nativeEstimates(fx.map((f) => f.text));
  assert.ok(fx.length >= 15);
  fx.forEach((f, i) => assert.equal(m.estimate(f.text), native[i], f.name));
});

function randomScenario(r) {
  const pick = (a) => a[Math.floor(r() * a.length)];
  const devices = [
    'nvidia-a100-sxm4-80gb',
    'nvidia-h100-sxm5-80gb',
    'nvidia-h200-sxm-141gb',
    'amd-mi300x',
    'nvidia-v100-sxm2-32gb',
    'intel-gaudi3',
    'nvidia-b200'
  ];
  const models = [
    'gpt3-175b',
    'llama2-7b',
    'llama2-70b',
    'llama3-8b',
    'mixtral-8x7b',
    'deepseek-v3',
    'megatron-39b',
    'pythia-1b',
    'gpt-oss-120b',
    'qwen3-235b-a22b'
  ];
  const kind = pick(['train', 'serve', 'cluster', 'compare', 'params']);
  const device = pick(devices);
  if (kind === 'cluster') return { hardware: { device, count: 1 + Math.floor(r() * 100000) } };
  if (kind === 'compare')
    return { compare: { a: device, b: pick(devices.concat(['amd-epyc-9654', 'intel-xeon-8480plus'])), precision: pick(['fp32', 'bf16', 'fp16', 'fp8']) } };
  const tp = pick([1, 2, 4, 8]);
  const pp = pick([1, 1, 2, 4]);
  const dp = pick([1, 2, 4, 8, 16, 32, 64]);
  if (kind === 'params')
    return {
      model: { params: Math.round(1e8 + r() * 1e12) },
      hardware: { device, count: tp * pp * dp },
      training: { tokens: Math.round(r() * 1e13) + 1, mfu: Math.round(r() * 90 + 10) / 100 }
    };
  const model = { preset: pick(models) };
  if (kind === 'train') {
    return {
      model,
      hardware: { device, count: tp * pp * dp },
      training: {
        tokens: 1e9 + Math.floor(r() * 1e13),
        tp: 1,
        pp: 1,
        zero: Math.floor(r() * 4),
        recompute: pick(['none', 'selective', 'full']),
        micro_batch: pick([1, 2, 4]),
        global_batch: dp * 4 * pick([1, 2, 8]),
        attention: pick(['flash', 'materialized'])
      },
      scaling: r() < 0.2
    };
  }
  return {
    model,
    hardware: { device, count: 8 },
    inference: {
      batch: 1 + Math.floor(r() * 256),
      tp: pick([1, 2, 4, 8]),
      prompt_tokens: 1 + Math.floor(r() * 8000),
      output_tokens: 1 + Math.floor(r() * 2000),
      weight_precision: pick(['bf16', 'fp8', 'int8', 'int4']),
      kv_precision: pick(['bf16', 'fp8']),
      requests_per_day: Math.floor(r() * 1e8)
    }
  };
}

test('parity: 400 random valid scenarios are byte-identical natively and in wasm', async () => {
  const m = await wasm();
  const r = rng(20261129);
  const scenarios = Array.from({ length: 400 }, () => JSON.stringify(randomScenario(r)));
  const native = nativeEstimates(scenarios);
  let reports = 0;
  scenarios.forEach((s, i) => {
    const out = m.estimate(s);
    assert.equal(out, native[i], s);
    if (!JSON.parse(out).errors) reports++;
  });
  assert.ok(reports > 300, `only ${reports} of 400 random scenarios were valid`);
});

test('devices and presets are the same natively and in wasm', async () => {
  const m = await wasm();
  const dev = JSON.parse(execFileSync(cli, ['devices']).toString());
  assert.deepEqual(JSON.parse(m.devices()), dev);
  assert.ok(dev.devices.length >= 30);
  assert.deepEqual(JSON.parse(m.presets()), JSON.parse(execFileSync(cli, ['presets']).toString()));
});

test('reality check (famous runs, claims) is byte-identical natively and in wasm', async () => {
  const m = await wasm();
  const native = JSON.parse(execFileSync(cli, ['reality']).toString());
  assert.deepEqual(JSON.parse(m.reality()), native);
  assert.ok(native.runs.length >= 11 && native.claims.length >= 8);
});

test('inverse questions and user claims work through the same entry point', async () => {
  const m = await wasm();
  const inv = [
    { hardware: { device: 'nvidia-h100-sxm5-80gb', count: 1000 }, inverse: { question: 'what_can_train', days: 30 } },
    {
      model: { preset: 'llama2-70b' },
      hardware: { device: 'nvidia-h100-sxm5-80gb' },
      training: { tokens: 2e12 },
      inverse: { question: 'gpus_needed', days: 30 }
    },
    {
      hardware: { device: 'nvidia-h100-sxm5-80gb', count: 8 },
      claim: { checks: [{ metric: 'cluster.memory_bytes', expected: 8 * 80 * 2 ** 30, tolerance: 0.01 }] }
    },
    { hardware: { device: 'nvidia-h100-sxm5-80gb', count: 8 }, claim: { checks: [{ metric: 'cluster.cores', min: 'x' }] } }
  ].map((x) => JSON.stringify(x));
  const native = nativeEstimates(inv);
  inv.forEach((s, i) => assert.equal(m.estimate(s), native[i]));
  assert.ok(JSON.parse(native[0]).inverse.compute_optimal_params > 1e10);
  assert.equal(JSON.parse(native[2]).claim.verdict, 'consistent');
  assert.equal(JSON.parse(native[3]).errors[0].field, 'claim.checks[0].min');
});

test('bad input never throws across the boundary: errors name the field', async () => {
  const m = await wasm();
  for (const bad of ['', '{', 'null', '[]', '{"hardware":{"device":"x","count":-1}}', '"\\ud800"', '{"model":{"params":1e400}}', 'x'.repeat(2 << 20)]) {
    const r = JSON.parse(m.estimate(bad));
    assert.ok(Array.isArray(r.errors) && r.errors.length > 0, bad.slice(0, 40));
  }
  const r = JSON.parse(m.estimate('{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":-8}}'));
  assert.equal(r.errors[0].field, 'hardware.count');
  assert.match(r.errors[0].message, /hardware\.count/);
});

test('the methods take JSON text, passed whole as UTF-8 (as the CLI reads it); a wrong argument is a TypeError naming the method', async () => {
  const m = await wasm();
  // A NUL inside the text: the module answers what the CLI answers for the same bytes.
  const nul = '{"explain": false}\u0000{"hardware": 1}';
  assert.equal(m.estimate(nul), nativeEstimates([nul])[0]);
  // Non-ASCII text goes in and comes out as UTF-8.
  const r = JSON.parse(m.estimate('{"hardware":{"device":"gpu-\u00e9\u4e2d\ud83d\ude00","count":1}}'));
  assert.match(r.errors[0].message, /gpu-\u00e9\u4e2d\ud83d\ude00/);
  // A lone surrogate (a JS string need not be valid Unicode) reaches the core as the invalid UTF-8 it
  // would be in a file, refused as the CLI refuses that file, not replaced by U+FFFD.
  for (const bad of ['{"model":{"preset":"\ud800"}}', '{"model":{"preset":"a\udc00b"}}']) {
    const e = JSON.parse(m.estimate(bad)).errors[0];
    assert.equal(e.code, 'malformed_json');
    assert.match(e.message, /invalid UTF-8/);
  }
  // A text far past the 1 MiB limit is refused as one just past it, without growing the module's memory by its size.
  const heap = m.HEAPU8.length;
  const huge = JSON.parse(m.estimate(' '.repeat(60e6)));
  assert.deepEqual(huge, JSON.parse(m.estimate(' '.repeat((1 << 20) + 1))));
  assert.equal(huge.errors[0].code, 'too_large');
  assert.ok(m.HEAPU8.length < heap + 16e6, `memory ${heap} -> ${m.HEAPU8.length} bytes`);
  const cluster = '{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8}}';
  const one = JSON.parse(m.explain(cluster, 'k'));
  assert.deepEqual(one.explain, {});
  assert.deepEqual(JSON.parse(m.explain(cluster, 'k'.repeat(60e6))), one);
  assert.throws(() => m.estimate(42), { name: 'TypeError', message: /estimate takes JSON text/ });
  assert.throws(() => m.estimate(), { name: 'TypeError', message: /estimate takes 1 argument/ });
  assert.throws(() => m.explain('{}'), { name: 'TypeError', message: /explain takes 2 argument/ });
  assert.match(m.version(), /^\d+\.\d+\.\d+$/);
});

test('issue 2 scenario: GPT-3 / 1,024 A100 / MFU 0.4 in wasm', async () => {
  const m = await wasm();
  const r = JSON.parse(
    m.estimate(
      JSON.stringify({
        model: { params: 175e9 },
        hardware: { device: 'nvidia-a100-sxm4-80gb', count: 1024 },
        training: { tokens: 300e9, mfu: 0.4, goodput: 1 },
        costs: { gpu_hour_usd: 2 }
      })
    )
  );
  assert.equal(r.training.flops, 3.15e23);
  assert.ok(Math.abs(r.training.days - 3.15e23 / (1024 * 312e12 * 0.4) / 86400) < 1e-9);
  assert.equal(r.cluster.memory_bytes, 1024 * 80 * 2 ** 30); // 80 GB HBM is 80 GiB (datasheet)
});

test('plan search runs in wasm and reports its speed', async () => {
  const m = await wasm();
  const r = JSON.parse(
    m.plan(JSON.stringify({ model: { preset: 'gpt3-175b' }, hardware: { device: 'nvidia-a100-sxm4-80gb', count: 1024 }, training: { global_batch: 1536 } }))
  );
  assert.ok(r.plan.considered > 10000);
  assert.ok(r.plan.best.length === 10);
  assert.ok(r.plan.plans_per_second > 0);
});

test('networks, sites, pools and DiLoCo (issue 19) are byte-identical natively and in wasm', async () => {
  const m = await wasm();
  const nets = JSON.parse(execFileSync(cli, ['networks']).toString());
  assert.deepEqual(JSON.parse(m.networks()), nets);
  assert.ok(nets.networks.length >= 10);
  const ids = nets.networks.map((n) => n.id);
  const r = rng(19);
  const pick = (a) => a[Math.floor(r() * a.length)];
  const scenarios = [];
  for (let i = 0; i < 40; i++) {
    const count = pick([16, 64, 256, 1000]);
    const hardware =
      r() < 0.5
        ? { device: 'nvidia-h100-sxm5-80gb', count, network: pick(ids) }
        : { device: 'nvidia-h100-sxm5-80gb', count, sites: pick([2, 4, 8]), wan: pick(ids), wan_latency_seconds: pick([0.005, 0.04, 0.1]) };
    scenarios.push(
      JSON.stringify({
        model: { preset: pick(['llama2-7b', 'llama2-13b', 'llama2-70b']) },
        hardware,
        training: {
          tokens: 1e12,
          local_steps: pick([1, 10, 100]),
          outer_precision: pick(['fp32', 'bf16', 'int8', 'int4']),
          outer_topk: pick([1, 1, 0.01]),
          outer_overlap_steps: pick([0, 1])
        },
        explain: r() < 0.5
      })
    );
  }
  scenarios.push(
    JSON.stringify({
      model: { preset: 'llama2-70b' },
      hardware: {
        pools: [
          { device: 'nvidia-h100-sxm5-80gb', count: 64, site: 'a' },
          { device: 'nvidia-a100-sxm4-80gb', count: 64, site: 'b' }
        ]
      },
      training: { tokens: 1e12, local_steps: 100, outer_precision: 'int8' }
    })
  );
  scenarios.push(
    JSON.stringify({ hardware: { device: 'nvidia-h100-sxm5-80gb', count: 1000 }, inverse: { question: 'what_can_train', days: 90, compare_networks: true } })
  );
  const native = nativeEstimates(scenarios);
  let reports = 0;
  scenarios.forEach((s, i) => {
    const out = m.estimate(s);
    assert.equal(out, native[i], s);
    if (!JSON.parse(out).errors) reports++;
  });
  assert.ok(reports > 30, `only ${reports} of ${scenarios.length} were valid`);
});
