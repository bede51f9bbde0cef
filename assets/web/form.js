// Forms whose fields carry the API's own keys: a 422 puts each message beside the field it names
// (linked with aria-describedby, the field marked invalid), and what no field takes goes at the
// top of the form. Nothing is kept half-saved: a refused form stays as typed, to be corrected.
// An amount field is read in the page's language before anything is sent (amount.js): an entry
// that reads two ways is a question beside the field, answered with a click, never a guess.

import { readNumber, writeNumber } from './amount.js';
import { apiWords, language, t } from './i18n.js';
import { el } from './format.js';

// A labelled field: `key` is the API's name for it (also its error's anchor); `id` is unique on
// the page. `options.hint` adds a help line; `options.tag` makes a select or a textarea.
export function field(id, key, label, attrs = {}, options = {}) {
  const tag = options.tag || 'input';
  const error = el('p', { id: `${id}-error`, class: 'field-error' });
  const hint = options.hint ? el('p', { id: `${id}-hint`, class: 'small' }, options.hint) : null;
  const described = [hint ? `${id}-hint` : null, `${id}-error`].filter(Boolean).join(' ');
  const control = el(tag, { id, name: key, 'data-field': key, 'aria-describedby': described, ...attrs },
    ...(options.children || []));
  if (attrs.type === 'checkbox') {
    return el('div', { class: 'field check' }, control, el('label', { for: id }, label), error);
  }
  return el('div', { class: 'field' }, el('label', { for: id }, label), hint, control, error);
}

// An amount typed in the page's language, read when the form is sent: `places` decimals (2 for
// lek, 3 for a quantity), `negative` allowed or not.
export function amountField(id, key, label, attrs = {}, { places = 2, negative = false, hint = null } = {}) {
  const reading = { inputmode: 'decimal', autocomplete: 'off', 'data-places': places, 'data-negative': negative ? 'true' : null };
  return field(id, key, label, { ...reading, ...attrs }, { hint });
}

// What an amount control holds: the reading the person chose for the text it has now, else the
// text read in the page's language (see amount.js for the answers).
export function amountOf(control) {
  const places = Number(control.dataset.places);
  const [chosenText, chosenUnits] = (control.dataset.chosen || '').split('\n');
  if (control.dataset.chosen && chosenText === control.value) {
    const units = Number(chosenUnits);
    return { ok: true, units, value: units / 10 ** places };
  }
  return readNumber(control.value, language(), { places, negative: control.dataset.negative === 'true' });
}

function errorOf(control) {
  return document.getElementById(`${control.id}-error`);
}

function refuse(control, text) {
  control.setAttribute('aria-invalid', 'true');
  const error = errorOf(control);
  if (error) error.textContent = text;
  control.focus();
}

// An entry that reads two ways: each reading that fits as a button beside the field; the one
// chosen is written back unmistakably and the form is sent again.
function ask(form, control, readings) {
  const places = Number(control.dataset.places);
  const lang = language();
  const text = el('p', { id: `${control.id}-question-text` }, t('amount.ask').replace('{text}', control.value.trim()));
  const choose = (units) => {
    control.value = writeNumber(units, lang, places);
    control.dataset.chosen = `${control.value}\n${units}`;
    box.remove();
    form.requestSubmit();
  };
  const box = el('div', { class: 'question', id: `${control.id}-question`, role: 'group', 'aria-labelledby': text.id },
    text,
    el('p', { class: 'buttons' },
      readings.map((units) => el('button', { type: 'button', 'data-reading': units, onclick: () => choose(units) },
        `${writeNumber(units, lang, places)}${places === 2 ? ` ${t('amount.lek')}` : ''}`)),
      el('button', { type: 'button', onclick: () => { box.remove(); control.focus(); } }, t('amount.fix'))));
  (errorOf(control) || control).after(box);
  box.querySelector('button').focus();
}

// Reads every amount field of `form` before it is sent: true when each reads one way (or is an
// empty field the form may leave empty); else a refusal or a question beside the field.
export function readAmounts(form) {
  for (const control of form.querySelectorAll('[data-places]')) {
    if (control.value.trim() === '' && !control.required) continue;
    const reading = amountOf(control);
    if (reading.ok) continue;
    if (reading.reason === 'ambiguous') ask(form, control, reading.readings);
    else refuse(control, t(`amount.${reading.reason}${Number(control.dataset.places) === 2 ? '' : 'Quantity'}`));
    return false;
  }
  return true;
}

export function clearErrors(form) {
  for (const p of form.querySelectorAll('.field-error, .form-error')) p.textContent = '';
  for (const c of form.querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
  for (const q of form.querySelectorAll('.question')) q.remove();
}

// Places an answer's errors (in words already, see api.js): beside their fields, the rest (and
// the message) at the top.
export function showErrors(form, answer) {
  clearErrors(form);
  const rest = [];
  let first = null;
  for (const [key, text] of Object.entries(answer.fields || {})) {
    const control = form.querySelector(`[data-field="${CSS.escape(key)}"]`);
    if (!control) {
      rest.push(text);
      continue;
    }
    control.setAttribute('aria-invalid', 'true');
    form.querySelector(`#${CSS.escape(control.id)}-error`).textContent = text;
    first = first || control;
  }
  const top = formError(form);
  const message = answer.body?.message ? apiWords(answer.body.message) : answer.message;
  if (!first || rest.length) top.textContent = [message, ...rest].filter(Boolean).join(' — ');
  if (first) first.focus();
  else top.focus();
}

function formError(form) {
  let top = form.querySelector('.form-error');
  if (!top) {
    top = el('p', { class: 'form-error', role: 'alert', tabindex: '-1' });
    form.prepend(top);
  }
  return top;
}

// Says something at the top of a form (a lock-out, a refusal without a field).
export function formMessage(form, text) {
  clearErrors(form);
  const top = formError(form);
  top.textContent = text;
  top.focus();
}

// Submits with `send` (returns an api() answer); the button waits while the call runs. `done`
// gets the answer when it is ok; a refusal is shown in the form.
export function onSubmit(form, send, done) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = form.querySelector('button[type=submit]');
    if (button) button.disabled = true;
    clearErrors(form);
    try {
      if (!readAmounts(form)) return;
      const answer = await send();
      if (answer.ok) await done(answer);
      else showErrors(form, answer);
    } finally {
      if (button) button.disabled = false;
    }
  });
  return form;
}

// The form's fields by their API key: text as typed (trimmed), an amount as a JSON number, a
// checkbox as true/false, empty fields left out.
export function values(form) {
  const out = {};
  for (const c of form.querySelectorAll('[data-field]')) {
    if (c.type === 'file') continue;
    if (c.type === 'checkbox') out[c.dataset.field] = c.checked;
    else if (c.dataset.places && c.value.trim() !== '') out[c.dataset.field] = amountOf(c).value;
    else if (c.value.trim() !== '') out[c.dataset.field] = c.type === 'password' ? c.value : c.value.trim();
  }
  return out;
}
