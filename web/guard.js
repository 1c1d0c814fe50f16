// Bounds on scenario text before it reaches the WebAssembly module (the core validates too; this is
// what keeps the page responsive): a size limit, a nesting limit checked in one linear pass (no
// recursion), and no claim that varies the claim itself (each level multiplies the work).
// Part of the page bundle (scripts/bundle.mjs); loadable on its own for the node tests.
const Guard = (function () {
  const MAX_DEPTH = 64;
  const MAX_EDITOR_CHARS = 65536; // the Scenario JSON editor, and its saved text
  const MAX_IMPORT_CHARS = 1 << 20; // an imported file (the core's own limit is 1 MiB)

  // Deepest nesting of objects and arrays in a JSON text; brackets inside strings do not count.
  // Stops as soon as `limit` is passed, so hostile text costs one pass at most.
  function depth(text, limit) {
    let d = 0;
    let max = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === 92)
          i++; // backslash: skip the escaped character
        else if (c === 34) inString = false;
      } else if (c === 34) inString = true;
      else if (c === 123 || c === 91) {
        // { [
        if (++d > max && (max = d) > limit) return max;
      } else if (c === 125 || c === 93) d--;
    }
    return max;
  }

  // Why this text must not be evaluated (a sentence), or null. Cheap: length and one scan.
  function checkText(text, maxChars) {
    if (typeof text !== 'string') return 'the scenario must be text';
    if (text.length > maxChars) return 'the scenario is ' + F.en(text.length) + ' characters long; at most ' + F.en(maxChars) + ' are accepted here';
    if (depth(text, MAX_DEPTH) > MAX_DEPTH) return 'the scenario is nested deeper than ' + MAX_DEPTH + ' levels';
    return null;
  }

  // Checks on the parsed scenario: a claim whose varied path is the claim itself would nest claims
  // in claims, each level multiplying the estimates (up to 16 each).
  function checkScenario(sc) {
    const claim = sc && typeof sc === 'object' ? sc.claim : null;
    const vary = claim && typeof claim === 'object' ? claim.vary : null;
    if (vary && typeof vary === 'object' && typeof vary.path === 'string' && vary.path.split('.')[0].trim() === 'claim')
      return 'claim.vary.path cannot vary the claim itself (claims inside claims are not evaluated)';
    return null;
  }

  // Both checks; parses only text that passed the first. Returns a sentence or null (unparseable
  // text is left to the core, which names the problem).
  function check(text, maxChars) {
    const why = checkText(text, maxChars);
    if (why) return why;
    let sc;
    try {
      sc = JSON.parse(text);
    } catch (e) {
      return null;
    }
    return checkScenario(sc);
  }

  return { MAX_DEPTH, MAX_EDITOR_CHARS, MAX_IMPORT_CHARS, depth, checkText, checkScenario, check };
})();
