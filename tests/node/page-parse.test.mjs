// The page's human number input (web/parse.js): every form a person types, in English, German and
// French locales, and the words shown next to the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { webModule } from './common.mjs';

const Parse = webModule('parse.js', 'Parse', { Intl });
const value = (text, kind, locale = 'en-US') => {
  const r = Parse.parse(text, kind, locale);
  assert.ok(!r.error, `${JSON.stringify(text)} (${kind || 'number'}, ${locale}): ${r.error}`);
  return r.value;
};
const error = (text, kind, locale = 'en-US') => {
  const r = Parse.parse(text, kind, locale);
  assert.ok(r.error, `${JSON.stringify(text)} should be refused, got ${r.value}`);
  return r.error;
};

test('plain numbers and scientific notation', () => {
  assert.equal(value('1024'), 1024);
  assert.equal(value('1.5e12'), 1.5e12);
  assert.equal(value('3E+11'), 3e11);
  assert.equal(value('300e9'), 3e11);
  assert.equal(value('1.5×10^12'), 1.5e12);
  assert.equal(value('  42  '), 42);
  assert.equal(value('.5'), 0.5);
  assert.equal(value('-5'), -5);
});

test('letter and word multipliers: 1k, 1M, 70B, 15T, 2bn, 1.5 million', () => {
  assert.equal(value('1k'), 1000);
  assert.equal(value('1K'), 1000);
  assert.equal(value('1M'), 1e6);
  assert.equal(value('1m'), 1e6);
  assert.equal(value('70B'), 7e10);
  assert.equal(value('70 B'), 7e10);
  assert.equal(value('15T'), 1.5e13);
  assert.equal(value('1.1T'), 1.1e12);
  assert.equal(value('2bn'), 2e9);
  assert.equal(value('1.5 million'), 1.5e6);
  assert.equal(value('3 trillion'), 3e12);
  assert.match(error('15X'), /"X" is not a unit/);
});

test('thousands separators in English: 1,000 and 1,000,000.5; a lone comma before other than three digits is a decimal comma', () => {
  assert.equal(value('1,000'), 1000);
  assert.equal(value('1,000,000'), 1e6);
  assert.equal(value('1,000,000.5'), 1000000.5);
  assert.equal(value('1,5'), 1.5);
  assert.equal(value('0,400'), 0.4);
  assert.equal(value('1.000'), 1); // the English decimal point
  assert.match(error('1,00,000'), /groups of three/);
  assert.match(error('1.2.3,4'), /two decimal separators|groups of three/);
});

test('German separators: 1.000 is a thousand, 1,5 is one and a half, 1.000,5 both', () => {
  assert.equal(value('1.000', 'number', 'de-DE'), 1000);
  assert.equal(value('1.000.000', 'number', 'de-DE'), 1e6);
  assert.equal(value('1,5', 'number', 'de-DE'), 1.5);
  assert.equal(value('1.000,5', 'number', 'de-DE'), 1000.5);
  assert.equal(value('1.5', 'number', 'de-DE'), 1.5); // a dot that cannot be grouping
  assert.equal(value('1,5T', 'number', 'de-DE'), 1.5e12);
});

test("French and Swiss separators: 1 000, narrow no-break spaces, 1'000", () => {
  assert.equal(value('1 000', 'number', 'fr-FR'), 1000);
  assert.equal(value('1\u202f000\u202f000', 'number', 'fr-FR'), 1e6);
  assert.equal(value('1 000,5', 'number', 'fr-FR'), 1000.5);
  assert.equal(value("1'000", 'number', 'de-CH'), 1000);
  assert.match(error('1 00'), /threes/);
});

test('dollars: $2, $2.50, 2 USD, US$3; only in price fields', () => {
  assert.equal(value('$2', 'usd'), 2);
  assert.equal(value('$2.50', 'usd'), 2.5);
  assert.equal(value('2 USD', 'usd'), 2);
  assert.equal(value('US$3', 'usd'), 3);
  assert.equal(value('2 $', 'usd'), 2);
  assert.equal(value('$100k', 'usd'), 1e5);
  assert.match(error('$2', 'count'), /dollars is not accepted here/);
});

test('percentages: 40 %, 40%, 0.4 in fraction fields; 40 alone is refused with a hint', () => {
  assert.equal(value('40 %', 'fraction'), 0.4);
  assert.equal(value('40%', 'fraction'), 0.4);
  assert.equal(value('40\u00a0%', 'fraction'), 0.4);
  assert.equal(value('0.4', 'fraction'), 0.4);
  assert.equal(value('0,4', 'fraction', 'de-DE'), 0.4);
  assert.equal(value('35.5 %', 'fraction'), 0.355);
  assert.match(error('40', 'fraction'), /40 is more than 1: write 40 % or 0.4/);
  // Past 100 it is no percentage either, and said so as the field's other numbers are (page review, 2026-12-05: "150").
  assert.match(error('150', 'fraction'), /^150 is more than 100 %: write a fraction like 0.4 or a percentage like 40 %$/);
  assert.match(error('40 %', 'count'), /percentage is not accepted here/);
  assert.match(error('40k', 'fraction'), /not a unit/);
});

