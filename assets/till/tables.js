// A café's tables, read from the server (`GET /api/v2/invoice/open-orders`), so that a second
// tablet or a reload shows the same ones: each round is an order invoice taken for its table
// (`POST /api/v2/invoice/order` with `table`). A guest's bill is the lines, and quantities of a
// line, the waiter picks: paid with a summary invoice of its own (`POST /api/v2/invoice/summary`
// with `order_lines`), its own fiscal receipt, while the rest of the table stays open. Every line
// picked whole is the spec's summary of the table's orders.

import { api } from './api.js';
import { el } from './dom.js';
import { amountOf } from './ask.js';
import { writeNumber } from './amount.js';
import { t, money, cents, typed, language } from './words.js';
import { till, apiLines, drawLines, lineTotal } from './sale.js';
import { issue, openPayment } from './pay.js';

// The open receipt's lines go to `table` as one round.
async function round(table) {
  if (!till.lines.length) return till.say(t('tables.emptyCart'), true);
  const r = await issue('/api/v2/invoice/order', { internalId: crypto.randomUUID(), table, lines: apiLines() });
  const order = r.data?.invoice || r.body?.data?.invoice;
  if (!order) return till.say(r.message, true);
  till.lines = [];
  drawLines();
  till.say(t('tables.opened', { number: order.number, table }));
}

// The open orders by table, in the order the tables were opened.
function byTable(orders) {
  const tables = new Map();
  for (const order of orders) {
    const name = order.table || t('tables.order', { number: order.number });
    if (!tables.has(name)) tables.set(name, []);
    tables.get(name).push(order);
  }
  return tables;
}

// Thousandths of a unit as the till's language writes a quantity, without trailing zeros.
function quantityText(milli) {
  return writeNumber(milli, language(), 3).replace(/[.,]?0+$/, '');
}

// A line left open on an order, as a row the waiter picks for a guest's bill (all of what is
// left by default).
function lineRow(order, line, id) {
  const left = Math.round(Number(line.left) * 1000);
  const pick = el('input', { type: 'checkbox', id: `pick-${id}`, checked: true, class: 'pick' });
  const take = el('input', {
    id: `take-${id}`, class: 'qty-in', inputmode: 'decimal', autocomplete: 'off', 'data-places': 3,
    value: quantityText(left), 'aria-label': t('qty.of', { name: line.product_name }), 'aria-describedby': `take-${id}-error`,
  });
  const row = el('li', { class: 'table-line', 'data-order': order.iic, 'data-line': line.line },
    pick, el('label', { for: `pick-${id}` }, line.product_name), ' ', take,
    el('span', { class: 'left' }, ` / ${t('tables.left', { n: quantityText(left) })} ${line.unit} × ${money(cents(line.unitPrice))}`),
    el('p', { id: `take-${id}-error`, class: 'error', role: 'alert' }));
  return { order, line, left, pick, take, row };
}

// What the picked part of a line comes to, in cents, as the server prices it; null when the
// quantity typed is not (yet) one.
function partTotal(row, milli) {
  return lineTotal({ price: cents(row.line.unitPrice), milli, discount: Number(row.line.discount_rate) || 0 });
}

function guestTotal(rows) {
  return rows.reduce((sum, r) => {
    if (!r.pick.checked) return sum;
    const reading = amountOf(r.take, language());
    return reading.ok ? sum + partTotal(r, reading.units) : sum;
  }, 0);
}

// The guest's bill: the quantities picked, read in the till's language; null when one is not
// right (said beside it, or asked when it reads two ways).
function picked(rows, again) {
  const parts = [];
  for (const r of rows.filter((x) => x.pick.checked)) {
    const reading = typed(r.take, again);
    if (!reading) return null;
    if (reading.units > r.left) {
      document.getElementById(`${r.take.id}-error`).textContent = t('tables.tooMuch', { n: quantityText(r.left) });
      r.take.focus();
      return null;
    }
    if (reading.units > 0) parts.push({ ...r, milli: reading.units });
  }
  return parts;
}

// A guest pays the lines picked: one summary of the orders they come from.
function payGuest(name, orders, rows, section) {
  const parts = picked(rows, () => payGuest(name, orders, rows, section));
  if (!parts) return;
  if (!parts.length) return till.say(t('tables.noneChosen'), true);
  const whole = parts.length === rows.length && parts.every((p) => p.milli === p.left)
    && rows.length === orders.reduce((n, o) => n + o.lines.filter((l) => Number(l.left) > 0).length, 0);
  const iics = [...new Set(parts.map((p) => p.order.iic))];
  const due = parts.reduce((sum, p) => sum + partTotal(p, p.milli), 0);
  openPayment({
    due,
    buyers: false,
    send: (payments, _buyer, internalId) => {
      const body = { internalId, order_invoices: iics, payment_methods: payments };
      if (!whole) body.order_lines = parts.map((p) => ({ order_invoice: p.order.iic, line: p.line.line, quantity: p.milli / 1000 }));
      return issue('/api/v2/invoice/summary', body);
    },
    done: async (invoice) => {
      till.say(t('tables.settled', { table: name, number: invoice.number }));
      await drawTables(section);
    },
  });
}

function tableCard(name, orders, index, section) {
  const rows = [];
  orders.forEach((order, o) => order.lines.filter((l) => Number(l.left) > 0)
    .forEach((line, j) => rows.push(lineRow(order, line, `${index}-${o}-${j}`))));
  const guest = el('strong', { id: `guest-${index}`, class: 'guest' }, money(0));
  const recount = () => { guest.textContent = money(guestTotal(rows)); };
  recount();
  const all = el('button', { type: 'button', class: 'all', onclick: () => {
    for (const r of rows) {
      r.pick.checked = true;
      r.take.value = quantityText(r.left);
    }
    recount();
  } }, t('tables.all'));
  const card = el('section', { class: 'table-card', 'data-table': name, 'aria-labelledby': `table-title-${index}` },
    el('h3', { id: `table-title-${index}` }, `${name} · ${money(orders.reduce((s, o) => s + cents(o.amount.left), 0))}`),
    el('ul', { class: 'table-lines' }, rows.map((r) => r.row)),
    el('p', { class: 'guest-line' }, `${t('tables.chosen')}: `, guest),
    el('p', { class: 'buttons' },
      el('button', { type: 'button', class: 'round', onclick: async () => { await round(name); await drawTables(section); } }, t('tables.round')),
      all,
      el('button', { type: 'button', class: 'primary settle', onclick: () => payGuest(name, orders, rows, section) }, t('tables.settle'))));
  card.addEventListener('input', recount);
  card.addEventListener('change', recount);
  return card;
}

// The tables' view: a new table (or a round for one) from the open receipt, and every open table
// as the server has it.
export async function drawTables(section) {
  const r = await api('/api/v2/invoice/open-orders');
  if (!r.ok) till.say(r.message, true);
  const tables = byTable(r.ok ? r.data.items : []);
  const name = el('input', { id: 'table-name', autocomplete: 'off', required: true, maxlength: 50 });
  const parts = [el('h2', {}, t('tables.title')),
    el('form', { id: 'table-form', class: 'inline', onsubmit: async (e) => {
      e.preventDefault();
      if (name.value.trim()) await round(name.value.trim());
      await drawTables(section);
    } }, el('label', { for: 'table-name' }, t('tables.name')), name, el('button', { type: 'submit' }, t('tables.open')))];
  if (!tables.size) parts.push(el('p', {}, t('tables.none')));
  [...tables].forEach(([table, orders], index) => parts.push(tableCard(table, orders, index, section)));
  section.replaceChildren(...parts);
}
