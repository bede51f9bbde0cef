// The till's day, as the owner's page runs it: opened with the float, the X report of the day so
// far, cash put in or taken out with its reason, and the close: the cash counted, typed or
// counted by notes and coins, then expected, counted and the difference shown before anything is
// sent. Every amount is read as the till's language writes it (amount.js).

import { api } from './api.js';
import { el } from './dom.js';
import { writeNumber } from './amount.js';
import { t, money, cents, typed, language, method } from './words.js';
import { till } from './sale.js';

const NOTES = [5000, 2000, 1000, 500, 200];
const COINS = [100, 50, 20, 10, 5, 1];

async function mine() {
  const r = await api('/api/v1/owner/today');
  if (!r.ok) till.say(r.message, true);
  return r.ok ? r.data.tills.find((x) => x.mine) || null : null;
}

function row(label, value, id) {
  return el('tr', {}, el('th', { scope: 'row' }, label), el('td', { class: 'num', id }, value));
}

// An amount typed in lek, with its label and the line that says what is wrong with it.
function amountField(id, label) {
  return [el('label', { for: id }, label),
    el('input', { id, inputmode: 'decimal', autocomplete: 'off', required: true, 'data-places': 2, 'aria-describedby': `${id}-error` }),
    el('p', { id: `${id}-error`, class: 'error', role: 'alert' })];
}

// A form of one amount, and a reason when `withReason`, posted to a cash-register route.
function cashForm(id, button, path, done, withReason, section) {
  const [label, input, error] = amountField(`${id}-amount`, t('day.amount'));
  const reason = withReason ? el('input', { id: `${id}-reason`, autocomplete: 'off', maxlength: 255, 'aria-describedby': `${id}-amount-error` }) : null;
  const form = el('form', { id: `${id}-form`, class: 'inline', novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    const read = typed(input, () => form.requestSubmit());
    if (!read) return;
    if (withReason && !reason.value.trim()) {
      error.textContent = t('day.reasonNeeded');
      return reason.focus();
    }
    const body = { amount: read.value };
    if (withReason) body.description = reason.value.trim();
    const r = await api(path, { method: 'POST', body });
    if (!r.ok) {
      error.textContent = r.fields.amount || r.fields.description || r.message;
      return till.say(r.message, true);
    }
    till.say(t(done));
    drawDay(section);
  } }, label, input, withReason ? el('label', { for: `${id}-reason` }, t('day.reason')) : null, reason,
  el('button', { type: 'submit' }, button), error);
  return form;
}

// Notes and coins counted fill the counted amount; `pieces()` is the count as made (the
// denominations typed in), sent with the close as the owner's page sends it, so the Z report
// shows how the drawer was counted.
function denominations(target) {
  const inputs = [...NOTES, ...COINS].map((v) => el('input', { type: 'number', min: 0, step: 1, inputmode: 'numeric', id: `den-${v}`, 'data-value': v, 'aria-label': `${v} lek` }));
  const box = el('fieldset', { id: 'denominations' }, el('legend', {}, t('day.byDenomination')),
    inputs.map((i) => el('label', { class: 'den' }, i.dataset.value, i)));
  const pieces = () => {
    const made = {};
    for (const i of inputs) if (i.value !== '') made[i.dataset.value] = Math.max(0, Math.floor(Number(i.value) || 0));
    return Object.keys(made).length ? made : null;
  };
  box.addEventListener('input', () => {
    const lek = Object.entries(pieces() || {}).reduce((sum, [value, n]) => sum + Number(value) * n, 0);
    target.value = writeNumber(lek * 100, language());
    delete target.dataset.chosen;
  });
  return { box, pieces };
}

