// Today: the day's sales by till and payment method, each till's day with what its drawer should
// hold (banknotes) apart from card and every other method, and the cash actions of a till (open,
// deposit, withdraw, close with the count by notes and coins): a cashier's own, or the one a
// manager or an owner picks. At a chain's head office: every shop's day side by side.

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

// Every payment method but banknotes, each named: money the drawer does not hold.
function notInDrawer(methods) {
  const entries = Object.entries(methods || {});
  if (!entries.length) return t('day.nothing');
  return entries.map(([m, amount]) => `${method(m)} ${money(amount)}`).join(' · ');
}

function tillsTable(today, ctx) {
  const rows = today.tills.map((till) => [
    el('span', {}, `${till.name} (${till.fiscal_tcr_code})`, till.mine ? el('em', {}, ` · ${t('today.mine')}`) : null),
    el('span', { class: `day ${till.day.state}`, 'data-tcr': till.fiscal_tcr_code }, dayText(till.day)),
    el('span', { 'data-expected': till.fiscal_tcr_code }, till.day.expected === null ? '' : money(till.day.expected)),
    el('span', { 'data-not-in-drawer': till.fiscal_tcr_code }, till.day.not_in_drawer ? notInDrawer(till.day.not_in_drawer) : ''),
    el('span', { 'data-balance': till.fiscal_tcr_code }, money(till.balance)),
    till.day.state === 'not_opened' ? '' : el('button', {
      type: 'button', class: 'small', 'data-x-report': till.fiscal_tcr_code,
      'aria-label': `${t(till.day.state === 'open' ? 'day.xReport' : 'day.zReport')} ${till.name}`,
      onclick: () => dayReport(till, ctx),
    }, t(till.day.state === 'open' ? 'day.xReport' : 'day.zReport')),
  ]);
  return table([t('today.till'), t('today.day'), t('day.expectedDrawer'), t('day.notInDrawer'), t('day.cisBalance'), t('day.report')],
    rows, [2, 4]);
}

// The drawer of a day, move by move, to what it should hold (ids `<prefix>-carried`,
// `<prefix>-expected`).
function drawerRows(drawer, prefix) {
  if (!drawer) return [];
  return [
    [t('day.carriedOver'), el('span', { id: `${prefix}-carried` }, money(drawer.carried_over))],
    [t('day.opening'), money(drawer.opening)],
    [t('day.banknotesIn'), money(drawer.banknotes_in)],
    [t('day.banknotesOut'), money(drawer.banknotes_out)],
    [t('day.changeGiven'), money(drawer.change_given)],
    [t('day.deposits'), money(drawer.deposits)],
    [t('day.withdrawals'), money(drawer.withdrawals)],
    [t('day.expectedDrawer'), el('strong', { id: `${prefix}-expected` }, money(drawer.expected))],
  ];
}

// A till's day as the closing report has it: the X report of an open day (its figures so far),
// the Z report of a closed one (with its count); with its PDFs.
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
  const heading = (text) => [el('strong', {}, text), ''];
  const rows = [
    heading(t('day.cashiers')),
    ...item.cashiers.map((c) => [c.name ?? c.operator_code ?? '', c.operator_code ?? '']),
    heading(t('day.receipts')),
    [t('today.receipts'), el('span', { id: 'report-receipts' }, String(item.receipts.count))],
    [t('day.receiptRange'), item.receipts.first ? `${item.receipts.first} – ${item.receipts.last}` : ''],
    [t('today.sales'), money(item.receipts.gross)],
    heading(t('day.salesByMethod')),
    ...Object.entries(item.sales_by_payment_method).map(([m, amount]) => [method(m), money(amount)]),
    heading(t('day.vatByRate')),
    ...item.vat.map((l) => [`${l.vat_rate} %${l.exemption ? ` (${l.exemption})` : ''}`,
      `${money(l.net)} + ${money(l.vat)} = ${money(l.gross)}`]),
    heading(t('day.cancellations')),
    [t('day.cancellations'), `${item.cancellations.count} · ${money(item.cancellations.gross)}`],
    ...item.cancellations.documents.map((d) => [`${d.number}${d.corrects ? ` → ${d.corrects}` : ''}`, money(d.gross)]),
    heading(t('day.drawer')),
    ...(item.drawer
      ? drawerRows(item.drawer, 'report')
      : [[t('day.expected'), el('strong', { id: 'report-expected' }, money(item.expected))]]),
    [t('day.notInDrawer'), el('span', { id: 'report-not-in-drawer' }, notInDrawer(item.not_in_drawer))],
  ];
  if (!open) {
    rows.push(heading(t('day.count')),
      ...Object.entries(item.denominations || {}).reverse().map(([value, pieces]) => [`${value} L × ${pieces}`, money(Number(value) * pieces)]),
      [t('day.counted'), money(item.counted)],
      [t('day.difference'), el('strong', { id: 'report-difference' }, money(item.difference))],
      [t('day.withdrawnAtClose'), money(item.withdrawn)],
      [t('day.cisBalance'), money(item.balance)]);
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

// The count by notes and coins fills the counted amount; `pieces()` is the count as made (the
// denominations typed in), sent with the close.
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
  const pieces = () => {
    const made = {};
    for (const input of inputs) if (input.value !== '') made[input.dataset.value] = Math.max(0, Math.floor(Number(input.value) || 0));
    return Object.keys(made).length ? made : null;
  };
  box.addEventListener('input', () => {
    const made = pieces() || {};
    const lek = Object.entries(made).reduce((sum, [value, n]) => sum + Number(value) * n, 0);
    total.textContent = formatCents(lek * 100);
    document.getElementById(target).value = writeNumber(lek * 100, language());
  });
  return { box, pieces };
}

