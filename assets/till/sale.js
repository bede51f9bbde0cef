// The sale: the catalog as large buttons by category, a search by name or code, the barcode
// scanner (a keyboard typing fast and ending in Enter, anywhere on the screen) with the shop's
// scale codes, and the lines of the receipt being made.

import { api } from './api.js';
import { t, el, cents, money } from './words.js';

// What the whole till shares: who sells, the shop's settings, the catalog, the open receipt.
export const till = {
  me: null,
  settings: { scale_prefixes: [], scale_item_digits: 5, scale_value: 'weight', cashier_max_discount: 100 },
  printer: null,
  catalog: [],
  category: null,
  lines: [],
  timings: { scan: [], pay: [] },
  onChange: () => {},
  say: () => {},
};
window.tillTimings = till.timings;

const $ = (id) => document.getElementById(id);

export async function loadCatalog() {
  const r = await api('/api/v1/products');
  if (!r.ok) return;
  const items = Array.isArray(r.data) ? r.data : r.data?.items || [];
  till.catalog = items.map((p) => ({
    id: p.id, code: String(p.code ?? ''), name: p.name, price: cents(p.last_price) ?? 0,
    vat: Number(p.vat_rate ?? 20), unit: p.unit || p.unit_code || 'copë',
    exempt: p.vat_exempt_type || null, category: p.category || null,
  }));
  drawCatalog();
}

function categories() {
  const seen = new Map();
  for (const p of till.catalog) if (p.category) seen.set(p.category.id, p.category);
  return [...seen.values()];
}

export function drawCatalog() {
  const query = $('search').value.trim().toLowerCase();
  const tabs = [{ id: null, name: t('all') }, ...categories()].map((c) => el('button', {
    type: 'button', class: 'tab', 'aria-pressed': String(till.category === c.id),
    onclick: () => { till.category = c.id; drawCatalog(); },
  }, c.name));
  $('cats').replaceChildren(...tabs);
  const shown = till.catalog.filter((p) => (till.category === null || p.category?.id === till.category)
    && (!query || p.name.toLowerCase().includes(query) || p.code.toLowerCase().includes(query)));
  $('products').replaceChildren(...shown.slice(0, 120).map((p) => el('button', {
    type: 'button', class: 'product', 'data-code': p.code, onclick: () => addProduct(p),
  }, el('span', { class: 'name' }, p.name), el('span', { class: 'price' }, money(p.price)))));
}

// Thousandths of a unit as the API reads a quantity.
function quantityText(milli) {
  return String(milli / 1000);
}

export function lineTotal(line) {
  const exact = (line.price * line.milli * (100 - line.discount)) / 100000;
  return Math.sign(exact) * Math.round(Math.abs(exact));
}

export function total() {
  return till.lines.reduce((sum, l) => sum + lineTotal(l), 0);
}

export function addProduct(p, milli = 1000, price = p.price) {
  const same = till.lines.find((l) => l.code === p.code && l.price === price && milli === 1000 && l.milli % 1000 === 0);
  if (same) same.milli += 1000;
  else till.lines.push({ code: p.code, name: p.name, unit: p.unit, vat: p.vat, exempt: p.exempt, price, milli, discount: 0 });
  drawLines();
  till.say(t('added', { name: p.name }));
}

// The lines as the API takes them.
export function apiLines(lines = till.lines) {
  return lines.map((l) => ({
    product_name: l.name, product_code: l.code, unit: l.unit, quantity: Number(quantityText(l.milli)),
    price: l.price / 100, total: lineTotal(l) / 100, vat: l.vat, discount: l.discount || undefined,
    vat_exempt_type: l.exempt || undefined,
  }));
}

export function drawLines() {
  const rows = till.lines.map((l, i) => el('li', { class: 'line', 'data-line': i },
    el('span', { class: 'name' }, l.name),
    el('span', { class: 'qty' }, `${quantityText(l.milli)} ${l.unit} × ${money(l.price)}`),
    el('span', { class: 'sum' }, money(lineTotal(l))),
    el('span', { class: 'acts' },
      el('button', { type: 'button', 'aria-label': `${t('less')}: ${l.name}`, onclick: () => step(i, -1) }, '−'),
      el('button', { type: 'button', 'aria-label': `${t('more')}: ${l.name}`, onclick: () => step(i, 1) }, '+'),
      el('label', { class: 'disc' }, t('discount'),
        el('input', { type: 'number', min: 0, max: 100, step: 1, inputmode: 'numeric', value: l.discount, id: `disc-${i}`,
          onchange: (e) => discount(i, e.target) })),
      el('button', { type: 'button', class: 'remove', id: `remove-${i}`, onclick: () => { till.lines.splice(i, 1); drawLines(); } },
        t('remove')))));
  $('lines').replaceChildren(...(rows.length ? rows : [el('li', { class: 'empty' }, t('empty'))]));
  $('total').textContent = money(total());
  $('pay').disabled = till.lines.length === 0;
  till.onChange();
}

