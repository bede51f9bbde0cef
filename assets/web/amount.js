// Numbers as a person types them, read in the page's language: in Albanian a dot or a space
// groups thousands and a comma is the decimal mark; in English a comma or a space groups and a
// dot is the decimal mark. An entry both languages read alike is taken as it is ("1.234,50",
// "130,5", "5 000"); one they would read differently ("5.000": five thousand, or five) is never
// guessed: the caller asks, offering each reading that fits. Pure (no page, no words), so the
// page's forms and the till app share it, and tests call it directly.

// Whether `digits` (no decimal mark) is an integer written with `groups` (a regex of the marks
// allowed between groups): one to three digits, then groups of exactly three; or no mark at all.
function grouped(digits, groups) {
  const parts = digits.split(groups);
  if (parts.length === 1) return /^\d+$/.test(parts[0]);
  return /^[1-9]\d{0,2}$/.test(parts[0]) && parts.slice(1).every((p) => /^\d{3}$/.test(p));
}

// The integer and fraction as `units` of 10^-places, or null when the fraction needs more places
// (extra places are taken when they are zeros: "5.000" as five is 5.00).
function units(whole, fraction, places) {
  const kept = fraction.slice(0, places);
  if (/[^0]/.test(fraction.slice(places))) return null;
  const text = `${whole}${kept.padEnd(places, '0')}`.replace(/^0+(?=\d)/, '');
  // Beyond 15 digits a JavaScript number is no longer exact.
  return text.length > 15 ? null : Number(text);
}

// Reads `text` typed on a page in `lang` ('sq' or 'en') as a number with at most `places`
// decimals (2 for lek, 3 for a quantity); `negative` allows a minus sign. Answers one of
//   {ok: true, units, value}           units of 10^-places (cents for lek), value a JSON number
//   {ok: false, reason: 'empty' | 'shape' | 'places' | 'negative'}
//   {ok: false, reason: 'ambiguous', readings: [units, ...]}
// A question's readings are those that fit, the page language's first; an entry whose only
// fitting reading is the page language's own is no question.
export function readNumber(text, lang, { places = 2, negative = false } = {}) {
  const typed = String(text ?? '').trim().replace(/[\s\u00a0\u202f\u2009]+/g, ' ');
  if (typed === '') return { ok: false, reason: 'empty' };
  const minus = /^[-\u2212]/.test(typed);
  const body = typed.replace(/^[-\u2212]\s?/, '');
  if (minus && !negative) return { ok: false, reason: 'negative' };
  if (!/^\d([\d., ]*\d)?$/.test(body) || /[., ]{2}/.test(body)) return { ok: false, reason: 'shape' };
  const sign = minus ? -1 : 1;
  const answer = (u) => (u === null ? { ok: false, reason: 'places' } : { ok: true, units: sign * u || 0, value: (sign * u || 0) / 10 ** places });
  const dots = body.split('.').length - 1;
  const commas = body.split(',').length - 1;
  if (dots && commas) {
    // Both marks: the last is the decimal mark, once; the other groups thousands.
    const mark = body.lastIndexOf('.') > body.lastIndexOf(',') ? '.' : ',';
    const at = body.lastIndexOf(mark);
    const whole = body.slice(0, at);
    if (whole.includes(mark) || !grouped(whole, mark === '.' ? /[, ]/ : /[. ]/)) return { ok: false, reason: 'shape' };
    return answer(units(whole.replace(/[, .]/g, ''), body.slice(at + 1), places));
  }
  if (dots + commas === 0) {
    return grouped(body, / /) ? answer(units(body.replace(/ /g, ''), '', places)) : { ok: false, reason: 'shape' };
  }
  const mark = dots ? '.' : ',';
  if (dots + commas > 1) {
    // One mark several times groups thousands: "1.234.567".
    return grouped(body, /[., ]/) ? answer(units(body.replace(/[., ]/g, ''), '', places)) : { ok: false, reason: 'shape' };
  }
  const at = body.indexOf(mark);
  const whole = body.slice(0, at);
  const fraction = body.slice(at + 1);
  if (!grouped(whole, / /) || !/^\d+$/.test(fraction)) return { ok: false, reason: 'shape' };
  const asDecimal = units(whole.replace(/ /g, ''), fraction, places);
  const asThousands = fraction.length === 3 && grouped(body, /[., ]/) ? units(body.replace(/[., ]/g, ''), '', places) : null;
  if (fraction.length !== 3 || asThousands === null) return answer(asDecimal);
  // One mark before three digits: thousands, or the decimal mark.
  const pageGroups = (lang === 'en') === (mark === ',');
  const own = pageGroups ? asThousands : asDecimal;
  const other = pageGroups ? asDecimal : asThousands;
  if (other === null) return answer(own);
  const readings = [own, other].filter((u) => u !== null).map((u) => sign * u);
  return { ok: false, reason: 'ambiguous', readings };
}

// `units` of 10^-places written for a page in `lang`: thousands grouped by `group` (a narrow
// space by default, which both languages read the same), the language's decimal mark and every
// place ("5 000,00"; "-1 234.500" in English with 3 places).
export function writeNumber(units, lang, places = 2, group = '\u202f') {
  const negative = units < 0;
  const digits = String(Math.abs(Math.round(units))).padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places).replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const fraction = digits.slice(digits.length - places);
  const mark = lang === 'en' ? '.' : ',';
  return `${negative ? '-' : ''}${whole}${places ? mark + fraction : ''}`;
}

