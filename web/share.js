// Sharing an answer: a link with the whole state (every form, the section, the editor's text), the
// embed code for the custom element, and an iframe of frame.html with the scenario in its hash.
// Copying keeps focus on the button that was pressed; where the clipboard is unavailable the text
// is shown, selected, to copy by hand. Part of the page bundle (scripts/bundle.mjs).
const Share = (function () {
  const { h } = Dom;

  function link(el, sec) {
    const st = JSON.parse(JSON.stringify(el._state));
    st.view.section = sec || st.view.section;
    return location.href.split('#')[0] + '#' + State.encodeState(st);
  }

  function scenarioText(el, sec) {
    const b = Scenario.build[sec](el._state[sec], el._state);
    return typeof b.scenario === 'string' ? b.scenario : JSON.stringify(b.scenario);
  }

  // Inside a single-quoted HTML attribute: & and ' escaped.
  const attr = (s) => s.replace(/&/g, '&amp;').replace(/'/g, '&#39;');

  function elementCode(el, sec) {
    return (
      '<script src="gpucalc-embed.js"></script>\n<gpu-calc section="' +
      sec +
      '" scenario=\'' +
      attr(scenarioText(el, sec)) +
      "'>" +
      'Loading gpucalc\u2026 (if this stays: the calculator needs JavaScript and WebAssembly, and gpucalc-embed.js beside this page)</gpu-calc>'
    );
  }

  function iframeCode(el, sec) {
    return (
      '<iframe src="frame.html#section=' +
      sec +
      '&amp;scenario=' +
      encodeURIComponent(scenarioText(el, sec)) +
      '" width="100%" height="760" title="gpucalc: ' +
      State.TITLES[sec] +
      '"></iframe>'
    );
  }

  function code(el, sec, kind) {
    return kind === 'link' ? link(el, sec) : kind === 'iframe' ? iframeCode(el, sec) : elementCode(el, sec);
  }

  // Copies text; the status next to the buttons says what happened. Focus stays on `button`.
  function copy(text, button, status, what) {
    const done = () => {
      status.textContent = what + ' copied.';
      button.focus();
    };
    const manual = () => {
      const box = h('textarea', { class: 'copy-box', readonly: true, rows: '3', 'aria-label': what + ' to copy' });
      box.value = text;
      status.textContent = '';
      status.append(what + ': the clipboard is not available here; copy it from this box. ', box);
      box.select();
      let ok = false;
      try {
        ok = document.execCommand && document.execCommand('copy');
      } catch (e) {
        ok = false;
      }
      if (ok) {
        status.textContent = what + ' copied.';
      }
      button.focus();
    };
    try {
      if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(done, manual);
      else manual();
    } catch (e) {
      manual();
    }
  }

  // The buttons under an answer (or in the toolbar): copy link (pages that keep their state in the
  // URL), embed code, iframe code.
  function buttons(el, sec) {
    const status = h('span', { class: 'share-status', role: 'status', 'aria-live': 'polite' });
    const b = (kind, label, what) => {
      const btn = h('button', { type: 'button', class: 'small', 'data-share': kind, onclick: () => copy(code(el, sec, kind), btn, status, what) }, label);
      return btn;
    };
    const list = [];
    if (el._syncUrl) list.push(b('link', 'Copy link', 'Link'));
    list.push(b('element', 'Copy embed code', 'Embed code'), b('iframe', 'Copy iframe code', 'Iframe code'));
    return h('div', { class: 'share' }, list, status);
  }

  return { link, elementCode, iframeCode, code, copy, buttons };
})();
