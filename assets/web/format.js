// Small helpers: building elements (text is always set as text, never parsed as HTML), lek
// amounts, dates, and money arithmetic in whole cents.

import { writeNumber } from './amount.js';
import { language } from './i18n.js';

// el('td', {class: 'num'}, 'text', childElement, ...)
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (value === true) node.setAttribute(name, '');
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

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

// An amount of the API (a JSON number, or its text) as whole cents; null when it is not one.
export function toCents(value) {
  const match = /^(-?)(\d+)(?:\.(\d{0,2})\d*)?$/.exec(String(value).trim());
  if (!match) return null;
  const cents = Number(match[2]) * 100 + Number((match[3] || '').padEnd(2, '0'));
  return match[1] === '-' ? -cents : cents;
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
