// Messages of the element itself: short notices above the calculator (restored settings dropped,
// module restarted) and the reason a start failed. Part of the page bundle (scripts/bundle.mjs).
const Notice = (function () {
  // A short message above the calculator; `alert` for problems the reader must see (a bad
  // scenario attribute). The same text is not shown twice.
  function show(el, text, alert) {
    for (const p of el._notices.children) if (p.firstChild.textContent === text) return;
    const p = Dom.h(
      'p',
      { class: 'notice', role: alert ? 'alert' : 'status' },
      Dom.h('span', { text }),
      ' ',
      Dom.h(
        'button',
        {
          type: 'button',
          class: 'notice-close',
          'aria-label': 'Dismiss notice',
          onclick: () => {
            // Focus goes to the next notice, else to the top of the calculator (never lost to the page).
            p.remove();
            const next = el._notices.querySelector('button') || el._root.querySelector('.questions a, nav a, h2');
            if (next) next.focus();
          }
        },
        '\u00d7'
      )
    );
    el._notices.appendChild(p);
  }

  // A start that failed says why, in the element: a Content-Security-Policy without
  // 'wasm-unsafe-eval' (WebAssembly refused) gets the directive the host page needs.
  function startFailed(box, why) {
    const csp = /Content.Security.Policy|unsafe-eval|CompileError|Refused to compile/i.test(why);
    box.setAttribute('role', 'alert');
    box.className = 'loading failed';
    box.textContent =
      'The calculator could not start: ' +
      (csp
        ? 'this page\u2019s Content-Security-Policy does not allow WebAssembly. The page needs script-src \u2019self\u2019 \u2019wasm-unsafe-eval\u2019 (and worker-src blob: for the plan search).'
        : why + '.');
  }

  // A start stopped by the host's markup (a scenario or a section that cannot be shown): the
  // reasons, in the element, in place of an answer; where there is something to show, a button
  // that shows the calculator with its defaults (the reader's choice, said on the button).
  function blocked(el, box, withDefaults) {
    const h = Dom.h;
    box.setAttribute('role', 'alert');
    box.className = 'loading failed';
    const next = withDefaults
      ? h(
          'p',
          { class: 'blocked-next' },
          'No answer is shown until the element\u2019s markup is fixed. ',
          h(
            'button',
            {
              type: 'button',
              onclick: () => {
                el._blocked = null;
                box.removeAttribute('role');
                box.className = 'loading';
                box.textContent = 'Loading the calculator\u2026';
                withDefaults();
              }
            },
            'Show the calculator with its defaults'
          )
        )
      : '';
    box.replaceChildren(...el._blocked.map((text) => h('p', { text })), next);
  }

  return { show, startFailed, blocked };
})();
