// The audit trail (owner and managers): who did what that moves money or changes who may do
// what, newest first, with a short before → after in words (people by name, each key of the
// trail said, amounts as the page writes them); the route's own filters and pages, and the same
// list as a CSV file. The server keeps the trail append-only; this screen only reads it.

import { api } from './api.js';
import { t } from './i18n.js';
import { el, money, table } from './format.js';
import { clearErrors, field, showErrors } from './form.js';

const ACTIONS = [
  'invoice.cancel', 'invoice.correct', 'cash.deposit', 'cash.withdraw', 'day.open', 'day.close', 'cash.difference',
  'user.create', 'user.update', 'user.role', 'user.password', 'user.reset_code', 'user.restore',
  'token.rotate', 'token.revoke', 'certificate.upload', 'settings.currency', 'settings.manual_rate',
  'settings.marketplace', 'settings.print', 'settings.stock', 'bank_account.create', 'unit.create',
  'unit.update', 'device.register', 'stock.adjust', 'product.import', 'invoice.test_sale',
  'backup.create', 'backup.restore', 'queue.resend',
];
const LIMIT = 20;

// The filters as the route takes them; kept while the page lives, so coming back keeps them.
const query = { from: '', to: '', user: '', action: '', offset: 0 };

function word(prefix, code) {
  const words = t(`${prefix}.${code}`);
  return words === `${prefix}.${code}` ? code : words;
}

// The trail's figures of money, written as the page writes amounts.
const AMOUNTS = ['amount', 'opening', 'expected', 'counted', 'difference', 'withdrawn', 'total'];
// The trail's values that are words of the server's (a role, a state).
const WORDED = ['role', 'passwordSetBy', 'status', 'via', 'reason'];

// A value of the trail in words: yes or no, an amount, a role, a person by name, a list.
function valueWords(key, value, names) {
  if (value === null || value === undefined) return '–';
  if (typeof value === 'boolean') return t(value ? 'audit.yes' : 'audit.no');
  if (Array.isArray(value)) return value.map((v) => valueWords(key, v, names)).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  if (AMOUNTS.includes(key)) return money(value);
  if (WORDED.includes(key)) {
    const said = word('audit.val', String(value));
    return said === String(value) ? word('role', value) : said;
  }
  return String(value);
}

// One side of a change as "words: value" pairs, plain values first.
function side(value, names) {
  if (value === null || value === undefined) return '–';
  if (typeof value !== 'object') return String(value);
  const pairs = Object.entries(value).sort(([, a], [, b]) => (typeof a === 'object') - (typeof b === 'object'));
  return pairs.map(([k, v]) => `${word('audit.key', k)}: ${valueWords(k, v, names)}`).join(', ');
}

// What an entry acted on, in words: a person by name, else the kind of thing and its number.
function objectWords(entry, names) {
  if (!entry.object) return '–';
  const kind = entry.action.split('.')[0];
  if ((kind === 'user' || kind === 'token') && entry.objectName) return entry.objectName;
  return `${word('audit.obj', kind)} ${entry.object}`;
}

// Short on the screen; the whole of it in the cell's title.
function change(entry, names) {
  const full = `${side(entry.before, names)} → ${side(entry.after, names)}`;
  const short = full.length > 140 ? `${full.slice(0, 139)}…` : full;
  return el('span', { class: 'change', title: short === full ? null : full }, short);
}

function who(entry, names) {
  if (entry.userId === null || entry.userId === undefined) return '–';
  return entry.userName || names.get(entry.userId) || `#${entry.userId}`;
}

function rows(entries, names) {
  return entries.map((e) => [
    el('span', { 'data-entry': e.id }, e.at), who(e, names), word('role', e.role),
    el('span', { 'data-action': e.action }, word('act', e.action)),
    objectWords(e, names), change(e, names),
  ]);
}

