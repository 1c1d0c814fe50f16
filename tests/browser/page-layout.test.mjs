// How the page looks and moves: chart axes readable in dark mode (the colours drawn), chart text
// never overlapping, a 390 px phone without sideways scrolling, the keyboard-only
// path to each section's answer, visible focus rings, the first answer painted before anything
// below the fold, and screenshots of every section (desktop and phone, light and dark) in
// build/screenshots/.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { useBrowser, open, pageUrl, shotDir } from './browser.mjs';
import { join } from 'node:path';
import { writeFileSync, rmSync } from 'node:fs';
import { site } from '../node/common.mjs';

const chrome = useBrowser();

const SECTIONS = ['train', 'serve', 'finetune', 'plan', 'cluster', 'explain', 'reality', 'json'];

// Every section built and computed (they are built lazily), the plan search done, details open.
async function everything(page) {
  for (const s of SECTIONS) await page.locator(`gpu-calc section[data-section="${s}"] .body > *`).first().waitFor({ timeout: 20000 });
  await page.waitForFunction(() => /Done/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.plan-status')?.textContent), null, {
    timeout: 30000
  });
  await page.locator('gpu-calc [data-key="inverse.gpus"]').waitFor();
  await page.locator('gpu-calc table.runs').waitFor();
}

// Draws every chart (they are drawn when near the viewport) and returns their holders' keys.
async function drawCharts(page) {
  const keys = await page.locator('gpu-calc .chart-holder').evaluateAll((hs) => hs.map((h) => h.dataset.chart));
  for (const k of keys) {
    const holder = page.locator(`gpu-calc .chart-holder[data-chart="${k}"]`);
    await holder.scrollIntoViewIfNeeded();
    await holder.locator('svg').first().waitFor();
  }
  return keys;
}

// WCAG contrast of two [r, g, b] colours.
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.map((v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test('in dark mode (and light) chart tick labels and axis titles reach 4.5:1 against the background, in the colour drawn; grid lines 3:1', async () => {
  for (const colorScheme of ['dark', 'light']) {
    const { page, context } = await open(chrome.browser, pageUrl(), { colorScheme });
    await everything(page);
    const keys = await drawCharts(page);
    assert.ok(keys.length >= 4, keys.join(', '));
    for (const k of keys) {
      const m = await page.locator(`gpu-calc .chart-holder[data-chart="${k}"]`).evaluate((holder) => {
        const rgb = (c) =>
          c
            .match(/[\d.]+/g)
            .slice(0, 3)
            .map(Number);
        // Opacity of the element and every ancestor up to the holder (a faded label is a fainter one).
        const alpha = (e) => {
          let a = 1;
          for (let x = e; x && x !== holder; x = x.parentElement) a *= Number(getComputedStyle(x).opacity);
          return a * Number(getComputedStyle(e).fillOpacity);
        };
        const texts = [...holder.querySelectorAll('svg .axes text')].map((t) => ({ s: t.textContent, fill: rgb(getComputedStyle(t).fill), a: alpha(t) }));
        const grid = [...holder.querySelectorAll('svg line.grid')].map((l) => rgb(getComputedStyle(l).stroke));
        const bg = rgb(getComputedStyle(document.querySelector('gpu-calc')).backgroundColor);
        return { bg, texts, grid, gridColor: holder.dataset.gridColor, axis: holder.dataset.axisColor, theme: holder.dataset.theme };
      });
      assert.equal(m.theme, colorScheme, k);
      assert.ok(m.texts.length >= 6 && m.grid.length >= 4, `${k}: ${m.texts.length} labels, ${m.grid.length} grid lines`);
      for (const t of m.texts) {
        assert.equal(t.a, 1, `${colorScheme} ${k}: "${t.s}" drawn faded`);
        assert.ok(contrast(t.fill, m.bg) >= 4.5, `${colorScheme} ${k}: "${t.s}" ${contrast(t.fill, m.bg).toFixed(2)}:1`);
      }
      for (const g of m.grid) assert.ok(contrast(g, m.bg) >= 3, `${colorScheme} ${k}: grid ${g} ${contrast(g, m.bg).toFixed(2)}:1`);
      const hex = (s) => [1, 3, 5].map((i) => parseInt(s.slice(i, i + 2), 16));
      assert.ok(contrast(hex(m.axis), m.bg) >= 4.5, `${colorScheme} ${k}: axis colour ${m.axis}`);
      assert.ok(contrast(hex(m.gridColor), m.bg) >= 3, `${colorScheme} ${k}: grid colour ${m.gridColor}`);
    }
    await context.close();
  }
});

test('chart text never overlaps or leaves the chart: tick labels, axis titles, desktop and phone (boxes as laid out)', async () => {
  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 }
  ]) {
    const { page, context } = await open(chrome.browser, pageUrl(), { viewport });
    await everything(page);
    const keys = await drawCharts(page);
    for (const k of keys) {
      const m = await page.locator(`gpu-calc .chart-holder[data-chart="${k}"]`).evaluate((holder) => {
        const svg = holder.querySelector('svg');
        const o = svg.getBoundingClientRect();
        const box = (e) => {
          const r = e.getBoundingClientRect();
          return { s: e.textContent, l: r.left - o.left, r: r.right - o.left, t: r.top - o.top, b: r.bottom - o.top };
        };
        const plot = svg.querySelector('svg.plot');
        const p = plot.getBoundingClientRect();
        return { w: o.width, h: o.height, texts: [...svg.querySelectorAll('.axes text')].map(box), plot: { l: p.left - o.left + 3, r: p.right - o.left - 3 } };
      });
      const where = `${viewport.width}px ${k}`;
      assert.ok(m.texts.filter((t) => t.s).length >= 6, where);
      for (const t of m.texts) assert.ok(t.l >= 0 && t.t >= 0 && t.r <= m.w && t.b <= m.h, `${where}: "${t.s}" leaves the chart ${JSON.stringify(t)}`);
      for (let i = 0; i < m.texts.length; i++)
        for (let j = i + 1; j < m.texts.length; j++) {
          const [a, b] = [m.texts[i], m.texts[j]];
          const overlap = Math.min(a.r, b.r) - Math.max(a.l, b.l) > 0.5 && Math.min(a.b, b.b) - Math.max(a.t, b.t) > 0.5;
          assert.ok(!overlap, `${where}: "${a.s}" overlaps "${b.s}"`);
        }
      // The plot spans most of the width the chart was given.
      assert.ok(m.plot.r - m.plot.l > m.w * 0.4, `${where}: plot ${m.plot.r - m.plot.l} of ${m.w} px`);
    }
    await context.close();
  }
});

