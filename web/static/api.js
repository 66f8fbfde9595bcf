// api.js: the JSON API of docs/protocol.md ("HTTP API") and what the pages
// keep in local storage. Every page that asks the server something goes
// through here, so a refused request reads the same everywhere: an Error
// with the protocol's error code and the server's message.

export const LEVELS = ['easy', 'medium', 'hard', 'expert'];

export const store = {
  get: (k) => { try { return localStorage.getItem(`arena.${k}`) || ''; } catch { return ''; } },
  set: (k, v) => { try { if (v) localStorage.setItem(`arena.${k}`, v); else localStorage.removeItem(`arena.${k}`); } catch { /* private mode */ } },
};

// failure is the Error of a refused request: code is the protocol's error
// code ('unavailable' when the server could not be read or reached).
function failure(code, status, message) {
  const e = new Error(message || code);
  e.code = code;
  e.status = status;
  return e;
}

async function request(path, init) {
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw failure('offline', 0, 'The server cannot be reached. Check the connection and try again.');
  }
  const body = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = body && body.error ? body.error : {};
    throw failure(err.code || 'unavailable', res.status, err.message);
  }
  return body;
}

// get reads a JSON resource; with the player's token it goes as a bearer
// header (never in the address, where logs and history would keep it). A
// token the server no longer knows is dropped and the request asked again
// without it, as the WebSocket join does.
export async function get(path, withToken) {
  const token = withToken ? store.get('token') : '';
  if (!token) return request(path);
  try {
    return await request(path, { headers: { Authorization: `Bearer ${token}` } });
  } catch (e) {
    if (e.status !== 401 && e.code !== 'bad_token') throw e;
    return request(path);
  }
}

// post sends a JSON body and answers the JSON reply.
export const post = (path, body) => request(path, {
  method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
});

// createRoom makes a room (POST /api/rooms) and answers its id.
export async function createRoom(body) {
  const r = await post('/api/rooms', body);
  if (!r.id) throw failure('unavailable', 0);
  return r.id;
}

// today is the UTC date now, YYYY-MM-DD, until the server says its own.
export const today = () => new Date().toISOString().slice(0, 10);

// addDays moves a UTC date by n days.
export function addDays(date, n) {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

// validDate says whether s is a real YYYY-MM-DD date.
export const validDate = (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && addDays(s, 0) === s;

// longDate says a date for people: "Sunday 22 November 2026".
export const longDate = (date) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

export const title = (level) => level[0].toUpperCase() + level.slice(1);

export const count = (n) => (n || 0).toLocaleString('en-US');
