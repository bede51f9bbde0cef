// The first-start wizard: the setup code (unless the browser is on the box itself), the business,
// the owner (who is then signed in), the certificate, the business unit, the fiscal devices, the
// cashiers with their pairing cards, and a test sale whose receipt opens as a PDF. The server keeps
// each step as it is done (GET /api/v1/setup says which), so a reload goes on where it stopped.

import { api, apiFile, setSetupCode } from './api.js';
import { apiWords, t } from './i18n.js';
import { el, table } from './format.js';
import { field, onSubmit, values } from './form.js';

const STEP_ORDER = ['code', 'business', 'owner', 'certificate', 'unit', 'devices', 'cashiers', 'testSale'];

// The code the first screen accepted (memory only), and a done step the owner went back to.
let codeAccepted = false;
let chosen = null;

// Opens the wizard at a done step (the administration's "new certificate").
export function choose(step) {
  chosen = step;
}

function currentStep(w) {
  if (!w.claimed && !w.fromBox && !codeAccepted) return 'code';
  if (chosen && w.steps.some((s) => s.step === chosen)) return chosen;
  return w.next || 'complete';
}

function stepList(w, current, rerender) {
  const steps = w.fromBox || w.claimed ? w.steps : [{ step: 'code', done: codeAccepted }, ...w.steps];
  return el('ol', { class: 'steps', 'aria-label': t('setup.steps') }, steps.map((s) => {
    const label = `${t(`setup.step.${s.step}`)}${s.done ? ` ✓ (${t('setup.done')})` : ''}`;
    // The owner may go back to a step after theirs (another certificate, till or cashier).
    const canGo = w.claimed && STEP_ORDER.indexOf(s.step) > STEP_ORDER.indexOf('owner');
    const body = canGo
      ? el('button', { type: 'button', class: 'link', onclick: () => { chosen = s.step; rerender(); } }, label)
      : label;
    return el('li', { class: s.done ? 'done' : '', 'aria-current': s.step === current ? 'step' : null, 'data-step': s.step }, body);
  }));
}

function certificateFacts(cert) {
  return el('dl', { class: 'facts', id: 'setup-cert' },
    el('dt', {}, t('setup.subject')), el('dd', { id: 'cert-subject' }, cert.subject),
    el('dt', {}, t('setup.nuis')), el('dd', { id: 'cert-nuis' }, cert.nuis),
    el('dt', {}, t('setup.validFrom')), el('dd', { id: 'cert-from' }, cert.validFrom),
    el('dt', {}, t('setup.validTo')), el('dd', { id: 'cert-to' }, cert.expiresAt));
}

// What the steps made so far, from the server: it survives a reload.
function madeSoFar(w) {
  const d = w.details;
  if (!d) return null;
  const parts = [];
  if (d.certificate) parts.push(el('h3', {}, t('setup.step.certificate')), certificateFacts(d.certificate));
  if (d.units.length) {
    parts.push(el('h3', {}, t('setup.step.unit')), table([t('setup.name'), t('setup.unitCode'), t('setup.address')],
      d.units.map((u) => [u.name, u.businessUnitCode ?? '', u.address ?? ''])));
  }
  if (d.devices.length) {
    parts.push(el('h3', {}, t('setup.step.devices')), table([t('setup.deviceName'), t('setup.tcr'), t('setup.unitCol')],
      d.devices.map((x) => [x.name, el('span', { 'data-tcr-code': x.fiscalTcrCode }, x.fiscalTcrCode), x.businessUnitCode ?? ''])));
  }
  if (d.users.length) {
    parts.push(el('h3', {}, t('setup.users')), table([t('setup.name'), t('setup.email'), t('setup.operatorCode'), t('setup.till')],
      d.users.map((u) => [u.name, u.email, u.operatorCode ?? '', u.fiscalTcrCode ?? ''])));
  }
  return parts.length ? el('div', { class: 'card made' }, ...parts) : null;
}

function submit(label) {
  return el('button', { type: 'submit', class: 'primary' }, label);
}

