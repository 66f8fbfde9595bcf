// api.js: the JSON API of docs/protocol.md ("HTTP API"), the session (who
// this browser plays as) and what the pages keep in local storage. Every
// page that asks the server something goes through here, so a refused
// request reads the same everywhere: an Error with the protocol's error
// code and the server's message.

export const LEVELS = ['easy', 'medium', 'hard', 'expert', 'master'];

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

// get reads a JSON resource. The player goes with it as the session cookie
// (the browser sends it on every same-origin request); pages never hold a
// secret of the player's.
export const get = (path) => request(path);

const send = (method) => (path, body) => request(path, {
  method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body || {}),
});

// post sends a JSON body and answers the JSON reply; del is DELETE with a
// body.
export const post = send('POST');
export const del = send('DELETE');

// The session: who this browser plays as, from GET /api/me ({player: {id,
// name, guest}, account: {handle, created_at, passkeys,
// recovery_codes_left} or null}), or null before the player's first name.
// The player's id and name are mirrored in local storage (they are no
// secret) for the name fields; the token older versions of the page kept
// there is exchanged once and dropped.
let me = null;
let started = null;
let unreachable = false;
const watchers = new Set();

// offline says whether the session could not be read because the
// server could not be reached (the page opened offline, from the app shell).
export const offline = () => unreachable;

export const session = () => me;
export const myId = () => (me ? me.player.id : '');
export const account = () => (me && me.account) || null;

// onSession calls fn with the session each time it changes.
export const onSession = (fn) => { watchers.add(fn); };

// setSession takes a reply that names the player (GET /api/me, POST
// /api/session, a sign-in), or null after a sign-out; it answers the
// session.
export function setSession(r) {
  me = r && r.player ? { player: r.player, account: r.account || null } : null;
  if (me) {
    store.set('id', me.player.id);
    // A guest's name field keeps what they typed last; an account's is
    // its handle.
    if (me.account || !store.get('name')) store.set('name', me.player.name);
  } else {
    store.set('id', '');
  }
  for (const fn of watchers) fn(me);
  return me;
}

// start reads the session once per page load. With none, a token that an
// older version of the page kept is exchanged for a session of its player,
// so that their history and streak stay theirs, and is deleted; it is kept
// only when the server could not be asked.
export function start() {
  if (!started) started = (async () => {
    let r;
    try {
      r = await get('/api/me');
    } catch (e) {
      unreachable = e.code === 'offline';
      me = null;
      return null;
    }
    const token = store.get('token');
    if (token && !r.player) {
      try {
        r = await post('/api/session', { token });
        store.set('token', '');
      } catch (e) {
        if (e.code === 'bad_token' || e.status === 400 || e.status === 401) store.set('token', '');
      }
    } else if (token) {
      store.set('token', '');
    }
    return setSession(r);
  })();
  return started;
}

// refresh reads the session again (after a sign-in elsewhere, an added
// passkey, a deleted account).
export async function refresh() {
  return setSession(await get('/api/me'));
}

// ensurePlayer answers the session's player, making a guest named name
// when this browser has none yet (the first time a name is needed).
export async function ensurePlayer(name) {
  await start();
  if (me) return me;
  return setSession(await post('/api/session', { name }));
}

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

// shortDate is the one way the pages write a date: "26 Nov 2026". It
// takes a day (YYYY-MM-DD, a UTC date: a daily's) or a moment (an ISO
// time, shown on this device's calendar).
export function shortDate(v) {
  if (!v) return '';
  const day = /^\d{4}-\d{2}-\d{2}$/.test(v);
  const d = new Date(day ? `${v}T00:00:00Z` : v);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', ...(day ? { timeZone: 'UTC' } : {}) });
}

// longDate says a date for people: "Sunday 22 November 2026".
export const longDate = (date) => new Date(`${date}T00:00:00Z`).toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

export const title = (level) => level[0].toUpperCase() + level.slice(1);

export const count = (n) => (n || 0).toLocaleString('en-US');
