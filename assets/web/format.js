// Small helpers: lek amounts, dates, tables and files; elements are built by dom.js (text is
// always set as text, never parsed as HTML) and API amounts read by amount.js, both shared with
// the till.

import { toCents, writeNumber } from './amount.js';
import { el } from './dom.js';
import { language } from './i18n.js';

export { el, toCents };

// A table from headings and rows of cells (strings or elements); `numeric` marks right-aligned
// columns by index, `wide` those a phone leaves out (what is said again where the row leads).
// Its box scrolls sideways on a phone, so it takes the keyboard's focus (the arrows scroll it)
// and is named by its headings.
export function table(headings, rows, numeric = [], wide = []) {
  const cls = (i) => [numeric.includes(i) ? 'num' : '', wide.includes(i) ? 'wide' : ''].join(' ').trim() || null;
  const name = headings.filter((h) => typeof h === 'string' && h).join(', ');
  return el('div', { class: 'scroll', tabindex: '0', role: 'region', 'aria-label': name || null },
    el('table', {},
      el('thead', {}, el('tr', {}, headings.map((h, i) => el('th', { scope: 'col', class: cls(i) }, h)))),
      el('tbody', {}, rows.map((r) => el('tr', {}, r.map((c, i) => el('td', { class: cls(i) }, c)))))));
}

// A lek amount (a JSON number of the API) as the page's language writes it: 1 234,50 in
// Albanian, 1 234.50 in English, thousands grouped by a narrow space either way.
export function money(value) {
  if (value === null || value === undefined || value === '') return '';
  const cents = toCents(value);
  if (cents === null) return String(value);
  return formatCents(cents);
}

export function formatCents(cents) {
  return writeNumber(cents, language());
}

// YYYY-MM-DD of a local date.
export function isoDate(d) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

// Saves bytes the page fetched under a file name, without leaving the page.
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = el('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}