test('on a 390 px phone nothing scrolls sideways: not the page, not a section, not embed.html; wide tables scroll in their own box; no word breaks letter by letter', async () => {
  const viewport = { width: 390, height: 844 };
  const { page, context } = await open(chrome.browser, pageUrl(), { viewport });
  // The sticky nav is one line that scrolls in its own box (it wrapped to three lines, ~85 px).
  const nav = await page.evaluate(() => {
    const n = document.querySelector('gpu-calc').shadowRoot.querySelector('nav');
    return { height: n.getBoundingClientRect().height, scrolls: n.scrollWidth > n.clientWidth };
  });
  assert.ok(nav.height < 50 && nav.scrolls, JSON.stringify(nav));
  await everything(page);
  await page.evaluate(() => {
    for (const d of document.querySelector('gpu-calc').shadowRoot.querySelectorAll('details')) d.open = true;
  });
  await drawCharts(page);
  const m = await page.evaluate(() => {
    const r = document.querySelector('gpu-calc').shadowRoot;
    const wide = [];
    for (const s of r.querySelectorAll('section')) if (s.scrollWidth > s.clientWidth + 1) wide.push(s.dataset.section + ' ' + s.scrollWidth);
    // Lines of text in a cell, counted from the text's own boxes (a row made tall by its neighbour does not count).
    const broken = [];
    for (const cell of r.querySelectorAll('th, td, .figure dt, .figure dd, .field label, .answer p, legend, summary')) {
      if (cell.closest('.scroll, details.work')) continue;
      const tops = new Set();
      let words = 0;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        if (!n.textContent.trim() || n.parentElement.closest('details.work')) continue;
        words += n.textContent.trim().split(/\s+/).length;
        const range = document.createRange();
        range.selectNodeContents(n);
        for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
      }
      if (words && tops.size > words + 1) broken.push(cell.textContent.slice(0, 40) + ': ' + tops.size + ' lines, ' + words + ' words');
    }
    return { doc: document.documentElement.scrollWidth, wide, broken, scrollers: r.querySelectorAll('.scroll').length };
  });
  assert.ok(m.doc <= viewport.width, 'page width ' + m.doc);
  assert.deepEqual(m.wide, []);
  assert.deepEqual(m.broken, []);
  assert.ok(m.scrollers >= 4);
  await context.close();
  const e = await open(chrome.browser, pageUrl('embed.html'), { viewport });
  await e.page.frameLocator('#demo-frame').locator('gpu-calc .answer:not(.waiting)').waitFor();
  assert.ok((await e.page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width);
  assert.ok(
    (await e.page
      .frameLocator('#demo-frame')
      .locator('html')
      .evaluate((h) => h.scrollWidth)) <= viewport.width
  );
  await e.context.close();
});

