// The element on other people's pages: a blog's CSS (a 62.5 % root font size, text properties on
// its body, a `* { ... }` rule) does not change how it looks; a compact embed keeps its details
// folded; frame.html tells its parent its height; a scenario or section attribute that cannot be
// used says so instead of showing an unrelated answer; the theme attribute; one sync-url per page.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { useBrowser, pageUrl, shotDir } from './browser.mjs';
import { site } from '../node/common.mjs';

const chrome = useBrowser();
const written = [];
after(() => {
  for (const f of written) rmSync(f, { force: true });
});

const SERVE = '{"model":{"preset":"llama3-70b"},"hardware":{"device":"nvidia-h100-sxm5-80gb","count":8},"inference":{"tp":4}}';

// A host page next to the site's files, with its own <style>.
function hostPage(name, body, css = '') {
  const file = join(site, name);
  writeFileSync(
    file,
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
      '<title>host</title><style>' +
      css +
      '</style></head><body>' +
      body +
      '<script src="gpucalc-embed.js"></script></body></html>'
  );
  written.push(file);
  return pageUrl(name);
}

async function visit(url, opts = {}) {
  const context = await chrome.browser.newContext(Object.assign({ viewport: { width: 1280, height: 800 } }, opts));
  const page = await context.newPage();
  const errors = [];
  const logs = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => logs.push(m.type() + ': ' + m.text()));
  await page.goto(url);
  return { context, page, errors, logs };
}
const answered = (page) => page.waitForSelector('gpu-calc .answer:not(.waiting)', { timeout: 15000 });

// What a reader sees of some of the element's text: size, spacing, case, alignment, and the
// element's height (the same layout gives the same height).
const looks = (page) =>
  page.evaluate(() => {
    const el = document.querySelector('gpu-calc');
    const out = { height: Math.round(el.getBoundingClientRect().height) };
    for (const sel of ['h2', '.fit', '.figure dt', '.figure .big', '.figure .sub', '.field label', 'input', 'select', 'summary', '.parsed']) {
      const n = el.shadowRoot.querySelector(sel);
      const cs = getComputedStyle(n);
      out[sel] = [
        cs.fontSize,
        cs.lineHeight,
        cs.letterSpacing,
        cs.wordSpacing,
        cs.textTransform,
        cs.textAlign,
        cs.textIndent,
        cs.fontStyle,
        cs.fontWeight
      ].join(' ');
    }
    return out;
  });

test('a blog\u2019s CSS does not reach into the element: html { font-size: 62.5% }, text properties on its body, a * rule', async () => {
  const body = '<p>Host text.</p><gpu-calc section="serve" compact scenario=\'' + SERVE + "'>Loading gpucalc\u2026</gpu-calc>";
  const plain = hostPage('test-embed-plain.html', body);
  const blog = hostPage(
    'test-embed-leak.html',
    body,
    'html { font-size: 62.5%; } body { font-size: 1.6rem; text-align: justify; letter-spacing: 0.1em; text-transform: uppercase; font-style: italic;' +
      ' font-weight: 300; word-spacing: 4px; text-indent: 2em; line-height: 2.2; white-space: pre-line; cursor: crosshair; }' +
      ' * { letter-spacing: 0.02em; line-height: 1.9; text-transform: lowercase; }'
  );
  const a = await visit(plain);
  await answered(a.page);
  const want = await looks(a.page);
  await a.context.close();
  const b = await visit(blog);
  await answered(b.page);
  const got = await looks(b.page);
  // The text a reader reads is 15 px, as on a plain page, not the 8 px that 62.5 % made of it.
  assert.equal(await b.page.locator('gpu-calc .fit').evaluate((n) => getComputedStyle(n.getRootNode().host).fontSize), '15px');
  assert.deepEqual(got, want);
  await b.page.screenshot({ path: join(shotDir, 'embed-host-css.png') });
  assert.deepEqual(b.errors, []);
  await b.context.close();
});

