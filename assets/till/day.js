// The till's day, as the owner's page runs it: opened with the float, the X report of the day
// so far, and the close counted by notes and coins (expected, counted and the difference shown
// before anything is sent).

import { api } from './api.js';
import { t, said, el, cents, money, amount } from './words.js';
import { till } from './sale.js';

const NOTES = [5000, 2000, 1000, 500, 200];
const COINS = [100, 50, 20, 10, 5, 1];

async function mine() {
  const r = await api('/api/v1/owner/today');
  return r.ok ? r.data.tills.find((x) => x.mine) || null : null;
}

function row(label, value, id) {
  return el('tr', {}, el('th', { scope: 'row' }, label), el('td', { class: 'num', id }, value));
}

export async function drawDay(section) {
  const mineNow = await mine();
  const day = mineNow?.day;
  const parts = [el('h2', {}, t('day.title')),
    el('p', { id: 'day-state' }, day ? t(`day.state.${day.state}`) : '—')];
  if (!day || day.state !== 'open') {
    const float = el('input', { id: 'float', inputmode: 'decimal', autocomplete: 'off' });
    parts.push(el('form', { id: 'open-form', class: 'inline', onsubmit: async (e) => {
      e.preventDefault();
      const c = cents(float.value);
      if (c === null || c < 0) return till.say(t('day.bad'), true);
      const r = await api('/api/v1/cash-register/open-balance', { method: 'POST', body: { amount: amount(c) } });
      till.say(r.ok ? t('day.opened') : said(r.message), !r.ok);
      drawDay(section);
    } }, el('label', { for: 'float' }, t('day.float')), float, el('button', { type: 'submit' }, t('day.open'))));
    section.replaceChildren(...parts);
    return;
  }
  parts.push(el('table', { class: 'figures', id: 'x-report' }, el('caption', {}, t('day.x')), el('tbody', {},
    row(t('day.float'), money(cents(day.opening))),
    row(t('day.sales'), money(cents(day.cash_sales))),
    row(t('day.expected'), money(cents(day.expected)), 'x-expected'))));
  const inputs = [...NOTES, ...COINS].map((v) => el('label', { class: 'den' }, `${v}`,
    el('input', { type: 'number', min: 0, step: 1, inputmode: 'numeric', id: `den-${v}`, 'data-value': v, 'aria-label': `${v} lek` })));
  const counted = el('output', { id: 'den-total' }, money(0));
  const count = () => inputs.reduce((s, l) => {
    const i = l.querySelector('input');
    return s + Math.max(0, Math.floor(Number(i.value) || 0)) * Number(i.dataset.value) * 100;
  }, 0);
  const check = el('div', { id: 'close-check' });
  const form = el('form', { id: 'close-form', oninput: () => { counted.textContent = money(count()); }, onsubmit: (e) => {
    e.preventDefault();
    const c = count();
    const expected = cents(day.expected);
    check.replaceChildren(el('table', { class: 'figures' }, el('tbody', {},
      row(t('day.expected'), money(expected), 'close-expected'),
      row(t('day.counted'), money(c), 'close-counted'),
      row(t('day.difference'), money(c - expected), 'close-difference'))),
    el('button', { type: 'button', id: 'confirm-close', class: 'primary', onclick: async () => {
      const r = await api('/api/v1/cash-register/close-balance', { method: 'POST', body: { counted: amount(c) } });
      if (!r.ok) return till.say(said(r.message), true);
      till.say(t('day.closed', { d: money(cents(r.data.difference)) }));
      drawDay(section);
    } }, t('day.confirm')));
  } }, el('fieldset', {}, el('legend', {}, t('day.count')), inputs),
  el('p', {}, `${t('day.counted')}: `, counted),
  el('button', { type: 'submit' }, t('day.close')));
  parts.push(form, check);
  section.replaceChildren(...parts);
}
