// Serving and fine-tuning through the WebAssembly module: hostile values in every new field (deep,
// huge, nested, absurd) answer with JSON errors naming the field or finite reports, identically
// natively and in wasm; echoed inputs parse back to the identical report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wasm, nativeEstimates, rng } from './common.mjs';

const nest = (open, close, n, inner = '1') => open.repeat(n) + inner + close.repeat(n);
const base = { model: { preset: 'llama3-8b' }, hardware: { device: 'nvidia-h100-sxm5-80gb', count: 8 } };

function hostile() {
  const out = [];
  const fields = {
    slo: [{}, [], 'fast', { ttft_seconds: -1 }, { tpot_seconds: 1e308 }, { ttft_seconds: 1e-300 }, { tpot_seconds: 'x' }, { search_precision: 3 }, { zzz: 1 }],
    speculative: [{}, { draft_params: 1e300 }, { draft_params: 1e9, draft_tokens: 1e9 }, { draft_params: 1e9, acceptance_rate: 1 }, { draft_params: -5 }],
    prefix_cache_hit_rate: [-0.1, 1, 1e308, 'half', null],
    batch: [0, -1, 1e300, 1.5, '8', [8]],
    batch_limit: [0, 1e300, {}],
    ep: [0, 3, 1e9],
    attention_dp: [1, 'yes'],
    weight_format: ['q3', 7, ''],
    gpu_layers: [-1, 1e9, 2.5],
    host_memory_bandwidth_bytes_per_second: [0, 1e300],
    disaggregated: ['no', 2],
    requests_per_day: [1e300, -1]
  };
  for (const [k, values] of Object.entries(fields)) {
    for (const v of values) out.push(JSON.stringify({ ...base, inference: { [k]: v } }));
    out.push(`{"model": {"preset": "llama3-8b"}, "hardware": {"device": "nvidia-h100-sxm5-80gb"}, "inference": {"${k}": ${nest('{"a":', '}', 40)}}}`);
    out.push(`{"model": {"preset": "llama3-8b"}, "hardware": {"device": "nvidia-h100-sxm5-80gb"}, "inference": {"${k}": ${nest('[', ']', 20000)}}}`);
  }
  for (const ft of [{ method: 'dora' }, { lora_rank: 1e9 }, { seq_len: 0 }, { batch: 1e300 }, { optimizer: 'lion' }, { tokens: -1 }, { x: 1 }, [], 'qlora'])
    out.push(JSON.stringify({ ...base, finetune: ft }));
  out.push(`{"model": {"preset": "llama3-8b"}, "hardware": {"device": "nvidia-h100-sxm5-80gb"}, "finetune": ${nest('{"method":', '}', 50, '"full"')}}`);
  // Valid but absurd.
  out.push(JSON.stringify({ ...base, inference: { requests_per_day: 1e15, peak_to_average: 100, slo: { ttft_seconds: 1e-6, tpot_seconds: 1e6 } } }));
  out.push(JSON.stringify({ ...base, inference: { prompt_tokens: 1e8, output_tokens: 1e8, prefix_cache_hit_rate: 0.99 } }));
  out.push(JSON.stringify({ ...base, inference: { speculative: { draft_params: 1e13, draft_tokens: 16, acceptance_rate: 0 }, batch_limit: 1e7 } }));
  out.push(JSON.stringify({ ...base, finetune: { method: 'full', seq_len: 1e8, batch: 1e6, cpu_offload: true, tokens: 1e16 } }));
  return out;
}

test('hostile serving and fine-tuning inputs: JSON answers, identical natively and in wasm, never NaN', async () => {
  const m = await wasm();
  const inputs = hostile();
  const native = nativeEstimates(inputs);
  inputs.forEach((s, i) => {
    let out;
    assert.doesNotThrow(
      () => {
        out = m.estimate(s);
      },
      s.slice(0, 80)
    );
    assert.equal(out, native[i], s.slice(0, 120));
    const r = JSON.parse(out);
    assert.equal(typeof r, 'object');
    assert.ok(!out.includes('NaN') && !out.includes('Infinity'));
    if (r.errors) assert.ok(r.errors.every((e) => typeof e.field === 'string' && e.message.length > 0));
    else assert.ok(!JSON.stringify(r.warnings).includes('non-finite'));
  });
});

test('serving and fine-tuning reports round-trip through inputs (150 random scenarios, wasm)', async () => {
  const m = await wasm();
  const r = rng(15);
  const pick = (a) => a[Math.floor(r() * a.length)];
  let checked = 0;
  for (let i = 0; i < 150; i++) {
    const device = pick(['nvidia-h100-sxm5-80gb', 'nvidia-a100-sxm4-80gb', 'nvidia-rtx-4090', 'apple-m3-max', 'nvidia-h200-sxm-141gb']);
    const model = { preset: pick(['llama3-8b', 'llama2-7b', 'mixtral-8x7b', 'llama3-70b', 'gpt-oss-20b', 'qwen3-32b']) };
    const inf = { prompt_tokens: 1 + Math.floor(r() * 8000), output_tokens: 1 + Math.floor(r() * 2000), tp: pick([1, 2, 4]) };
    if (r() < 0.5) inf.batch = 1 + Math.floor(r() * 128);
    if (r() < 0.3) inf.requests_per_day = Math.floor(r() * 1e8);
    if (r() < 0.2) inf.slo = { ttft_seconds: 0.1 + r() * 3, tpot_seconds: 0.01 + r() * 0.1 };
    if (r() < 0.2) inf.weight_format = pick(['q4_k_m', 'q8_0']);
    if (r() < 0.2) inf.prefix_cache_hit_rate = Math.round(r() * 90) / 100;
    if (r() < 0.1) inf.disaggregated = true;
    if (r() < 0.1) inf.speculative = { draft_params: 1e9, acceptance_rate: 0.7 };
    const sc =
      r() < 0.3
        ? {
            model,
            hardware: { device, count: 8 },
            finetune: { method: pick(['full', 'lora', 'qlora']), batch: pick([1, 2, 4]), seq_len: pick([512, 2048, 8192]) }
          }
        : { model, hardware: { device, count: 8 }, inference: inf, costs: { gpu_hour_usd: 2 } };
    const first = m.estimate(JSON.stringify(sc));
    const rep = JSON.parse(first);
    if (rep.errors) continue;
    assert.equal(m.estimate(JSON.stringify(rep.inputs)), first, JSON.stringify(sc));
    checked++;
  }
  assert.ok(checked > 100, `only ${checked} valid`);
});