test('every select shows its chosen option whole (the defaults), on a phone and on a desktop: a long one takes two columns', async () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 900 }
  ]) {
    const { page, context } = await open(chrome.browser, pageUrl(), { viewport });
    await everything(page);
    for (const g of await page.locator('gpu-calc details.group > summary').all()) await g.click();
    // The option's text in the select's font, its padding and ~20 px for the arrow, against its width.
    const cut = await page.evaluate(() => {
      const measure = document.createElement('canvas').getContext('2d');
      const out = [];
      for (const s of document.querySelector('gpu-calc').shadowRoot.querySelectorAll('select')) {
        if (!s.getClientRects().length) continue;
        const cs = getComputedStyle(s);
        measure.font = cs.font;
        const o = s.options[s.selectedIndex];
        const need = measure.measureText(o.text).width + parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + 20;
        if (need > s.clientWidth) out.push(`${s.id}: "${o.text}" needs ${Math.round(need)} px of ${s.clientWidth}`);
      }
      return out;
    });
    assert.deepEqual(cut, [], viewport.width + ' px');
    await context.close();
  }
});

test('keyboard only: Tab to the nav, Enter on a section moves focus to its heading, clear of the sticky nav, with the answer in view', async () => {
  for (const viewport of [
    { width: 1280, height: 900 },
    { width: 390, height: 844 }
  ]) {
    const { page, context } = await open(chrome.browser, pageUrl(), { viewport });
    for (const s of SECTIONS) {
      await page.evaluate(() => scrollTo(0, 0));
      await page.locator('gpu-calc header h1').click(); // the keyboard starts from the top
      let tabs = 0;
      while (tabs < 40) {
        await page.keyboard.press('Tab');
        tabs++;
        if (
          await page.evaluate((x) => {
            const a = document.querySelector('gpu-calc').shadowRoot.activeElement;
            return !!a && a.closest('nav') !== null && a.dataset.section === x;
          }, s)
        )
          break;
      }
      assert.ok(tabs < 40, `${s}: the nav link is reachable by Tab`);
      await page.keyboard.press('Enter');
      await page.locator(`gpu-calc [data-answer="${s}"]:not(.waiting)`).waitFor({ timeout: 30000 });
      await page.waitForTimeout(50);
      const m = await page.evaluate((x) => {
        const r = document.querySelector('gpu-calc').shadowRoot;
        const head = r.getElementById('h-' + x);
        const nav = r.querySelector('nav').getBoundingClientRect();
        const hr = head.getBoundingClientRect();
        const hit = r.elementFromPoint(hr.left + 10, hr.top + hr.height / 2);
        const ans = r.querySelector('section[data-section="' + x + '"] .answer').getBoundingClientRect();
        return {
          focused: r.activeElement === head,
          headTop: hr.top,
          navBottom: nav.bottom,
          hit: hit === head || head.contains(hit),
          answerTop: ans.top,
          outline: getComputedStyle(head).outlineStyle
        };
      }, s);
      assert.ok(m.focused, `${viewport.width}px ${s}: focus on the heading`);
      assert.ok(m.headTop >= m.navBottom && m.hit, `${viewport.width}px ${s}: heading at ${m.headTop}, nav bottom ${m.navBottom}`);
      assert.ok(m.answerTop < viewport.height - 40, `${viewport.width}px ${s}: the answer starts at ${m.answerTop}`);
      assert.notEqual(m.outline, 'none');
    }
    await context.close();
  }
});

