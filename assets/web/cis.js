// The CIS: online or offline since when, the documents waiting (those near the 48-hour limit in
// red), those refused with the CIS's reason, and the certificate's expiry.

import { api } from './api.js';
import { apiWords, t } from './i18n.js';
import { el, table } from './format.js';

function connection(account) {
  const c = account.cisConnection;
  const online = c.state === 'online';
  return el('div', { class: `card ${online ? 'good' : 'bad'}`, id: 'cis-connection' },
    el('h3', {}, online ? t('cis.online') : t('cis.offline')),
    online ? null : el('p', {}, `${t('cis.since')} ${c.since}${c.reason ? ` — ${apiWords(c.reason)}` : ''}`));
}

function certificate(account) {
  const cert = account.cert;
  if (!cert) return el('div', { class: 'card bad' }, el('h3', {}, t('cert.title')), el('p', {}, t('cert.none')));
  return el('div', { class: `card ${cert.expiresSoon ? 'bad' : 'good'}`, id: 'cis-certificate' },
    el('h3', {}, t('cert.title')),
    el('p', {}, `${t('cert.expires')} ${cert.expiresAt}`),
    el('p', { class: 'small' }, cert.subject),
    cert.expiresSoon ? el('p', { class: 'bad', role: 'alert' }, cert.warning ? apiWords(cert.warning) : t('cert.soon')) : null);
}

function waiting(queue) {
  const summary = el('div', { class: 'card' },
    el('h3', {}, t('cis.waiting')),
    el('p', { class: 'big', id: 'cis-waiting' }, String(queue.waiting)),
    queue.oldestWaitingSince
      ? el('p', { class: queue.oldestAgeHours >= queue.warnAfterHours ? 'bad' : '' },
        `${t('cis.oldest')}: ${queue.oldestWaitingSince} (${queue.oldestAgeHours} ${t('cis.hours')})`)
      : null);
  if (!queue.items.length) return [summary];
  const rows = queue.items.map((q) => [q.number ?? '', q.document, q.tcrCode ?? '', q.issuedAt,
    el('span', { class: q.nearLegalLimit ? 'bad' : '' }, String(q.ageHours ?? ''), q.nearLegalLimit ? ` · ${t('cis.nearLimit')}` : ''),
    el('span', { class: q.nearLegalLimit ? 'bad' : '', 'data-deadline': q.queueId }, q.deadline ?? ''),
    String(q.attempts), q.lastError ?? '']);
  return [summary, table([t('cis.number'), t('cis.document'), t('cis.tcr'), t('cis.issued'), t('cis.age'),
    t('cis.deadline'), t('cis.attempts'), t('cis.lastError')], rows, [4, 6])];
}

// What the CIS refused, with its reason; the owner sends one again once its cause is corrected
// (a number held for its POS's retry is the POS's to send).
function refused(queue, section, ctx) {
  if (!queue.refused.length) return el('p', {}, t('cis.none'));
  const again = (r) => el('button', {
    type: 'button', class: 'small', 'data-resend': r.queueId,
    'aria-label': `${t('cis.resend')} ${r.number ?? r.document}`,
    onclick: async (event) => {
      event.target.disabled = true;
      const answer = await api(`/api/v1/owner/queue/${r.queueId}/resend`, { method: 'POST', body: {} });
      ctx.setStatus(answer.ok ? t('cis.resent') : answer.message, answer.ok ? 'ok' : 'error');
      render(section, ctx);
    },
  }, t('cis.resend'));
  const owner = ctx.allowed('owner');
  return table([t('cis.number'), t('cis.document'), t('cis.issued'), t('cis.reason'), owner ? t('cis.action') : null].filter(Boolean),
    queue.refused.map((r) => [r.number ?? '', r.document, r.issuedAt ?? '', el('span', { class: 'bad' }, r.reason),
      owner ? (r.numberHeld ? t('cis.held') : again(r)) : null].filter((c) => c !== null)));
}

export async function render(section, ctx) {
  const [account, queue] = await Promise.all([api('/api/v1/account'), api('/api/v1/owner/queue')]);
  const failed = [account, queue].find((a) => !a.ok);
  if (failed) {
    section.replaceChildren(el('h2', {}, t('cis.title')), el('p', { class: 'error' }, failed.message));
    return;
  }
  section.replaceChildren(
    el('h2', {}, t('cis.title')),
    el('div', { class: 'cards' }, connection(account.data), certificate(account.data)),
    ...waiting(queue.data),
    el('h3', {}, t('cis.refused')),
    el('p', { class: 'small' }, t('cis.resendHelp')),
    refused(queue.data, section, ctx),
  );
}
