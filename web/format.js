// Number formatting for people: 1.2 PFLOP/s, 3.4 TiB, 21.5 days, $4.6M. The exact value is kept for
// hover/expansion by the caller. Pure functions, no DOM; loaded as a classic script (works from file://).
(function (root) {
  'use strict';
  function finite(x) {
    return typeof x === 'number' && isFinite(x);
  }
  function sig(x, digits) {
    if (x === 0) return '0';
    const a = Math.abs(x);
    const d = a >= 100 ? 0 : a >= 10 ? 1 : 2;
    return x.toFixed(Math.min(d, digits === undefined ? 2 : digits));
  }
  function scaled(x, unit, base, prefixes) {
    if (!finite(x)) return '—';
    let i = 0;
    let v = x;
    while (Math.abs(v) >= base && i < prefixes.length - 1) {
      v /= base;
      i++;
    }
    return grouped(v) + '\u00a0' + prefixes[i] + unit;
  }
  // SI prefixes stop at E: beyond it the number grows ("1,200 EFLOP/s"), never Z, Y, R or Q.
  const SI = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  function flops(x) {
    return scaled(x, 'FLOP/s', 1000, SI);
  }
  function flopCount(x) {
    if (!finite(x)) return '—';
    if (x < 1e6) return sig(x) + ' FLOP';
    const [m, e] = x.toExponential(2).split('e+');
    return (
      m +
      '\u00d710' +
      e
        .split('')
        .map((c) => '\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079'[Number(c)])
        .join('') +
      ' FLOP'
    );
  }
  // Memory in binary units, as the vendors' capacities are (an "80 GB" H100 holds 80 GiB); rates
  // (bandwidth, FLOP/s) stay decimal, as datasheets print them.
  const IEC = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
  function bytes(x) {
    return scaled(x, 'B', 1024, IEC);
  }
  function bandwidth(x) {
    return scaled(x, 'B/s', 1000, SI);
  }
  function watts(x) {
    return scaled(x, 'W', 1000, SI);
  }
  // x as Intl's en-US NumberFormat with options o writes it (o: maximumSignificantDigits, or minimum- and
  // maximumFractionDigits, 0 and 3 by default), without Intl: the first Intl call of a page loads the
  // ICU data, 35-90 ms before the first answer on a cold load (measured in Chromium 2026-12-01).
  // Like ICU, it rounds the shortest decimal that reads back as x, half away from zero.
  function en(x, o) {
    if (typeof x !== 'number' || isNaN(x)) return 'NaN';
    const neg = x < 0 || Object.is(x, -0) ? '-' : '';
    if (!isFinite(x)) return neg + '\u221e';
    o = o || {};
    const [m, e] = Math.abs(x).toExponential().split('e');
    let d = m.replace('.', '').split('').map(Number); // the digits; the point after digit `point`
    let point = Number(e) + 1;
    const keep =
      o.maximumSignificantDigits !== undefined ? o.maximumSignificantDigits : point + (o.maximumFractionDigits !== undefined ? o.maximumFractionDigits : 3);
    if (d[0] === 0) d = [];
    if (keep < d.length) {
      const up = keep >= 0 && d[keep] >= 5;
      d = d.slice(0, Math.max(keep, 0));
      if (up) {
        let i = d.length - 1;
        while (i >= 0 && d[i] === 9) d[i--] = 0;
        if (i >= 0) d[i]++;
        else (d.unshift(1), point++);
      } else if (keep < 0) d = [];
    }
    while (d.length && d[d.length - 1] === 0) d.pop();
    if (!d.length) point = 1;
    const digits = d.join('');
    let int = point > 0 ? (digits.slice(0, point) + '0'.repeat(Math.max(0, point - d.length))).replace(/^0+(?=\d)/, '') || '0' : '0';
    let frac = point > 0 ? digits.slice(point) : '0'.repeat(-point) + digits;
    const min = o.minimumFractionDigits || 0;
    if (frac.length < min) frac += '0'.repeat(min - frac.length);
    int = int.replace(/\B(?=(\d{3})+$)/g, ',');
    return neg + int + (frac ? '.' + frac : '');
  }
  // Beyond a million of the largest unit, digit groups stop being read: 3.12e16 (years, T GPU-hours).
  function sciText(x) {
    const [m, e] = x.toExponential(2).split('e');
    return Number(m) + 'e' + Number(e);
  }
  function grouped(v) {
    const a = Math.abs(v);
    return a >= 1e6 ? sciText(v) : a >= 1000 ? en(Math.round(v)) : sig(v);
  }
  function count(x) {
    if (!finite(x)) return '—';
    if (Math.abs(x) < 1e4) return Number.isInteger(x) || Math.abs(x) >= 1000 ? en(Math.round(x)) : sig(x);
    if (Math.abs(x) >= 1e18) return sciText(x); // not "279,788,678,442 T"
    let i = 0;
    let v = x;
    const p = ['', 'k', 'M', 'B', 'T'];
    while (Math.abs(v) >= 1000 && i < p.length - 1) {
      v /= 1000;
      i++;
    }
    return grouped(v) + '\u00a0' + p[i];
  }
  // Parameters: "70.6 B params".
  function params(x) {
    return finite(x) ? count(x) + (Math.abs(x) >= 1e4 ? ' params' : '\u00a0params') : '—';
  }
  // Energy in kWh, MWh, GWh, TWh; CO2 in kg, t, kt, Mt.
  function energy(kwh) {
    if (!finite(kwh)) return '—';
    const u = [
      [1e9, 'TWh'],
      [1e6, 'GWh'],
      [1e3, 'MWh']
    ].find(([f]) => Math.abs(kwh) >= f);
    return u ? sig(kwh / u[0]) + '\u00a0' + u[1] : sig(kwh) + '\u00a0kWh';
  }
  function co2(kg) {
    if (!finite(kg)) return '—';
    const u = [
      [1e9, 'Mt'],
      [1e6, 'kt'],
      [1e3, 't']
    ].find(([f]) => Math.abs(kg) >= f);
    return (u ? sig(kg / u[0]) + '\u00a0' + u[1] : sig(kg) + '\u00a0kg') + ' CO\u2082';
  }
  function usd(x) {
    if (!finite(x)) return '—';
    if (Math.abs(x) < 1) return '$' + x.toFixed(3);
    if (Math.abs(x) < 1000) return '$' + sig(x);
    return '$' + scaled(x, '', 1000, ['', 'k', 'M', 'B', 'T']).trim();
  }
  function duration(s) {
    if (!finite(s)) return '—';
    const a = Math.abs(s);
    if (a === 0) return '0\u00a0s';
    if (a < 1e-12) return sig(s * 1e15) + '\u00a0fs';
    if (a < 1e-9) return sig(s * 1e12) + '\u00a0ps';
    if (a < 1e-6) return sig(s * 1e9) + '\u00a0ns';
    if (a < 1e-3) return sig(s * 1e6) + '\u00a0µs';
    if (a < 1) return sig(s * 1e3) + '\u00a0ms';
    if (a < 120) return sig(s) + '\u00a0s';
    if (a < 7200) return sig(s / 60) + '\u00a0min';
    if (a < 172800) return sig(s / 3600) + '\u00a0h';
    if (a < 86400 * 730) return grouped(s / 86400) + '\u00a0days';
    return grouped(s / (86400 * 365.25)) + '\u00a0years';
  }
  function percent(x) {
    return finite(x) ? (x * 100).toFixed(1) + '\u00a0%' : '—';
  }
  function ratio(x) {
    return finite(x) ? sig(x) + '\u00d7' : '—';
  }
  function exact(x) {
    return finite(x) ? en(x, { maximumSignificantDigits: 17 }) : String(x);
  }
  // Chooses a formatter from a report key's unit suffix (the contract: units are in the keys).
  function byKey(key, x) {
    if (typeof x === 'boolean') return x ? 'yes' : 'no';
    if (typeof x === 'string') return x;
    if (/_ratio$/.test(key)) return ratio(x);
    if (/flops_per_second/.test(key)) return flops(x);
    if (/_per_second_per_(gpu|user)$|tokens_per_second/.test(key)) return count(x) + ' tok/s';
    if (/bytes_per_second/.test(key)) return bandwidth(x);
    if (/bytes/.test(key)) return bytes(x);
    if (/_usd/.test(key) || /usd_/.test(key)) return usd(x);
    if (/seconds/.test(key)) return duration(x);
    if (key === 'days') return grouped(x) + '\u00a0days';
    if (/_kwh$/.test(key)) return energy(x);
    if (/_kg$/.test(key)) return co2(x);
    if (/params$/.test(key)) return params(x);
    if (/_watts$/.test(key)) return watts(x);
    if (/_fraction$|^compute_utilization$/.test(key)) return percent(x);
    if (/^(mfu|hfu|efficiency|goodput|mfu_predicted|mfu_low|mfu_high|trainable_mfu|input_cost_share|acceptance_rate|prefix_cache_hit_rate)$/.test(key))
      return percent(x);
    if (/flops(_6nd)?$/.test(key)) return flopCount(x);
    return count(x);
  }
  // Where a report's gpu_hour_usd comes from, for the words after it (the scenario's echoed costs):
  // the price given, the owned hour (price amortised plus power), or the catalog's rent.
  function hourBasis(costs) {
    if (costs.ownership === 'owned') return 'owned: price amortised + power';
    return costs.gpu_hour_usd === null ? 'catalog, ' + costs.price_basis : '';
  }
  // "1 sequence", "2.5 sequences": a count with its noun, singular for one.
  const counted = (x, noun) => count(x) + ' ' + noun + (x === 1 ? '' : 's');
  // The price field's placeholder: the hour used when the field is empty.
  const hourPlaceholder = (costs, x) => (costs.ownership === 'owned' ? 'owned: ' : 'catalog: ') + usd(x);
  // A blank field whose value the core defaults says that value (a newcomer's review: a cleared
  // Prompt stayed blank while the answer used 512 tokens).
  const defaultPlaceholder = (sectionEl, key, value) => {
    const input = sectionEl.querySelector('[data-field="' + key + '"]');
    if (input && value != null) input.placeholder = 'default: ' + count(value);
  };
  const api = {
    en,
    hourBasis,
    hourPlaceholder,
    defaultPlaceholder,
    counted,
    flops,
    flopCount,
    bytes,
    bandwidth,
    watts,
    count,
    params,
    energy,
    co2,
    usd,
    duration,
    percent,
    ratio,
    exact,
    byKey
  };
  root.gpucalcFormat = api;
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
})(typeof globalThis !== 'undefined' ? globalThis : this);
