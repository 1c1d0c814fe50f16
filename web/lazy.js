// First paint: the section in view is built and computed at once; the others when they come
// within 300 px of the viewport or, one per idle moment, when the browser has nothing else to do.
// Part of the page bundle (scripts/bundle.mjs).
const Lazy = (function () {
  // Builds the sections in `pending` later; a newer call (a re-render) cancels an older one.
  function fill(el, pending) {
    trackView(el);
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
    addEventListener(
      'scroll',
      () => {
        clearTimeout(timer);
        timer = setTimeout(settle, 250);
      },
      { passive: true }
    );
  }

  return { fill, pin };
})();
