// Today: the day's sales by till and payment method, each till's cash and day, and the cash
// actions of the signed-in user's own till (open, deposit, withdraw, close with the count). At a
// chain's head office: every shop's day side by side.

import { api, apiFile } from './api.js';
import { language, method, t } from './i18n.js';
import { download, el, formatCents, money, table, toCents } from './format.js';
import { amountField, amountOf, field, onSubmit } from './form.js';
import { writeNumber } from './amount.js';

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

function tillsTable(today, ctx) {
  const rows = today.tills.map((till) => [
    el('span', {}, `${till.name} (${till.fiscal_tcr_code})`, till.mine ? el('em', {}, ` · ${t('today.mine')}`) : null),
    el('span', { class: `day ${till.day.state}`, 'data-tcr': till.fiscal_tcr_code }, dayText(till.day)),
    money(till.balance),
    till.day.state === 'not_opened' ? '' : el('button', {
      type: 'button', class: 'small', 'data-x-report': till.fiscal_tcr_code,
      'aria-label': `${t(till.day.state === 'open' ? 'day.xReport' : 'day.zReport')} ${till.name}`,
      onclick: () => dayReport(till, ctx),
    }, t(till.day.state === 'open' ? 'day.xReport' : 'day.zReport')),
  ]);
  return table([t('today.till'), t('today.day'), t('today.balance'), t('day.report')], rows, [2]);
}

// The day of a till as the closing report has it: the X report of an open day (its figures so
// far), the Z report of a closed one; with its PDFs.
async function dayReport(till, ctx) {
  const day = till.day.business_day;
  const answer = await api('/api/v1/reports/cash-register/closing', { query: { from: day, to: day, tcr: till.fiscal_tcr_code } });
  if (!answer.ok) {
    ctx.setStatus(answer.message, 'error');
    return;
  }
  const item = answer.data.items[answer.data.items.length - 1];
  if (!item) {
    ctx.setStatus(t('rep.empty'), 'info');
    return;
  }
  const open = item.status === 'open';
  const expected = open ? till.day.expected : item.expected;
  const rows = [
    [t('day.opening'), money(item.opening)],
    [t('day.cashSales'), money(item.cash_sales)],
    [t('day.deposits'), money(item.deposits)],
    [t('day.withdrawals'), money(item.withdrawals)],
    [t('day.expected'), el('strong', { id: 'report-expected' }, money(expected))],
  ];
  if (!open) {
    rows.push([t('day.counted'), money(item.counted)],
      [t('day.difference'), el('strong', { id: 'report-difference' }, money(item.difference))],
      [t('day.withdrawnAtClose'), money(item.withdrawn)]);
  }
  ctx.openDialog(`${t(open ? 'day.xReport' : 'day.zReport')} · ${till.name} (${till.fiscal_tcr_code}) · ${item.business_day}`,
    table(['', t('day.amount')], rows, [1]), dayPdfs({ fiscal_tcr_code: till.fiscal_tcr_code, business_day: item.business_day }, ctx));
}

// The day's report as PDF, A4 or 80 mm, shown in the page and downloadable.
function dayPdfs(day, ctx) {
  const holder = el('div', { class: 'pdf-holder' });
  const show = async (paper) => {
    const query = { from: day.business_day, to: day.business_day, tcr: day.fiscal_tcr_code, paper };
    const pdf = await apiFile('/api/v1/reports/cash-register/closing/pdf', query, 'application/pdf');
    if (!pdf.ok) {
      ctx.setStatus(pdf.message, 'error');
      return;
    }
    const url = URL.createObjectURL(pdf.blob);
    const name = `arka-${day.fiscal_tcr_code}-${day.business_day}-${paper}.pdf`;
    holder.replaceChildren(
      el('p', {}, el('button', { type: 'button', onclick: () => download(pdf.blob, name) }, `PDF ↓ ${name}`)),
      el('iframe', { src: url, title: name, class: `pdf ${paper} day-pdf` }));
  };
  return el('div', {},
    el('p', { class: 'buttons' },
      el('button', { type: 'button', id: 'day-pdf-a4', onclick: () => show('a4') }, t('inv.a4')),
      el('button', { type: 'button', id: 'day-pdf-receipt', onclick: () => show('receipt') }, t('inv.receipt'))),
    holder);
}

// A form of one amount (and optionally a reason) that posts to a cash-register route: the amount
// read in the page's language (form.js asks when it reads two ways), the API's refusals beside
// the field they name. `submit` gets the amount's reading; `extra` goes before the button.
function amountForm(id, label, button, withReason, submit, extra = null) {
  const form = el('form', { id: `${id}-form`, class: 'inline', novalidate: true },
    amountField(`${id}-amount`, 'amount', label, { required: true }),
    withReason ? field(`${id}-description`, 'description', t('day.reason'), { maxlength: 255, autocomplete: 'off', required: true }) : null,
    extra,
    el('button', { type: 'submit' }, button));
  onSubmit(form, () => submit(amountOf(form.querySelector(`#${id}-amount`)),
    withReason ? form.querySelector(`#${id}-description`).value.trim() : undefined), () => {});
  return form;
}