function step(i, by) {
  const l = till.lines[i];
  l.milli = Math.max(0, l.milli + by * 1000);
  if (l.milli === 0) till.lines.splice(i, 1);
  drawLines();
}

function limit() {
  return till.me?.role === 'cashier' ? Number(till.settings.cashier_max_discount) : 100;
}

function discount(i, input) {
  const d = Math.round(Number(input.value) || 0);
  if (d < 0 || d > limit()) {
    input.value = till.lines[i].discount;
    till.say(t('discountLimit', { n: limit() }), true);
    return;
  }
  if (d === till.lines[i].discount) return;
  till.lines[i].discount = d;
  drawLines();
}

// The EAN-13 check digit holds.
function ean13(code) {
  if (!/^\d{13}$/.test(code)) return false;
  const sum = [...code.slice(0, 12)].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return (10 - (sum % 10)) % 10 === Number(code[12]);
}

function byCode(code) {
  const bare = code.replace(/^0+/, '');
  return till.catalog.find((p) => p.code === code) || till.catalog.find((p) => p.code.replace(/^0+/, '') === bare && bare);
}

// A scanned code: a product's own, or a scale's (prefix, item, weight in grams or price in lek).
export function scanned(code, started = performance.now()) {
  const product = byCode(code);
  const s = till.settings;
  if (product) {
    addProduct(product);
  } else if (ean13(code) && s.scale_prefixes.includes(Number(code.slice(0, 2)))) {
    const item = code.slice(2, 2 + s.scale_item_digits);
    const value = Number(code.slice(2 + s.scale_item_digits, 12));
    const weighed = byCode(item);
    if (!weighed) return unknown(code);
    if (s.scale_value === 'price') addProduct(weighed, 1000, value * 100);
    else addProduct(weighed, value);
  } else {
    return unknown(code);
  }
  // On screen: the next frame after the line was drawn.
  requestAnimationFrame(() => till.timings.scan.push(performance.now() - started));
}

function unknown(code) {
  const manager = till.me?.role === 'manager' || till.me?.role === 'owner';
  till.say(t('unknownCode', { code }), true, manager ? el('button', { type: 'button', id: 'add-product', onclick: () => newProduct(code) }, t('addProduct')) : null);
}

// A manager adds the product the scanner did not know, and it goes on the receipt.
function newProduct(code) {
  const dialog = $('dialog');
  const name = el('input', { id: 'np-name', required: true, autocomplete: 'off' });
  const price = el('input', { id: 'np-price', inputmode: 'decimal', required: true });
  const vat = el('select', { id: 'np-vat' }, [20, 10, 6, 0].map((v) => el('option', { value: v }, `${v}%`)));
  const form = el('form', { onsubmit: async (e) => {
    e.preventDefault();
    const r = await api('/api/v1/products', { method: 'POST', body: { code, name: name.value, last_price: (cents(price.value) ?? 0) / 100, vat_rate: vat.value, service: false } });
    if (!r.ok) return till.say(r.message, true);
    dialog.close();
    const p = r.data.product;
    const added = { id: p.id, code: String(p.code), name: p.name, price: cents(p.last_price), vat: Number(p.vat_rate), unit: p.unit || 'copë', exempt: null, category: p.category || null };
    till.catalog.push(added);
    addProduct(added);
  } },
  el('p', {}, code),
  el('label', { for: 'np-name' }, t('search').split(' ')[0]), name,
  el('label', { for: 'np-price' }, t('total')), price,
  el('label', { for: 'np-vat' }, 'TVSH / VAT'), vat,
  el('button', { type: 'submit' }, t('addProduct')));
  $('dialog-title').textContent = t('addProduct');
  $('dialog-body').replaceChildren(form);
  dialog.showModal();
  name.focus();
}

// The scanner is a keyboard: characters a few milliseconds apart ending in Enter. The gaps are
// read from the events' own times, not from when a busy page got to them. Whatever field had the
// focus gets back the text it had before the burst began.
const SCANNER_GAP_MS = 80;

export function listenForScanner() {
  let burst = [];
  let last = -Infinity;
  let before = null;
  document.addEventListener('keydown', (e) => {
    const now = e.timeStamp;
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      if (now - last > SCANNER_GAP_MS) {
        burst = [];
        const f = document.activeElement;
        before = f && 'value' in f && f.tagName === 'INPUT' ? { field: f, value: f.value } : null;
      }
      burst.push(e.key);
      last = now;
      return;
    }
    if (e.key === 'Enter' && burst.length >= 4 && now - last < SCANNER_GAP_MS) {
      e.preventDefault();
      e.stopPropagation();
      const code = burst.join('');
      burst = [];
      if (before) {
        before.field.value = before.value;
        if (before.field.id === 'search') drawCatalog();
      }
      scanned(code, e.timeStamp);
    }
  }, true);
}
