// The page's one way to the server: every request carries the token as a bearer header (no
// cookie exists, so another site's request carries no credential).
/* global fetch, location, history, sessionStorage */
const KEY = 'toolgate-ui-token';

/** The token from the URL fragment (then removed from the address bar), else this tab's stored one. */
export function takeToken() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem(KEY, decodeURIComponent(m[1]));
    history.replaceState(null, '', location.pathname);
  }
  return sessionStorage.getItem(KEY);
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code ?? null;
  }
}

export async function api(token, method, path, body) {
  const res = await fetch(`/api${path}`, {
    method,
    headers: { authorization: `Bearer ${token ?? ''}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok) throw new ApiError(res.status, type.startsWith('application/json') ? await res.json() : null);
  if (type.startsWith('application/json')) return res.json();
  return { text: await res.text(), bytes: Number(res.headers.get('x-artifact-bytes')), truncated: res.headers.get('x-artifact-truncated') === 'true' };
}