// The user filter: the people by name for an owner (who may list them), else a user's id.
function userField(users) {
  if (!users.length) return field('audit-user', 'user', t('audit.user'), { type: 'number', min: 1, value: query.user });
  const options = [el('option', { value: '' }, t('audit.anyone'))].concat(users.map((u) =>
    el('option', { value: u.id, selected: String(u.id) === query.user }, `${u.name} (${word('role', u.role)})`)));
  return field('audit-user', 'user', t('audit.user'), {}, { tag: 'select', children: options });
}

function filters(users, section, ctx) {
  const actions = [el('option', { value: '' }, t('audit.anyAction'))].concat(ACTIONS.map((a) =>
    el('option', { value: a, selected: a === query.action }, word('act', a))));
  const form = el('form', { class: 'filters', id: 'audit-filters', novalidate: true },
    field('audit-from', 'from', t('rep.from'), { type: 'date', value: query.from }),
    field('audit-to', 'to', t('rep.to'), { type: 'date', value: query.to }),
    userField(users),
    field('audit-action', 'action', t('audit.action'), {}, { tag: 'select', children: actions }),
    el('button', { type: 'submit', class: 'primary' }, t('rep.show')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const wanted = { offset: 0 };
    for (const key of ['from', 'to', 'user', 'action']) wanted[key] = form.querySelector(`[data-field=${key}]`).value.trim();
    render(section, ctx, form, wanted);
  });
  return form;
}

function csvLink() {
  const url = new URL('/api/v1/audit', location.origin);
  for (const [k, v] of Object.entries({ ...query, offset: '', format: 'csv' })) if (v !== '') url.searchParams.set(k, v);
  return el('a', { id: 'audit-csv', href: `${url.pathname}${url.search}`, download: 'audit.csv' }, t('audit.csv'));
}

function pager(data, section, ctx) {
  const last = Math.min(data.offset + data.entries.length, data.total);
  const move = (offset) => () => { query.offset = offset; render(section, ctx); };
  return el('p', { class: 'buttons', id: 'audit-pages' },
    el('span', { id: 'audit-shown' }, data.total ? `${data.offset + 1}–${last} / ${data.total}` : t('audit.none')),
    el('button', { type: 'button', id: 'audit-prev', disabled: data.offset === 0, onclick: move(Math.max(0, data.offset - LIMIT)) }, t('audit.prev')),
    el('button', { type: 'button', id: 'audit-next', disabled: last >= data.total, onclick: move(data.offset + LIMIT) }, t('audit.next')));
}

// `kept`: the filter form as the person left it, kept when the route refuses what they typed;
// `wanted`: the filters asked for, which become the page's once the route takes them.
export async function render(section, ctx, kept = null, wanted = {}) {
  const asked = { ...query, ...wanted };
  const [list, people] = await Promise.all([
    api('/api/v1/audit', { query: { ...asked, limit: LIMIT } }),
    ctx.role() === 'owner' ? api('/api/v1/users', { quiet: true }) : Promise.resolve({ ok: false }),
  ]);
  const users = people.ok ? people.data.items : [];
  const me = ctx.session()?.user;
  const names = new Map([...(me ? [[me.id, me.name]] : []), ...users.map((u) => [u.id, u.name])]);
  const form = kept || filters(users, section, ctx);
  const title = el('h2', {}, t('audit.title'));
  if (!list.ok) {
    if (list.status === 422) showErrors(form, list);
    section.replaceChildren(title, form, list.status === 422 ? '' : el('p', { class: 'error', role: 'alert' }, list.message));
    return;
  }
  clearErrors(form);
  Object.assign(query, asked);
  const data = list.data;
  section.replaceChildren(title, el('p', { class: 'small' }, t('audit.help')), form,
    el('p', {}, csvLink()),
    table([t('audit.at'), t('audit.who'), t('audit.role'), t('audit.action'), t('audit.object'), t('audit.change')],
      rows(data.entries, names)),
    pager(data, section, ctx));
  section.querySelector('.scroll').id = 'audit-entries';
}
