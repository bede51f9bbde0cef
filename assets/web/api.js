// Every call the page makes goes to this server's public API with the signed-in user's token,
// so the page can do exactly what that user may do, nothing more.

import { t } from './i18n.js';

const TOKEN = 'arka.token';

export function token() {
  return sessionStorage.getItem(TOKEN);
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN, value);
  else sessionStorage.removeItem(TOKEN);
}

// Listeners told when the server no longer accepts the token (401).
const signedOutListeners = [];
export function onSignedOut(listener) {
  signedOutListeners.push(listener);
}

// The spec's envelopes as one message: `message`, then the fields' errors if any.
function messageOf(status, body) {
  if (status === 429) return body?.message || t('error.throttled');
  if (status >= 500 && !body?.message) return t('error.server');
  const parts = [body?.message || `HTTP ${status}`];
  const errors = body?.errors;
  if (Array.isArray(errors)) parts.push(...errors);
  else if (errors && typeof errors === 'object') {
    for (const [field, list] of Object.entries(errors)) parts.push(`${field}: ${[].concat(list).join(' ')}`);
  }
  return parts.join(' — ');
}

async function send(path, { method = 'GET', body, query, accept = 'application/json' } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  const headers = { Accept: accept };
  const tok = token();
  if (tok) headers.Authorization = `Bearer ${tok}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    return { status: 0, ok: false, message: t('error.network') };
  }
  if (response.status === 401) {
    setToken(null);
    for (const listener of signedOutListeners) listener();
  }
  return response;
}

// A JSON call: {status, ok, data, body, message}. `ok` is a 2xx with `status` not false.
export async function api(path, options) {
  const response = await send(path, options);
  if (!(response instanceof Response)) return response;
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  const ok = response.ok && body?.status !== false;
  return { status: response.status, ok, body, data: body?.data, message: ok ? '' : messageOf(response.status, body) };
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
