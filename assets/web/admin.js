// The owner's administration: the people of the company (their role, the token's last use and
// prefix; a cashier added with their till and pairing card, another's password set, a token
// rotated with a new card, a person's access revoked and restored), the box's backup (taken now and
// downloaded, the last automatic one, each by its time in Tirana as the page shows every time), and
// the certificate's days left.

import { api, apiFile } from './api.js';
import { apiWords, t } from './i18n.js';
import { download, el, table } from './format.js';
import { field, onSubmit, values } from './form.js';
import { choose, pairingCard } from './setup.js';

function passwordForm(user, ctx) {
  const form = el('form', { id: 'password-form', novalidate: true },
    field('new-password', 'newPassword', t('admin.newPassword'), { type: 'password', autocomplete: 'new-password', required: true }, { hint: t('setup.passwordHint') }),
    el('button', { type: 'submit', class: 'primary' }, t('admin.setPassword')));
  return onSubmit(form, () => api(`/api/v1/users/${user.id}/password`, { method: 'POST', body: values(form) }), () => {
    ctx.closeDialog();
    ctx.setStatus(`${t('admin.passwordSet')} ${user.name}`, 'ok');
  });
}

async function rotate(user, ctx) {
  if (!window.confirm(`${t('admin.rotateAsk')} ${user.name}`)) return;
  const answer = await api(`/api/v1/users/${user.id}/token`, { method: 'POST', body: {} });
  if (!answer.ok) {
    ctx.setStatus(answer.message, 'error');
    return;
  }
  ctx.openDialog(t('setup.card'), pairingCard(answer.data.pairingCard));
  // The list shows the new token's prefix.
  ctx.go('admin');
}

// Another person out at once (their token, every session, their sign-in), until a new token.
async function revoke(user, ctx) {
  if (!window.confirm(`${t('admin.revokeAsk')} ${user.name}`)) return;
  const answer = await api(`/api/v1/users/${user.id}/token`, { method: 'DELETE' });
  if (!answer.ok) {
    ctx.setStatus(apiWords(answer.message), 'error');
    return;
  }
  ctx.setStatus(`${t('admin.revokedFor')} ${user.name}`, 'ok');
  ctx.go('admin');
}

// Another person's role, changed by the owner on the spot (the last owner stays: the server's 409).
function roleChoice(user, ctx) {
  const choice = el('select', { 'data-role-of': user.email, 'aria-label': `${t('audit.role')}: ${user.name}` },
    ...['owner', 'manager', 'cashier'].map((r) => el('option', { value: r, selected: r === user.role }, t(`role.${r}`))));
  choice.addEventListener('change', async () => {
    const answer = await api(`/api/v1/on-boarding/user/${user.id}`, { method: 'POST', body: { role: choice.value } });
    if (!answer.ok) {
      choice.value = user.role;
      ctx.setStatus(answer.message, 'error');
      return;
    }
    // The choice already shows the new role: the list is not drawn again under the person's hand.
    user.role = choice.value;
    ctx.setStatus(`${t('admin.roleChanged')} ${user.name}: ${t(`role.${choice.value}`)}`, 'ok');
  });
  return choice;
}

// When and from where the person's token was last used: the time and the IP, or never.
function lastUse(u) {
  return u.lastUse ? `${u.lastUse.at ?? ''} · ${u.lastUse.ip}` : t('admin.never');
}

function tokenText(token) {
  const prefix = token.prefix ? `${token.prefix}…` : '–';
  return token.revoked ? `${prefix} (${t('admin.revoked')})` : prefix;
}

// The people as GET /api/v1/users lists them: role, last use and the token's prefix.
function people(users, session, ctx) {
  const rows = users.map((u) => {
    const me = u.id === session.user.id;
    return [u.name, u.email, me ? t(`role.${u.role}`) : roleChoice(u, ctx), u.operatorCode ?? '', u.fiscalTcrCode ?? '',
      el('span', { 'data-last-use': u.email }, lastUse(u)), el('code', { 'data-prefix': u.email }, tokenText(u.token)),
      el('span', { class: 'buttons' },
      me ? el('em', {}, t('admin.you')) : el('button', {
        type: 'button', class: 'small', 'data-password': u.email, 'aria-label': `${t('admin.setPassword')}: ${u.name}`,
        onclick: () => ctx.openDialog(`${t('admin.setPassword')}: ${u.name}`, passwordForm(u, ctx)),
      }, t('admin.setPassword')),
      el('button', {
        type: 'button', class: 'small', 'data-rotate': u.email,
        'aria-label': `${t(u.token.revoked ? 'admin.restore' : 'admin.rotate')}: ${u.name}`,
        onclick: () => rotate(u, ctx),
      }, t(u.token.revoked ? 'admin.restore' : 'admin.rotate')),
      me || u.token.revoked ? null : el('button', {
        type: 'button', class: 'small danger', 'data-revoke': u.email, 'aria-label': `${t('admin.revoke')}: ${u.name}`,
        onclick: () => revoke(u, ctx),
      }, t('admin.revoke')))];
  });
  const list = table([t('setup.name'), t('setup.email'), t('audit.role'), t('setup.operatorCode'), t('setup.till'),
    t('admin.lastUse'), t('admin.token'), ''], rows);
  list.classList.add('people');
  list.id = 'people';
  return [el('h3', {}, t('setup.users')), list];
}

