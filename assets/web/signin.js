// Signing in: e-mail and password; a wrong pair, or a lock-out after repeated failures, is said
// beside the password. The server answers with an HttpOnly session cookie the page never sees
// and a CSRF token the page keeps in memory. At a chain's head office the owner signs in with
// the name and token `arka hq owners add` printed: the token then goes with each call, from
// memory only.

import { api, setBearer } from './api.js';
import { t, tn } from './i18n.js';
import { el } from './format.js';
import { field, onSubmit, values } from './form.js';

// The head office's owner: the HQ checks the pair and answers the session's shape.
function renderChain(section, ctx) {
  const form = el('form', { id: 'signin-form', novalidate: true },
    field('signin-name', 'name', t('signin.owner'), { type: 'text', autocomplete: 'username', required: true }),
    field('signin-token', 'token', t('signin.token'), { type: 'password', autocomplete: 'current-password', required: true }),
    el('button', { type: 'submit', class: 'primary' }, t('signin.submit')));
  onSubmit(form, async () => {
    const answer = await api('/api/v1/session', { method: 'POST', body: values(form), quiet: true });
    if (answer.status === 401) return { ok: false, fields: { token: t('signin.wrongToken') }, body: {} };
    return answer;
  }, async (answer) => {
    setBearer(form.querySelector('#signin-token').value.trim());
    ctx.setStatus('');
    await ctx.signedIn(answer.data);
    document.getElementById('main').focus();
  });
  section.replaceChildren(el('h2', {}, t('signin.title')), el('p', {}, t('signin.chainHelp')), form);
  form.querySelector('#signin-name').focus();
}

export function render(section, ctx) {
  if (ctx.wizard()?.chain) {
    renderChain(section, ctx);
    return;
  }
  const form = el('form', { id: 'signin-form', novalidate: true },
    field('signin-email', 'email', t('signin.email'), { type: 'email', autocomplete: 'username', required: true }),
    field('signin-password', 'password', t('signin.password'), { type: 'password', autocomplete: 'current-password', required: true }),
    el('button', { type: 'submit', class: 'primary' }, t('signin.submit')));
  onSubmit(form, async () => {
    const answer = await api('/api/v1/session', { method: 'POST', body: values(form), quiet: true });
    if (answer.status === 401) {
      // Wrong, unknown and locked look alike to the server's callers; a lock says how long.
      const text = answer.retryAfter ? tn('signin.locked', Math.ceil(answer.retryAfter / 60)) : t('signin.wrong');
      return { ok: false, fields: { password: text }, body: {} };
    }
    return answer;
  }, async (answer) => {
    ctx.setStatus('');
    await ctx.signedIn(answer.data);
    document.getElementById('main').focus();
  });
  section.replaceChildren(
    el('h2', {}, t('signin.title')),
    el('p', {}, t('signin.help')),
    form,
    el('p', { class: 'small' }, t('signin.tokenOnly')));
  form.querySelector('#signin-email').focus();
}
