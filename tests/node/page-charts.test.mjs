// The chart module's axis arithmetic (web/chart-svg.js): 1-2-5 steps (times powers of 1024 for
// bytes), log ticks at powers of the base thinned to every m-th power, and the axes' extents.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webModule } from './common.mjs';

const Svg = webModule('chart-svg.js', 'ChartSvg');
// The module runs in its own context: its arrays are copied into this one to compare.
const ChartSvg = { niceStep: Svg.niceStep, tickValues: (...a) => [...Svg.tickValues(...a)], domain: (...a) => [...Svg.domain(...a)] };
const GiB = 2 ** 30;

test('steps are 1, 2 or 5 times a power of ten, at least the step asked for; bytes step in powers of 1024', () => {
  assert.equal(ChartSvg.niceStep(0.7), 1);
  assert.equal(ChartSvg.niceStep(1.3), 2);
  assert.equal(ChartSvg.niceStep(3), 5);
  assert.equal(ChartSvg.niceStep(6), 10);
  assert.equal(ChartSvg.niceStep(180000), 200000);
  assert.ok(Math.abs(ChartSvg.niceStep(0.03) - 0.05) < 1e-15);
  assert.equal(ChartSvg.niceStep(8.6e9, 1024), 10 * GiB); // 10 GiB, not 10 GB (9.31 GiB)
  assert.equal(ChartSvg.niceStep(15 * GiB, 1024), 20 * GiB);
  assert.equal(ChartSvg.niceStep(300 * 2 ** 20, 1024), 500 * 2 ** 20);
  assert.equal(ChartSvg.niceStep(100, 1024), 100); // under 1 KiB: plain 1-2-5
});

test('log ticks are the powers of the base in the extent; when crowded every m-th power, aligned (1, 4, 16, not 2, 8, 32)', () => {
  const log2 = { log: 2 };
  assert.deepEqual(ChartSvg.tickValues(log2, 1, 512, 1000, 40), [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]);
  assert.deepEqual(ChartSvg.tickValues(log2, 1, 512, 200, 40), [1, 4, 16, 64, 256]);
  assert.deepEqual(ChartSvg.tickValues(log2, 3, 100, 1000, 40), [4, 8, 16, 32, 64]);
  assert.deepEqual(ChartSvg.tickValues(log2, 1 / 64, 32768, 300, 40), [1 / 64, 1 / 8, 1, 8, 64, 512, 4096, 32768]); // 22 powers in 8 places
  assert.deepEqual(ChartSvg.tickValues({ log: 10 }, 1, 1e15, 204, 24), [1, 1e2, 1e4, 1e6, 1e8, 1e10, 1e12, 1e14]);
  // Less than a factor of the base: 1-2-5 steps instead (still placed on the log scale).
  assert.deepEqual(ChartSvg.tickValues({ log: 10 }, 20, 80, 200, 40), [20, 40, 60, 80]);
});

test('linear ticks step by 1-2-5 from a multiple of the step, within the extent, without float noise', () => {
  assert.deepEqual(ChartSvg.tickValues({}, 0, 1.05, 204, 24), [0, 0.2, 0.4, 0.6, 0.8, 1]);
  assert.deepEqual(ChartSvg.tickValues({}, 0, 4e6, 204, 24), [0, 5e5, 1e6, 1.5e6, 2e6, 2.5e6, 3e6, 3.5e6, 4e6]);
  assert.deepEqual(
    ChartSvg.tickValues({ unit: 1024 }, 0, 90 * GiB, 300, 60),
    [0, 20, 40, 60, 80].map((x) => x * GiB)
  );
});

test('extents: a given range as it is; a log y axis out to whole powers; a linear one from 0 if asked, padded for points', () => {
  assert.deepEqual(ChartSvg.domain({ range: [0, 1.05] }, [0.3, 2]), [0, 1.05]);
  assert.deepEqual(ChartSvg.domain({ log: 10 }, [5.2, null, 700, -1], true, 0), [1, 1000]);
  assert.deepEqual(ChartSvg.domain({ log: 2 }, [1, 512], false, 0), [1, 512]);
  assert.deepEqual(ChartSvg.domain({ log: 2 }, [8, 8], false, 0), [4, 16]);
  assert.deepEqual(ChartSvg.domain({ zero: true }, [2.6e5, 3.56e6], true, 0), [0, 4e6]); // out to a whole step of a tenth of the extent
  const [lo, hi] = ChartSvg.domain({}, [17.4, 38.6], false, 0.05);
  assert.ok(lo <= 17.4 - 1 && lo >= 15 && hi >= 38.6 + 1 && hi <= 41, `${lo} ${hi}`);
});

test('data flat to rounding, tiny, or wider than a double holds give a finite extent and a few ticks, never an endless loop', () => {
  const cases = [
    [1, 1 + 2 ** -52],
    [1e6, 1e6 + 1e6 * 2 ** -52],
    [1e15, 1e15 + 0.125],
    [1024, 1024 + 1024 * 2 ** -52, 1024],
    [-5e-324, 5e-324],
    [1e308, -1e308],
    [0, 0],
    [7, 7]
  ];
  for (const [a, b, unit] of cases) {
    const ax = unit ? { unit } : {};
    const [lo, hi] = ChartSvg.domain(ax, [a, b], true, 0.05);
    assert.ok(Number.isFinite(lo) && Number.isFinite(hi) && hi > lo, `${a}, ${b}: [${lo}, ${hi}]`);
    assert.ok(lo <= Math.min(a, b) && hi >= Math.max(a, b), `${a}, ${b}: [${lo}, ${hi}] holds the data`);
    const t = ChartSvg.tickValues(ax, lo, hi, 300, 40);
    assert.ok(t.length >= 2 && t.length <= 30 && t.every(Number.isFinite), `${a}, ${b}: ${t}`);
  }
});
