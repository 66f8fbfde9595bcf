// playnow.js: "Play now", the matchmaking queue (POST/GET/DELETE
// /api/queue in docs/protocol.md), and what a rated race did to the
// ratings (GET /api/rooms/{id}/ratings). The home page's card joins the
// queue and polls its ticket once a second; a match opens the race room,
// which starts by itself once the group is in.
import * as api from './api.js';

const $ = (id) => document.getElementById(id);

// The card's and the chart's styles load with this module, not with
// every page.
if (!document.getElementById('playnow-css')) {
  document.head.append(Object.assign(document.createElement('link'), { id: 'playnow-css', rel: 'stylesheet', href: '/playnow.css' }));
}

// matches remembers, for this tab, the room of a match: its players, and
// whether it is rated, for the room's page.
const matchKey = (room) => `arena.match.${room}`;
export function matchOf(room) {
  try { return JSON.parse(sessionStorage.getItem(matchKey(room)) || 'null'); } catch { return null; }
}
function remember(st) {
  try { sessionStorage.setItem(matchKey(st.room), JSON.stringify({ players: st.players, rated: st.rated, at: Date.now() })); } catch { /* private mode */ }
}

// homePlayNow wires the home page's Play now card. needName(say) checks
// the name field first (and makes the guest), saying what is wrong.
export function homePlayNow(needName) {
  const btn = $('play-now');
  if (!btn) return;
  const level = $('play-level');
  const rated = $('play-rated');
  const status = $('queue-status');
  const leave = $('queue-leave');
  const say = (text) => { status.textContent = text; };
  level.value = api.store.get('level') || 'easy';
  const acct = () => !!api.account();
  const syncRated = () => { rated.disabled = !acct(); if (!acct()) rated.checked = false; $('play-rated-note').hidden = acct(); };
  syncRated();
  api.onSession(syncRated);
  let ticket = '';
  let timer = 0;
  const stop = () => { clearTimeout(timer); timer = 0; ticket = ''; btn.disabled = false; leave.hidden = true; document.documentElement.dataset.queue = ''; };
  const show = (st) => {
    if (st.state === 'matched') {
      remember(st);
      say('Matched! Opening the race…');
      document.documentElement.dataset.queue = 'matched';
      location.assign(`/r/${st.room}`);
      return false;
    }
    const counts = api.LEVELS.map((l) => `${api.title(l)} ${st.waiting[l] || 0}`).join(' · ');
    const window = st.rated ? ` · rating ${Math.round(st.rating)}, ±${Math.round(st.window)}` : '';
    say(`Looking for players at ${api.title(st.level)}${window}. Waiting now: ${counts}`);
    document.documentElement.dataset.queue = 'waiting';
    return true;
  };
  const poll = async () => {
    if (!ticket) return;
    try {
      if (show(await api.get(`/api/queue/${encodeURIComponent(ticket)}`))) timer = setTimeout(poll, 1000);
    } catch (e) {
      stop();
      say(e.code === 'ticket_not_found' ? 'Your place in the queue is gone: press Play now again.' : e.message);
    }
  };
  btn.addEventListener('click', async () => {
    btn.disabled = true;
    say('');
    if (!await needName(say)) { btn.disabled = false; return; }
    api.store.set('level', level.value);
    try {
      const st = await api.post('/api/queue', { level: level.value, rated: rated.checked });
      ticket = st.ticket;
      leave.hidden = false;
      if (show(st)) timer = setTimeout(poll, 1000);
    } catch (e) {
      stop();
      say(e.code === 'already_queued' ? 'You are in the queue already, in another tab.' : e.message);
    }
  });
  leave.addEventListener('click', () => {
    const t = ticket;
    stop();
    say('You left the queue.');
    if (t) api.del(`/api/queue/${encodeURIComponent(t)}`).catch(() => {});
  });
  // Leaving the page leaves the queue.
  window.addEventListener('pagehide', () => {
    if (ticket) fetch(`/api/queue/${encodeURIComponent(ticket)}`, { method: 'DELETE', headers: { 'Content-Type': 'application/json' }, keepalive: true }).catch(() => {});
  });
  btn.dataset.ready = 'true';
}