function cashierForm(details, ctx, again) {
  const till = field('admin-cashier-till', 'fiscalTcrCode', t('setup.till'), {}, {
    tag: 'select',
    children: details.devices.map((d) => el('option', { value: d.fiscalTcrCode }, `${d.name} (${d.fiscalTcrCode})`)),
  });
  const form = el('form', { id: 'admin-cashier-form', novalidate: true },
    field('admin-cashier-name', 'name', t('setup.name'), { required: true }),
    field('admin-cashier-email', 'email', t('setup.email'), { type: 'email', required: true }),
    field('admin-cashier-operator', 'operatorCode', t('setup.operatorCode'), { autocomplete: 'off', required: true }),
    till,
    el('button', { type: 'submit', class: 'primary' }, t('setup.cashierAdd')));
  return el('div', { class: 'card' }, el('h3', {}, t('admin.newCashier')),
    onSubmit(form, () => api('/api/v1/setup/cashiers', { method: 'POST', body: values(form) }), async (answer) => {
      await again();
      ctx.openDialog(t('setup.card'), pairingCard(answer.data.pairingCard));
    }));
}

// When a backup was taken, from its name (`arka-YYYYMMDD-HHMMSS…`, in UTC so that the files sort
// in time order) in Tirana time, as the page shows every time: "2026-11-26 03:00:00".
export function backupTime(name) {
  const m = /^arka-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(name);
  if (!m) return name;
  const at = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6])));
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'Europe/Tirane', year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(at);
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

async function backup(ctx) {
  const status = await api('/api/v1/owner/backup');
  const box = el('div', { class: 'card', id: 'backup' }, el('h3', {}, t('admin.backup')));
  if (!status.ok) {
    box.append(el('p', { class: 'small' }, status.message));
    return box;
  }
  const last = status.data.lastAutomatic;
  const files = el('div', { id: 'backup-files' });
  const now = el('button', { type: 'button', class: 'primary', id: 'backup-now' }, t('admin.backupNow'));
  now.addEventListener('click', async () => {
    now.disabled = true;
    const made = await api('/api/v1/owner/backup', { method: 'POST', body: {} });
    now.disabled = false;
    if (!made.ok) {
      files.replaceChildren(el('p', { class: 'error', role: 'alert' }, made.message));
      return;
    }
    const save = (name, words) => el('button', {
      type: 'button', 'data-download': name,
      onclick: async () => {
        const file = await apiFile(`/api/v1/owner/backup/${name}`, {}, 'application/octet-stream');
        if (file.ok) download(file.blob, name);
        else ctx.setStatus(file.message, 'error');
      },
    }, `↓ ${words}`);
    const at = backupTime(made.data.file);
    files.replaceChildren(el('p', { id: 'backup-made' }, `${t('admin.backupMade')} `, el('time', { id: 'backup-made-at' }, at), ` (${t('admin.tirana')})`),
      el('p', { class: 'buttons' }, save(made.data.file, `${t('admin.backupFile')} ${at}`), save(made.data.keyFile, t('admin.keyFile'))));
  });
  const pending = last && last.check === 'pending' ? `, ${t('admin.checkPending')}` : '';
  const damaged = status.data.damaged.length
    ? [el('p', { class: 'error', role: 'alert', id: 'backup-damaged' },
      `${t('admin.backupDamaged')} ${status.data.damaged.map((name) => `${backupTime(name)} (${name})`).join(', ')}`)]
    : [];
  box.append(
    el('p', { class: 'warn', role: 'note' }, t('admin.backupWarning')),
    el('p', { id: 'backup-last' }, last ? `${t('admin.lastAutomatic')}: ${last.at} (${t('admin.tirana')}${pending})`
      : status.data.automatic ? t('admin.noAutomaticYet') : t('admin.noAutomatic')),
    ...fullCheck(status.data.fullCheck), ...damaged, now, files, ...offBox(status.data.copy));
  return box;
}

// The nightly check spread over nights: when its last whole round passed, and damage it found.
function fullCheck(check) {
  if (!check) return [];
  const last = check.lastPassedAt ? `${t('admin.fullCheckPassed')}: ${check.lastPassedAt}` : t('admin.fullCheckNotYet');
  const shown = [el('p', { id: 'backup-full-check' }, `${last} (${t('admin.fullCheckRound')} ${check.round[0]}/${check.round[1]})`)];
  if (check.damage) shown.push(el('p', { class: 'error', role: 'alert', id: 'backup-check-damage' }, `${t('admin.fullCheckDamage')} ${check.damage}`));
  return shown;
}

