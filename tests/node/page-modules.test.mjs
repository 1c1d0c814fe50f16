// The page is split into small plain-script modules that scripts/bundle.mjs concatenates into one
// script (no module loader: file://, iframes, CSP without eval). Every module is in the bundle's
// list, each stays small, and the concatenation compiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root, rng, pageFormat } from './common.mjs';
import { PAGE_MODULES, pageScript } from '../../scripts/bundle.mjs';

const web = join(root, 'web');

test('every page module is bundled, once, and format.js stays the standalone formatter', () => {
  const files = readdirSync(web)
    .filter((f) => f.endsWith('.js') && f !== 'format.js')
    .sort();
  const listed = PAGE_MODULES.map(([f]) => f);
  assert.deepEqual([...listed].sort(), files);
  assert.equal(new Set(listed).size, listed.length);
  assert.equal(listed[listed.length - 1], 'app.js');
});

test('no file in web/ is over 300 lines', () => {
  for (const f of readdirSync(web)) {
    const lines = readFileSync(join(web, f), 'utf8').split('\n').length;
    assert.ok(lines <= 300, `web/${f}: ${lines} lines`);
  }
});

test('the bundled page script compiles and uses no eval, Function or dynamic import', () => {
  const code = pageScript(root);
  assert.ok(code.startsWith('(function () {'));
  assert.doesNotMatch(code, /\beval\(|new Function\(|\bimport\(/);
});

test('the price words say which hour was used: the given price, the catalog rent, or the owned hour', async () => {
  const { createRequire } = await import('node:module');
  const F = createRequire(import.meta.url)('../../web/format.js');
  const costs = { ownership: 'cloud', gpu_hour_usd: null, price_basis: 'hyperscaler' };
  assert.equal(F.hourBasis(costs), 'catalog, hyperscaler');
  assert.equal(F.hourBasis({ ...costs, gpu_hour_usd: 2 }), '');
  assert.equal(F.hourBasis({ ...costs, ownership: 'owned' }), 'owned: price amortised + power');
  assert.equal(F.hourPlaceholder({ ...costs, ownership: 'owned' }, 1.25), 'owned: ' + F.usd(1.25));
  assert.equal(F.hourPlaceholder(costs, 2.69), 'catalog: ' + F.usd(2.69));
});

// The page formats numbers without Intl (the first Intl call loads ICU's data: tens of ms on a cold
// page), so its formatter must write exactly what Intl.NumberFormat('en-US', o) writes.
test('the en-US formatter writes what Intl writes, digit for digit, ties and extremes included', () => {
  const OPTS = [
    undefined,
    { maximumSignificantDigits: 17 },
    { maximumSignificantDigits: 8 },
    { maximumSignificantDigits: 4 },
    { minimumFractionDigits: 2, maximumFractionDigits: 2 },
    { minimumFractionDigits: 2, maximumFractionDigits: 4 }
  ];
  // Ties on the shortest decimal (1.005 is 1.00499... in binary; Intl, like ICU, rounds it up),
  // carries into a new digit, zero and its sign, the smallest and largest doubles, non-finite.
  const values = [0, -0, 1, -1, 0.5, 1.005, 2.675, 2.5, 0.0005, 0.00049, 9.9995, 999.9995, 99999.5, 1234.5, 1e21, 1.5e300];
  values.push(Number.MAX_VALUE, Number.MIN_VALUE, 0.1 + 0.2, -0.0004, 123456789.123, 999999999999, NaN, Infinity, -Infinity);
  const rand = rng(20261201);
  for (let i = 0; i < 6000; i++) {
    let v = (rand() - 0.3) * Math.pow(10, Math.floor(rand() * 30) - 15);
    if (i % 3 === 0) v = Number(v.toPrecision(1 + Math.floor(rand() * 6))); // short decimals: ties
    if (i % 5 === 0) v = Math.round(v * 1000) / 1000 + 0.0005;
    values.push(v);
  }
  let compared = 0;
  for (const v of values)
    for (const o of OPTS) {
      assert.equal(pageFormat.en(v, o), v.toLocaleString('en-US', o), `${v} with ${JSON.stringify(o)}`);
      compared++;
    }
  assert.equal(compared, values.length * OPTS.length);
});

test('no page module calls toLocaleString or Intl but the locale separators of typed numbers', () => {
  for (const f of readdirSync(web).filter((n) => n.endsWith('.js'))) {
    const code = readFileSync(join(web, f), 'utf8');
    assert.doesNotMatch(code, /toLocaleString|toLocaleDateString|localeCompare/, f);
    if (f !== 'parse.js') assert.doesNotMatch(code, /\bIntl\./, f);
  }
});

test('figures past the largest prefix are grouped ("98,940 EFLOP/s"), the ones below keep their significant digits', () => {
  // A page review (2026-12-02) read "Peak BF16 98940 EFLOP/s" for 100,000,000 H100s.
  assert.equal(pageFormat.flops(9.894e22), '98,940\u00a0EFLOP/s');
  assert.equal(pageFormat.flops(989.4e18), '989\u00a0EFLOP/s');
  assert.equal(pageFormat.flops(1.5e15), '1.50\u00a0PFLOP/s');
  assert.equal(pageFormat.flops(123.4e12), '123\u00a0TFLOP/s');
});

test('days and years are grouped, and past a million of the largest unit written as powers of ten', () => {
  // A page review (2026-12-05) read "Wall-clock time 11417 days" and, for 1e30 tokens,
  // "31169419494708764 years" overlapping the next figure.
  assert.equal(pageFormat.duration(300 * 86400), '300\u00a0days');
  assert.equal(pageFormat.duration(3135 * 365.25 * 86400), '3,135\u00a0years');
  assert.equal(pageFormat.duration(3.1169e16 * 365.25 * 86400), '3.12e16\u00a0years');
  assert.equal(pageFormat.byKey('days', 11417), '11,417\u00a0days');
  assert.equal(pageFormat.count(2.798e23), '2.8e23');
  assert.equal(pageFormat.count(2.798e14), '280\u00a0T');
});