// sync is the room page's part. A race made for a group (a match, a
// tournament's pairing) starts by itself once they are in (its snapshot's
// roster and starts_by): its lobby says so. Once a rated race is over it
// shows what the race did to this player's rating on the finish card
// (and so in its share text).
const asked = new Set();
let waitTimer = 0;
export function sync(game, send) {
  groupLobby(game);
  berserk(game, send);
  const key = `${game.room.id}.${game.room.round}`;
  if (game.phase !== 'finished' || game.mode !== 'race' || game.room.round > 1 || asked.has(key)) return;
  asked.add(key);
  // A match says whether it is rated; a tournament's race (a group's race
  // that is no match of this tab) is rated between accounts.
  const m = matchOf(game.room.id);
  const rated = m ? m.rated : game.roster.length > 1 && !!api.account();
  ratingOf(game.room.id, game.me.id, rated).then((c) => {
    const line = $('finish-rating');
    if (!c || !line) return;
    line.textContent = ratingText(c);
    line.dataset.delta = String(Math.round(c.delta));
    line.hidden = false;
  });
}

// groupLobby fills the waiting room of a race made for a group: who is
// here of the roster, and when it starts anyway, each second.
function groupLobby(game) {
  clearTimeout(waitTimer);
  const lobby = $('lobby');
  if (!game.roster.length || !lobby) return;
  lobby.querySelector('label[for="share-link"]').textContent = 'Friends can watch with this link';
  if (!game.startsBy || game.phase !== 'waiting' || lobby.hidden) return;
  const here = new Set(game.players.map((p) => p.id));
  const missing = game.roster.filter((id) => !here.has(id)).length;
  const s = Math.max(0, Math.ceil((game.startsBy - game.now()) / 1000));
  $('lobby-kicker').textContent = 'Your match';
  $('lobby-title').textContent = 'The race is about to start';
  $('lobby-count').textContent = `Here: ${game.players.map((p) => p.name).join(', ')} (${here.size} of ${game.roster.length})`;
  $('waiting').textContent = `Starts when ${missing === 1 ? '1 more player is' : `${missing} more players are`} here, or in ${s} s with those who are.`;
  waitTimer = setTimeout(() => groupLobby(game), 1000);
}

// berserk offers a tournament's racer to go berserk (no notes, no hints,
// a point more for a win) until their first digit, note or hint, and
// once they have, takes the notes and the hint off their pad; it marks
// every berserk player in the list.
function berserk(game, send) {
  for (const p of game.players) {
    const li = document.querySelector(`#players li[data-player="${CSS.escape(p.id)}"] .who`);
    if (p.berserk && li && !li.querySelector('.berserk-tag')) li.append(Object.assign(document.createElement('span'), { className: 'berserk-tag', textContent: 'berserk', title: 'No notes, no hints: a point more for a win' }));
  }
  const me = game.mine();
  const moved = !!me && (me.filled > 0 || me.hints > 0 || game.notes.size > 0);
  if (me && me.berserk) {
    for (const k of document.querySelectorAll('[data-pad-mode="corner"], [data-pad-mode="centre"], #hint')) k.disabled = true;
  }
  const offer = game.room.berserk && !!me && !game.spectator && !me.berserk && !me.rank && !moved && game.phase !== 'finished' && game.phase !== 'preparing';
  let box = $('berserk-offer');
  if (offer && !box) {
    box = Object.assign(document.createElement('div'), { id: 'berserk-offer', className: 'berserk-offer' });
    const b = Object.assign(document.createElement('button'), { id: 'berserk', type: 'button', className: 'berserk', textContent: 'Go berserk' });
    b.addEventListener('click', () => send({ type: 'berserk' }));
    box.append(Object.assign(document.createElement('span'), { textContent: 'No notes, no hints: a point more if you win.' }), b);
  }
  if (!box) return;
  box.hidden = !offer;
  // In the waiting room's card while the race waits, then under the pad.
  const digits = document.querySelector('#pad .digits');
  if (game.phase === 'waiting') { if (box.parentElement !== $('lobby')) $('lobby').append(box); } else if (digits && box.previousElementSibling !== digits) digits.after(box);
}

