// Today: the day's sales by till and payment method, each till's cash and day, and the cash
// actions of the signed-in user's own till (open, deposit, withdraw, close with the count). At a
// chain's head office: every shop's day side by side.

import { api } from './api.js';
import { method, t } from './i18n.js';
import { centsText, el, formatCents, money, table, toCents } from './format.js';

function dayText(day) {
  const state = t(`day.${day.state}`);
  if (day.state === 'open') return `${state} ${t('day.since')} ${day.opened_at}`;
  if (day.state === 'closed') return `${state}, ${t('day.closedAt')} ${day.closed_at}`;
  return state;
}

function salesTable(today) {
  const methods = Object.keys(today.totals.by_payment_method);
  const row = (label, s) => [
    label,
    String(s.receipts),
    ...methods.map((m) => money(s.by_payment_method[m] ?? 0)),
    money(s.gross),
  ];
  const rows = today.tills.map((till) => row(`${till.name} (${till.fiscal_tcr_code})`, till.sales));
  if (today.noncash) rows.push(row(t('today.noncash'), today.noncash));
  rows.push(row(t('today.total'), today.totals).map((c) => el('strong', {}, c)));
  const numeric = [1, ...methods.map((_, i) => i + 2), methods.length + 2];
  return table([t('today.till'), t('today.receipts'), ...methods.map(method), t('today.total')], rows, numeric);
}

function tillsTable(today) {
  const rows = today.tills.map((till) => [
    el('span', {}, `${till.name} (${till.fiscal_tcr_code})`, till.mine ? el('em', {}, ` · ${t('today.mine')}`) : null),
    el('span', { class: `day ${till.day.state}`, 'data-tcr': till.fiscal_tcr_code }, dayText(till.day)),
    money(till.balance),
  ]);
  return table([t('today.till'), t('today.day'), t('today.balance')], rows, [2]);
}

// A form of one amount (and optionally a description) that posts to a cash-register route.
function amountForm(id, label, button, withDescription, submit) {
  const amount = el('input', { id: `${id}-amount`, name: 'amount', inputmode: 'decimal', autocomplete: 'off', required: true });
  const description = withDescription
    ? el('input', { id: `${id}-description`, name: 'description', maxlength: 255, autocomplete: 'off' })
    : null;
  const form = el('form', { id: `${id}-form`, class: 'inline' },
    el('label', { for: `${id}-amount` }, label), amount,
    description ? el('label', { for: `${id}-description` }, t('day.description')) : null, description,
    el('button', { type: 'submit' }, button));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit(amount.value, description ? description.value : undefined);
  });
  return form;
}

function closingFigures(summary) {
  return table(['', t('day.amount')], [
    [t('day.opening'), money(summary.opening)],
    [t('day.cashSales'), money(summary.cash_sales)],
    [t('day.deposits'), money(summary.deposits)],
    [t('day.withdrawals'), money(summary.withdrawals)],
    [t('day.expected'), money(summary.expected)],
    [t('day.counted'), money(summary.counted)],
    [t('day.difference'), el('strong', { id: 'closed-difference' }, money(summary.difference))],
    [t('day.withdrawnAtClose'), money(summary.withdrawn)],
  ], [1]);
}

function actions(till, ctx, refresh) {
  const post = async (path, body, done) => {
    const answer = await api(path, { method: 'POST', body });
    if (!answer.ok) {
      ctx.setStatus(answer.message, 'error');
      return null;
    }
    const pending = answer.data?.fiscal_status === 'PENDING' ? ` (${t('day.pending')})` : '';
    ctx.setStatus(`${t(done)}${pending}`, 'ok');
    await refresh();
    return answer.data;
  };
  const amountOf = (text) => {
    const cents = toCents(text);
    if (cents === null) ctx.setStatus(`${t('day.amount')}: ${text}`, 'error');
    return cents === null ? null : centsText(cents);
  };
  const forms = [];
  if (till.day.state !== 'open') {
    forms.push(amountForm('open', t('day.openAmount'), t('day.openDay'), false, (a) => {
      const amount = amountOf(a);
      if (amount !== null) post('/api/v1/cash-register/open-balance', { amount }, 'day.opened');
    }));
  }
  forms.push(amountForm('deposit', t('day.amount'), t('day.deposit'), true, (a, description) => {
    const amount = amountOf(a);
    if (amount !== null) post('/api/v1/cash-register/deposit', { amount, description }, 'day.deposited');
  }));
  forms.push(amountForm('withdraw', t('day.amount'), t('day.withdraw'), true, (a, description) => {
    const amount = amountOf(a);
    if (amount !== null) post('/api/v1/cash-register/withdraw', { amount, description }, 'day.withdrawn');
  }));
  if (till.day.state === 'open') {
    forms.push(amountForm('close', t('day.counted'), t('day.closeDay'), false, (a) => {
      const counted = toCents(a);
      const expected = toCents(till.day.expected);
      if (counted === null || expected === null) {
        ctx.setStatus(`${t('day.counted')}: ${a}`, 'error');
        return;
      }
      // Shown before anything is sent: the owner confirms the count against what is expected.
      const confirm = el('button', { id: 'confirm-close', type: 'button', class: 'primary' }, t('confirm'));
      const back = el('button', { type: 'button' }, t('cancel'));
      back.addEventListener('click', () => ctx.closeDialog());
      confirm.addEventListener('click', async () => {
        confirm.disabled = true;
        const summary = await post('/api/v1/cash-register/close-balance', { counted: centsText(counted) }, 'day.closedDone');
        if (summary) ctx.openDialog(t('day.closedDone'), closingFigures(summary));
        else ctx.closeDialog();
      });
      const difference = counted - expected;
      ctx.openDialog(t('day.closeTitle'),
        table(['', t('day.amount')], [
          [t('day.expected'), el('span', { id: 'close-expected' }, formatCents(expected))],
          [t('day.counted'), el('span', { id: 'close-counted' }, formatCents(counted))],
          [t('day.difference'), el('strong', { id: 'close-difference', class: difference < 0 ? 'bad' : '' }, formatCents(difference))],
        ], [1]),
        el('p', { class: 'buttons' }, confirm, back));
      confirm.focus();
    }));
  }
  return forms;
}

