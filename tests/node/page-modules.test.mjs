// The page is split into small plain-script modules that scripts/bundle.mjs concatenates into one
// script (no module loader: file://, iframes, CSP without eval). Every module is in the bundle's
// list, each stays small, and the concatenation compiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './common.mjs';
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
