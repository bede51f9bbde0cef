// Payment and issuing: cash with the change due, card, or a split of both; a business buyer
// found by NUIS. The internalId is made before the first send, so a timeout or a server gone
// away is retried with the same one and never makes a second receipt. Then the receipt goes to
// the till's printer, or to the browser's print dialog as the 80 mm PDF when it has none.

import { api, pdf } from './api.js';
import { t, said, el, cents, money, amount } from './words.js';
import { till, total, apiLines, drawLines } from './sale.js';

const $ = (id) => document.getElementById(id);
const RETRIES = 60;

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
  till.say(said(r.body?.message || r.message), true,
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

let buyer = null;

async function findBuyer(input, shown) {
  const nipt = input.value.trim();
  const r = await api('/api/v1/client/search', { query: { nipt } });
  buyer = r.ok && r.data?.name ? r.data : null;
  shown.textContent = buyer ? `${buyer.name} · ${buyer.nipt} · ${[buyer.address, buyer.city].filter(Boolean).join(', ')}` : t('pay.noBuyer');
}

// The payment dialog for the open receipt.
export function openPayment() {
  const due = total();
  buyer = null;
  const internalId = crypto.randomUUID();
  let method = 'cash';
  const tendered = el('input', { id: 'tendered', inputmode: 'decimal', autocomplete: 'off', 'aria-describedby': 'pay-error' });
  const cardPart = el('input', { id: 'card-part', inputmode: 'decimal', autocomplete: 'off', 'aria-describedby': 'pay-error' });
  const change = el('output', { id: 'change', for: 'tendered' }, money(0));
  const error = el('p', { id: 'pay-error', class: 'error', role: 'alert' });
  const nipt = el('input', { id: 'buyer-nuis', autocomplete: 'off', maxlength: 10 });
  const found = el('p', { id: 'buyer-found', role: 'status' });
  const cashPart = () => (method === 'cash' ? due : method === 'card' ? 0 : due - (cents(cardPart.value) ?? 0));
  const recount = () => {
    const given = cents(tendered.value);
    change.textContent = money(given === null ? 0 : Math.max(0, given - cashPart()));
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
  const form = el('form', { id: 'pay-form', onsubmit: async (e) => {
    e.preventDefault();
    const started = performance.timeOrigin + performance.now();
    const card = method === 'card' ? due : method === 'split' ? cents(cardPart.value) : 0;
    if (card === null || card < 0 || card > due) return (error.textContent = t('pay.splitBad'));
    const cash = due - card;
    const given = method === 'card' ? null : (tendered.value.trim() === '' ? cash : cents(tendered.value));
    if (cash > 0 && (given === null || given < cash)) return (error.textContent = t('pay.short'));
    error.textContent = '';
    const payments = [];
    if (cash > 0 || card === 0) payments.push({ type: 'BANKNOTE', amount: amount(cash) });
    if (card > 0) payments.push({ type: 'CARD', amount: amount(card) });
    const body = { internalId, lines: apiLines(), payment_methods: payments };
    if (buyer) body.client = { name: buyer.name, id: { id: buyer.nipt }, address: buyer.address || buyer.city || '-', city: buyer.city || '-' };
    form.querySelector('button[type=submit]').disabled = true;
    till.say(t('pay.sending'));
    const r = await issue('/api/v2/invoice/cash', body);
    const invoice = r.data?.invoice || r.body?.data?.invoice;
    if (!invoice) {
      form.querySelector('button[type=submit]').disabled = false;
      return (error.textContent = t('pay.failed', { message: said(r.message) }));
    }
    $('dialog').close();
    till.lines = [];
    drawLines();
    till.say(t(invoice.fic ? 'sold' : 'sold.late', { number: invoice.number }));
    till.timings.pay.push(started);
    await printReceipt(invoice, cash > 0 && given ? amount(given) : null);
    till.onSold(invoice);
  } },
  el('p', { class: 'due' }, `${t('total')}: `, el('strong', { id: 'pay-due' }, money(due))),
  el('div', { class: 'methods', role: 'group', 'aria-label': t('pay.title') }, methods),
  el('div', { id: 'card-box', hidden: true }, el('label', { for: 'card-part' }, t('pay.cardPart')), cardPart),
  el('div', { id: 'cash-box' }, el('label', { for: 'tendered' }, t('pay.tendered')), tendered,
    el('p', {}, `${t('pay.change')}: `, change)),
  el('details', { id: 'buyer' }, el('summary', {}, t('pay.buyer')),
    el('label', { for: 'buyer-nuis' }, 'NUIS'), nipt,
    el('button', { type: 'button', id: 'buyer-find', onclick: () => findBuyer(nipt, found) }, t('pay.find')), found),
  error,
  el('div', { class: 'actions' },
    el('button', { type: 'button', onclick: () => $('dialog').close() }, t('pay.cancel')),
    el('button', { type: 'submit', class: 'primary', id: 'pay-confirm' }, t('pay.confirm'))));
  $('dialog-title').textContent = t('pay.title');
  $('dialog-body').replaceChildren(form);
  $('dialog').showModal();
  tendered.focus();
}
