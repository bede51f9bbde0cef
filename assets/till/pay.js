// Payment and issuing: cash with the change due, card, or a split of both; a business buyer
// found by NUIS. The internalId is made before the first send, so a timeout or a server gone
// away is retried with the same one and never makes a second receipt. Then the receipt goes to
// the till's printer, or to the browser's print dialog as the 80 mm PDF when it has none. The
// cash and the card part are read as the till's language writes amounts (amount.js).

import { api, pdf } from './api.js';
import { el } from './dom.js';
import { t, money, amount, typed, language } from './words.js';
import { amountOf } from './ask.js';
import { till, total, apiLines, drawLines } from './sale.js';

const $ = (id) => document.getElementById(id);
const RETRIES = 60;

// Milliseconds since the epoch, as precise as the page's clock.
function clock() {
  return performance.timeOrigin + performance.now();
}

function wait(ms) {
  return new Promise((done) => setTimeout(done, ms));
}

// Sends `body` to `path` until the server answers; a 409 (already issued under this
// internalId) reads back what was issued. Returns the API's answer.
export async function issue(path, body) {
  for (let attempt = 1; attempt <= RETRIES; attempt += 1) {
    const r = await api(path, { method: 'POST', body });
    if (r.status === 409) {
      const read = await api(`/api/v2/invoice/details/${encodeURIComponent(body.internalId)}`, { method: 'POST' });
      if (read.ok) return read;
    } else if (![0, 429, 502, 504].includes(r.status)) {
      return r;
    }
    till.say(t('pay.retrying', { n: attempt }));
    await wait(Math.min(250 * attempt, 1000));
  }
  return { status: 0, ok: false, message: t('error.network') };
}

// The receipt of `invoice` on paper: the till's printer, else the PDF in the print dialog.
export async function printReceipt(invoice, tendered) {
  if (!till.printer) return printPdf(invoice.id);
  const r = await api(`/api/v1/invoice/${invoice.id}/receipt`, { method: 'POST', body: tendered ? { tendered } : {} });
  if (r.ok) {
    till.say(r.data.copy ? t('print.copy') : t('print.done'));
    return true;
  }
  if (r.status === 409) return printPdf(invoice.id);
  till.say(r.message, true,
    el('button', { type: 'button', id: 'print-again', onclick: () => printReceipt(invoice, tendered) }, t('print.again')));
  return false;
}

async function printPdf(id) {
  const url = await pdf(`/api/v1/invoice/print/${id}?format=receipt`);
  if (!url) return false;
  const frame = el('iframe', { class: 'receipt-pdf', src: url, title: t('print.pdf') });
  $('dialog-title').textContent = t('print.pdf');
  $('dialog-body').replaceChildren(frame, el('button', { type: 'button', id: 'pdf-print', onclick: () => frame.contentWindow?.print() }, t('print.pdf')));
  if (!$('dialog').open) $('dialog').showModal();
  return true;
}

async function findBuyer(input, shown, found) {
  const nipt = input.value.trim();
  const r = await api('/api/v1/client/search', { query: { nipt } });
  found(r.ok && r.data?.name ? r.data : null);
  shown.textContent = r.ok && r.data?.name
    ? `${r.data.name} · ${r.data.nipt} · ${[r.data.address, r.data.city].filter(Boolean).join(', ')}`
    : t('pay.noBuyer');
}

// An amount field of the payment: typed as the till's language writes lek, its refusal or its
// question on the line under it.
function amountInput(id) {
  return [
    el('input', { id, inputmode: 'decimal', autocomplete: 'off', 'data-places': 2, 'aria-describedby': `${id}-error` }),
    el('p', { id: `${id}-error`, class: 'error', role: 'alert' }),
  ];
}