test('a scenario attribute that is not JSON, or a section attribute that names no section, is what the element shows: no unrelated answer', async () => {
  const url = hostPage(
    'test-embed-bad.html',
    '<gpu-calc id="json" section="train" compact scenario=\'{"model":{"preset":"llama3-8b"},}\'>Loading\u2026</gpu-calc>' +
      '<gpu-calc id="sec" section="serving" compact>Loading\u2026</gpu-calc>' +
      '<gpu-calc id="two" section="serve trian" compact>Loading\u2026</gpu-calc>'
  );
  const { page, context, errors } = await visit(url, { viewport: { width: 390, height: 844 } });
  const json = page.locator('#json');
  const alert = json.getByRole('alert');
  await alert.waitFor();
  assert.match(await alert.textContent(), /The scenario attribute is not valid JSON \(.*position \d+.*\)\./);
  assert.match(await alert.textContent(), /No answer is shown until the element\u2019s markup is fixed/);
  // No answer, no figures, no form of the defaults under it.
  assert.equal(await json.locator('.answer, form, section').count(), 0);
  const sec = page.locator('#sec').getByRole('alert');
  assert.equal(
    await sec.textContent(),
    'The section attribute names no section \u201cserving\u201d; the sections are train, serve, finetune, plan, cluster, explain, reality, json and all.'
  );
  assert.equal(await page.locator('#sec').getByRole('button').count(), 0); // nothing to show with defaults
  assert.ok((await page.locator('#sec').evaluate((e) => e.getBoundingClientRect().height)) > 40);
  // One good name and one typo: the good one shows, the typo is said.
  await page.locator('#two .answer:not(.waiting)').waitFor();
  assert.match(await page.locator('#two .notice').textContent(), /names no section \u201ctrian\u201d/);
  await page.screenshot({ path: join(shotDir, 'embed-bad-attributes-phone.png'), fullPage: true });
  // The reader may still use the calculator: with its defaults, by choice.
  await json.getByRole('button', { name: 'Show the calculator with its defaults' }).click();
  await json.locator('.answer:not(.waiting)').waitFor();
  assert.equal(await json.locator('#train-model').inputValue(), await page.evaluate(() => document.querySelector('#json')._state.train.model));
  assert.deepEqual(errors, []);
  await context.close();
});

test('a compact embed keeps its details folded (README) and stays short; one click on Details opens them', async () => {
  const url = hostPage(
    'test-embed-compact.html',
    '<main style="max-width:720px;margin:auto"><gpu-calc section="serve" compact scenario=\'' + SERVE + "'>Loading\u2026</gpu-calc></main>"
  );
  const { page, context, errors } = await visit(url);
  await answered(page);
  const details = page.locator('gpu-calc details.details');
  assert.equal(await details.evaluate((d) => d.open), false);
  const height = () => page.locator('gpu-calc').evaluate((e) => e.getBoundingClientRect().height);
  const folded = await height();
  assert.ok(folded < 1400, 'a one-section compact embed is ' + folded + ' px tall');
  await page.locator('gpu-calc details.details > summary').click();
  await page.locator('gpu-calc details.details table.kv').first().waitFor();
  assert.ok((await height()) > folded + 300);
  assert.deepEqual(errors, []);
  await context.close();
});

