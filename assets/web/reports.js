// Reports: a period, then the sales summary (totals, by document kind, by payment method, by
// currency), the VAT table and the daily trend as a chart with its table, each in words and
// downloadable as CSV. Amounts are in lek as the CIS registered them, sales net of reversals.

import { api, apiFile } from './api.js';
import { method, t } from './i18n.js';
import { barChart } from './chart.js';
import { download, el, isoDate, money, table } from './format.js';

const REPORTS = [
  { path: 'sales-summary', title: 'rep.summary', draw: summary },
  { path: 'vat', title: 'rep.vat', draw: vat },
  { path: 'daily-trend', title: 'rep.trend', draw: trend },
];

const now = new Date();
const period = { from: isoDate(new Date(now.getFullYear(), now.getMonth(), 1)), to: isoDate(now) };

function presets() {
  const today = new Date();
  const monday = new Date(today);
  monday.setDate(today.getDate() - ((today.getDay() + 6) % 7));
  return [
    ['rep.today', today, today],
    ['rep.week', monday, today],
    ['rep.month', new Date(today.getFullYear(), today.getMonth(), 1), today],
    ['rep.lastMonth', new Date(today.getFullYear(), today.getMonth() - 1, 1), new Date(today.getFullYear(), today.getMonth(), 0)],
  ];
}

// A word for a code (`prefix.CODE`), or the code itself when the page has none.
function word(prefix, code) {
  const words = t(`${prefix}.${code}`);
  return words === `${prefix}.${code}` ? code : words;
}

// A titled table whose scrolling box takes the keyboard's focus (arrows scroll it on a phone).
function titled(titleKey, id, headings, rows, numeric) {
  const box = table(headings, rows, numeric);
  box.id = id;
  box.setAttribute('tabindex', '0');
  box.setAttribute('aria-label', t(titleKey));
  return [el('h4', {}, t(titleKey)), box];
}

// The last row of a table: the total, in bold; `ids` name the cells a reader (or a test) looks up.
function totalRow(cells, ids = {}) {
  return cells.map((c, i) => el('strong', { id: ids[i] }, c));
}

function fact(key, value, id) {
  return [el('dt', {}, t(key)), el('dd', { id, class: 'num' }, value)];
}

function summary(data) {
  const s = data.totals;
  const parts = [el('dl', { class: 'facts figures' },
    fact('rep.documents', String(s.documents), 'rep-documents'),
    fact('rep.reversals', String(s.reversals), 'rep-reversals'),
    fact('rep.net', money(s.net), 'rep-net'),
    fact('rep.vatAmount', money(s.vat), 'rep-vat'),
    fact('rep.gross', money(s.gross), 'rep-gross'),
    fact('rep.discount', money(data.discount), 'rep-discount'),
    fact('rep.fee', money(data.fee), 'rep-fee'),
    fact('rep.waiting', String(s.waiting), 'rep-waiting'))];
  const amounts = (l) => [money(l.net), money(l.vat), money(l.gross)];
  parts.push(...titled('rep.byKind', 'rep-by-kind',
    [t('rep.kind'), t('rep.documents'), t('rep.waiting'), t('rep.net'), t('rep.vatAmount'), t('rep.gross')],
    data.by_kind.map((k) => [word('kind', k.kind), String(k.documents), String(k.waiting), ...amounts(k)]),
    [1, 2, 3, 4, 5]));
  parts.push(...titled('rep.byPayment', 'rep-by-payment',
    [t('rep.method'), t('rep.documents'), t('rep.amount')],
    data.by_payment.map((p) => [method(p.payment_method), String(p.documents), money(p.amount)]),
    [1, 2]));
  if (data.by_currency.length) {
    parts.push(...titled('rep.byCurrency', 'rep-by-currency',
      [t('rep.currency'), t('rep.documents'), t('rep.net'), t('rep.vatAmount'), t('rep.gross'), t('rep.grossAll')],
      data.by_currency.map((c) => [c.currency, String(c.documents), ...amounts(c), money(c.gross_all)]),
      [1, 2, 3, 4, 5]));
  } else {
    parts.push(el('h4', {}, t('rep.byCurrency')), el('p', {}, t('rep.noCurrency')));
  }
  if (data.orders.documents) {
    const o = data.orders;
    parts.push(el('h4', {}, t('rep.orders')), el('dl', { class: 'facts figures' },
      fact('rep.documents', String(o.documents)),
      fact('rep.gross', money(o.gross)),
      fact('rep.ordersOpen', String(o.open)),
      fact('rep.ordersCancelled', String(o.cancelled))));
  }
  return parts;
}