function closeForm(day, section) {
  const [label, counted, error] = amountField('counted', t('day.counted'));
  const check = el('div', { id: 'close-check' });
  const count = denominations(counted);
  const form = el('form', { id: 'close-form', novalidate: true, onsubmit: (e) => {
    e.preventDefault();
    const read = typed(counted, () => form.requestSubmit());
    if (!read) return;
    const expected = cents(day.expected);
    check.replaceChildren(el('table', { class: 'figures' }, el('tbody', {},
      row(t('day.expected'), money(expected), 'close-expected'),
      row(t('day.counted'), money(read.units), 'close-counted'),
      row(t('day.difference'), money(read.units - expected), 'close-difference'))),
    el('button', { type: 'button', id: 'confirm-close', class: 'primary', onclick: async () => {
      // The count by notes and coins goes with it while it is what was typed (a count typed
      // over afterwards is the person's own figure).
      const pieces = count.pieces();
      const made = pieces && Object.entries(pieces).reduce((sum, [value, n]) => sum + Number(value) * n * 100, 0) === read.units;
      const body = made ? { counted: read.value, denominations: pieces } : { counted: read.value };
      const r = await api('/api/v1/cash-register/close-balance', { method: 'POST', body });
      if (!r.ok) return till.say(r.message, true);
      till.say(t('day.closed', { d: money(cents(r.data.difference)) }));
      drawDay(section);
    } }, t('day.confirm')));
  } }, count.box, label, counted, error, el('button', { type: 'submit' }, t('day.close')));
  return [el('h3', {}, t('day.count')), form, check];
}

export async function drawDay(section) {
  const day = (await mine())?.day;
  const parts = [el('h2', {}, t('day.title')),
    el('p', { id: 'day-state' }, day ? t(`day.state.${day.state}`) : '—')];
  if (!day || day.state !== 'open') {
    const [label, float, error] = amountField('float', t('day.float'));
    const form = el('form', { id: 'open-form', class: 'inline', novalidate: true, onsubmit: async (e) => {
      e.preventDefault();
      const read = typed(float, () => form.requestSubmit());
      if (!read) return;
      const r = await api('/api/v1/cash-register/open-balance', { method: 'POST', body: { amount: read.value } });
      till.say(r.ok ? t('day.opened') : r.message, !r.ok);
      if (r.ok) drawDay(section);
    } }, label, float, el('button', { type: 'submit' }, t('day.open')), error);
    parts.push(form);
    section.replaceChildren(...parts);
    return;
  }
  // The drawer move by move, as the owner's Today shows it: what it should hold is banknotes
  // only; card and every other method are said apart, never in the drawer.
  const drawer = day.drawer;
  const elsewhere = Object.entries(day.not_in_drawer || {});
  parts.push(el('table', { class: 'figures', id: 'x-report' }, el('caption', {}, t('day.x')), el('tbody', {},
    cents(drawer.carried_over) ? row(t('day.carriedOver'), money(cents(drawer.carried_over)), 'x-carried') : null,
    row(t('day.float'), money(cents(drawer.opening)), 'x-opening'),
    row(t('day.banknotesIn'), money(cents(drawer.banknotes_in)), 'x-banknotes-in'),
    row(t('day.banknotesOut'), money(cents(drawer.banknotes_out)), 'x-banknotes-out'),
    row(t('day.changeGiven'), money(cents(drawer.change_given)), 'x-change'),
    row(t('day.deposits'), money(cents(drawer.deposits)), 'x-deposits'),
    row(t('day.withdrawals'), money(cents(drawer.withdrawals)), 'x-withdrawals'),
    row(t('day.expected'), money(cents(day.expected)), 'x-expected'),
    row(t('day.notInDrawer'), elsewhere.length
      ? elsewhere.map(([m, a]) => `${method(m)} ${money(cents(a))}`).join(' · ') : t('day.nothing'), 'x-not-in-drawer'))),
  cashForm('deposit', t('day.deposit'), '/api/v1/cash-register/deposit', 'day.deposited', true, section),
  cashForm('withdraw', t('day.withdraw'), '/api/v1/cash-register/withdraw', 'day.withdrawn', true, section),
  ...closeForm(day, section));
  section.replaceChildren(...parts);
}
