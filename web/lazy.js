// First paint: the section in view is built and computed at once; the others when they come
// within 300 px of the viewport or, one per idle moment, when the browser has nothing else to do.
// Part of the page bundle (scripts/bundle.mjs).
const Lazy = (function () {
  // Builds the sections in `pending` later; a newer call (a re-render) cancels an older one.
  function fill(el, pending) {
    trackView(el);
    if (el._anchorRO) for (const n of [el._notices, ...Object.values(el._sections)]) el._anchorRO.observe(n);
    const gen = (el._renderGen = (el._renderGen || 0) + 1);
    const one = (s) => {
      if (gen !== el._renderGen || el._built[s]) return;
      el._update(s);
      if (el._pinned && State.SECTIONS.indexOf(s) < State.SECTIONS.indexOf(el._pinned)) Nav.goto(el, el._pinned, false, el._pinTarget);
    };
    if (globalThis.IntersectionObserver) {
      const io = new IntersectionObserver(
        (entries) => {
          for (const e of entries)
            if (e.isIntersecting) {
              io.unobserve(e.target);
              one(e.target.dataset.section);
            }
        },
        { rootMargin: '300px 0px' }
      );
      for (const s of pending) io.observe(el._sections[s]);
    }
    const queue = pending.slice();
    const next = () => {
      if (gen !== el._renderGen) return;
      const s = queue.shift();
      if (!s) {
        el._allBuilt = true;
        el.dispatchEvent(new CustomEvent('gpucalc-built'));
        return;
      }
      one(s);
      Dom.idle(next, 1000);
    };
    Dom.idle(next, 1000);
  }

  // A link or a question that names a section opens there, and stays there while the sections
  // above it are built or change height (a plan search answering), until the reader scrolls, types
  // or clicks.
  function pin(el, sec, target) {
    if (el._unpin) el._unpin();
    el._pinned = sec;
    el._pinTarget = target;
    Nav.goto(el, sec, false, target);
    const above = el._visibleSections().slice(0, el._visibleSections().indexOf(sec));
    const ro = globalThis.ResizeObserver ? new ResizeObserver(() => el._pinned === sec && Nav.goto(el, sec, false, target)) : null;
    if (ro) for (const s of above) ro.observe(el._sections[s]);
    const stop = () => {
      el._pinned = null;
      el._unpin = null;
      if (ro) ro.disconnect();
      for (const t of ['wheel', 'keydown', 'pointerdown', 'touchstart']) removeEventListener(t, stop, true);
    };
    el._unpin = stop;
    for (const t of ['wheel', 'keydown', 'pointerdown', 'touchstart']) addEventListener(t, stop, true);
  }

  // The section a reader scrolls to is the one a reload (or an export) takes as in view (state
  // view.section), as a question, a link or typing sets it; a reload jumped back to the last
  // question's section. The section set stays while any of it is on screen (a field typed lower
  // down, the short sections at the foot); once it has left, the section at the top takes over. Not
  // while a pin holds the view: that scrolling is the page's own.
  function trackView(el) {
    if (el._tracking) return;
    el._tracking = true;
    let timer = 0;
    const settle = () => {
      if (el._pinned || !el.isConnected) return;
      const top = parseFloat(getComputedStyle(el).getPropertyValue('--nav-h')) || 0;
      const cur = el._sections[el._state.view.section];
      if (cur) {
        const r = cur.getBoundingClientRect();
        if (r.bottom > top && r.top < innerHeight) return;
      }
      let seen = '';
      for (const s of el._visibleSections()) if (el._sections[s] && el._sections[s].getBoundingClientRect().top <= top + 48) seen = s;
      if (seen === el._state.view.section) return;
      el._state.view.section = seen;
      el._persist();
    };
    anchoring(el);
    addEventListener(
      'scroll',
      () => {
        clearTimeout(timer);
        timer = setTimeout(() => requestAnimationFrame(() => setTimeout(settle)), 250); // after that frame's anchoring
      },
      { passive: true }
    );
  }

  // Scroll anchoring on the field being typed in (or the control last clicked): when the page's
  // layout shifts (a section built when idle or as the reader scrolls near, a plan search answering,
  // a fold opened), the page scrolls by as much as the focused element moved, so that it stays where
  // the reader has it. The browser's own anchoring is off in the element meanwhile: it anchored on
  // the first element on screen, often in the section above, and a field typed in Cluster slid off
  // the screen as Plan was built. Without a focused element on screen the browser's anchoring does
  // the work (it anchors deep in the page, which keeps a place through a resize or a rotation).
  // The shift is measured in the scroller's content coordinates, which a scroll does not change: a
  // scroll in the same frame as the shift, before or after it, is not counted twice. The scroller
  // is the page, or the host page's scrolling box the element sits in (an embed): that box
  // scrolls, never the host's window.
  function anchoring(el) {
    if (!globalThis.ResizeObserver) return;
    const native = new CSSStyleSheet();
    el._root.adoptedStyleSheets = el._root.adoptedStyleSheets.concat(native);
    const box = scrollBox(el);
    let node = null;
    let at = 0;
    const view = () => {
      const b = box ? box.getBoundingClientRect() : { top: 0, bottom: innerHeight };
      return { top: Math.max(0, b.top) + (parseFloat(getComputedStyle(el).getPropertyValue('--nav-h')) || 0), bottom: Math.min(innerHeight, b.bottom), b };
    };
    const shown = (r, v) => r.bottom > v.top && r.top < v.bottom && (r.width || r.height);
    const where = (r, v) => (box ? r.top - v.b.top + box.scrollTop : r.top + scrollY);
    const set = (n, v) => {
      if (!n !== !node) native.replaceSync(n ? ':host { overflow-anchor: none; }' : '');
      node = n;
      at = n ? where(n.getBoundingClientRect(), v) : 0;
    };
    const record = () => {
      const v = view();
      const f = el._root.activeElement;
      set(f && shown(f.getBoundingClientRect(), v) ? f : null, v);
    };
    // Where the anchor would be without the layout's shift since it was recorded: where the reader
    // expects it.
    const expected = (v) => {
      const r = node.getBoundingClientRect();
      const shift = where(r, v) - at;
      return { top: r.top - shift, bottom: r.bottom - shift, width: r.width, height: r.height, shift };
    };
    const held = (v) => node && node.isConnected && node === el._root.activeElement && shown(expected(v), v);
    el._anchorRO = new ResizeObserver(() => {
      const v = view();
      if (held(v) && !el._pinned) {
        const shift = expected(v).shift;
        if (Math.abs(shift) >= 1) (box || globalThis).scrollBy(0, shift);
      }
      // A field just focused and not yet scrolled into view stays the anchor (the scroll to it may
      // come a frame later, after a section built above it).
      if (node && node === el._root.activeElement && node.isConnected && !held(v)) return;
      record();
    });
    // A scroll keeps the anchor while it is (where the reader expects it) on screen, with its record.
    const choose = () => {
      const v = view();
      if (node && !held(v)) record();
    };
    // The element focused is the anchor at once, on screen or not: focus() scrolls it into view
    // after this event, and a section built before that scroll's frame would push it off again.
    el._root.addEventListener('focusin', () => set(el._root.activeElement, view()));
    (box || globalThis).addEventListener('scroll', choose, { passive: true });
    el._anchorNow = record; // after the page's own scrolls (a question, a link), which see the layout as it is
  }

  // The host page's scrolling box the element sits in (through slots and shadow roots), or null
  // where it scrolls with the page.
  function scrollBox(el) {
    for (let n = el.assignedSlot || el.parentNode; n && n !== document.body && n !== document.documentElement; n = n.assignedSlot || n.parentNode || n.host)
      if (n.nodeType === 1 && /auto|scroll|overlay/.test(getComputedStyle(n).overflowY)) return n;
    return null;
  }

  // The page's first answer (its card is in the DOM) is painted before its details, which follow
  // right after that frame (or after 200 ms where frames are paused, as in a hidden frame): their
  // layout delayed the first paint by ~35 ms on a cold load (measured in Chromium, 2026-12-01). An
  // answer replaced by then shows its own details.
  function firstAnswer(el, sec, res, report) {
    el._firstResult = true;
    performance.mark('gpucalc-first-result', { detail: { section: sec, built: Object.keys(el._built) } });
    const last = el._last[sec];
    const details = () => {
      if (el._last[sec] !== last || last.shown) return;
      el._showDetails(sec, res, report);
      performance.mark('gpucalc-first-details');
    };
    requestAnimationFrame(() =>
      setTimeout(() => {
        performance.mark('gpucalc-first-answer-painted');
        details();
      }, 0)
    );
    setTimeout(details, 200);
  }

  return { fill, pin, firstAnswer };
})();