test('every control reached by Tab shows a focus ring; the import button is a real button whose ring shows, and focus stays on it after an import', async () => {
  const { page, context } = await open(chrome.browser);
  // Every section built first: Tab must not run off the end of the page (the window would lose focus).
  await page.waitForFunction(() => document.querySelector('gpu-calc')._allBuilt === true, null, { timeout: 30000 });
  await page.locator('gpu-calc header h1').click();
  const seen = [];
  for (let i = 0; i < 70; i++) {
    await page.keyboard.press('Tab');
    const f = await page.evaluate(() => {
      const a = document.querySelector('gpu-calc').shadowRoot.activeElement;
      if (!a) return null;
      const cs = getComputedStyle(a);
      return {
        what: a.tagName + (a.id ? '#' + a.id : '') + ' ' + (a.textContent || '').slice(0, 20),
        ring: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2
      };
    });
    if (!f) continue;
    seen.push(f);
    assert.ok(f.ring, 'no focus ring on ' + f.what);
  }
  assert.ok(seen.length >= 60);
  const exp = page.getByRole('button', { name: 'Export CSV' });
  await exp.focus();
  await page.keyboard.press('Tab');
  const imp = await page.evaluate(() => {
    const a = document.querySelector('gpu-calc').shadowRoot.activeElement;
    return { text: a.textContent, ring: getComputedStyle(a).outlineStyle };
  });
  assert.deepEqual(imp, { text: 'Import scenario', ring: 'solid' });
  const chooser = page.waitForEvent('filechooser');
  // Playwright turns on file-chooser interception when the listener is added, by a message of its
  // own: one round trip to the page makes sure it is on before the key opens the chooser (without it
  // the native dialog opened first about half the time, and no event came).
  await page.evaluate(() => new Promise(requestAnimationFrame));
  await page.keyboard.press('Enter');
  await (
    await chooser
  ).setFiles({ name: 's.json', mimeType: 'application/json', buffer: Buffer.from('{"hardware":{"device":"nvidia-h100-sxm5-80gb","count":9}}') });
  await page.waitForFunction(() =>
    /Imported into Cluster/.test(document.querySelector('gpu-calc').shadowRoot.querySelector('.import-status')?.textContent ?? '')
  );
  assert.equal(await page.evaluate(() => document.querySelector('gpu-calc').shadowRoot.activeElement?.textContent), 'Import scenario');
  await context.close();
});

// Where an element is on screen as painted: its top once two frames in a row agree (a section
// built between frames moves it until that frame's scroll anchoring, which no one sees).
const painted = (loc) =>
  loc.evaluate(
    (e) =>
      new Promise((done) => {
        let last = null;
        let n = 0;
        const tick = () =>
          requestAnimationFrame(() =>
            setTimeout(() => {
              const y = e.getBoundingClientRect().top;
              if (y === last || ++n > 20) done(y);
              else ((last = y), tick());
            })
          );
        tick();
      })
  );

test('a field typed in stays on screen while the sections above it are built and answered', async () => {
  for (const [w, h] of [
    [1280, 900],
    [390, 844]
  ]) {
    const { page, context } = await open(chrome.browser, pageUrl(), { viewport: { width: w, height: h } });
    const count = page.locator('gpu-calc #cluster-count');
    await count.fill('4096');
    const typed = { y: await painted(count) };
    assert.ok(typed.y >= 0 && typed.y < h, `${w} px: typed at ${typed.y.toFixed(0)} px of ${h}`);
    // Plan (above Cluster) is built when idle or as it comes near, and its search answers later.
    await page.waitForFunction(() => document.querySelector('gpu-calc')._allBuilt, null, { timeout: 20000 });
    await page.waitForTimeout(1500);
    const box = { y: await painted(count) };
    assert.ok(Math.abs(box.y - typed.y) <= 2, `${w} px: the field moved from ${typed.y.toFixed(0)} to ${box.y.toFixed(0)} px (of ${h})`);
    assert.equal(await page.evaluate(() => document.querySelector('gpu-calc')._state.view.section), 'cluster');
    await context.close();
  }
});

