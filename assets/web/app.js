// The owner's page: sign-in, the menu, the language switch, and the four views.

import { api, onSignedOut, setToken, token } from './api.js';
import { language, setLanguage, t, translate } from './i18n.js';
import * as today from './today.js';
import * as cis from './cis.js';
import * as invoices from './invoices.js';
import * as reports from './reports.js';

const views = { today, cis, invoices, reports };
const $ = (id) => document.getElementById(id);

let account = null;

function setStatus(text, kind = 'info') {
  const status = $('status');
  status.textContent = text || '';
  status.dataset.kind = kind;
}

const dialog = $('dialog');

function openDialog(title, ...content) {
  $('dialog-title').textContent = title;
  $('dialog-body').replaceChildren(...content);
  if (!dialog.open) dialog.showModal();
}

function closeDialog() {
  if (dialog.open) dialog.close();
}

const context = { setStatus, openDialog, closeDialog, account: () => account };

// At a chain's head office (`arka hq serve`, account.chain) the page shows what the HQ serves:
// every shop's day side by side, and the reports across shops.
const CHAIN_VIEWS = ['today', 'reports'];

function available() {
  return account?.chain ? CHAIN_VIEWS : Object.keys(views);
}

function currentView() {
  const name = location.hash.replace('#', '');
  return available().includes(name) ? name : 'today';
}

async function show() {
  translate();
  $('lang').textContent = language() === 'sq' ? 'EN' : 'SQ';
  $('lang').setAttribute('aria-label', language() === 'sq' ? 'English' : 'Shqip');
  const signedIn = Boolean(account);
  $('signin').hidden = signedIn;
  $('nav').hidden = !signedIn;
  $('signout').hidden = !signedIn;
  $('company').textContent = signedIn ? `· ${account.company}` : '';
  const name = currentView();
  for (const button of $('nav').querySelectorAll('button')) {
    button.hidden = !available().includes(button.dataset.view);
    if (button.dataset.view === name) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const key of Object.keys(views)) $(`view-${key}`).hidden = !signedIn || key !== name;
  if (!signedIn) {
    $('token').focus();
    return;
  }
  const section = $(`view-${name}`);
  section.setAttribute('aria-busy', 'true');
  await views[name].render(section, context);
  section.removeAttribute('aria-busy');
}

async function signIn() {
  const answer = await api('/api/v1/account');
  if (answer.ok) {
    account = answer.data;
    return true;
  }
  account = null;
  if (answer.status !== 401) setStatus(answer.message, 'error');
  return false;
}

function signedOut(message) {
  account = null;
  setToken(null);
  closeDialog();
  setStatus(message, 'info');
  show();
}

$('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const value = $('token').value.trim();
  if (!value) return;
  setToken(value);
  $('token').value = '';
  if (await signIn()) {
    setStatus('');
    await show();
    $('main').focus();
  } else {
    setToken(null);
    setStatus(t('signin.wrong'), 'error');
  }
});

$('signout').addEventListener('click', () => signedOut(t('signedout')));
onSignedOut(() => signedOut(t('signin.wrong')));

$('lang').addEventListener('click', () => {
  setLanguage(language() === 'sq' ? 'en' : 'sq');
  show();
});

$('nav').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-view]');
  if (!button) return;
  setStatus('');
  if (location.hash === `#${button.dataset.view}`) show();
  else location.hash = button.dataset.view;
});

$('dialog-close').addEventListener('click', closeDialog);
window.addEventListener('hashchange', () => show());

setLanguage(language());
if (token() && !(await signIn())) setToken(null);
show();