test('frame.html posts its height to the parent, and the README\u2019s snippet sizes the iframe from it (no scrolling inside), from file://', async () => {
  const sc = encodeURIComponent('{"model":{"preset":"llama3-8b"},"hardware":{"device":"nvidia-rtx-4090"}}');
  const url = hostPage(
    'test-embed-iframe.html',
    '<p>My post</p><iframe id="gpucalc-frame" src="frame.html#section=serve&amp;scenario=' +
      sc +
      '" width="100%" height="760" title="gpucalc"></iframe><p>After</p>' +
      // The README's snippet, as a host page writes it.
      "<script>addEventListener('message', (e) => { const f = document.getElementById('gpucalc-frame');" +
      " if (f && e.source === f.contentWindow && e.data && e.data.type === 'gpucalc-height') f.style.height = e.data.height + 'px'; });</script>"
  );
  const { page, context, errors } = await visit(url, { viewport: { width: 390, height: 844 } });
  const frame = page.frameLocator('#gpucalc-frame');
  await frame.locator('gpu-calc .answer:not(.waiting)').waitFor();
  const fits = () =>
    page.waitForFunction(() => {
      const f = document.getElementById('gpucalc-frame');
      const d = f.contentDocument.documentElement;
      return f.style.height !== '' && Math.abs(f.clientHeight - d.getBoundingClientRect().height) <= 1 && d.scrollHeight <= f.clientHeight + 1;
    });
  await fits();
  const first = await page.locator('#gpucalc-frame').evaluate((f) => f.clientHeight);
  assert.notEqual(first, 760);
  // Opening the details makes the frame taller: the iframe follows.
  await frame.locator('gpu-calc details.details > summary').click();
  await fits();
  assert.ok((await page.locator('#gpucalc-frame').evaluate((f) => f.clientHeight)) > first + 300);
  await page.screenshot({ path: join(shotDir, 'embed-iframe-sized-phone.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('theme="light" on a dark system and theme="dark" on a light one: colours, fields and charts follow the attribute; a bad value is said', async () => {
  const el = (id, theme) => '<gpu-calc id="' + id + '" theme="' + theme + '" section="serve" compact scenario=\'' + SERVE + "'>Loading\u2026</gpu-calc>";
  const url = hostPage(
    'test-embed-theme.html',
    '<h2>Light-only blog</h2>' + el('light', 'light') + el('dark', 'dark') + el('bad', 'blue'),
    'body { background: #fff; color: #222; }'
  );
  for (const colorScheme of ['dark', 'light']) {
    const { page, context, errors } = await visit(url, { colorScheme });
    await page.locator('#dark .answer:not(.waiting)').waitFor();
    const seen = (id) =>
      page.locator('#' + id).evaluate((e) => ({
        bg: getComputedStyle(e).backgroundColor,
        field: getComputedStyle(e.shadowRoot.querySelector('input')).backgroundColor,
        scheme: getComputedStyle(e.shadowRoot.querySelector('select')).colorScheme
      }));
    assert.deepEqual(await seen('light'), { bg: 'rgb(255, 255, 255)', field: 'rgb(255, 255, 255)', scheme: 'light' });
    assert.deepEqual(await seen('dark'), { bg: 'rgb(13, 17, 23)', field: 'rgb(13, 17, 23)', scheme: 'dark' });
    // The charts take the element's scheme: open the details and look at the chart drawn.
    for (const id of ['light', 'dark']) {
      await page.locator('#' + id + ' details.details > summary').click();
      const chart = page.locator('#' + id + ' .chart-holder[data-theme]').first();
      await chart.waitFor();
      assert.equal(await chart.getAttribute('data-theme'), id);
    }
    assert.match(await page.locator('#bad .notice').textContent(), /The theme attribute \u201cblue\u201d is none of light, dark or auto/);
    await page.evaluate(() => scrollTo(0, 0));
    await page.screenshot({ path: join(shotDir, 'embed-theme-' + colorScheme + '-system.png') });
    await page.locator('#dark .answer').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shotDir, 'embed-theme-' + colorScheme + '-system-dark-element.png') });
    // The attribute changed on a page already shown: the charts are drawn again in that scheme.
    await page.locator('#light').evaluate((e) => e.setAttribute('theme', 'dark'));
    await page.locator('#light .chart-holder[data-theme="dark"]').first().waitFor();
    assert.equal(await page.locator('#light').evaluate((e) => getComputedStyle(e).backgroundColor), 'rgb(13, 17, 23)');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('two <gpu-calc sync-url> on one page: the first keeps its state in the address, the second neither writes nor reads it, and says so in the console', async () => {
  const two =
    '<gpu-calc id="c1" section="serve" compact sync-url scenario=\'' +
    SERVE +
    "'>Loading</gpu-calc>" +
    '<gpu-calc id="c2" section="serve" compact sync-url scenario=\'{"model":{"preset":"llama3-8b"},"hardware":{"device":"nvidia-rtx-4090","count":1}}\'>Loading</gpu-calc>';
  const url = hostPage('test-embed-two-sync.html', two);
  const { page, context, errors, logs } = await visit(url);
  await page.locator('#c2 .answer:not(.waiting)').waitFor();
  const typeInto = async (id, text) => {
    const input = page.locator('#' + id + ' #serve-batch');
    await input.click();
    await page.keyboard.type(text);
    await page.waitForTimeout(400); // past the save's debounce
  };
  await typeInto('c1', '64');
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /^#s=/);
  await typeInto('c2', '3');
  assert.equal(await page.evaluate(() => location.hash), hash, 'the second element overwrote the first one\u2019s address');
  assert.ok(logs.some((l) => /^warning: gpucalc: only one <gpu-calc sync-url> per page/.test(l)));
  // A reload: the first takes its state back from the address, the second shows its own scenario.
  await page.reload();
  await page.locator('#c2 .answer:not(.waiting)').waitFor();
  assert.equal(await page.locator('#c1 #serve-batch').inputValue(), '64');
  assert.equal(await page.locator('#c2 #serve-model').inputValue(), 'llama3-8b');
  assert.equal(await page.locator('#c2 #serve-batch').inputValue(), '');
  assert.deepEqual(errors, []);
  await context.close();
});

test('on a phone, Explain\u2019s tables: the side-by-side caption is read whole, and every workload shows its times for both devices, named', async () => {
  const url = hostPage('test-embed-explain.html', '<gpu-calc section="explain" compact>Loading\u2026</gpu-calc>');
  for (const colorScheme of ['light', 'dark']) {
    const { page, context, errors } = await visit(url, {
      viewport: { width: 390, height: 844 },
      colorScheme,
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true
    });
    await answered(page);
    if (!(await page.locator('gpu-calc details.details').evaluate((d) => d.open))) await page.locator('gpu-calc details.details > summary').tap();
    const compare = page.locator('gpu-calc .scroll:has(table.compare)');
    await compare.scrollIntoViewIfNeeded();
    const cap = await compare.evaluate((box) => {
      const b = box.getBoundingClientRect();
      const c = box.querySelector('caption').getBoundingClientRect();
      return { left: c.left >= b.left - 1, right: c.right <= b.right + 1 };
    });
    assert.deepEqual(cap, { left: true, right: true });
    // Both devices fit the phone's width (values wrap between words): nothing hides past the edge.
    assert.ok(await compare.evaluate((box) => box.scrollWidth <= box.clientWidth + 1));
    await page.screenshot({ path: join(shotDir, 'embed-explain-phone-' + colorScheme + '-compare.png') });
    const kernels = page.locator('gpu-calc .kernels');
    await kernels.scrollIntoViewIfNeeded();
    const k = await kernels.evaluate((div) => {
      const box = div.querySelector('.scroll');
      const b = box.getBoundingClientRect();
      const heads = [...div.querySelectorAll('thead th')].map((th) => th.textContent);
      const rows = [...div.querySelectorAll('tbody tr')].map((tr) =>
        [...tr.cells].map((td) => {
          const r = td.getBoundingClientRect();
          const before = getComputedStyle(td, '::before').content;
          return { inside: r.left >= b.left - 1 && r.right <= b.right + 1, label: before === 'none' ? '' : before.replace(/^"|"$/g, '') };
        })
      );
      return { heads, rows, scrolls: box.scrollWidth > box.clientWidth + 1 };
    });
    assert.equal(k.scrolls, false);
    assert.ok(k.rows.length >= 3);
    for (const row of k.rows) {
      assert.ok(row.every((c) => c.inside));
      // Past the workload's name, each value says what it is: FLOP/byte, then each device.
      assert.deepEqual(
        row.slice(1).map((c) => c.label),
        k.heads.slice(1).map((x) => x + ': ')
      );
    }
    await page.screenshot({ path: join(shotDir, 'embed-explain-phone-' + colorScheme + '-workloads.png') });
    assert.deepEqual(errors, []);
    await context.close();
  }
});