test('a percentage above 100 % is refused in the terms the user wrote, not as the fraction it becomes', () => {
  assert.equal(error('150 %', 'fraction'), '"150 %" is more than 100 %');
  assert.equal(error('1e5 %', 'fraction'), '"1e5 %" is more than 100 %');
  // As typed: not rounded to "100 %" (red-team), in the locale's own digits.
  assert.equal(error('100.0000001 %', 'fraction'), '"100.0000001 %" is more than 100 %');
  assert.equal(error('100,5 %', 'fraction', 'de-DE'), '"100,5 %" is more than 100 %');
  assert.equal(error('-5 %', 'fraction'), '"-5 %" is below 0 %');
  assert.equal(value('100 %', 'fraction'), 1);
  assert.equal(value('0 %', 'fraction'), 0);
});

test('times: 0.5, 500 ms, 25ms, 2 s', () => {
  assert.equal(value('0.5', 'seconds'), 0.5);
  assert.equal(value('500 ms', 'seconds'), 0.5);
  assert.equal(value('25ms', 'seconds'), 0.025);
  assert.equal(value('2 s', 'seconds'), 2);
  assert.equal(value('1 min', 'seconds'), 60);
});

test('text that is not a number is refused with examples, never guessed', () => {
  for (const t of ['lots', '<script>', '1e400', '--5', '1..2', 'k', '$']) assert.match(error(t), /write a number like|too large|not a unit/, t);
  assert.equal(JSON.stringify(Parse.parse('   ', 'count')), '{"empty":true}');
  assert.equal(JSON.stringify(Parse.parse('', 'usd')), '{"empty":true}');
});

test('the parsed value in words, as shown next to the field', () => {
  assert.equal(Parse.describe(1.5e13, 'count'), '15 trillion');
  assert.equal(Parse.describe(7e10, 'number'), '70 billion');
  assert.equal(Parse.describe(1536, 'count'), '1,536');
  assert.equal(Parse.describe(1e6, 'count'), '1,000,000');
  assert.equal(Parse.describe(3e11, 'count'), '300 billion');
  assert.equal(Parse.describe(0.4, 'fraction'), '40\u00a0%');
  assert.equal(Parse.describe(2, 'usd'), '$2.00');
  assert.equal(Parse.describe(0.025, 'seconds'), '25\u00a0ms');
  assert.equal(Parse.describe(1.5, 'number'), '1.5');
});

test('the field\u2019s own unit may follow the number: 15T tokens, 512 GPUs, 30 days', () => {
  const withUnit = (text, unit, kind = 'count') => {
    const r = Parse.parse(text, kind, 'en-US', unit);
    assert.ok(!r.error, `${text} (${unit}): ${r.error}`);
    return r.value;
  };
  assert.equal(withUnit('15T tokens', 'tokens'), 15e12);
  assert.equal(withUnit('15 trillion tokens', 'tokens'), 15e12);
  assert.equal(withUnit('512 GPUs', 'devices'), 512);
  assert.equal(withUnit('1 device', 'devices'), 1);
  assert.equal(withUnit('64 devices', 'GPUs'), 64);
  assert.equal(withUnit('30 days', 'days', 'number'), 30);
  // Weeks, months and years in a days field: 7, 365.25 / 12 and 365.25 days (a newcomer's "3 months").
  assert.equal(withUnit('3 months', 'days', 'number'), 91.3125);
  assert.equal(withUnit('2 weeks', 'days', 'number'), 14);
  assert.equal(withUnit('1 year', 'days', 'number'), 365.25);
  assert.equal(withUnit('1.5 yrs', 'days', 'number'), 547.875);
  assert.equal(withUnit('1.5k months', 'days', 'number'), 45656.25);
  assert.equal(withUnit('3Months', 'days', 'number'), 91.3125);
  // "3 m" could be months or a million: asked; an object's own keys are not units.
  assert.match(Parse.parse('3 m', 'number', 'en-US', 'days').error, /could be months or million/);
  assert.match(Parse.parse('3 constructor', 'number', 'en-US', 'days').error, /"constructor" is not a unit this field knows/);
  // Only in a days field: elsewhere "months" is still an unknown unit.
  assert.match(Parse.parse('3 months', 'count', 'en-US', 'tokens').error, /"months" is not a unit this field knows/);
  assert.equal(withUnit('70B params', 'parameters'), 7e10);
  assert.equal(withUnit('2 copies', 'copies'), 2);
  // A time field keeps its own units ("500 ms" is not 500 with a unit word "s" removed).
  assert.equal(Parse.parse('500 ms', 'seconds', 'en-US', 's or ms').value, 0.5);
  // A bare 50 in a latency target (s or ms) is asked about, never read as 50 s per token (page
  // review, 2026-12-05); a small bare number is seconds, and a unit settles it.
  assert.equal(Parse.parse('50', 'seconds', 'en-US', 's or ms').error, '50 without a unit: write 50 ms or 50 s');
  assert.equal(Parse.parse('2', 'seconds', 'en-US', 's or ms').value, 2);
  assert.equal(Parse.parse('50 ms', 'seconds', 'en-US', 's or ms').value, 0.05);
  assert.equal(Parse.parse('50 s', 'seconds', 'en-US', 's or ms').value, 50);
  // Another field's unit, or a word alone, is still refused, naming the word.
  assert.match(Parse.parse('3 devices', 'count', 'en-US', 'tokens').error, /"devices" is not a unit this field knows/);
  assert.match(Parse.parse('tokens', 'count', 'en-US', 'tokens').error, /^not a number/);
});

