// Every call the page makes goes to this server's public API as the signed-in person: the
// session cookie (HttpOnly, the page never sees it) goes with each call, and every change carries
// the session's CSRF token, kept in memory only. At a chain's head office, which keeps no
// sessions, the owner's bearer token goes with each call instead, also in memory only: a reload
// asks for it again. The page stores no token anywhere.

import { apiWords, t } from './i18n.js';

let csrf = null;
let bearer = null;
let setupCode = null;

export function setCsrf(value) {
  csrf = value || null;
}

// The head office owner's token, once the HQ has taken it (see signin.js).
export function setBearer(value) {
  bearer = value || null;
}

// The setup code the wizard's first screen accepted (memory only: a reload asks for it again).
export function setSetupCode(value) {
  setupCode = value || null;
}

// Listeners told when the server no longer knows the session (401 on a call made signed in).
const signedOutListeners = [];
export function onSignedOut(listener) {
  signedOutListeners.push(listener);
}

// Listeners told before every change the page sends (the status line forgets the last one's
// outcome: a refusal never leaves an earlier success on the screen).
const changeListeners = [];
export function onChange(listener) {
  changeListeners.push(listener);
}

// A line of a refusal's `errors` list, `field: message`, in words (the message names its field).
function errorWords(text) {
  const line = /^[\w.]+: (.+)$/s.exec(String(text));
  return apiWords(line ? line[1] : String(text));
}

// The spec's envelopes as one message in the page's language: `message`, then the errors (a form
// shows those of its fields beside them instead, see form.js).
function messageOf(status, body) {
  if (status === 429 && !body?.message) return t('error.throttled');
  if (status >= 500 && (!body?.message || body.message === 'Server Error')) return t('error.server');
  const parts = [body?.message ? apiWords(body.message) : `HTTP ${status}`];
  if (Array.isArray(body?.errors)) parts.push(...body.errors.map(errorWords));
  else parts.push(...Object.values(fieldErrors(body)));
  return [...new Set(parts)].join(' — ');
}

// The field errors of a 422, `{field: [messages]}`, in words: {field: 'words'}, or {}.
function fieldErrors(body) {
  const errors = body?.errors;
  if (!errors || Array.isArray(errors) || typeof errors !== 'object') return {};
  const out = {};
  for (const [field, list] of Object.entries(errors)) out[field] = [].concat(list).map((m) => apiWords(m)).join(' ');
  return out;
}

async function send(path, { method = 'GET', body, query, accept = 'application/json', quiet = false, raw = null } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  const headers = { Accept: accept };
  if (method !== 'GET') for (const listener of changeListeners) listener();
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (setupCode && path.startsWith('/api/v1/setup/')) headers['X-Setup-Code'] = setupCode;
  const form = body instanceof FormData;
  // `raw`: the body is sent as it is, with this type (a CSV file); else JSON.
  if (body !== undefined && !form) headers['Content-Type'] = raw || 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method, headers, credentials: 'same-origin',
      body: body === undefined ? undefined : form || raw ? body : JSON.stringify(body),
    });
  } catch {
    return { status: 0, ok: false, message: t('error.network'), fields: {} };
  }
  if (response.status === 401 && (csrf || bearer) && !quiet) {
    csrf = null;
    bearer = null;
    for (const listener of signedOutListeners) listener();
  }
  return response;
}

// A JSON call: {status, ok, data, body, message, fields, retryAfter}. `ok` is a 2xx with
// `status` not false; `message` the refusal in words, `fields` the 422's errors in words by the
// body's own key.
export async function api(path, options) {
  const response = await send(path, options);
  if (!(response instanceof Response)) return response;
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const ok = response.ok && body?.status !== false && body?.success !== false;
  const retry = Number(response.headers.get('Retry-After'));
  return {
    status: response.status, ok, body, data: body?.data,
    message: ok ? '' : messageOf(response.status, body),
    fields: ok ? {} : fieldErrors(body),
    retryAfter: Number.isFinite(retry) && retry > 0 ? retry : null,
  };
}

// A file the API answers (a PDF, a CSV): {status, ok, blob, message}.
export async function apiFile(path, query, accept) {
  const response = await send(path, { query, accept });
  if (!(response instanceof Response)) return response;
  if (!response.ok) {
    let body = null;
    try {
      body = await response.json();
    } catch {
      body = null;
    }
    return { status: response.status, ok: false, message: messageOf(response.status, body) };
  }
  return { status: response.status, ok: true, blob: await response.blob() };
}
