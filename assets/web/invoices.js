// Invoices: the latest first, search by number, buyer or NIPT, filters by type and date; a row
// opens the details with the PDF (A4 and receipt) and the cancellation, once confirmed.

import { api, apiFile } from './api.js';
import { apiWords, method, t } from './i18n.js';
import { download, el, money, table } from './format.js';
import { amountOf, onSubmit } from './form.js';

const PAGE = 20;
const filters = { query: '', type: '', fromDate: '', toDate: '', offset: 0 };

// The filters, each label held with its own field (a phone wraps them pair by pair).
function filterForm(section, ctx) {
  const pair = (id, label, control) => el('div', { class: 'field' }, el('label', { for: id }, label), control);
  const input = (id, label, attrs) => pair(id, label, el('input', { id, ...attrs }));
  const type = el('select', { id: 'inv-type' },
    [['', t('inv.all')], ['CASH', t('inv.cash')], ['NONCASH', t('inv.noncash')]]
      .map(([value, label]) => el('option', { value, selected: filters.type === value }, label)));
  const form = el('form', { class: 'filters', id: 'inv-filters', role: 'search' },
    input('inv-query', t('inv.search'), { type: 'search', value: filters.query, maxlength: 255 }),
    pair('inv-type', t('inv.type'), type),
    input('inv-from', t('inv.from'), { type: 'date', value: filters.fromDate }),
    input('inv-to', t('inv.to'), { type: 'date', value: filters.toDate }),
    el('button', { type: 'submit', class: 'primary' }, t('inv.apply')));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    filters.query = form.querySelector('#inv-query').value.trim();
    filters.type = type.value;
    filters.fromDate = form.querySelector('#inv-from').value;
    filters.toDate = form.querySelector('#inv-to').value;
    filters.offset = 0;
    render(section, ctx);
  });
  return form;
}

// An invoice's type in words (the API's CASH, NONCASH, EINVOICE), or the code when the page has none.
function typeWords(type) {
  const key = { CASH: 'inv.cash', NONCASH: 'inv.noncash', EINVOICE: 'inv.einvoice' }[type];
  return key ? t(key) : type;
}

// What cancellations left of an invoice: wholly cancelled, or part cancelled with what remains.
function cancellationText(invoice) {
  const c = invoice.cancellation;
  if (c.state === 'whole') return t('inv.reversed');
  return `${t('inv.partReversed')} · ${t('inv.remaining')} ${money(c.remaining)} ${invoice.amount?.currency ?? ''}`.trim();
}

function buyerOf(invoice) {
  return invoice.client?.name || t('inv.walkin');
}

async function showPdf(id, format, holder, ctx) {
  const answer = await apiFile(`/api/v1/invoice/print/${id}`, { format });
  if (!answer.ok) {
    ctx.setStatus(answer.message, 'error');
    return;
  }
  const url = URL.createObjectURL(answer.blob);
  holder.replaceChildren(
    el('p', {}, el('a', { href: url, target: '_blank', rel: 'noopener', id: `pdf-${format}-link` }, t('inv.openPdf')),
      ' · ', el('button', { type: 'button', onclick: () => download(answer.blob, `invoice-${id}-${format}.pdf`) }, 'PDF ↓')),
    el('iframe', { src: url, title: `${t('inv.details')} ${id} (${format})`, class: `pdf ${format}` }));
}

// The chosen quantities of a cash invoice's lines (read in the page's language), as the
// cancellation's `lines`; each input is given the API's key of its line (`lines.N.quantity`) so a
// refusal lands beside it.
function chosenLines(form, inv) {
  const lines = [];
  for (const input of form.querySelectorAll('input[data-line]')) {
    input.removeAttribute('data-field');
    if (input.value.trim() === '') continue;
    const quantity = amountOf(input).value;
    if (!quantity) continue;
    const l = inv.lines[Number(input.dataset.line)];
    input.dataset.field = `lines.${lines.length}.quantity`;
    lines.push({ product_name: l.product_name, product_code: l.product_code, quantity });
  }
  return lines;
}

// Part of a cash invoice given back: a quantity per line, confirmed before anything is sent.
function partialForm(inv, section, ctx) {
  const rows = (inv.lines || []).map((l, i) => [l.product_name, String(l.quantity),
    el('span', {},
      el('label', { for: `cancel-q-${i}`, class: 'sr-only' }, `${t('inv.cancelQuantity')}: ${l.product_name}`),
      el('input', { id: `cancel-q-${i}`, 'data-line': i, 'data-places': 3, inputmode: 'decimal', autocomplete: 'off', class: 'qty', 'aria-describedby': `cancel-q-${i}-error` }),
      el('p', { id: `cancel-q-${i}-error`, class: 'field-error' }))]);
  const form = el('form', { id: 'partial-cancel', novalidate: true },
    el('h3', {}, t('inv.partial')),
    table([t('inv.product'), t('inv.quantity'), t('inv.cancelQuantity')], rows, [1]),
    el('p', { class: 'buttons' }, el('button', { type: 'submit', class: 'danger' }, t('inv.cancelChosen'))));
  onSubmit(form, async () => {
    const lines = chosenLines(form, inv);
    if (!lines.length) return { ok: false, fields: {}, body: { message: t('inv.chooseLines') } };
    if (!window.confirm(t('inv.partialAsk'))) return { ok: true, skipped: true };
    return api(`/api/v1/invoice/cancel/${inv.id}`, { method: 'POST', body: { lines } });
  }, async (answer) => {
    if (answer.skipped) return;
    ctx.closeDialog();
    ctx.setStatus(`${t('inv.cancelled')} ${answer.data?.invoice?.number ?? ''}`, 'ok');
    render(section, ctx);
  });
  return form;
}