test('a fold opened above the section in view stays under the pointer (the page does not scroll it away)', async () => {
  for (const [w, h] of [
    [1280, 900],
    [390, 844]
  ]) {
    const { page, context } = await open(chrome.browser, pageUrl(), { viewport: { width: w, height: h } });
    await page.waitForFunction(() => document.querySelector('gpu-calc')._allBuilt, null, { timeout: 20000 });
    // Cluster is the section in view; then Plan's folded table is brought up above it, Cluster
    // still on screen, and opened.
    await page.locator('gpu-calc section[data-section="cluster"] h2').evaluate((e) => e.scrollIntoView());
    await page.waitForTimeout(600);
    const summary = page.locator('gpu-calc section[data-section="plan"] details > summary').filter({ hasText: 'data table' });
    assert.equal(await summary.evaluate((e) => e.parentElement.open), false);
    await summary.evaluate((e) => {
      const next = e.closest('section').nextElementSibling.getBoundingClientRect().top;
      scrollBy(0, Math.min(e.getBoundingClientRect().top - innerHeight / 3, next - (innerHeight - 60)));
    });
    await page.waitForTimeout(600);
    assert.equal(await page.evaluate(() => document.querySelector('gpu-calc')._state.view.section), 'cluster');
    const before = await painted(summary);
    await summary.click();
    assert.equal(await summary.evaluate((e) => e.parentElement.open), true);
    const now = await painted(summary);
    assert.ok(before > 0 && before < h && Math.abs(now - before) <= 2, `${w} px: the summary clicked moved from ${before.toFixed(0)} to ${now.toFixed(0)} px`);
    await context.close();
  }
});

test('read mid-page with nothing focused, the place holds while a section above grows and while the phone rotates', async () => {
  const { page, context } = await open(chrome.browser, pageUrl(), { viewport: { width: 390, height: 844 } });
  await page.waitForFunction(() => document.querySelector('gpu-calc')._allBuilt, null, { timeout: 20000 });
  await page.waitForTimeout(1000);
  const head = page.locator('gpu-calc section[data-section="cluster"] h2');
  await head.evaluate((e) => {
    e.scrollIntoView();
    scrollBy(0, -100);
  });
  const y0 = await painted(head);
  // Plan, whose foot is on screen, grows 400 px at its head, far above the screen.
  await page.evaluate(() => {
    const h = document.querySelector('gpu-calc').shadowRoot.querySelector('section[data-section="plan"] h2');
    h.after(Object.assign(document.createElement('div'), { style: 'height: 400px' }));
  });
  assert.ok(Math.abs((await painted(head)) - y0) <= 2, 'a growth above the screen moved the heading');
  await page.setViewportSize({ width: 844, height: 390 });
  await painted(head);
  await page.setViewportSize({ width: 390, height: 844 });
  const y1 = await painted(head);
  assert.ok(Math.abs(y1 - y0) <= 2, `after a rotation and back the heading is at ${y1.toFixed(0)} px, was ${y0.toFixed(0)}`);
  await context.close();
});

// A host page that puts the element in a scrolling box of its own (next to the site's files).
const boxPage = join(site, 'test-host-box.html');
after(() => rmSync(boxPage, { force: true }));

test('in a host page\u2019s scrolling box (its own, or a component\u2019s around a slot), the box keeps a typed field in place and the host\u2019s window never scrolls', async () => {
  const head =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>host</title></head><body><h1>A post</h1><p style="height:300px">Text.</p>';
  const foot = '<p style="height:3000px">More.</p><script src="gpucalc-embed.js"></script></body></html>';
  const wrap =
    "<script>customElements.define('x-wrap', class extends HTMLElement { constructor() { super(); this.attachShadow({ mode: 'open' }).innerHTML = '<div id=\"box\" style=\"height:600px;overflow:auto\"><slot></slot></div>'; } });</script>";
  for (const body of ['<div id="box" style="height:600px;overflow:auto"><gpu-calc></gpu-calc></div>', wrap + '<x-wrap><gpu-calc></gpu-calc></x-wrap>']) {
    writeFileSync(boxPage, head + body + foot);
    for (const [w, h] of [
      [1280, 900],
      [390, 844]
    ]) {
      const { page, context } = await open(chrome.browser, pageUrl('test-host-box.html'), { viewport: { width: w, height: h } });
      const count = page.locator('gpu-calc #cluster-count');
      await count.fill('4096');
      const typed = await painted(count);
      const windowY = await page.evaluate(() => scrollY);
      const box = await page.evaluate(() =>
        (document.getElementById('box') || document.querySelector('x-wrap').shadowRoot.getElementById('box')).getBoundingClientRect()
      );
      const where = `${w} px, ${body.slice(0, 12)}`;
      assert.ok(
        typed > box.top - 40 && typed < box.bottom,
        `${where}: typed at ${typed.toFixed(0)} px, the box spans ${box.top.toFixed(0)}-${box.bottom.toFixed(0)}`
      );
      await page.waitForFunction(() => document.querySelector('gpu-calc')._allBuilt, null, { timeout: 20000 });
      await page.waitForTimeout(1500);
      assert.ok(Math.abs((await painted(count)) - typed) <= 2, `${where}: the field moved from ${typed.toFixed(0)} px`);
      assert.equal(await page.evaluate(() => scrollY), windowY, `${where}: the host window did not scroll`);
      await context.close();
    }
  }
});