// In a chain: what waits for the head office, and since when.
function hqCard(hq) {
  if (!hq) return null;
  const text = hq.backlog
    ? `${hq.backlog} ${t('hq.waiting')}, ${t('hq.oldest')} ${hq.oldest_noted_at}`
    : t('hq.sent');
  return el('div', { class: 'card', id: 'hq-backlog' }, el('h3', {}, t('hq.title')),
    el('p', { class: hq.backlog ? 'warn' : '' }, text));
}

// The chain's day: one column per shop, the chain's total last.
function shopsTable(today) {
  const shops = today.shops;
  const methods = Object.keys(today.totals.by_payment_method);
  const line = (label, value, total) => [label, ...shops.map(value), total];
  const rows = [
    line(t('today.receipts'), (s) => String(s.totals.receipts), String(today.totals.receipts)),
    line(t('chain.waiting'), (s) => String(s.totals.waiting), String(today.totals.waiting)),
    ...methods.map((m) => line(method(m), (s) => money(s.totals.by_payment_method[m] ?? 0), money(today.totals.by_payment_method[m]))),
    line(t('today.sales'), (s) => el('strong', { 'data-shop-gross': s.shop }, money(s.totals.gross)),
      el('strong', { id: 'chain-gross' }, money(today.totals.gross))),
    line(t('chain.synced'), (s) => s.synced_at ?? t('chain.never'), ''),
  ];
  const numeric = [...shops.map((_, i) => i + 1), shops.length + 1];
  return table(['', ...shops.map((s) => s.shop), t('today.total')], rows, numeric);
}

// Every till of every shop with its day, a closed one with its count.
function chainTillsTable(today) {
  const rows = today.shops.flatMap((shop) => shop.tills.map((till) => [
    shop.shop,
    `${till.name} (${till.fiscal_tcr_code})`,
    el('span', { class: `day ${till.day.state}`, 'data-tcr': till.fiscal_tcr_code }, dayText(till.day)),
    money(till.sales.gross),
    till.day.counted === null ? '' : money(till.day.counted),
    till.day.expected === null ? '' : money(till.day.expected),
  ]));
  return table([t('chain.shop'), t('today.till'), t('today.day'), t('today.sales'), t('day.counted'), t('day.expected')],
    rows, [3, 4, 5]);
}

function renderChain(section, today) {
  section.replaceChildren(
    el('h2', {}, `${t('today.title')} · ${today.business_day}`),
    el('div', { class: 'cards' },
      el('div', { class: 'card' }, el('h3', {}, t('today.sales')),
        el('p', { class: 'big' }, el('span', { id: 'today-gross' }, money(today.totals.gross)), ' ALL')),
      el('div', { class: 'card' }, el('h3', {}, t('today.receipts')),
        el('p', { class: 'big', id: 'today-receipts' }, String(today.totals.receipts)))),
    el('h3', {}, t('chain.shops')),
    shopsTable(today),
    el('h3', {}, t('chain.tills')),
    chainTillsTable(today),
  );
}

export async function render(section, ctx) {
  const answer = await api('/api/v1/owner/today');
  if (!answer.ok) {
    section.replaceChildren(el('h2', {}, t('today.title')), el('p', { class: 'error' }, answer.message));
    return;
  }
  const today = answer.data;
  if (today.chain) {
    renderChain(section, today);
    return;
  }
  const mine = today.tills.find((till) => till.mine);
  const refresh = () => render(section, ctx);
  section.replaceChildren(
    el('h2', {}, `${t('today.title')} · ${today.business_day}`),
    el('div', { class: 'cards' },
      el('div', { class: 'card' }, el('h3', {}, t('today.sales')),
        el('p', { class: 'big' }, el('span', { id: 'today-gross' }, money(today.totals.gross)), ' ALL')),
      el('div', { class: 'card' }, el('h3', {}, t('today.receipts')),
        el('p', { class: 'big', id: 'today-receipts' }, String(today.totals.receipts)),
        today.totals.waiting ? el('p', { class: 'warn' }, `${today.totals.waiting} ${t('today.waiting')}`) : null),
      hqCard(today.hq)),
    el('h3', {}, t('today.byTill')),
    salesTable(today),
    el('h3', {}, t('today.cash')),
    tillsTable(today),
    el('h3', {}, t('day.actions')),
    mine
      ? el('div', { class: 'card', id: 'till-actions' },
        el('p', {}, `${mine.name} (${mine.fiscal_tcr_code}): ${dayText(mine.day)} · ${t('today.balance')} `,
          el('strong', { id: 'my-balance' }, money(mine.balance))),
        actions(mine, ctx, refresh))
      : el('p', {}, t('day.noTill')),
  );
}