function rateText(line) {
  return line.exemption ? `${t('rep.exempt')} (${word('ex', line.exemption)})` : `${line.vat_rate}%`;
}

function vat(data) {
  const cells = (a) => [
    money(a.sales.taxable_base), money(a.sales.vat),
    money(a.reversals.taxable_base), money(a.reversals.vat),
    money(a.taxable_base), money(a.vat), money(a.gross),
  ];
  const rows = data.rates.map((r) => [rateText(r), String(r.documents), ...cells(r)]);
  rows.push(totalRow([t('rep.total'), '', ...cells(data.totals)], { 8: 'vat-total-gross', 7: 'vat-total-vat' }));
  const parts = titled('rep.vatTable', 'rep-vat-table', [
    t('rep.rate'), t('rep.documents'),
    t('rep.salesBase'), t('rep.salesVat'), t('rep.reversalsBase'), t('rep.reversalsVat'),
    t('rep.base'), t('rep.vatAmount'), t('rep.gross'),
  ], rows, [1, 2, 3, 4, 5, 6, 7, 8]);
  parts.push(el('p', { class: 'small' }, t('rep.vatNote')));
  if (data.waiting) parts.push(el('p', { class: 'small' }, `${t('rep.waiting')}: ${data.waiting}`));
  return parts;
}

function trend(data) {
  const chart = barChart(data.items.map((d) => ({ label: d.date, value: d.gross })),
    `${t('rep.trend')} ${period.from} – ${period.to}`);
  const line = (s) => [String(s.documents), String(s.reversals), money(s.net), money(s.vat), money(s.gross)];
  const rows = data.items.map((d) => [d.date, ...line(d)]);
  rows.push(totalRow([t('rep.total'), ...line(data.totals)], { 5: 'trend-total-gross' }));
  return [chart, ...titled('rep.trendTable', 'rep-trend-table',
    [t('rep.date'), t('rep.documents'), t('rep.reversals'), t('rep.net'), t('rep.vatAmount'), t('rep.gross')],
    rows, [1, 2, 3, 4, 5])];
}

async function csv(report, ctx) {
  const answer = await apiFile(`/api/v1/reports/${report.path}`, { ...period, format: 'csv' }, 'text/csv');
  if (answer.status === 404) ctx.setStatus(t('rep.missing'), 'error');
  else if (!answer.ok) ctx.setStatus(answer.message, 'error');
  else download(answer.blob, `${report.path}-${period.from}-${period.to}.csv`);
}

async function reportSection(report, ctx) {
  const answer = await api(`/api/v1/reports/${report.path}`, { query: period });
  const heading = el('h3', {}, t(report.title));
  const body = el('section', { class: 'report', id: `report-${report.path}`, 'aria-label': t(report.title) }, heading);
  if (answer.status === 404) {
    body.append(el('p', { class: 'missing' }, t('rep.missing')));
    return body;
  }
  if (!answer.ok) {
    body.append(el('p', { class: 'error' }, answer.message));
    return body;
  }
  heading.append(' ', el('button', { type: 'button', class: 'small', onclick: () => csv(report, ctx) }, t('rep.csv')));
  body.append(...report.draw(answer.data));
  return body;
}

export async function render(section, ctx) {
  const from = el('input', { id: 'rep-from', type: 'date', value: period.from, required: true });
  const to = el('input', { id: 'rep-to', type: 'date', value: period.to, required: true });
  const form = el('form', { class: 'filters', id: 'rep-period' },
    el('label', { for: 'rep-from' }, t('rep.from')), from,
    el('label', { for: 'rep-to' }, t('rep.to')), to,
    el('button', { type: 'submit', class: 'primary' }, t('rep.show')),
    presets().map(([key, a, b]) => el('button', {
      type: 'button',
      onclick: () => { period.from = isoDate(a); period.to = isoDate(b); render(section, ctx); },
    }, t(key))));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    period.from = from.value;
    period.to = to.value;
    render(section, ctx);
  });
  section.replaceChildren(el('h2', {}, t('rep.title')), form, el('p', {}, t('loading')));
  const sections = await Promise.all(REPORTS.map((r) => reportSection(r, ctx)));
  section.replaceChildren(el('h2', {}, t('rep.title')), form, ...sections);
}