// ratingOf reads what the rated race did to this player's rating, once it
// is rated: it asks again every second for up to 20 s, and answers null
// for a race that is not rated.
export async function ratingOf(room, me, rated) {
  if (!rated) return null;
  for (let i = 0; i < 20; i++) {
    try {
      const r = await api.get(`/api/rooms/${encodeURIComponent(room)}/ratings`);
      const c = r.changes.find((x) => x.player === me);
      if (c) return c;
      if (r.changes.length) return null; // rated, without this player (a held finish)
    } catch { /* try again */ }
    await new Promise((ok) => setTimeout(ok, 1000));
  }
  return null;
}

// ratingText says a rating change in words: "Rating 1500 → 1662 (+162)".
export function ratingText(c) {
  const d = Math.round(c.delta);
  return `Rating ${Math.round(c.before)} → ${Math.round(c.after)}${c.provisional ? '?' : ''} (${d >= 0 ? '+' : '−'}${Math.abs(d)})`;
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

// chart draws a rating history as an inline SVG line: the rating before
// the first race, then after each; the lowest and highest labelled.
export function chart(history) {
  const W = 600, H = 200, P = 32;
  const pts = [history[0].before, ...history.map((c) => c.after)];
  const lo = Math.min(...pts), hi = Math.max(...pts);
  const span = Math.max(hi - lo, 1);
  const x = (i) => P + ((W - 2 * P) * i) / Math.max(pts.length - 1, 1);
  const y = (v) => H - P - ((H - 2 * P) * (v - lo)) / span;
  const s = svg('svg', { class: 'rating-chart', viewBox: `0 0 ${W} ${H}`, role: 'img',
    'aria-label': `Rating over ${history.length} rated races: from ${Math.round(pts[0])} to ${Math.round(pts[pts.length - 1])}` });
  s.append(svg('line', { class: 'axis', x1: P, y1: H - P, x2: W - P, y2: H - P }));
  s.append(svg('polyline', { class: 'line', points: pts.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ') }));
  for (const [v, label] of [[hi, 'high'], [lo, 'low']]) {
    s.append(svg('text', { x: 2, y: y(v) + 4, 'data-label': label }, String(Math.round(v))));
  }
  return s;
}

// ratingCard fills the player page's rating card, hidden for a player
// never rated.
export async function ratingCard(id) {
  let r;
  try { r = await api.get(`/api/players/${encodeURIComponent(id)}/rating`); } catch { return; }
  const card = $('rating-card');
  if (!card || !r.rating) return;
  card.hidden = false;
  $('rating-now').textContent = `${Math.round(r.rating.rating)}${r.rating.provisional ? '?' : ''} · ${r.rating.races} rated race${r.rating.races === 1 ? '' : 's'}`;
  if (r.history.length) $('rating-chart').replaceChildren(chart(r.history));
}

// homeBoard fills the home page's all-time rating board (its top 10).
// While nobody's rating is past provisional it says when ratings appear,
// so that the player page's link to it always lands on it; it is hidden
// only where the server has no ratings.
export async function homeBoard() {
  let r;
  try { r = await api.get('/api/ratings?limit=10'); } catch { return; }
  const body = $('ratings-rows');
  if (!body) return;
  $('ratings-empty').hidden = r.rows.length > 0;
  body.closest('table').hidden = !r.rows.length;
  body.replaceChildren(...r.rows.map((row) => {
    const tr = document.createElement('tr');
    const name = document.createElement('td');
    const a = document.createElement('a');
    a.href = `/p/${encodeURIComponent(row.player)}`;
    a.textContent = row.name;
    name.append(a);
    const cells = [String(row.rank), null, String(Math.round(row.rating))].map((t) => {
      if (t === null) return name;
      const td = document.createElement('td');
      td.className = 'num';
      td.textContent = t;
      return td;
    });
    tr.append(...cells);
    return tr;
  }));
  $('ratings').hidden = false;
  // The page loaded before the board showed: the link's anchor lands now.
  if (location.hash === '#ratings') $('ratings').scrollIntoView();
}