// Lek notes and coins: counting the drawer by denomination fills the counted amount.
const NOTES = [5000, 2000, 1000, 500, 200];
const COINS = [100, 50, 20, 10, 5, 1];

function denominations(target) {
  const inputs = [];
  const row = (value, kind) => {
    const input = el('input', { id: `den-${value}`, type: 'number', min: '0', step: '1', inputmode: 'numeric', class: 'count', 'data-value': value });
    inputs.push(input);
    return el('div', { class: 'field' }, el('label', { for: `den-${value}` }, `${value} L (${t(kind)})`), input);
  };
  const total = el('output', { id: 'den-total', for: inputs.map((i) => i.id).join(' ') }, '0.00');
  const box = el('details', { class: 'denominations', id: 'denominations' },
    el('summary', {}, t('day.byDenomination')),
    el('div', { class: 'den-grid' }, NOTES.map((v) => row(v, 'day.note')), COINS.map((v) => row(v, 'day.coin'))),
    el('p', {}, `${t('today.total')}: `, total, ' ALL'));
  box.addEventListener('input', () => {
    const lek = inputs.reduce((sum, i) => sum + Number(i.dataset.value) * Math.max(0, Math.floor(Number(i.value) || 0)), 0);
    total.textContent = formatCents(lek * 100);
    document.getElementById(target).value = writeNumber(lek * 100, language());
  });
  return box;
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
  // A cash action: the API's answer (a refusal stays in the form), the page refreshed when done.
  const post = async (path, body, done) => {
    const answer = await api(path, { method: 'POST', body });
    if (answer.ok) {
      const pending = answer.data?.fiscal_status === 'PENDING' ? ` (${t('day.pending')})` : '';
      ctx.setStatus(`${t(done)}${pending}`, 'ok');
      await refresh();
    }
    return answer;
  };
  const noReason = { ok: false, fields: { description: t('day.reasonNeeded') }, body: {} };
  const cash = (path, done) => (amount, description) => {
    if (description === '') return noReason;
    return post(path, { amount: amount.value, description }, done);
  };
  const forms = [];
  // "Open the day" on a day not open; a day a sale opened by itself with nothing in the drawer
  // is open already, and only takes its float.
  const open = cash('/api/v1/cash-register/open-balance', till.day.state === 'open' ? 'day.floatIn' : 'day.opened');
  if (till.day.state !== 'open') forms.push(amountForm('open', t('day.openAmount'), t('day.openDay'), false, open));
  else if (till.day.opened_automatically && !toCents(till.day.opening ?? 0)) {
    forms.push(amountForm('open', t('day.float'), t('day.putFloat'), false, open));
  }
  forms.push(amountForm('deposit', t('day.amount'), t('day.deposit'), true, cash('/api/v1/cash-register/deposit', 'day.deposited')));
  forms.push(amountForm('withdraw', t('day.amount'), t('day.withdraw'), true, cash('/api/v1/cash-register/withdraw', 'day.withdrawn')));
  if (till.day.state === 'open') {
    forms.push(amountForm('close', t('day.counted'), t('day.closeDay'), false, (amount) => {
      const counted = amount.units;
      const expected = toCents(till.day.expected) ?? 0;
      // Shown before anything is sent: the owner confirms the count against what is expected.
      const confirm = el('button', { id: 'confirm-close', type: 'button', class: 'primary' }, t('confirm'));
      const back = el('button', { type: 'button' }, t('cancel'));
      back.addEventListener('click', () => ctx.closeDialog());
      confirm.addEventListener('click', async () => {
        confirm.disabled = true;
        const closed = await post('/api/v1/cash-register/close-balance', { counted: amount.value }, 'day.closedDone');
        if (closed.ok) ctx.openDialog(t('day.closedDone'), closingFigures(closed.data), dayPdfs(closed.data, ctx));
        else {
          ctx.closeDialog();
          ctx.setStatus(closed.message, 'error');
        }
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
      return { ok: true };
    }, denominations('close-amount')));
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
    tillsTable(today, ctx),
    el('h3', {}, t('day.actions')),
    mine
      ? el('div', { class: 'card', id: 'till-actions' },
        el('p', {}, `${mine.name} (${mine.fiscal_tcr_code}): ${dayText(mine.day)} · ${t('today.balance')} `,
          el('strong', { id: 'my-balance' }, money(mine.balance))),
        actions(mine, ctx, refresh))
      : el('p', {}, t('day.noTill')),
  );
}
