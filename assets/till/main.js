// The till: signs in (a pairing card's token in the URL's fragment, or e-mail and password),
// then sells on the signed-in person's till. Every call is a public API call as that person.

import { api, setBearer, setCsrf, hasBearer } from './api.js';
import { t, said, el, cents, money, toggleLanguage, english } from './words.js';
import { till, loadCatalog, drawCatalog, drawLines, listenForScanner, scanned } from './sale.js';
import { openPayment, printReceipt } from './pay.js';
import { drawDay } from './day.js';
import { drawTables } from './tables.js';

const $ = (id) => document.getElementById(id);
const VIEWS = ['sale', 'tables', 'receipts', 'day'];
let view = 'sale';

till.say = (text, error = false, action = null) => {
  const status = $('status');
  status.className = error ? 'status error' : 'status';
  status.replaceChildren(text, action ? ' ' : '', action || '');
};

function words() {
  document.title = t('title');
  for (const node of document.querySelectorAll('[data-t]')) node.textContent = t(node.dataset.t);
  $('search').placeholder = t('search');
  $('search').setAttribute('aria-label', t('search'));
  $('lang').textContent = t('lang');
  $('lang').title = t('langName');
}

function show(name) {
  view = name;
  for (const v of VIEWS) {
    $(`view-${v}`).hidden = v !== name;
    $(`nav-${v}`).setAttribute('aria-current', v === name ? 'page' : 'false');
  }
  if (name === 'day') drawDay($('view-day'));
  if (name === 'tables') drawTables($('view-tables'));
  if (name === 'receipts') drawReceipts($('view-receipts'));
  if (name === 'sale') $('search').focus();
}

async function drawReceipts(section) {
  const r = await api('/api/v2/invoice', { query: { limit: 20, type: 'CASH' } });
  const today = new Date().toLocaleDateString('sv', { timeZone: 'Europe/Tirane' });
  const items = r.ok ? r.data.items : [];
  const rows = items.map((i) => el('li', { class: 'receipt', 'data-invoice': i.id },
    el('span', {}, `${i.number} · ${i.created_at || ''} · ${money(cents(i.amount.gross))}`),
    el('button', { type: 'button', id: `reprint-${i.id}`, onclick: () => printReceipt(i, null) }, t('receipts.reprint')),
    (till.me.role !== 'cashier' || (i.created_at || '').startsWith(today)) && !i.reversed_at && cents(i.amount.gross) > 0
      ? el('button', { type: 'button', id: `cancel-${i.id}`, onclick: () => cancel(i, section) }, t('receipts.cancel')) : null));
  section.replaceChildren(el('h2', {}, t('receipts.title')),
    rows.length ? el('ul', { class: 'receipts' }, rows) : el('p', {}, t('receipts.none')));
}

async function cancel(invoice, section) {
  if (!confirm(t('receipts.cancelAsk', { number: invoice.number }))) return;
  const r = await api(`/api/v2/invoice/cancel/${invoice.id}`, { method: 'POST', body: {} });
  if (!r.ok) return till.say(said(r.message), true);
  const corrective = r.data.invoice;
  till.say(t('receipts.cancelled', { number: corrective.number }));
  if (await printReceipt(corrective, null)) till.say(`${t('receipts.cancelled', { number: corrective.number })} ${t('print.done')}`);
  drawReceipts(section);
}

function signIn() {
  $('app').hidden = true;
  $('signin').hidden = false;
  const email = el('input', { id: 'signin-email', type: 'email', autocomplete: 'username', required: true });
  const password = el('input', { id: 'signin-password', type: 'password', autocomplete: 'current-password', required: true, 'aria-describedby': 'signin-error' });
  const error = el('p', { id: 'signin-error', class: 'error', role: 'alert' });
  $('signin').replaceChildren(el('h2', {}, t('signin.title')), el('p', {}, t('signin.help')),
    el('form', { id: 'signin-form', onsubmit: async (e) => {
      e.preventDefault();
      const r = await api('/api/v1/session', { method: 'POST', body: { email: email.value, password: password.value } });
      if (!r.ok) return (error.textContent = r.status === 401 ? t('signin.wrong') : said(r.message));
      setCsrf(r.data.csrfToken);
      start(r.data);
    } }, el('label', { for: 'signin-email' }, t('signin.email')), email,
    el('label', { for: 'signin-password' }, t('signin.password')), password, error,
    el('button', { type: 'submit', class: 'primary' }, t('signin.go'))));
  email.focus();
}

async function start(session) {
  till.me = session.user;
  $('signin').hidden = true;
  $('app').hidden = false;
  $('who').textContent = `${till.me.name} · ${t(`role.${till.me.role}`)}${till.me.fiscalTcrCode ? ` · ${till.me.fiscalTcrCode}` : ''}`;
  if (!till.me.fiscalTcrCode) till.say(t('who.noTill'), true);
  const [settings, printer] = await Promise.all([api('/api/v1/till/settings'), api('/api/v1/printers/mine')]);
  if (settings.ok) till.settings = settings.data;
  till.printer = printer.ok ? printer.data.printer : null;
  $('printer').textContent = till.printer ? `${t('printer')}: ${till.printer.address}` : t('print.none');
  await loadCatalog();
  drawLines();
  show('sale');
}

async function boot() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get('token')) {
    setBearer(fragment.get('token'));
    history.replaceState(null, '', location.pathname);
  }
  document.documentElement.lang = english() ? 'en' : 'sq';
  words();
  listenForScanner();
  for (const v of VIEWS) $(`nav-${v}`).addEventListener('click', () => show(v));
  $('search').addEventListener('input', drawCatalog);
  $('search').addEventListener('change', drawCatalog);
  $('search').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    e.preventDefault();
    const code = $('search').value.trim();
    const shown = [...$('products').querySelectorAll('button.product')];
    if (till.catalog.some((p) => p.code === code) || /^\d{8,14}$/.test(code)) scanned(code);
    else if (shown.length === 1) shown[0].click();
    else return;
    $('search').value = '';
    drawCatalog();
  });
  $('pay').addEventListener('click', openPayment);
  $('clear').addEventListener('click', () => { till.lines = []; drawLines(); });
  $('lang').addEventListener('click', () => {
    toggleLanguage();
    words();
    drawCatalog();
    drawLines();
    if (view !== 'sale') show(view);
  });
  $('signout').addEventListener('click', async () => {
    await api('/api/v1/session', { method: 'DELETE' });
    setBearer(null);
    setCsrf(null);
    signIn();
  });
  $('dialog-close').addEventListener('click', () => $('dialog').close());
  till.onSold = () => { if (view === 'receipts') show('receipts'); };
  const who = await api('/api/v1/session');
  if (who.ok) {
    setCsrf(who.data.csrfToken);
    start(who.data);
  } else {
    if (hasBearer()) setBearer(null);
    signIn();
  }
}

boot();
