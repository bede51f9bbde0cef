// Reports: a period, the sales summary and VAT tables, the daily trend as a chart, and each as CSV.
// The tables are drawn from whatever the report answers (its `totals` and its lists), so a
// field the server adds shows without a change here; the chart reads daily-trend's rows.

import { api, apiFile } from './api.js';
import { t } from './i18n.js';
import { barChart } from './chart.js';
import { download, el, isoDate, money, table } from './format.js';

const REPORTS = [
  { path: 'sales-summary', title: 'rep.summary' },
  { path: 'vat', title: 'rep.vat' },
  { path: 'daily-trend', title: 'rep.trend', chart: true },
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

const AMOUNT_KEYS = /(gross|net|vat|amount|total|base|value|sales|discount|fee)/i;

function cell(key, value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' && AMOUNT_KEYS.test(key) && !/count|rate|percent/i.test(key)) return money(value);
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k}: ${v}`).join(', ');
  return String(value);
}

// Every list of rows in the report as a table, and its other figures as a list of facts.
function reportBody(data) {
  const parts = [];
  const facts = [];
  for (const [key, value] of Object.entries(data)) {
    if (key === 'period') continue;
    if (Array.isArray(value)) {
      const rows = value.filter((r) => r && typeof r === 'object');
      if (!rows.length) {
        parts.push(el('h4', {}, key), el('p', {}, t('rep.empty')));
        continue;
      }
      const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
      const numeric = keys.map((k, i) => (typeof rows[0][k] === 'number' ? i : -1)).filter((i) => i >= 0);
      parts.push(el('h4', {}, key), table(keys, rows.map((r) => keys.map((k) => cell(k, r[k]))), numeric));
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) facts.push(el('dt', {}, `${key}.${k}`), el('dd', {}, cell(k, v)));
    } else {
      facts.push(el('dt', {}, key), el('dd', {}, cell(key, value)));
    }
  }
  return [facts.length ? el('dl', { class: 'facts' }, facts) : null, ...parts];
}

// daily-trend rows: {date | day, gross | total | amount}.
function trendPoints(data) {
  const rows = data.items || data.days || data.rows || [];
  return rows.map((r) => ({ label: r.date ?? r.day ?? '', value: r.gross ?? r.total ?? r.amount ?? 0 }));
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
  if (report.chart) body.append(barChart(trendPoints(answer.data), `${t(report.title)} ${period.from} – ${period.to}`));
  body.append(...reportBody(answer.data).filter(Boolean));
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