function closingFigures(summary) {
  return table(['', t('day.amount')], [
    ...drawerRows(summary.drawer, 'closed'),
    [t('day.notInDrawer'), notInDrawer(summary.not_in_drawer)],
    [t('day.counted'), money(summary.counted)],
    [t('day.difference'), el('strong', { id: 'closed-difference' }, money(summary.difference))],
    [t('day.withdrawnAtClose'), money(summary.withdrawn)],
    [t('day.cisBalance'), money(summary.balance)],
  ], [1]);
}

function actions(till, ctx, refresh) {
  // Another's till is named (`?tcr=`): a manager or an owner acts on the till they picked.
  const query = till.mine ? {} : { tcr: till.fiscal_tcr_code };
  // A cash action: the API's answer (a refusal stays in the form), the page refreshed when done.
  const post = async (path, body, done) => {
    const answer = await api(path, { method: 'POST', body, query });
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
    const count = denominations('close-amount');
    forms.push(amountForm('close', t('day.counted'), t('day.closeDay'), false, (amount) => {
      const counted = amount.units;
      const expected = toCents(till.day.expected) ?? 0;
      // Shown before anything is sent: the owner confirms the count against what is expected.
      const confirm = el('button', { id: 'confirm-close', type: 'button', class: 'primary' }, t('confirm'));
      const back = el('button', { type: 'button' }, t('cancel'));
      back.addEventListener('click', () => ctx.closeDialog());
      confirm.addEventListener('click', async () => {
        confirm.disabled = true;
        const pieces = count.pieces();
        const body = pieces ? { counted: amount.value, denominations: pieces } : { counted: amount.value };
        const closed = await post('/api/v1/cash-register/close-balance', body, 'day.closedDone');
        if (closed.ok) ctx.openDialog(t('day.closedDone'), closingFigures(closed.data), dayPdfs(closed.data, ctx));
        else {
          ctx.closeDialog();
          ctx.setStatus(closed.message, 'error');
        }
      });
      const difference = counted - expected;
      ctx.openDialog(t('day.closeTitle'),
        table(['', t('day.amount')], [
          [t('day.expectedDrawer'), el('span', { id: 'close-expected' }, formatCents(expected))],
          [t('day.counted'), el('span', { id: 'close-counted' }, formatCents(counted))],
          [t('day.difference'), el('strong', { id: 'close-difference', class: difference < 0 ? 'bad' : '' }, formatCents(difference))],
        ], [1]),
        el('p', { class: 'buttons' }, confirm, back));
      confirm.focus();
      return { ok: true };
    }, count.box));
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
    el('p', { class: hq.backlog ? 'warn' : '' }, text),
    hq.problem ? el('p', { class: 'bad', id: 'hq-problem' }, `${t('hq.problem')} ${hq.problem}`) : null,
    hq.set_aside ? el('p', { class: 'bad', id: 'hq-set-aside' }, `${hq.set_aside} ${t('hq.setAside')}`) : null);
}