test('a count written 1.000 with the locale\u2019s decimal mark is asked about, never read as 1 or 1000 silently', () => {
  assert.match(error('1.000', 'count'), /^"1\.000" could be 1 or 1000/);
  assert.match(error('2.500', 'count'), /could be 2 or 2500/);
  assert.match(error('1,000', 'count', 'de-DE'), /could be 1 or 1000/);
  assert.equal(value('1.000', 'count', 'de-DE'), 1000); // the German grouping mark
  assert.equal(value('1,000', 'count'), 1000);
  assert.equal(value('1.500T', 'count'), 1.5e12); // a multiplier makes the decimal point plain
  assert.equal(value('1.000', 'number'), 1); // not a count: the English decimal point
});

test('text longer than any number (100 characters) is refused before the patterns run (they backtrack over every prefix)', () => {
  for (const t of ['1'.repeat(100000) + '#x', '1 '.repeat(50000) + '#x', '1.000'.repeat(20000), '1'.repeat(101)])
    assert.match(error(t, 'count'), /^too long for a number \(\d+ characters\)/);
  assert.equal(value('1 000 000 000 000 000 000', 'count'), 1e18);
  assert.equal(value('1'.repeat(100), 'number'), Number('1'.repeat(100)));
});

test('text that is not digits is "not a number", not a digit-grouping hint', () => {
  assert.match(error('<img src=x onerror=alert(1)>', 'count'), /^not a number/);
  assert.match(error('fifteen trillion', 'count'), /^not a number/);
  assert.match(error('1 00', 'count'), /digits grouped by spaces must come in threes/);
});

test('out-of-range input is echoed as it was read, never as Infinity or hundreds of digits', () => {
  assert.equal(Parse.describe(1e308, 'fraction'), '1e310\u00a0%'); // x 100 overflows a double
  assert.equal(Parse.describe(-1e308, 'fraction'), '-1e310\u00a0%');
  assert.equal(Parse.describe(1e-7, 'fraction'), '1e-5\u00a0%');
  assert.equal(Parse.describe(1e308, 'count'), '1e308');
  assert.equal(Parse.describe(1e-320, 'count'), '1e-320');
  assert.equal(Parse.describe(1e-320, 'usd'), '$1e-320'); // not "$0.00": a price the core may refuse
  assert.equal(Parse.describe(-5, 'usd'), '\u2212$5.00');
  assert.equal(Parse.describe(1234.5, 'usd'), '$1,234.50');
  for (const v of [1e308, -1e308, 1e-320, 5e-324, 1.7976931348623157e308])
    for (const k of ['fraction', 'usd', 'count', 'number', 'seconds']) {
      const d = Parse.describe(v, k);
      assert.ok(!/Infinity|NaN|undefined/.test(d) && d.length < 24, `${v} (${k}) -> ${d}`);
    }
});

test('the locale\u2019s separators come from Intl', () => {
  assert.equal(JSON.stringify(Parse.separators('en-US')), '{"decimal":".","group":","}');
  assert.equal(JSON.stringify(Parse.separators('de-DE')), '{"decimal":",","group":"."}');
});

test('numbers written back into fields read back exactly, in English and German', () => {
  for (const locale of ['en-US', 'de-DE', 'fr-FR']) {
    for (const v of [3e11, 1.56e13, 1.8e12, 1024, 0.34, 2.125, 1e6, 123456789, 1.5e-7, 2.5e22, 1.75]) {
      const t = Parse.text(v, locale);
      assert.equal(Parse.parse(t, 'number', locale).value, v, `${v} -> ${t} (${locale})`);
    }
  }
  assert.equal(Parse.text(3e11, 'en-US'), '300B');
  assert.equal(Parse.text(1.56e13, 'en-US'), '15.6T');
  assert.equal(Parse.text(0.34, 'de-DE'), '0,34');
});

test('"-0" is zero, as the core reads it, and is shown as 0', () => {
  assert.ok(Object.is(value('-0'), 0));
  assert.ok(Object.is(value('-0.0 %', 'fraction'), 0));
  assert.equal(Parse.describe(value('-0'), 'count'), '0');
});

test('a fraction far past 100 is said in powers of ten, as typed', () => {
  assert.equal(Parse.parse('1e308', 'fraction', 'en-US').error, '1e308 is more than 100 %: write a fraction like 0.4 or a percentage like 40 %');
});