function codeForm(w, again) {
  const form = el('form', { id: 'setup-code-form', novalidate: true },
    el('p', {}, t('setup.codeHelp')),
    w.setupCodeExpiresAt ? el('p', { class: 'small' }, `${t('setup.codeUntil')} ${w.setupCodeExpiresAt}`) : null,
    field('setup-code', 'code', t('setup.code'), { autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false', required: true }),
    submit(t('setup.next')));
  let typed = '';
  return onSubmit(form, () => {
    typed = values(form).code || '';
    return api('/api/v1/setup/code', { method: 'POST', body: { code: typed } });
  }, () => {
    setSetupCode(typed);
    codeAccepted = true;
    again();
  });
}

function businessForm(w, again) {
  const b = w.business || {};
  const form = el('form', { id: 'setup-business-form', novalidate: true },
    w.fromBox ? el('p', { class: 'small' }, t('setup.fromBox')) : null,
    field('setup-nuis', 'nuis', t('setup.nuis'), { value: b.nuis ?? '', autocomplete: 'off', required: true }, { hint: t('setup.nuisHint') }),
    field('setup-name', 'name', t('setup.name'), { value: b.name ?? '', autocomplete: 'organization', required: true }),
    field('setup-address', 'address', t('setup.address'), { value: b.address ?? '', autocomplete: 'street-address' }),
    field('setup-vat', 'issuerInVat', t('setup.vat'), { type: 'checkbox', checked: b.issuerInVat ?? true }),
    submit(t('setup.next')));
  return onSubmit(form, () => api('/api/v1/setup/business', { method: 'POST', body: values(form) }), again);
}

function ownerForm(ctx) {
  const form = el('form', { id: 'setup-owner-form', novalidate: true },
    field('setup-owner-name', 'name', t('setup.ownerName'), { autocomplete: 'name', required: true }),
    field('setup-owner-email', 'email', t('setup.email'), { type: 'email', autocomplete: 'username', required: true }),
    field('setup-owner-password', 'password', t('signin.password'), { type: 'password', autocomplete: 'new-password', required: true }, { hint: t('setup.passwordHint') }),
    field('setup-owner-operator', 'operatorCode', t('setup.operatorCode'), { autocomplete: 'off' }, { hint: t('setup.ownerOperatorHint') }),
    submit(t('setup.next')));
  return onSubmit(form, () => api('/api/v1/setup/owner', { method: 'POST', body: values(form) }), async (answer) => {
    // The owner is signed in now: the code is used up, the wizard goes on as the owner.
    setSetupCode(null);
    history.replaceState(null, '', '#setup');
    await ctx.signedIn(answer.data);
  });
}

function certificateForm(again) {
  const file = field('setup-cert-file', 'certificate_file', t('setup.certFile'), { type: 'file', accept: '.p12,.pfx,application/x-pkcs12', required: true });
  const form = el('form', { id: 'setup-cert-form', novalidate: true }, file,
    field('setup-cert-password', 'password', t('setup.certPassword'), { type: 'password', autocomplete: 'off', required: true }),
    submit(t('setup.save')));
  return onSubmit(form, () => {
    const body = new FormData();
    const chosenFile = form.querySelector('#setup-cert-file').files[0];
    if (chosenFile) body.append('certificate_file', chosenFile);
    body.append('password', form.querySelector('#setup-cert-password').value);
    return api('/api/v1/setup/certificate', { method: 'POST', body });
  }, again);
}

function unitForm(w, again) {
  const company = w.details?.company || {};
  const form = el('form', { id: 'setup-unit-form', novalidate: true },
    field('setup-unit-name', 'name', t('setup.name'), { value: company.name ?? '', required: true }),
    field('setup-unit-code', 'businessUnitCode', t('setup.unitCode'), { autocomplete: 'off', required: true }, { hint: t('setup.unitHint') }),
    field('setup-unit-address', 'address', t('setup.address'), { value: company.address ?? '', required: true }),
    field('setup-unit-city', 'city', t('setup.city'), {}),
    submit(t('setup.save')));
  return onSubmit(form, () => api('/api/v1/setup/unit', { method: 'POST', body: values(form) }), again);
}

function deviceForm(again) {
  const form = el('form', { id: 'setup-device-form', novalidate: true },
    field('setup-device-name', 'name', t('setup.deviceName'), { required: true }),
    submit(t('setup.deviceAdd')));
  return onSubmit(form, () => api('/api/v1/setup/devices', { method: 'POST', body: values(form) }), again);
}

// A cashier's pairing card: the server's address, the token and both as one QR code, printable.
export function pairingCard(card) {
  const qr = el('img', {
    src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(card.qrSvg)}`,
    alt: t('setup.qr'), class: 'qr', id: 'pairing-qr',
  });
  return el('div', { class: 'pairing-card', id: 'pairing-card', 'data-pairing-url': card.pairingUrl },
    el('h3', {}, `${t('setup.cardFor')} ${card.cashier.name}`),
    qr,
    el('dl', { class: 'facts' },
      el('dt', {}, t('setup.server')), el('dd', { class: 'code' }, card.serverUrl),
      el('dt', {}, t('setup.token')), el('dd', { class: 'code', id: 'pairing-token' }, card.token),
      el('dt', {}, t('setup.operatorCode')), el('dd', {}, card.cashier.operatorCode ?? ''),
      el('dt', {}, t('setup.till')), el('dd', {}, card.cashier.fiscalTcrCode ?? ''),
      card.tlsFingerprint ? [el('dt', {}, 'SHA-256'), el('dd', { class: 'code' }, card.tlsFingerprint)] : null),
    el('p', { class: 'small' }, t('setup.cardHelp')),
    card.warning ? el('p', { class: 'warn', role: 'note' }, apiWords(card.warning)) : null,
    el('p', { class: 'buttons no-print' }, el('button', { type: 'button', id: 'print-card', onclick: () => window.print() }, t('setup.print'))));
}

function cashierForm(w, ctx, again) {
  const devices = w.details?.devices || [];
  const till = field('setup-cashier-till', 'fiscalTcrCode', t('setup.till'), {}, {
    tag: 'select',
    children: devices.map((d) => el('option', { value: d.fiscalTcrCode }, `${d.name} (${d.fiscalTcrCode})`)),
  });
  const form = el('form', { id: 'setup-cashier-form', novalidate: true },
    field('setup-cashier-name', 'name', t('setup.name'), { required: true }),
    field('setup-cashier-email', 'email', t('setup.email'), { type: 'email', required: true }),
    field('setup-cashier-operator', 'operatorCode', t('setup.operatorCode'), { autocomplete: 'off', required: true }),
    till,
    submit(t('setup.cashierAdd')));
  return onSubmit(form, () => api('/api/v1/setup/cashiers', { method: 'POST', body: values(form) }), async (answer) => {
    chosen = null;
    await again();
    ctx.openDialog(t('setup.card'), pairingCard(answer.data.pairingCard));
  });
}

async function showReceipt(url, holder, ctx) {
  const pdf = await apiFile(url, { format: 'receipt' });
  if (!pdf.ok) {
    ctx.setStatus(pdf.message, 'error');
    return;
  }
  const blobUrl = URL.createObjectURL(pdf.blob);
  holder.append(
    el('p', {}, el('a', { href: blobUrl, target: '_blank', rel: 'noopener', id: 'test-sale-pdf' }, t('inv.openPdf'))),
    el('iframe', { src: blobUrl, title: t('setup.saleDone'), class: 'pdf receipt' }));
}

// The test sale: a real receipt, so its button is spent once the shop has one (a second click
// made a second receipt).
function testSale(w, ctx, again) {
  const holder = el('div', { id: 'test-sale-result' });
  if (w.steps.some((s) => s.step === 'testSale' && s.done)) {
    return el('div', {}, el('p', { id: 'test-sale-done' }, t('setup.saleIsDone')), holder);
  }
  const button = el('button', { type: 'button', class: 'primary', id: 'test-sale' }, t('setup.sale'));
  button.addEventListener('click', async () => {
    button.disabled = true;
    const answer = await api('/api/v1/setup/test-sale', { method: 'POST', body: {} });
    button.disabled = false;
    if (!answer.ok) {
      holder.replaceChildren(el('p', { class: 'error', role: 'alert' }, answer.message));
      return;
    }
    const d = answer.data;
    chosen = 'testSale';
    await again();
    const result = document.getElementById('test-sale-result');
    result.replaceChildren(el('p', { id: 'test-sale-status' },
      `${t('setup.saleDone')} ${d.invoice.number ?? d.invoice.id}: ${d.fiscalized ? t('setup.fiscalized') : t('setup.deferred')}`));
    await showReceipt(d.printUrl, result, ctx);
  });
  return el('div', {}, el('p', {}, t('setup.saleHelp')), button, holder);
}

function complete(ctx) {
  return el('div', { class: 'card good', id: 'setup-complete' },
    el('h3', {}, t('setup.complete')),
    el('button', { type: 'button', class: 'primary', onclick: () => { chosen = null; ctx.go('today'); } }, t('setup.toToday')));
}

function stepBody(step, w, ctx, again) {
  switch (step) {
    case 'code': return codeForm(w, again);
    case 'business': return businessForm(w, again);
    case 'owner': return ownerForm(ctx);
    case 'certificate': return certificateForm(() => { chosen = null; ctx.refreshBanner(); return again(); });
    case 'unit': return unitForm(w, () => { chosen = null; return again(); });
    case 'devices': return deviceForm(() => { chosen = null; return again(); });
    case 'cashiers': return cashierForm(w, ctx, again);
    case 'testSale': return testSale(w, ctx, again);
    default: return complete(ctx);
  }
}

export async function render(section, ctx) {
  const w = await ctx.reloadWizard();
  if (!w) {
    section.replaceChildren(el('p', { class: 'error' }, t('error.network')));
    return;
  }
  const again = () => render(section, ctx);
  const step = currentStep(w);
  const heading = el('h3', { id: 'setup-step', tabindex: '-1' }, step === 'complete' ? t('setup.complete') : t(`setup.step.${step}`));
  section.replaceChildren(...[
    el('h2', {}, t('setup.title')),
    el('div', { class: 'wizard' },
      stepList(w, step, again),
      el('div', { class: 'card step', 'data-step': step }, heading, stepBody(step, w, ctx, again))),
    w.complete && step !== 'complete' ? complete(ctx) : null,
    madeSoFar(w)].filter(Boolean));
  const first = section.querySelector('.step input, .step select, .step button');
  if (first) first.focus();
}
