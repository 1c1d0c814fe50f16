// Decentralized training on the page (issue 19): "what can this cluster train" side by side in one
// data centre, across sites and across sites with DiLoCo, with the core's reasons; the Train form's
// network fields (sites, the link between them, local steps) and what crosses the WAN. Every number
// on screen is checked against the native CLI for the same scenario.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, field } from './browser.mjs';
import { nativeEstimates } from '../node/common.mjs';

const chrome = useBrowser();

const last = (page, sec) => page.evaluate((s) => document.querySelector('gpu-calc')._last[s] || null, sec);
const fmt = (page, fn, x) => page.evaluate(([f, v]) => globalThis.gpucalcFormat[f](v), [fn, x]);

test('what can 1,000 H100 train in 30 days: one data centre, across sites, across sites with DiLoCo, side by side with the reasons', async () => {
  const { page, context, errors } = await open(chrome.browser);
  const card = page.locator('gpu-calc [data-answer="reality"]');
  await card.locator('[data-figure="net-one_cluster"]').waitFor({ timeout: 30000 });
  const { scenario, report } = await last(page, 'reality');
  assert.equal(scenario.inverse.compare_networks, true);
  const native = JSON.parse(nativeEstimates([JSON.stringify(scenario)])[0]);
  const nets = native.inverse.networks;
  assert.deepEqual(
    nets.map((n) => n.id),
    ['one_cluster', 'sites_synchronous', 'sites_diloco']
  );
  for (const n of nets) {
    assert.equal(await card.locator(`[data-figure="net-${n.id}"] .big`).textContent(), await fmt(page, 'params', n.trainable_params), n.id);
    assert.equal(report.inverse.networks.find((x) => x.id === n.id).compute_optimal_params, n.compute_optimal_params);
  }
  // In one data centre the model is over ten times larger than across sites synchronously: the
  // gradients cross the internet every step.
  assert.ok(nets[0].compute_optimal_params > 10 * nets[1].compute_optimal_params);
  const rows = page.locator('gpu-calc table.networks tbody tr');
  assert.equal(await rows.count(), 3);
  for (const n of nets) {
    const why = await page.locator(`gpu-calc table.networks tr[data-network="${n.id}"] th .note`).textContent();
    assert.ok(n.explanation.endsWith(why) && why.length > 40, why);
    assert.ok(!why.startsWith(n.label), 'the reason does not repeat the row label');
  }
  // One data centre only: the card goes back to the single answer.
  await field(page, 'reality', 'compare_networks').selectOption('off');
  await card.locator('[data-figure="params"]').waitFor();
  assert.equal(await page.locator('gpu-calc table.networks').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Train across 5 sites on 1 Gb/s with 100 local steps: the network table, the DiLoCo caveat, and no JSON path in the prose', async () => {
  const { page, context, errors } = await open(chrome.browser);
  await page.locator('gpu-calc section[data-section="train"] [data-group="network"] > summary').click();
  // 1,024 GPUs do not split into 5 equal sites: the field says so, and no answer is shown.
  await field(page, 'train', 'sites').fill('5');
  await page.locator('gpu-calc #train-sites-error').filter({ hasText: /./ }).waitFor();
  assert.match(await page.locator('gpu-calc #train-sites-error').textContent(), /Sites/);
  assert.equal(await page.locator('gpu-calc [data-answer="train"] .fit').getAttribute('data-fit'), 'error');
  await field(page, 'train', 'count').fill('1000');
  await field(page, 'train', 'wan').selectOption('internet-1g');
  await field(page, 'train', 'local_steps').fill('100');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.training.local_steps === 100);
  const { scenario, report } = await last(page, 'train');
  assert.equal(scenario.hardware.sites, 5);
  assert.equal(scenario.hardware.wan, 'internet-1g');
  const native = JSON.parse(nativeEstimates([JSON.stringify(scenario)])[0]);
  const c = native.training.communication;
  assert.equal(report.training.communication.compute_utilization, c.compute_utilization);
  const cell = (k) => page.locator(`gpu-calc [data-key="training.communication.${k}"] .v`).textContent();
  assert.equal(await cell('compute_utilization'), await fmt(page, 'percent', c.compute_utilization));
  assert.equal(await cell('exchange_seconds'), await fmt(page, 'duration', c.exchange_seconds));
  assert.equal(await cell('reduction_vs_synchronous'), await fmt(page, 'count', c.reduction_vs_synchronous));
  assert.match(
    await page.locator('gpu-calc section[data-section="train"] table.kv caption').filter({ hasText: 'Network:' }).textContent(),
    /5 sites of 200 GPUs, joined by Internet, 1 Gb\/s/
  );
  // The band is widened for the extrapolation (sites and local steps beyond every published run): the
  // Range says so instead of "9 in 10 published runs" (a newcomer's internet run of 1,000 H100s).
  assert.ok(report.training.uncertainty.widened > 1, JSON.stringify(report.training.uncertainty));
  assert.match(
    await page.locator('gpu-calc [data-answer="train"] [data-figure="range"] .sub').textContent(),
    new RegExp('\\(widened ' + (await fmt(page, 'ratio', report.training.uncertainty.widened)) + ': beyond the published runs\\)$')
  );
  const caveat = await page.locator('gpu-calc [data-key="training.local_sgd"]').textContent();
  assert.match(caveat, /DiLoCo with 100 local steps: published perplexity at the same tokens ranges from -1\.8\u00a0% to \+2\.9\u00a0%/);
  assert.match(caveat, /arXiv:2311\.08105/);
  const prose = await page.evaluate(() =>
    [...document.querySelector('gpu-calc').shadowRoot.querySelectorAll('section[data-section="train"] .warnings, section[data-section="train"] .prose')]
      .map((n) => n.textContent)
      .join('\n')
  );
  assert.doesNotMatch(prose, /\b(training|inference|hardware|costs)\.[a-z_]+/);
  // Synchronous (one local step) over the same links: far less of the time computing.
  await field(page, 'train', 'local_steps').fill('1');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.train?.report.inputs.training.local_steps === 1);
  const sync = (await last(page, 'train')).report.training.communication.compute_utilization;
  assert.ok(sync < c.compute_utilization / 2, `${sync} vs ${c.compute_utilization}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Cluster: 1,000 H100 in 5 sites shows the link of each level (node, between nodes, between sites), as the CLI reports them', async () => {
  const { page, context, errors } = await open(chrome.browser);
  await page.locator('gpu-calc section[data-section="cluster"] [data-group="network"] > summary').click();
  await field(page, 'cluster', 'sites').fill('5');
  await page.waitForFunction(() => document.querySelector('gpu-calc')._last.cluster?.report.inputs.hardware.sites === 5);
  const { scenario, report } = await last(page, 'cluster');
  const native = JSON.parse(nativeEstimates([JSON.stringify(scenario)])[0]);
  const n = native.cluster.network;
  assert.deepEqual(report.cluster.network, n);
  assert.equal(n.wan, 'internet-1g');
  const cell = (k) => page.locator(`gpu-calc [data-key="cluster.network.${k}"] .v`).textContent();
  assert.equal(await cell('scale_up_bytes_per_second'), await fmt(page, 'bandwidth', n.scale_up_bytes_per_second));
  assert.equal(await cell('wan_bytes_per_second'), await fmt(page, 'bandwidth', n.wan_bytes_per_second));
  assert.equal(await cell('devices_per_site'), await fmt(page, 'count', 200));
  assert.equal(
    await page.locator('gpu-calc [data-answer="cluster"] [data-figure="wan"] .big').textContent(),
    await fmt(page, 'bandwidth', n.wan_bytes_per_second)
  );
  // 1,000 GPUs do not split into 3 equal sites: said at the field.
  await field(page, 'cluster', 'sites').fill('3');
  await page.locator('gpu-calc #cluster-sites-error').filter({ hasText: /./ }).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('the io.net DiLoCo row and the same run typed into Train give one answer: the same batch, within the 30 days', async () => {
  // The Reality card's DiLoCo row (1,000 H100, 30 days) against Train with its model, tokens, every
  // node on its own 1 Gb/s link, 100 local steps and int8: Train took 1.94x the row's time (52.9
  // days against 27.2) with the synchronous 4M-token batch and the outer state on the device.
  const q = { hardware: { device: 'nvidia-h100-sxm5-80gb', count: 1000 }, inverse: { question: 'what_can_train', days: 30, compare_networks: true } };
  const row = JSON.parse(nativeEstimates([JSON.stringify(q)])[0]).inverse.networks.find((n) => n.id === 'sites_diloco');
  const { page, context, errors } = await open(chrome.browser);
  await field(page, 'train', 'model').selectOption('custom-params');
  await field(page, 'train', 'params').fill(String(Math.round(row.compute_optimal_params)));
  await field(page, 'train', 'count').fill('1000');
  await field(page, 'train', 'tokens').fill(String(Math.round(row.compute_optimal_tokens)));
  await page.locator('gpu-calc section[data-section="train"] [data-group="network"] > summary').click();
  await field(page, 'train', 'network').selectOption('internet-1g');
  await field(page, 'train', 'local_steps').fill('100');
  await field(page, 'train', 'outer_precision').selectOption('int8');
  await page.waitForFunction(() => {
    const t = document.querySelector('gpu-calc')._last.train;
    return t && t.report.inputs.training.local_steps === 100 && t.report.inputs.training.outer_precision === 'int8' && t.report.training;
  });
  const { report } = await last(page, 'train');
  assert.equal(report.inputs.training.global_batch, row.plan.global_batch);
  assert.equal(report.inputs.training.outer_offload, true);
  assert.ok(report.training.days <= 30, `${report.training.days} days`);
  assert.ok(Math.abs(report.training.tokens_per_second / row.plan.tokens_per_second - 1) < 0.01);
  assert.equal(
    await page.locator('gpu-calc [data-answer="train"] [data-figure="days"] .big').textContent(),
    await fmt(page, 'duration', report.training.seconds)
  );
  assert.deepEqual(errors, []);
  await context.close();
});
