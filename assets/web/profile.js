// Each person's own profile (any role): who they are (e-mail, role, till) and what they change
// themselves: their name, their operator code (what their own sales and cancellations carry),
// and their password, the current one proved (the other sessions end; this page gets a new one).

import { api } from './api.js';
import { t } from './i18n.js';
import { el } from './format.js';
import { field, onSubmit, values } from './form.js';

function facts(user, role) {
  return el('dl', { class: 'facts', id: 'profile-facts' },
    el('dt', {}, t('setup.email')), el('dd', { id: 'profile-email' }, user.email),
    el('dt', {}, t('audit.role')), el('dd', { id: 'profile-role' }, t(`role.${role}`)),
    el('dt', {}, t('setup.till')), el('dd', { id: 'profile-till' }, user.fiscalTcrCode ?? '–'));
}

function detailsForm(user, section, ctx) {
  const form = el('form', { id: 'profile-form', novalidate: true },
    field('profile-name', 'name', t('setup.name'), { value: user.name, autocomplete: 'name', required: true }),
    field('profile-operator', 'operatorCode', t('setup.operatorCode'), { value: user.operatorCode ?? '', autocomplete: 'off' }, { hint: t('profile.operatorHint') }),
    el('button', { type: 'submit', class: 'primary' }, t('profile.save')));
  return onSubmit(form, () => api('/api/v1/users/me', { method: 'PATCH', body: values(form) }), async () => {
    // The top bar shows the new name: the session is read again.
    const me = await api('/api/v1/session', { quiet: true });
    if (me.ok) await ctx.signedIn(me.data);
    ctx.setStatus(t('profile.saved'), 'ok');
  });
}

function passwordForm(ctx) {
  const form = el('form', { id: 'profile-password-form', novalidate: true },
    field('profile-current', 'currentPassword', t('profile.current'), { type: 'password', autocomplete: 'current-password', required: true }),
    field('profile-new', 'newPassword', t('admin.newPassword'), { type: 'password', autocomplete: 'new-password', required: true }, { hint: t('setup.passwordHint') }),
    el('button', { type: 'submit', class: 'primary' }, t('profile.changePassword')));
  return onSubmit(form, () => api('/api/v1/session/password', { method: 'POST', body: values(form) }), async (answer) => {
    // The change ended every session: the answer carries this page's new one.
    await ctx.signedIn(answer.data);
    ctx.setStatus(t('profile.passwordChanged'), 'ok');
  });
}

export async function render(section, ctx) {
  const me = await api('/api/v1/users/me');
  const title = el('h2', {}, t('profile.title'));
  if (!me.ok) {
    section.replaceChildren(title, el('p', { class: 'error', role: 'alert' }, me.message));
    return;
  }
  const { user, passwordSet } = me.data;
  section.replaceChildren(title,
    el('div', { class: 'cards' },
      el('div', { class: 'card', id: 'profile' }, facts(user, ctx.role()), detailsForm(user, section, ctx)),
      el('div', { class: 'card', id: 'profile-password' }, el('h3', {}, t('profile.password')),
        passwordSet ? passwordForm(ctx) : el('p', {}, t('profile.noPassword')))));
}
