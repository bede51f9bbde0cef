// The owner's page: where the box stands (no owner yet: the setup wizard; else sign in), the
// menu by the signed-in person's role, the language switch, and the views.

import { api, onChange, onSignedOut, setBearer, setCsrf } from './api.js';
import { language, setLanguage, t, translate } from './i18n.js';
import * as signin from './signin.js';
import * as setup from './setup.js';
import * as today from './today.js';
import * as cis from './cis.js';
import * as invoices from './invoices.js';
import * as products from './products.js';
import * as admin from './admin.js';
import * as reports from './reports.js';
import * as audit from './audit.js';
import * as profile from './profile.js';

const views = { setup, today, cis, invoices, products, reports, audit, admin, profile };

// A pairing card's QR (the cashier's token in the fragment) opens the till, which sells with it.
if (location.hash.startsWith('#token=')) location.replace(`/till/${location.hash}`);
const $ = (id) => document.getElementById(id);

// Who is signed in (GET /api/v1/session's data), and the wizard's state (GET /api/v1/setup).
let session = null;
let wizard = null;

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

// Closing empties it too, so nothing of a closed dialog stays to be found or read.
function closeDialog() {
  if (dialog.open) dialog.close();
}

dialog.addEventListener('close', () => $('dialog-body').replaceChildren());

// The role as the session says it. A role the page has no words for is shown as the server
// names it; before roles exist the company's owner is `owner` and anyone else a cashier.
function role() {
  if (!session) return null;
  return session.role || session.user?.role || (session.owner ? 'owner' : 'cashier');
}

function roleWords(name) {
  const words = t(`role.${name}`);
  return words === `role.${name}` ? name : words;
}

// Whether the signed-in role may see a control marked `data-role="owner manager"`.
function allowed(roles) {
  return !roles || roles.split(' ').includes(role());
}

async function adopt(data) {
  session = data;
  setCsrf(data?.csrfToken);
  wizard = (await api('/api/v1/setup', { quiet: true })).data || wizard;
}

function go(view) {
  if (location.hash === `#${view}`) show();
  else location.hash = view;
}

const context = {
  setStatus, openDialog, closeDialog, go, allowed,
  session: () => session,
  role,
  wizard: () => wizard,
  // After the owner's step (or a sign-in): the session the server started.
  signedIn: async (data) => {
    await adopt(data);
    await show();
  },
  refreshBanner: () => certificateBanner(),
  reloadWizard: async () => {
    wizard = (await api('/api/v1/setup', { quiet: true })).data || wizard;
    return wizard;
  },
};

// Views only some roles have (the server refuses the others anyway).
const VIEW_ROLES = { setup: 'owner', audit: 'owner manager', admin: 'owner', cis: 'owner manager', reports: 'owner manager' };

// At a chain's head office (`arka hq serve`: its setup state and its session say `chain`) the
// page shows what the HQ serves: every shop's day side by side, and the reports across shops.
const CHAIN_VIEWS = ['today', 'reports'];

function available() {
  return session?.chain ? CHAIN_VIEWS : Object.keys(views);
}

function currentView() {
  const name = location.hash.replace('#', '');
  if (available().includes(name) && allowed(VIEW_ROLES[name])) return name;
  return 'today';
}

// From 30 days before the certificate's end, every screen says how many days are left.
async function certificateBanner() {
  const banner = $('banner');
  const cert = session ? (await api('/api/v1/account', { quiet: true })).data?.cert : null;
  banner.hidden = !cert?.expiresSoon;
  if (!banner.hidden) {
    const days = admin.daysLeft(cert.expiresAt);
    banner.textContent = days > 0 ? `${t('banner.certDays').replace('{n}', days)} (${cert.expiresAt})` : t('banner.certExpired');
  }
}

function showChrome(signedIn) {
  $('nav').hidden = !signedIn;
  $('signout').hidden = !signedIn;
  $('company').textContent = signedIn ? `· ${session.company.name}` : '';
  $('who').textContent = signedIn ? `${session.user.name} · ${roleWords(role())}` : '';
  // One's own name opens one's own profile (not at a head office, which keeps no people).
  $('who').hidden = !signedIn;
  $('who').disabled = Boolean(session?.chain);
  $('who').title = t('profile.open');
  for (const button of $('nav').querySelectorAll('button[data-role]')) button.hidden = !allowed(button.dataset.role);
}

async function show() {
  translate();
  $('lang').textContent = language() === 'sq' ? 'EN' : 'SQ';
  // Its name is what it shows (EN / SQ, in that language); the title says it in full.
  $('lang').setAttribute('title', language() === 'sq' ? 'English' : 'Shqip');
  $('lang').setAttribute('lang', language() === 'sq' ? 'en' : 'sq');
  const signedIn = Boolean(session);
  const unclaimed = wizard && !wizard.claimed;
  showChrome(signedIn);
  $('signin').hidden = signedIn || unclaimed;
  if (!signedIn) $('banner').hidden = true;
  const name = unclaimed ? 'setup' : currentView();
  for (const button of $('nav').querySelectorAll('button')) {
    button.hidden = !available().includes(button.dataset.view) || !allowed(button.dataset.role);
    if (button.dataset.view === name) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const key of Object.keys(views)) $(`view-${key}`).hidden = !(signedIn || unclaimed) || key !== name;
  if (!signedIn && !unclaimed) {
    signin.render($('signin'), context);
    return;
  }
  certificateBanner();
  const section = $(`view-${name}`);
  section.setAttribute('aria-busy', 'true');
  await views[name].render(section, context);
  section.removeAttribute('aria-busy');
}

function signedOut(message) {
  session = null;
  setCsrf(null);
  setBearer(null);
  closeDialog();
  setStatus(message, 'info');
  show();
}

$('signout').addEventListener('click', async () => {
  await api('/api/v1/session', { method: 'DELETE', quiet: true });
  signedOut(t('signedout'));
});
onSignedOut(() => signedOut(t('signin.expired')));
// Each change the page sends starts with an empty status line: what it says after is that
// change's own outcome, never an earlier success (a refusal is said in its form or here).
onChange(() => setStatus(''));
document.addEventListener('submit', () => setStatus(''), true);

$('lang').addEventListener('click', () => {
  setLanguage(language() === 'sq' ? 'en' : 'sq');
  show();
});

$('nav').addEventListener('click', (event) => {
  const button = event.target.closest('button[data-view]');
  if (!button) return;
  setStatus('');
  go(button.dataset.view);
});

$('dialog-close').addEventListener('click', closeDialog);
$('who').addEventListener('click', () => {
  setStatus('');
  go('profile');
});
window.addEventListener('hashchange', () => show());

setLanguage(language());
wizard = (await api('/api/v1/setup', { quiet: true })).data;
// The head office keeps no session: its owner signs in again after a reload.
if (wizard?.claimed && !wizard.chain) {
  const me = await api('/api/v1/session', { quiet: true });
  if (me.ok) await adopt(me.data);
}
// An owner whose shop is not set up yet goes on with the wizard where it stopped.
if (session && role() === 'owner' && wizard && !wizard.complete && !location.hash) history.replaceState(null, '', '#setup');
show();
