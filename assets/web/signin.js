// Signing in: e-mail and password; a wrong pair, or a guess that must wait (guesses are slowed per
// e-mail and address), is said beside the password. A person who forgot the password sets a new
// one with the one-time code `arka users reset-password` prints on the server. The server answers with an HttpOnly session cookie the page never sees
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

// How long until the next guess, in seconds or minutes.
function nextIn(seconds) {
  return seconds < 60 ? tn('signin.nextInSeconds', seconds) : tn('signin.nextInMinutes', Math.ceil(seconds / 60));
}

// A refusal the throttle made (429) or one that starts a wait (401 with Retry-After), as words
// beside `field`.
function waited(answer, field, wrong) {
  if (answer.status === 429) return { ok: false, fields: { [field]: `${t('signin.tooMany')} ${nextIn(answer.retryAfter || 1)}` }, body: {} };
  if (wrong) return { ok: false, fields: { [field]: answer.retryAfter ? `${wrong} ${nextIn(answer.retryAfter)}` : wrong }, body: {} };
  return answer;
}

// A form whose accepted answer signs the person in (`path` answers as POST /api/v1/session does);
// a 401 is `wrong` beside `field`, with the wait the server asks for.
function signingIn(form, path, field, wrong, ctx) {
  return onSubmit(form, async () => {
    const answer = await api(path, { method: 'POST', body: values(form), quiet: true });
    return waited(answer, field, answer.status === 401 ? wrong : null);
  }, async (answer) => {
    ctx.setStatus('');
    await ctx.signedIn(answer.data);
    document.getElementById('main').focus();
  });
}

// The new password with the code from the server: the person is signed in with it.
function renderReset(section, ctx) {
  const form = el('form', { id: 'reset-form', novalidate: true },
    field('reset-email', 'email', t('signin.email'), { type: 'email', autocomplete: 'username', required: true }),
    field('reset-code', 'code', t('signin.code'), { autocomplete: 'one-time-code', autocapitalize: 'characters', spellcheck: 'false', required: true }),
    field('reset-password', 'newPassword', t('admin.newPassword'), { type: 'password', autocomplete: 'new-password', required: true }, { hint: t('setup.passwordHint') }),
    el('button', { type: 'submit', class: 'primary' }, t('signin.resetSubmit')));
  signingIn(form, '/api/v1/session/reset', 'code', null, ctx);
  section.replaceChildren(
    el('h2', {}, t('signin.resetTitle')),
    el('p', {}, t('signin.resetHelp')),
    form,
    el('p', {}, el('button', { type: 'button', class: 'link', id: 'signin-back', onclick: () => render(section, ctx) }, t('signin.back'))));
  form.querySelector('#reset-email').focus();
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
  // Wrong, unknown and revoked look alike to the server's callers; a wait says how long.
  signingIn(form, '/api/v1/session', 'password', t('signin.wrong'), ctx);
  section.replaceChildren(
    el('h2', {}, t('signin.title')),
    el('p', {}, t('signin.help')),
    form,
    el('p', {}, el('button', { type: 'button', class: 'link', id: 'signin-forgot', onclick: () => renderReset(section, ctx) }, t('signin.forgot'))),
    el('p', { class: 'small' }, t('signin.tokenOnly')));
  form.querySelector('#signin-email').focus();
}