function confirmCancel(invoice, section, ctx) {
  const yes = el('button', { type: 'button', class: 'danger', id: 'confirm-cancel' }, t('confirm'));
  const no = el('button', { type: 'button' }, t('cancel'));
  no.addEventListener('click', () => details(invoice.id, section, ctx));
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    const answer = await api(`/api/v1/invoice/cancel/${invoice.id}`, { method: 'POST' });
    ctx.closeDialog();
    if (answer.status === 404) ctx.setStatus(t('inv.cancelMissing'), 'error');
    else if (!answer.ok) ctx.setStatus(apiWords(answer.message), 'error');
    else ctx.setStatus(`${t('inv.cancelled')} ${answer.data?.invoice?.number ?? ''}`, 'ok');
    render(section, ctx);
  });
  ctx.openDialog(`${t('inv.cancel')} ${invoice.number}`, el('p', {}, t('inv.cancelAsk')), el('p', { class: 'buttons' }, yes, no));
  no.focus();
}

async function details(id, section, ctx) {
  const answer = await api(`/api/v1/invoice/${id}/details`);
  if (!answer.ok) {
    ctx.setStatus(answer.message, 'error');
    return;
  }
  const inv = answer.data.invoice;
  const pdf = el('div', { class: 'pdf-holder' });
  const lines = table([t('inv.product'), t('inv.quantity'), t('inv.price'), t('inv.vat'), t('inv.total')],
    (inv.lines || []).map((l) => [l.product_name, String(l.quantity), money(l.unitPrice), String(l.vat), money(l.total)]), [1, 2, 3, 4]);
  const whole = inv.cancellation?.state === 'whole';
  const cancel = whole
    ? el('p', { class: 'warn' }, `${t('inv.reversed')} ${inv.reversed_at}`)
    : el('button', { type: 'button', class: 'danger', id: 'cancel-invoice', onclick: () => confirmCancel(inv, section, ctx) }, t('inv.cancel'));
  ctx.openDialog(`${t('inv.details')} ${inv.number}`,
    el('dl', { class: 'facts' },
      el('dt', {}, t('inv.date')), el('dd', {}, inv.created_at),
      el('dt', {}, t('inv.buyer')), el('dd', {}, buyerOf(inv)),
      el('dt', {}, t('inv.nipt')), el('dd', {}, inv.client?.id?.id ?? ''),
      el('dt', {}, t('inv.net')), el('dd', {}, money(inv.amount?.net)),
      el('dt', {}, t('inv.vatAmount')), el('dd', {}, money(inv.amount?.vat)),
      el('dt', {}, t('inv.total')), el('dd', { id: 'details-gross' }, `${money(inv.amount?.gross)} ${inv.amount?.currency ?? ''}`),
      inv.cancellation ? el('dt', {}, t('inv.cancellation')) : null,
      inv.cancellation ? el('dd', { id: 'details-cancellation' }, cancellationText(inv)) : null,
      el('dt', {}, t('inv.payment')), el('dd', {}, inv.payment_method ? method(inv.payment_method) : ''),
      el('dt', {}, t('inv.operator')), el('dd', {}, inv.operatorCode ?? ''),
      el('dt', {}, t('inv.iic')), el('dd', { class: 'code' }, inv.iic),
      el('dt', {}, t('inv.fic')), el('dd', { class: 'code' }, inv.fic ?? t('inv.pending'))),
    el('h3', {}, t('inv.lines')), lines,
    inv.type === 'CASH' && !inv.original_invoice_id && !whole ? partialForm(inv, section, ctx) : null,
    el('p', { class: 'buttons' },
      el('button', { type: 'button', id: 'pdf-a4', onclick: () => showPdf(inv.id, 'a4', pdf, ctx) }, t('inv.a4')),
      el('button', { type: 'button', id: 'pdf-receipt', onclick: () => showPdf(inv.id, 'receipt', pdf, ctx) }, t('inv.receipt')),
      cancel),
    pdf);
}

export async function render(section, ctx) {
  const answer = await api('/api/v1/invoice', {
    query: { limit: PAGE, offset: filters.offset, query: filters.query, type: filters.type, fromDate: filters.fromDate, toDate: filters.toDate },
  });
  const form = filterForm(section, ctx);
  if (!answer.ok) {
    section.replaceChildren(el('h2', {}, t('inv.title')), form, el('p', { class: 'error' }, answer.message));
    return;
  }
  const items = answer.data.items;
  const rows = items.map((inv) => [
    el('button', { type: 'button', class: 'link', 'data-invoice': inv.id, onclick: () => details(inv.id, section, ctx) }, inv.number),
    inv.created_at, typeWords(inv.type), buyerOf(inv), inv.client?.id?.id ?? '',
    `${money(inv.amount.gross)} ${inv.amount.currency}`,
    el('span', { 'data-state': inv.id }, inv.cancellation ? cancellationText(inv) : inv.fic ? '✓' : t('inv.pending')),
  ]);
  const pager = el('p', { class: 'buttons' },
    el('button', { type: 'button', disabled: filters.offset === 0, onclick: () => { filters.offset = Math.max(0, filters.offset - PAGE); render(section, ctx); } }, t('inv.prev')),
    el('button', { type: 'button', disabled: items.length < PAGE, onclick: () => { filters.offset += PAGE; render(section, ctx); } }, t('inv.next')));
  section.replaceChildren(el('h2', {}, t('inv.title')), form,
    items.length
      ? table([t('inv.number'), t('inv.date'), t('inv.type'), t('inv.buyer'), t('inv.nipt'), t('inv.gross'), t('inv.fic')], rows, [5], [2, 4])
      : el('p', {}, t('inv.none')),
    pager);
}
