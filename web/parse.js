// Human number input: "15T", "1.5e12", "70B", "1,000", "1k", "1M", "$2", "40 %", "1.000,5" (German),
// "1 000" (French), "25 ms". One parser for every numeric field of the page; the node tests
// (tests/node/page-parse.test.mjs) cover each form. Part of the page bundle (scripts/bundle.mjs);
// loadable on its own. No DOM.
// parse(text, kind, locale, unit) -> { value } | { empty: true } | { error }
//   kind: 'number' (default), 'count' (a whole number of things), 'fraction' (0.4 or 40 %),
//         'usd' ($2, 2 USD), 'seconds' (0.5, 500 ms, 2 s)
//   locale: decides what a lone "," or "." means ("1,000" is a thousand in en, "1,5" is 1.5 in de).
//   unit: the field's unit ("tokens", "devices"): its word may follow the number ("15T tokens").
const Parse = (function () {
  const MULTIPLIERS = {
    k: 1e3,
    thousand: 1e3,
    m: 1e6,
    mn: 1e6,
    mio: 1e6,
    million: 1e6,
    b: 1e9,
    bn: 1e9,
    billion: 1e9,
    g: 1e9,
    t: 1e12,
    tn: 1e12,
    trillion: 1e12,
    p: 1e15,
    quadrillion: 1e15
  };
  const TIME_UNITS = { ns: 1e-9, µs: 1e-6, us: 1e-6, ms: 1e-3, s: 1, sec: 1, min: 60, h: 3600 };
  // A days field also reads weeks, months and years ("3 months"): the Julian year of 365.25 days (IAU), a month its twelfth.
  const DAY_UNITS = {
    week: 7,
    weeks: 7,
    wk: 7,
    wks: 7,
    month: 365.25 / 12,
    months: 365.25 / 12,
    mo: 365.25 / 12,
    year: 365.25,
    years: 365.25,
    yr: 365.25,
    yrs: 365.25
  };
  // A number, then one of those words (or "m", which is asked about).
  const DAY_UNIT = new RegExp('^(.*?\\d[a-z]?)\\s*(' + Object.keys(DAY_UNITS).join('|') + '|m)$', 'i');
  const SPACES = /[\s\u00a0\u202f\u2009']/;
  const kMaxLength = 100; // characters of one field: "1 000 000 000 000 000 000 tokens" is 32

  // The decimal and group separators of a locale ('.' and ',' when Intl cannot tell), asked of Intl
  // once per locale and only when a number needs them: the first Intl call loads the ICU data (tens
  // of ms on a cold page), and most numbers ("15T", "2048") read the same in every locale.
  const SEPARATORS = new Map();
  function separators(locale) {
    const key = locale || '';
    if (!SEPARATORS.has(key)) SEPARATORS.set(key, askSeparators(locale));
    return SEPARATORS.get(key);
  }
  function askSeparators(locale) {
    try {
      const parts = new Intl.NumberFormat(locale || undefined).formatToParts(1234567.5);
      const dec = (parts.find((p) => p.type === 'decimal') || {}).value || '.';
      const grp = (parts.find((p) => p.type === 'group') || {}).value || ',';
      return { decimal: dec, group: grp };
    } catch (e) {
      return { decimal: '.', group: ',' };
    }
  }

  // The digits and separators of a number -> its value, or an error sentence.
  function body(s, decimalMark) {
    // Spaces, narrow spaces and apostrophes only ever group digits (1 000, 1'000).
    const spaced = s.split(SPACES).filter((x) => x !== '');
    if (spaced.length > 1 && !spaced.every((g) => /^[\d.,]+$/.test(g))) return { error: null }; // words, not grouped digits
    if (spaced.length > 1) {
      if (!spaced.slice(1).every((g) => /^\d{3}([.,]\d*)?$/.test(g)) || !/^\d{1,3}$/.test(spaced[0]))
        return { error: 'digits grouped by spaces must come in threes (1 000 000)' };
      s = spaced.join('');
    }
    if (!/^\d*([.,]\d*)*$/.test(s) || !/\d/.test(s)) return { error: null };
    const dots = (s.match(/\./g) || []).length;
    const commas = (s.match(/,/g) || []).length;
    let decimal = null;
    let group = null;
    if (dots && commas) {
      decimal = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
      group = decimal === '.' ? ',' : '.';
      if ((decimal === '.' ? dots : commas) > 1) return { error: 'two decimal separators' };
    } else if (dots + commas > 1) {
      group = dots ? '.' : ',';
    } else if (dots + commas === 1) {
      const c = dots ? '.' : ',';
      const [head, tail] = s.split(c);
      // A lone separator is the locale's decimal point, unless it can only be grouping: exactly three
      // digits after it, one to three (not a lone 0) before it, and it is not the locale's decimal.
      if (tail.length === 3 && /^[1-9]\d{0,2}$/.test(head) && c !== decimalMark()) group = c;
      else decimal = c;
    }
    let intPart = s;
    let frac = '';
    if (decimal) {
      const i = s.lastIndexOf(decimal);
      intPart = s.slice(0, i);
      frac = s.slice(i + 1);
    }
    if (group) {
      const groups = intPart.split(group);
      if (!/^\d{1,3}$/.test(groups[0]) || !groups.slice(1).every((g) => /^\d{3}$/.test(g)))
        return { error: '"' + group + '" separates groups of three digits (1,000,000)' };
      intPart = groups.join('');
    }
    if (!/^\d*$/.test(intPart) || !/^\d*$/.test(frac)) return { error: null };
    return { value: Number((intPart || '0') + (frac ? '.' + frac : '')) };
  }

  // The words of a field's own unit a person may type after the number: "15T tokens", "512 GPUs",
  // "30 days" (the unit's first word, singular and plural; GPUs and devices are the same thing).
  function unitWords(unit) {
    const w = /^[A-Za-z]{3,}/.exec(unit || ''); // not "s or ms" (the time parser's own) nor "r"
    if (!w) return [];
    const word = w[0].toLowerCase();
    const one = word.endsWith('ies') ? word.slice(0, -3) + 'y' : word.endsWith('s') ? word.slice(0, -1) : word;
    const words = [word, one];
    if (one === 'device' || one === 'gpu') words.push('device', 'devices', 'gpu', 'gpus');
    if (one === 'parameter') words.push('params', 'param');
    return words;
  }

  function parse(text, kind, locale, unit) {
    kind = kind || 'number';
    let s = String(text == null ? '' : text).trim();
    if (s === '') return { empty: true };
    const own = kind === 'seconds' ? [] : unitWords(unit);
    // "1M requests/day", "1M a day": a per-day unit written after the number.
    if (/per day/.test(unit || '')) s = s.replace(/\s*(?:\/|per|a)\s*day$/i, '').trim();
    if (own.length) s = s.replace(new RegExp('(\\d|[a-zA-Z%])\\s*(?:' + own.join('|') + ')$', 'i'), '$1').trim();
    const hint =
      kind === 'fraction'
        ? 'a fraction like 0.4 or a percentage like 40 %'
        : kind === 'usd'
          ? 'an amount like 2, $2 or $2.50'
          : kind === 'seconds'
            ? 'a time like 0.5, 500 ms or 2 s'
            : /^days?$/i.test(unit || '')
              ? 'a number of days like 30, 90 or 365 (or 3 months, 2 weeks, 1 year)'
              : 'a number like 1,000, 1k, 70B, 15T or 1.5e12';
    const fail = (why) => ({ error: (why ? why + ': ' : 'not a number: ') + 'write ' + hint });
    // No number a person writes is this long; the patterns below backtrack over every prefix (100,000 characters took 10 s).
    if (s.length > kMaxLength) return fail('too long for a number (' + s.length + ' characters)');
    s = s.replace(/[\u2212\u2013]/g, '-'); // typographic minus
    // "90-100", "90 to 100": a range where one value is asked (a claim's "90-100 days").
    if (/^\d[\d.,]*\s*(?:-|to)\s*\d[\d.,]*$/i.test(s)) return fail('"' + s + '" is a range, and this field takes one value (try each end)');
    let percent = false;
    let dollars = false;
    let scale = 1;
    if (/%$/.test(s)) {
      percent = true;
      s = s.slice(0, -1).trim();
    }
    if (/^(us)?\$/i.test(s)) {
      dollars = true;
      s = s.replace(/^(us)?\$\s*/i, '');
    }
    if (/(\$|\busd)$/i.test(s)) {
      dollars = true;
      s = s.replace(/\s*(\$|usd)$/i, '');
    }
    if (/^days?$/i.test(unit || '')) {
      const m = DAY_UNIT.exec(s);
      // "3 m": months or million? Asked, never guessed ("m" is a million in other fields).
      if (m && m[2].toLowerCase() === 'm') return { error: '"' + s + '" could be months or million: write 3 months or 3M' };
      if (m) {
        scale = DAY_UNITS[m[2].toLowerCase()];
        s = m[1].trim();
      }
    }
    let sign = 1;
    if (/^[-+]/.test(s)) {
      if (s[0] === '-') sign = -1;
      s = s.slice(1).trim();
    }
    if (kind === 'seconds') {
      const m = /^(.*?)\s*(ns|µs|us|ms|sec|min|s|h)$/i.exec(s);
      if (m && /\d/.test(m[1])) {
        scale = TIME_UNITS[m[2].toLowerCase()] || TIME_UNITS[m[2]];
        s = m[1];
      }
    }
    // Word or letter multipliers: 15T, 70 B, 1.5 million, 2bn.
    const mult = /^(.*?\d[\d.,\s\u00a0\u202f']*)\s*([a-zA-Z]+)$/.exec(s);
    if (mult && !/^e$/i.test(mult[2])) {
      const f = kind === 'fraction' || kind === 'seconds' || !Object.hasOwn(MULTIPLIERS, mult[2].toLowerCase()) ? null : MULTIPLIERS[mult[2].toLowerCase()];
      // People count users; the traffic field counts requests (a newcomer's "1000 users").
      if (!f && /^users?$/i.test(mult[2]) && /request/.test(unit || ''))
        return {
          error: 'users are not requests: write the requests ' + unit.replace(/^requests\s*/, '') + ' (100k users sending 10 each: 1M)'
        };
      if (!f) return fail('"' + mult[2] + '" is not a unit this field knows');
      scale *= f;
      s = mult[1].trim();
    }
    // Scientific notation: 1.5e12, 3E+11, 1.5×10^12, 1.5*10^12.
    let exp = 0;
    const power = /^(.*?)(?:[eE]([-+]?\d+)|\s*[x×*]\s*10\s*\^\s*([-+]?\d+))$/.exec(s);
    if (power && /\d/.test(power[1])) {
      exp = Number(power[2] !== undefined ? power[2] : power[3]);
      s = power[1].trim();
    }
    const decimalMark = () => separators(locale).decimal;
    // A whole count written "1.000" (English) or "1,000" (German) with the locale's decimal mark:
    // one, or a thousand written as another locale groups it? Asked, never guessed.
    const lone = kind === 'count' && scale === 1 && exp === 0 && /^([1-9]\d{0,2})([.,])(\d{3})$/.exec(s);
    if (lone && lone[2] === decimalMark())
      return { error: '"' + s + '" could be ' + lone[1] + ' or ' + lone[1] + lone[3] + ': write ' + lone[1] + lone[3] + ' or ' + lone[1] };
    const b = body(s, decimalMark);
    if (b.value === undefined) return fail(b.error);
    let value = sign * b.value * scale * Math.pow(10, exp) + 0; // + 0: "-0" is 0, as the core reads it
    if (!Number.isFinite(value)) return fail('too large');
    // Tidy binary noise from scaling (1.1 x 1e12 = 1100000000000.0002).
    if (scale !== 1 || exp !== 0) value = Number(value.toPrecision(15));
    if (percent) {
      if (kind !== 'fraction') return { error: 'a percentage is not accepted here: write ' + hint };
      // Every fraction is 0-1: said in the terms typed ("150 %", not 1.5).
      if (value > 100 || value < 0) return { error: '"' + String(text).trim() + '" is ' + (value < 0 ? 'below 0 %' : 'more than 100 %') };
      return { value: Number((value / 100).toPrecision(15)) };
    }
    if (dollars && kind !== 'usd') return { error: 'an amount in dollars is not accepted here: write ' + hint };
    if (kind === 'fraction' && value > 100) return fail((outOfWords(value) ? sci(value) : value) + ' is more than 100 %');
    if (kind === 'fraction' && value > 1) return { error: value + ' is more than 1: write ' + value + ' % or ' + value / 100 };
    const bare = kind === 'seconds' && /ms/.test(unit || '') && value >= 10 && /^[\d.,\s]+$/.test(String(text).trim()); // 50 ms or s? Asked
    if (bare) return { error: value + ' without a unit: write ' + value + ' ms or ' + value + ' s' };
    return { value };
  }

  // The parsed value in words beside the field: "15 trillion", "1,536", "40 %", "$2.50"; beyond 10^18 or below 10^-4 1e308.
  function sci(x) {
    const [m, e] = x.toExponential(3).split('e'); // the string, never re-read as a number (1.798e308 would overflow)
    return String(Number(m)) + 'e' + Number(e);
  }
  function outOfWords(a) {
    return a >= 1e18 || (a > 0 && a < 1e-4);
  }
  function describe(value, kind) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return '';
    if (kind === 'fraction') {
      // As a percentage: x 100, also where that overflows (1e308 -> 1e310 %).
      const [m, e] = sci(value).split('e');
      const pct = outOfWords(Math.abs(value * 100)) ? m + (e === undefined ? '' : 'e' + (Number(e) + 2)) : Number((value * 100).toPrecision(6));
      return pct + '\u00a0%';
    }
    if (kind === 'usd') {
      const a = Math.abs(value);
      const digits = outOfWords(a) ? sci(a) : F.en(a, { minimumFractionDigits: 2, maximumFractionDigits: a < 1 ? 4 : 2 });
      return (value < 0 ? '\u2212$' : '$') + digits;
    }
    if (kind === 'seconds') {
      const a = Math.abs(value);
      return a < 1e-3
        ? Number((value * 1e6).toPrecision(4)) + '\u00a0µs'
        : a < 1
          ? Number((value * 1e3).toPrecision(4)) + '\u00a0ms'
          : Number(value.toPrecision(6)) + '\u00a0s';
    }
    const a = Math.abs(value);
    if (outOfWords(a)) return sci(value);
    if (a < 1e9 && Number.isInteger(value)) return F.en(value);
    if (a < 1e6) return F.en(value, { maximumSignificantDigits: 8 });
    const words = [
      [1e15, 'quadrillion'],
      [1e12, 'trillion'],
      [1e9, 'billion'],
      [1e6, 'million']
    ];
    for (const [f, w] of words) if (a >= f) return F.en(Number((value / f).toPrecision(4)), { maximumSignificantDigits: 4 }) + ' ' + w;
    return F.en(value);
  }

  // A number written into a field (an opened scenario, a suggested layout) so that parse() reads it
  // back exactly in this locale: 300B, 15.6T, 1024, 0.34 (0,34 in German).
  function text(value, locale) {
    if (typeof value !== 'number' || !Number.isFinite(value)) return '';
    const a = Math.abs(value);
    for (const [f, w] of [
      [1e12, 'T'],
      [1e9, 'B'],
      [1e6, 'M']
    ]) {
      if (a >= f) {
        const q = value / f;
        if (Number(q.toFixed(3)) === q) return localDecimal(String(q), locale) + w;
        break;
      }
    }
    return localDecimal(a >= 1e21 || (a < 1e-6 && a > 0) ? value.toExponential() : String(value), locale);
  }
  function localDecimal(digits, locale) {
    return digits.includes('.') ? digits.replace('.', separators(locale).decimal) : digits;
  }

  return { parse, describe, separators, text };
})();
