// The till's calls: this server's public API, as the person signed in. A session (signed in
// with e-mail and password) goes as its HttpOnly cookie with the CSRF token on every change; a
// pairing card's token goes as a bearer token, kept for the tab's life only (sessionStorage),
// so a reload on the tablet goes on selling and closing the tab forgets it.

let csrf = null;
let bearer = sessionStorage.getItem('arka-till-token');

export function setCsrf(value) {
  csrf = value || null;
}

export function setBearer(value) {
  bearer = value || null;
  if (bearer) sessionStorage.setItem('arka-till-token', bearer);
  else sessionStorage.removeItem('arka-till-token');
}

export function hasBearer() {
  return Boolean(bearer);
}

// {status, ok, data, body, message, fields}; status 0 when the server could not be reached.
export async function api(path, { method = 'GET', body, query } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  }
  const headers = { Accept: 'application/json' };
  if (method !== 'GET' && csrf) headers['X-CSRF-Token'] = csrf;
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(url, {
      method, headers, credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { status: 0, ok: false, message: '', fields: {} };
  }
  let parsed = null;
  try {
    parsed = await response.json();
  } catch {
    parsed = null;
  }
  const ok = response.ok && parsed?.status !== false && parsed?.success !== false;
  const fields = {};
  if (!ok && parsed?.errors && !Array.isArray(parsed.errors)) {
    for (const [k, v] of Object.entries(parsed.errors)) fields[k] = [].concat(v).join(' ');
  }
  const message = ok ? '' : [parsed?.message, ...(Array.isArray(parsed?.errors) ? parsed.errors : [])]
    .filter(Boolean).join(' — ') || `HTTP ${response.status}`;
  return { status: response.status, ok, body: parsed, data: parsed?.data, message, fields };
}

// A PDF the API answers, as a blob URL.
export async function pdf(path) {
  const headers = { Accept: 'application/pdf' };
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  try {
    const r = await fetch(new URL(path, location.origin), { headers, credentials: 'same-origin' });
    return r.ok ? URL.createObjectURL(await r.blob()) : null;
  } catch {
    return null;
  }
}
