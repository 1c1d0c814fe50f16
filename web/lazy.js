// First paint: the section in view is built and computed at once; the others when they come
// within 300 px of the viewport or, one per idle moment, when the browser has nothing else to do.
// Part of the page bundle (scripts/bundle.mjs).
const Lazy = (function () {
  // Builds the sections in `pending` later; a newer call (a re-render) cancels an older one.
  function fill(el, pending) {
    trackView(el);
    if (el._anchorRO) for (const s of Object.keys(el._sections)) el._anchorRO.observe(el._sections[s]);
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
    // Scroll anchoring on the section in view: when sections above it change height (built when
    // idle or as the reader scrolls near, a plan search answering), the page scrolls by as much, so
    // that the section, and the field being typed in, stay where the reader has them. The browser's
    // own anchoring is off in the element (style.css): it anchored on the first element on screen,
    // often the section above, and a field typed in Cluster slid off the screen as Plan was built.
    const heights = new Map();
    if (globalThis.ResizeObserver)
      el._anchorRO = new ResizeObserver((entries) => {
        const cur = el._sections[el._state.view.section];
        let grew = 0;
        for (const e of entries) {
          const h = e.target.getBoundingClientRect().height;
          if (cur && heights.has(e.target) && e.target.compareDocumentPosition(cur) & Node.DOCUMENT_POSITION_FOLLOWING) grew += h - heights.get(e.target);
          heights.set(e.target, h);
        }
        if (!grew || el._pinned) return;
        const r = cur.getBoundingClientRect(); // on screen before the change: kept there
        if (r.bottom - grew > 0 && r.top - grew < innerHeight) scrollBy(0, grew);
      });
    addEventListener(
      'scroll',
      () => {
        clearTimeout(timer);
        timer = setTimeout(settle, 250);
      },
      { passive: true }
    );
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