// The payment dialog for `due` cents: `send(payments, buyer, internalId)` issues the document (the open
// receipt's cash sale, or a table guest's summary) and answers the API's reply; `buyers` offers
// the business buyer's search. `done(invoice)` follows once it is issued and printed.
export function openPayment({ due = total(), buyers = true, send = sendSale, done = soldSale } = {}) {
  let buyer = null;
  let method = 'cash';
  // Made before the first send: every send of this payment, a retry too, is the same document.
  const internalId = crypto.randomUUID();
  const [tendered, tenderedError] = amountInput('tendered');
  const [cardPart, cardError] = amountInput('card-part');
  const change = el('output', { id: 'change', for: 'tendered' }, money(0));
  const error = el('p', { id: 'pay-error', class: 'error', role: 'alert' });
  const nipt = el('input', { id: 'buyer-nuis', autocomplete: 'off', maxlength: 10 });
  const found = el('p', { id: 'buyer-found', role: 'status' });
  // Read as the person types: a part not read (yet) counts as none.
  const now = (input) => {
    const reading = amountOf(input, language());
    return reading.ok ? reading.units : 0;
  };
  const cashPart = () => (method === 'cash' ? due : method === 'card' ? 0 : due - now(cardPart));
  const recount = () => {
    change.textContent = money(Math.max(0, now(tendered) - cashPart()));
  };
  tendered.addEventListener('input', recount);
  cardPart.addEventListener('input', recount);
  const methods = ['cash', 'card', 'split'].map((m) => el('button', {
    type: 'button', id: `pay-${m}`, class: 'method', 'aria-pressed': String(m === method),
    onclick: () => {
      method = m;
      for (const b of methods) b.setAttribute('aria-pressed', String(b.id === `pay-${m}`));
      $('cash-box').hidden = m === 'card';
      $('card-box').hidden = m !== 'split';
      recount();
    },
  }, t(`pay.${m}`)));
  const again = () => form.requestSubmit();
  const form = el('form', { id: 'pay-form', novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    // When each step of a payment happened (the browser story reads them: where a slow sale waits).
    const mark = { started: clock() };
    let card = method === 'card' ? due : 0;
    if (method === 'split') {
      const part = typed(cardPart, again);
      if (!part) return;
      card = part.units;
    }
    if (card < 0 || card > due) return (error.textContent = t('pay.splitBad'));
    const cash = due - card;
    let given = null;
    if (method !== 'card') {
      const read = tendered.value.trim() === '' ? { units: cash } : typed(tendered, again);
      if (!read) return;
      given = read.units;
    }
    if (cash > 0 && (given === null || given < cash)) return (error.textContent = t('pay.short'));
    error.textContent = '';
    const payments = [];
    if (cash > 0 || card === 0) payments.push({ type: 'BANKNOTE', amount: amount(cash) });
    if (card > 0) payments.push({ type: 'CARD', amount: amount(card) });
    form.querySelector('button[type=submit]').disabled = true;
    till.say(t('pay.sending'));
    const r = await send(payments, buyer, internalId);
    mark.answered = clock();
    const invoice = r.data?.invoice || r.body?.data?.invoice;
    if (!invoice) {
      form.querySelector('button[type=submit]').disabled = false;
      return (error.textContent = t('pay.failed', { message: r.message }));
    }
    $('dialog').close();
    till.say(t(invoice.fic ? 'sold' : 'sold.late', { number: invoice.number }));
    till.timings.pay.push(mark);
    // The receipt's request leaves before the screen is redrawn for the next sale.
    mark.printAsked = clock();
    const printed = printReceipt(invoice, cash > 0 && given ? amount(given) : null);
    await done(invoice);
    await printed;
    mark.printed = clock();
    till.onSold(invoice);
  } },
  el('p', { class: 'due' }, `${t('total')}: `, el('strong', { id: 'pay-due' }, money(due))),
  el('div', { class: 'methods', role: 'group', 'aria-label': t('pay.title') }, methods),
  el('div', { id: 'card-box', hidden: true }, el('label', { for: 'card-part' }, t('pay.cardPart')), cardPart, cardError),
  el('div', { id: 'cash-box' }, el('label', { for: 'tendered' }, t('pay.tendered')), tendered, tenderedError,
    el('p', {}, `${t('pay.change')}: `, change)),
  buyers ? el('details', { id: 'buyer' }, el('summary', {}, t('pay.buyer')),
    el('label', { for: 'buyer-nuis' }, 'NUIS'), nipt,
    el('button', { type: 'button', id: 'buyer-find', onclick: () => findBuyer(nipt, found, (b) => { buyer = b; }) }, t('pay.find')), found) : null,
  error,
  el('div', { class: 'actions' },
    el('button', { type: 'button', onclick: () => $('dialog').close() }, t('pay.cancel')),
    el('button', { type: 'submit', class: 'primary', id: 'pay-confirm' }, t('pay.confirm'))));
  $('dialog-title').textContent = t('pay.title');
  $('dialog-body').replaceChildren(form);
  $('dialog').showModal();
  tendered.focus();
}

// The open receipt as a cash sale.
function sendSale(payments, buyer, internalId) {
  const body = { internalId, lines: apiLines(), payment_methods: payments };
  if (buyer) body.client = { name: buyer.name, id: { id: buyer.nipt }, address: buyer.address || buyer.city || '-', city: buyer.city || '-' };
  return issue('/api/v2/invoice/cash', body);
}

// The receipt emptied, and the focus back in the search field for the next sale: the pay
// button the dialog would give it back to is disabled now, which would leave a keyboard at the
// top of the page.
function soldSale() {
  till.lines = [];
  drawLines();
  $('search').focus();
}
