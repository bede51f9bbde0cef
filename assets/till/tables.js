// A café's tables: each round of a table is an order invoice (`POST /api/v2/invoice/order`, no
// payment); the table is settled with a summary invoice of the rounds chosen
// (`POST /api/v2/invoice/summary`), all of them or some, so a table's bill is split by its rounds.
// The open tables are kept on this tablet, per till.

import { api } from './api.js';
import { t, said, el, money } from './words.js';
import { till, total, apiLines, drawLines } from './sale.js';
import { issue, printReceipt } from './pay.js';

const key = () => `arka-tables-${till.me?.fiscalTcrCode}`;
const load = () => JSON.parse(localStorage.getItem(key()) || '{}');
const keep = (tables) => localStorage.setItem(key(), JSON.stringify(tables));

// The open receipt's lines go to `table` as one round.
async function round(table) {
  if (!till.lines.length) return till.say(t('tables.emptyCart'), true);
  const r = await issue('/api/v2/invoice/order', { internalId: crypto.randomUUID(), lines: apiLines() });
  const order = r.data?.invoice || r.body?.data?.invoice;
  if (!order) return till.say(said(r.message), true);
  const tables = load();
  (tables[table] ||= []).push({ iic: order.iic, number: order.number, total: total() });
  keep(tables);
  till.lines = [];
  drawLines();
  till.say(t('tables.opened', { number: order.number, table }));
}

async function settle(table, chosen, method, section) {
  const tables = load();
  const rounds = (tables[table] || []).filter((_, i) => chosen[i]);
  if (!rounds.length) return;
  const due = rounds.reduce((s, o) => s + o.total, 0);
  const body = {
    internalId: crypto.randomUUID(), order_invoices: rounds.map((o) => o.iic),
    payment_methods: [{ type: method, amount: due / 100 }],
  };
  const r = await issue('/api/v2/invoice/summary', body);
  const invoice = r.data?.invoice || r.body?.data?.invoice;
  if (!invoice) return till.say(said(r.message), true);
  tables[table] = tables[table].filter((_, i) => !chosen[i]);
  if (!tables[table].length) delete tables[table];
  keep(tables);
  till.say(t('tables.settled', { table, number: invoice.number }));
  await printReceipt(invoice, null);
  drawTables(section);
}

export function drawTables(section) {
  const tables = load();
  const name = el('input', { id: 'table-name', autocomplete: 'off', required: true });
  const parts = [el('h2', {}, t('tables.title')),
    el('form', { id: 'table-form', class: 'inline', onsubmit: async (e) => {
      e.preventDefault();
      if (name.value.trim()) await round(name.value.trim());
      drawTables(section);
    } }, el('label', { for: 'table-name' }, t('tables.name')), name, el('button', { type: 'submit' }, t('tables.open')))];
  const names = Object.keys(tables);
  if (!names.length) parts.push(el('p', {}, t('tables.none')));
  for (const table of names) {
    const chosen = tables[table].map(() => true);
    const method = el('select', { 'aria-label': t('pay.title'), id: `table-method-${table}` },
      el('option', { value: 'BANKNOTE' }, t('pay.cash')), el('option', { value: 'CARD' }, t('pay.card')));
    parts.push(el('section', { class: 'table-card', 'data-table': table },
      el('h3', {}, table),
      el('ul', {}, tables[table].map((o, i) => el('li', {}, el('label', {},
        el('input', { type: 'checkbox', checked: true, onchange: (e) => { chosen[i] = e.target.checked; } }),
        ` ${t('tables.round.n', { n: i + 1 })} · ${o.number} · ${money(o.total)}`)))),
      el('p', { class: 'buttons' },
        el('button', { type: 'button', onclick: async () => { await round(table); drawTables(section); } }, t('tables.round')),
        method,
        el('button', { type: 'button', class: 'primary', onclick: () => settle(table, chosen, method.value, section) }, t('tables.settle')))));
  }
  section.replaceChildren(...parts);
}