test('the first paint shows the first section\u2019s answer; nothing below the fold is built or drawn before it (timings of 5 cold loads)', async (t) => {
  const runs = [];
  for (let i = 0; i < 5; i++) {
    const { page, context } = await open(chrome.browser);
    await page.waitForFunction(() => performance.getEntriesByName('gpucalc-first-answer-painted').length > 0);
    await page.waitForFunction(() => performance.getEntriesByName('gpucalc-chart-drawn').length > 0, null, { timeout: 20000 });
    const m = await page.evaluate(() => {
      const at = (n) => performance.getEntriesByName(n)[0];
      const r = document.querySelector('gpu-calc').shadowRoot;
      return {
        first: at('gpucalc-first-result').detail,
        result: at('gpucalc-first-result').startTime,
        painted: at('gpucalc-first-answer-painted').startTime,
        details: at('gpucalc-first-details').startTime,
        ready: at('gpucalc-module-ready').startTime,
        chart: at('gpucalc-chart-drawn').startTime,
        answerTop: r.querySelector('[data-answer="train"]').getBoundingClientRect().top
      };
    });
    assert.deepEqual(m.first, { section: 'train', built: ['train'] });
    assert.ok(m.answerTop < 900, 'the answer is above the fold: ' + m.answerTop);
    assert.ok(m.chart > m.painted, 'no chart before the first answer is painted');
    assert.ok(m.details >= m.painted, 'the details follow the painted answer');
    runs.push(m);
    await context.close();
  }
  const med = (k) => runs.map((r) => r[k]).sort((a, b) => a - b)[2];
  t.diagnostic(
    `median of 5 cold file:// loads: module ready ${med('ready').toFixed(0)} ms, first result ${med('result').toFixed(0)} ms, first answer painted ${med('painted').toFixed(0)} ms after navigation`
  );
});

test('screenshots of every section: desktop and phone, light and dark (build/screenshots/)', async () => {
  for (const [name, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }]
  ]) {
    for (const colorScheme of ['light', 'dark']) {
      const { page, context } = await open(chrome.browser, pageUrl(), { viewport, colorScheme });
      await everything(page);
      await drawCharts(page);
      await page.evaluate(() => scrollTo(0, 0));
      await page.waitForTimeout(200);
      await page.screenshot({ path: join(shotDir, `top-${name}-${colorScheme}.png`) });
      for (const s of SECTIONS) {
        const box = await page.locator(`gpu-calc section[data-section="${s}"]`).evaluate((e) => {
          const r = e.getBoundingClientRect();
          return { y: r.top + scrollY, h: r.height };
        });
        for (let y = box.y, i = 0; y < box.y + box.h - 1; y += 1800, i++) {
          await page.screenshot({
            path: join(shotDir, `${s}-${name}-${colorScheme}-${i}.png`),
            fullPage: true,
            clip: { x: 0, y, width: viewport.width, height: Math.min(1800, box.y + box.h - y) }
          });
        }
      }
      assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= viewport.width);
      await context.close();
    }
  }
  const e = await open(chrome.browser, pageUrl('embed.html'), { viewport: { width: 390, height: 844 } });
  await e.page.frameLocator('#demo-frame').locator('gpu-calc .answer:not(.waiting)').waitFor();
  await e.page.screenshot({ path: join(shotDir, 'embed-phone-light.png'), fullPage: true });
  await e.context.close();
});