// The copy off the box: a banner while it is behind, then each place's age and its last
// verified restore.
function offBox(copy) {
  if (!copy || copy.state === 'off') return [];
  const shown = [el('h4', {}, t('admin.copy'))];
  if (copy.state === 'stopped') {
    return [...shown, el('p', { class: 'error', role: 'alert', id: 'copy-behind' }, `${t('admin.copyStopped')} ${apiWords(copy.why)}`)];
  }
  if (copy.behind) shown.push(el('p', { class: 'error', role: 'alert', id: 'copy-behind' }, t('admin.copyBanner')));
  for (const place of copy.places) {
    const age = !place.restorable ? t('admin.copyNoWhole')
      : place.upToDate ? t('admin.copyUpToDate') : `${t('admin.copyBehindBy')} ${place.lagSeconds} s`;
    const sent = place.lastSentAt ? `, ${t('admin.copyLastSent')} ${place.lastSentAt}` : '';
    const failing = place.failing ? `, ${t(`admin.copyFailing.${place.failing}`)}` : '';
    const v = place.verified;
    const verified = !v ? t('admin.copyNotVerified')
      : v.passed ? `${t('admin.copyVerified')}: ${v.at} (${v.invoices} ${t('admin.copyInvoices')})`
        : `${t('admin.copyVerifyFailed')}: ${v.at}`;
    shown.push(el('p', { id: `copy-${place.place}` },
      `${t(`admin.copyPlace.${place.place}`)}: ${age}${sent}${failing}. ${verified}.`));
  }
  return shown;
}

// Whole days until the certificate's end, from its Tirane time "YYYY-MM-DD HH:MM:SS" (read in
// the browser's zone: rounded, so an hour or two between the zones does not change the day).
// Each till's receipt printer (ESC/POS on the network or a USB device file), with a test print.
async function printers(ctx) {
  const listed = await api('/api/v1/printers');
  const box = el('div', { class: 'card', id: 'printers' }, el('h3', {}, t('printer.title')));
  for (const till of listed.ok ? listed.data.items : []) {
    const p = till.printer || { connection: 'none', address: '', columns: 48 };
    const id = `printer-${till.tcrCode}`;
    const option = (value, label) => el('option', { value, selected: String(p.connection) === value || String(p.columns) === value }, label);
    const form = el('form', { id, novalidate: true },
      el('h4', {}, `${till.name} (${till.tcrCode})`),
      field(`${id}-connection`, 'connection', t('printer.connection'), {}, { tag: 'select', children: [
        option('none', t('printer.none')), option('network', t('printer.network')), option('device', t('printer.device'))] }),
      field(`${id}-address`, 'address', t('printer.address'), { value: p.address, autocomplete: 'off' }, { hint: t('printer.addressHint') }),
      field(`${id}-columns`, 'columns', t('printer.columns'), {}, { tag: 'select', children: [option('48', '48'), option('42', '42')] }),
      el('p', { class: 'buttons' }, el('button', { type: 'submit' }, t('printer.save')),
        el('button', { type: 'button', id: `${id}-test`, onclick: async () => {
          const printed = await api(`/api/v1/printers/${till.tcrCode}/test`, { method: 'POST', body: {} });
          ctx.setStatus(printed.ok ? t('printer.tested') : printed.message, printed.ok ? 'info' : 'error');
        } }, t('printer.test'))));
    onSubmit(form, () => {
      const body = values(form);
      if (body.columns) body.columns = Number(body.columns);
      return api(`/api/v1/printers/${till.tcrCode}`, { method: 'PUT', body });
    }, () => ctx.setStatus(t('printer.saved'), 'info'));
    box.append(form);
  }
  return box;
}

export function daysLeft(expiresAt) {
  const end = Date.parse(String(expiresAt).replace(' ', 'T'));
  return Number.isNaN(end) ? null : Math.round((end - Date.now()) / 86400000);
}

export async function render(section, ctx) {
  const [setup, account, users] = await Promise.all([ctx.reloadWizard(), api('/api/v1/account'), api('/api/v1/users')]);
  const details = setup?.details;
  if (!details || !users.ok) {
    section.replaceChildren(el('h2', {}, t('admin.title')), el('p', { class: 'error' }, t('admin.ownerOnly')));
    return;
  }
  const cert = account.data?.cert;
  const again = () => render(section, ctx);
  section.replaceChildren(
    el('h2', {}, t('admin.title')),
    ...people(users.data.items, ctx.session(), ctx),
    el('div', { class: 'cards' },
      cashierForm(details, ctx, again),
      await backup(ctx),
      await printers(ctx),
      el('div', { class: `card ${cert?.expiresSoon ? 'bad' : 'good'}`, id: 'admin-cert' },
        el('h3', {}, t('cert.title')),
        cert ? el('p', {}, `${t('cert.expires')} ${cert.expiresAt} · ${t('admin.daysLeft')}: `, el('strong', { id: 'cert-days' }, String(daysLeft(cert.expiresAt))))
          : el('p', {}, t('cert.none')),
        el('button', { type: 'button', onclick: () => { choose('certificate'); ctx.go('setup'); } }, t('admin.newCertificate')))));
}
