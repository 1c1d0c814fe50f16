// The top of the page and moving around it: the questions people come with (each leads to the
// section that answers it), the sticky section nav, and focus. Going to a section moves focus to
// its heading, which scrolls clear of the sticky nav (scroll-margin from the nav's measured height).
// Part of the page bundle (scripts/bundle.mjs).
const Nav = (function () {
  const { h } = Dom;

  const QUESTIONS = [
    ['train', 'How long and how much to train model X on Y GPUs?'],
    ['serve', 'Can I run model X on my GPU? How fast, for how many users?'],
    ['serve', 'How many GPUs to serve X to N users (requests a day), at what cost?'],
    ['finetune', 'Can I fine-tune X on my GPU (LoRA, QLoRA, full)?'],
    ['reality', 'I have N \u00d7 GPU: what can I train?'],
    ['reality', 'Is this claim right? (claims and famous runs, checked)', 'claims-checked'],
    ['explain', 'Why GPUs and not CPUs?']
  ];

  // `target`: the id of the part of the section that answers the question (else its heading).
  function link(el, sec, text, extra, target) {
    return h(
      'a',
      Object.assign(
        {
          href: '#' + sec,
          'data-section': sec,
          onclick: (e) => {
            e.preventDefault();
            goto(el, sec, true, target);
            Lazy.pin(el, sec, target);
          }
        },
        extra || {}
      ),
      text
    );
  }

  function header(el) {
    const visible = el._visibleSections();
    const qs = QUESTIONS.filter(([s]) => visible.includes(s));
    return h(
      'header',
      null,
      h('h1', { text: 'gpucalc' }),
      h('p', { class: 'tagline', text: 'AI hardware questions, answered from datasheets and papers \u2014 every figure with its derivation.' }),
      qs.length
        ? h(
            'div',
            { class: 'questions' },
            h('h2', { class: 'questions-title', id: 'questions-title', text: 'What do you want to know?' }),
            h(
              'ul',
              { 'aria-labelledby': 'questions-title' },
              qs.map(([s, q, target]) => h('li', null, link(el, s, q, { class: 'question' }, target)))
            )
          )
        : null
    );
  }

  function nav(el) {
    const n = h(
      'nav',
      { 'aria-label': 'Sections' },
      el._visibleSections().map((s) => link(el, s, State.TITLES[s]))
    );
    // The nav's height, for the headings' scroll margin (it wraps to two lines on a phone).
    if (globalThis.ResizeObserver) new ResizeObserver(() => measure(el, n)).observe(n);
    return n;
  }

  function measure(el, n) {
    const navEl = n || el._root.querySelector('nav');
    const px = navEl ? Math.ceil(navEl.getBoundingClientRect().height) : 0;
    el.style.setProperty('--nav-h', px + 'px');
  }

  // Shows a section: built if it was not yet, its heading focused (or only scrolled to), the
  // section remembered as the one in view (links carry it).
  function goto(el, sec, focus, target) {
    if (!el._sections[sec]) return;
    // A reader's jump: the sections above are answered first, so that their answers arriving later
    // do not push the target down the page.
    if (focus) {
      const vis = el._visibleSections();
      for (const s of vis.slice(0, vis.indexOf(sec))) if (!el._built[s]) el._update(s);
    }
    // Built and answered, not only built: the idle fill skips a section once built, and a question
    // clicked on a fresh page left its section "Computing…".
    if (!el._built[sec]) el._update(sec);
    measure(el);
    const head = (target && el._sections[sec].querySelector('#' + target)) || el._sections[sec].querySelector('h2');
    el._state.view.section = sec;
    el._persist();
    if (focus) head.focus({ preventScroll: true });
    head.scrollIntoView({ block: 'start' });
    if (el._anchorNow) el._anchorNow();
  }

  // After an action replaced the answer (a suggested layout used): focus stays in the answer.
  function focusAnswer(el, sec) {
    const a = el._sections[sec] && el._sections[sec].querySelector('.answer');
    if (!a) return;
    a.setAttribute('tabindex', '-1');
    a.focus({ preventScroll: true });
    measure(el);
    const r = a.getBoundingClientRect();
    if (r.top < 0 || r.top > innerHeight * 0.6) a.scrollIntoView({ block: 'start' });
    if (el._anchorNow) el._anchorNow();
  }

  return { header, nav, goto, focusAnswer, measure };
})();
