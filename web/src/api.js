// The dashboard talks to frugal's JSON API only (docs/api.md).

const TOKEN_KEY = 'frugal.token';

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

export function setToken(value) {
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

function headers() {
  const t = token();
  return t ? { Authorization: `Bearer ${t}` } : {};
}

/** GET /api/v1/<path>; resolves to the document, rejects with the API's error message. */
export async function get(path) {
  const res = await fetch(`/api/v1/${path}`, { headers: headers() });
  return answer(res);
}

/** POST /api/v1/<path> with the token when one is set. */
export async function post(path, body) {
  const res = await fetch(`/api/v1/${path}`, { method: 'POST', headers: headers(), body });
  return answer(res);
}

async function answer(res) {
  const doc = await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = new Error(doc.error?.message || `${res.status} ${res.statusText}`);
    error.status = res.status;
    throw error;
  }
  return doc;
}

/** How often pages refresh, in ms (?poll=500 in the address overrides it). */
export const pollMs = Number(new URLSearchParams(location.search).get('poll')) || 2000;