// After a restore: each retired till, the TCR it goes on on, and what the CIS has that the books lack.
function restoredCard(restored) {
  if (!restored) return null;
  const tills = restored.retired_tcrs.map((r) => el('p', { 'data-retired': r.tcr_code },
    `${r.name} (${r.tcr_code}): ${t('restored.retired')} ${r.last_number}, `,
    r.continued_by ? `${t('restored.continues')} ${r.continued_by}` : t('restored.waiting')));
  const lacking = restored.cis_only_einvoices.map((e) => el('li', {}, `${e.doc_number ?? ''} · ${e.eic} · ${e.amount ?? ''}`));
  return el('div', { class: 'card', id: 'restored' }, el('h3', {}, t('restored.title')), ...tills,
    lacking.length ? el('p', { class: 'warn' }, t('restored.cisOnly')) : null,
    lacking.length ? el('ul', {}, ...lacking) : null);
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
    line(t('chain.heard'), (s) => el('span', { 'data-shop-heard': s.shop }, s.silent_seconds === null ? t('chain.never') : String(s.silent_seconds)), ''),
    line(t('chain.backlog'), (s) => String(s.heartbeat?.backlog ?? 0), ''),
    line(t('chain.cisQueue'), (s) => String(s.heartbeat?.cis_queue ?? 0), ''),
    line(t('hq.setAside'), (s) => String(s.heartbeat?.set_aside ?? 0), ''),
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

// Boxes refused on a shop's token, and the numbers reserved with no document.
function chainAlerts(today) {
  const refused = today.shops.filter((s) => s.refused_boxes.length)
    .map((s) => el('p', { class: 'bad', 'data-refused': s.shop }, `${s.shop}: ${t('chain.refusedBox')} (${s.refused_boxes.map((b) => b.reason).join('; ')})`));
  const held = today.held_numbers.length
    ? [el('h3', {}, t('chain.held')), el('p', { class: 'warn' }, t('chain.heldHint')),
      table([t('chain.shop'), t('chain.number'), t('chain.age')],
        today.held_numbers.map((h) => [h.shop ?? '', el('span', { 'data-held': `${h.ord_num}/${h.year}` }, `${h.ord_num}/${h.year} · ${h.nuis}`), String(h.age_seconds)]), [2])]
    : [];
  return [...refused, ...held];
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
    ...chainAlerts(today),
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
  // The till acted on: the one picked (a manager or an owner may pick any), else one's own,
  // else, for a manager or an owner, the first the day lists.
  const acting = today.tills.find((till) => till.fiscal_tcr_code === picked)
    ?? today.tills.find((till) => till.mine) ?? (ctx.allowed('owner manager') ? today.tills[0] : null);
  picked = acting?.fiscal_tcr_code ?? null;
  const refresh = () => render(section, ctx);
  section.replaceChildren(
    el('h2', {}, `${t('today.title')} · ${today.business_day}`),
    el('div', { class: 'cards' },
      el('div', { class: 'card' }, el('h3', {}, t('today.sales')),
        el('p', { class: 'big' }, el('span', { id: 'today-gross' }, money(today.totals.gross)), ' ALL')),
      el('div', { class: 'card' }, el('h3', {}, t('today.receipts')),
        el('p', { class: 'big', id: 'today-receipts' }, String(today.totals.receipts)),
        today.totals.waiting ? el('p', { class: 'warn' }, `${today.totals.waiting} ${t('today.waiting')}`) : null),
      hqCard(today.hq),
      restoredCard(today.restored)),
    el('h3', {}, t('today.byTill')),
    salesTable(today),
    el('h3', {}, t('today.cash')),
    tillsTable(today, ctx),
    el('h3', {}, t('day.actions')),
    acting
      ? el('div', { class: 'card', id: 'till-actions' },
        tillPicker(today, acting, refresh),
        el('p', {}, `${acting.name} (${acting.fiscal_tcr_code}): ${dayText(acting.day)} · ${t('day.cisBalance')} `,
          el('strong', { id: 'my-balance' }, money(acting.balance))),
        acting.day.drawer ? table(['', t('day.amount')], [
          ...drawerRows(acting.day.drawer, 'drawer'),
          [t('day.notInDrawer'), el('span', { id: 'drawer-not-in' }, notInDrawer(acting.day.not_in_drawer))],
        ], [1]) : null,
        actions(acting, ctx, refresh))
      : el('p', {}, t('day.noTill')),
  );
}

// The till a manager or an owner acts on, kept while the page is open.
let picked = null;

// With more than one till: a choice of the till to act on (a cashier's day lists their own).
function tillPicker(today, acting, refresh) {
  if (today.tills.length < 2) return null;
  const select = el('select', { id: 'till-pick' }, today.tills.map((till) => el('option', {
    value: till.fiscal_tcr_code, selected: till.fiscal_tcr_code === acting.fiscal_tcr_code,
  }, `${till.name} (${till.fiscal_tcr_code})${till.mine ? ` · ${t('today.mine')}` : ''}`)));
  select.addEventListener('change', () => {
    picked = select.value;
    refresh();
  });
  return el('div', { class: 'field' }, el('label', { for: 'till-pick' }, t('day.pickTill')), select);
}
