// ui.js: everything around the board: the players, the feed, the message
// line, the lobby, the countdown, the freeze, the clock and the finish
// banner. Every string from the server is set with textContent.

import { BASE, HINT_POINTS, MISTAKE_POINTS, fmt, ordinal, shown } from './game.js';
import { title } from './api.js';

// el makes an element with a class and text.
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

const $ = (id) => document.getElementById(id);

// nameEl is a player's name as an element (tag, class cls): an account's
// handle as it is, a guest's name with a quieter "(guest)" after it.
export function nameEl(p, tag, cls) {
  const e = el(tag || 'span', cls, p.name);
  if (p.guest) e.append(el('span', 'guest', ' (guest)'));
  return e;
}

// colourOf gives each player the index of their Okabe–Ito colour: their
// place in the room's list, which every member sees in the same order.
export function colourOf(game, id) {
  const i = game.players.findIndex((p) => p.id === id);
  return i < 0 ? 0 : i;
}

// playersKey is what the players' list shows; renderPlayers rebuilds the
// list only when it changes, not on every cursor or pong.
let playersKey = '';

export function renderPlayers(game) {
  const ul = $('players');
  const key = JSON.stringify([game.mode, game.me.id, game.room.host, game.spectators,
    game.players.map((p) => [p.id, p.name, !!p.guest, p.connected, p.filled, p.empty, p.hints, status(game, p)])]);
  if (key === playersKey && ul.childElementCount === game.players.length) return;
  playersKey = key;
  const items = game.players.map((p) => {
    const li = el('li');
    li.dataset.player = p.id;
    li.style.setProperty('--pc', `var(--p${colourOf(game, p.id) % 7})`);
    if (p.id === game.me.id) li.classList.add('me');
    if (!p.connected) li.classList.add('away');
    const head = el('div', 'who');
    head.append(el('span', 'dot'), nameEl(p, 'span', 'pname'));
    const tags = [];
    if (p.id === game.me.id) tags.push('you');
    if (p.id === game.room.host) tags.push('host');
    if (tags.length) head.append(el('span', 'tags', tags.join(' · ')));
    const bar = el('progress');
    bar.max = Math.max(1, p.empty || 0);
    bar.value = p.filled || 0;
    const what = game.mode === 'coop' ? 'placed' : 'filled';
    bar.setAttribute('aria-label', `${shown(p)}: ${p.filled || 0} of ${p.empty || 0} ${what}`);
    const stats = el('div', 'stats');
    stats.append(
      el('span', 'count', game.mode === 'coop' ? `${p.filled || 0} placed` : `${p.filled || 0}/${p.empty || 0}`),
      el('span', 'hints', p.hints === 1 ? '1 hint' : `${p.hints || 0} hints`),
      el('span', 'status', status(game, p)),
    );
    li.append(head, bar, stats);
    return li;
  });
  ul.replaceChildren(...items);
  $('spectators').textContent = game.spectators ? `· ${game.spectators} watching` : '';
}

function status(game, p) {
  if (p.rank && game.mode === 'race') return `${ordinal(p.rank)} · ${fmt(p.elapsed_ms)}`;
  if (p.rank) return 'solved';
  if (!p.connected) return 'away';
  const t = p.frozen_until ? Date.parse(p.frozen_until) - game.now() : 0;
  if (t > 0) return 'frozen';
  return '';
}

// feed adds lines to #feed, newest first (at the top), keeping the last 80.
export function feed(items) {
  const ol = $('feed');
  if (!ol) return;
  for (const it of items) {
    const li = el('li', null, it.text);
    li.dataset.kind = it.kind;
    if (it.past) li.dataset.past = '';
    ol.prepend(li);
  }
  while (ol.children.length > 80) ol.lastChild.remove();
}

let messageTimer = 0;

// message shows the last server error near the board (data-code for tests).
// The line under the board says one thing at a time, the newest: a message
// takes the place of a hint's explanation, and a hint's of a message.
export function message(m) {
  const p = $('message');
  if (!p) return;
  clearTimeout(messageTimer);
  p.classList.remove('stale');
  if (!m) { p.textContent = ''; delete p.dataset.code; return; }
  explain('');
  p.textContent = m.text;
  p.dataset.code = m.code;
  messageTimer = setTimeout(() => p.classList.add('stale'), 6000);
}

// explain shows the last hint's explanation under the board until the
// board changes (or a message comes): on a phone the feed is folded away.
export function explain(text) {
  const p = $('explain');
  if (!p) return;
  if (text) message(null);
  p.textContent = text;
  p.title = text;
  p.hidden = !text;
}

export function renderLobby(game) {
  const lobby = $('lobby');
  const waiting = !!game.me.id && game.mode !== 'daily' && (game.phase === 'waiting' || game.phase === 'preparing');
  lobby.hidden = !waiting;
  if (!waiting) return;
  $('share-link').value = `${location.origin}/r/${game.room.id}`;
  const names = game.players.map(shown);
  const watching = game.spectators ? ` · ${game.spectators} watching` : '';
  $('lobby-count').textContent = names.length ? `Here: ${names.join(', ')}${watching}` : `Nobody here yet${watching}`;
  const coop = game.mode === 'coop';
  $('lobby-kicker').textContent = game.room.round > 1 ? `Waiting room · Round ${game.room.round}` : 'Waiting room';
  $('lobby-title').textContent = game.phase === 'preparing' ? 'Finding a new puzzle…' : coop ? 'Solve together' : 'Race your friends';
  const start = $('start');
  const canStart = game.host && game.phase === 'waiting' && !game.startsBy;
  const alone = game.players.length < 2;
  start.hidden = !canStart;
  start.textContent = alone ? 'Start alone' : coop ? 'Start solving' : 'Start the race';
  const note = $('start-note');
  note.hidden = !canStart;
  note.textContent = alone ? 'Or wait for friends: they join with the link, and you start when everyone is here.' : coop ? 'Everyone shares this board after a short countdown.' : 'Everyone gets the same puzzle after a short countdown.';
  const w = $('waiting');
  w.hidden = game.host && !game.startsBy;
  w.textContent = game.phase === 'preparing' ? 'A new puzzle is on its way.' : `Waiting for ${game.nameOf(game.room.host)} to start`;
}

// tick refreshes what moves with the clock: the timer, the countdown and the
// freeze, all from the server's clock.
export function tick(game) {
  connTick();
  const now = game.now();
  const timer = $('timer');
  if (!timer) return;
  let t = 0;
  const me = game.mine();
  if (game.startedAt) {
    if (me && me.rank && me.elapsed_ms != null) t = me.elapsed_ms;
    else if (game.phase === 'finished' && game.finishedAt) t = game.finishedAt - game.startedAt;
    else if (game.phase === 'running') t = now - game.startedAt;
    else if (game.finishedAt) t = game.finishedAt - game.startedAt;
  }
  const text = fmt(t);
  if (timer.textContent !== text) timer.textContent = text;

  const cd = $('countdown');
  const counting = game.phase === 'countdown' && game.startsAt;
  cd.hidden = !counting;
  if (counting) {
    const s = Math.max(0, Math.ceil((game.startsAt - now) / 1000));
    const v = s > 0 ? String(s) : 'Go';
    if (cd.textContent !== v) cd.textContent = v;
  }

  const fz = $('freeze');
  const until = game.phase === 'running' ? game.frozenUntil() : 0;
  fz.hidden = !until;
  document.getElementById('board').classList.toggle('frozen', !!until);
  if (until) {
    const v = `Frozen for ${Math.ceil((until - now) / 1000)}s · notes still work`;
    if (fz.textContent !== v) fz.textContent = v;
  }
}

// renderFinish fills the finish banner; it shows when this player (or the
// team) has finished, when the room has, or for a spectator once anyone has.
// Put away (dismissed), it leaves a Results button by the clock that
// brings it back, with its rematch and replay. A daily's banner says what
// the finish is worth: result is {ranked, text} once the leaderboard has
// been read.
export function renderFinish(game, dismissed, result) {
  const box = $('finish');
  const me = game.mine();
  const any = game.finishes.size > 0;
  const live = game.phase === 'running' || game.phase === 'finished';
  const show = live && any && (game.phase === 'finished' || (me && me.rank) || game.spectator);
  box.hidden = !show || dismissed;
  $('finish-open').hidden = !show || !dismissed;
  const solo = game.players.length === 1 && !!me;
  $('rematch').textContent = solo ? 'Play again' : 'Rematch';
  $('rematch').hidden = !(game.host && game.mode !== 'daily' && live && (game.phase === 'finished' || (game.mode === 'race' && any)));
  // The replay opens once the round is over, for anyone with the link;
  // on the puzzle of the day, a day after the day is over (as the server
  // says: a room made before midnight is played for its day after it).
  const rp = $('replay-link');
  const day = game.room.date;
  const yesterday = new Date(Date.now() - 86400000).toISOString().slice(0, 10);
  rp.hidden = game.phase !== 'finished' || (!!day && day >= yesterday);
  rp.href = `/r/${encodeURIComponent(game.room.id)}/replay?round=${game.room.round}`;
  if (!show) return;
  const rows = [];
  const how = $('finish-how');
  how.hidden = game.mode === 'daily';
  how.textContent = scoring(game);
  const team = game.finishes.get('team');
  if (game.mode === 'daily') {
    const f = game.finishes.get(game.me.id) || [...game.finishes.values()][0];
    $('finish-title').textContent = 'Solved!';
    const sub = $('finish-sub');
    sub.textContent = result ? result.text : 'Reading the leaderboard…';
    sub.dataset.ranked = result ? String(result.ranked) : '';
    sub.dataset.review = result && result.review ? 'held' : '';
    for (const [k, v] of [['Time', fmt(f.elapsed_ms)], ['Mistakes', String(f.mistakes || 0)], ['Hints', String(f.hints || 0)]]) {
      const tr = el('tr');
      tr.append(el('td', 'name', k), el('td', 'num', v));
      rows.push(tr);
    }
  } else if (game.mode === 'coop') {
    $('finish-title').textContent = game.players.length > 1 ? 'Solved together!' : 'Solved!';
    const f = team || [...game.finishes.values()][0];
    $('finish-sub').textContent = `${game.players.length === 1 ? 'Solved' : 'Team time'} ${fmt(f.elapsed_ms)} · ${f.mistakes} mistakes · ${f.hints} hints`;
    const tr = row(1, { name: 'Team' }, fmt(f.elapsed_ms), team ? team.score : f.score);
    rows.push(tr, why(game, { ...f, score: team ? team.score : f.score }));
    const total = game.players.reduce((s, p) => s + (p.filled || 0), 0);
    for (const p of [...game.players].sort((a, b) => (b.filled || 0) - (a.filled || 0))) {
      const r = el('tr', 'contrib');
      r.style.setProperty('--pc', `var(--p${colourOf(game, p.id) % 7})`);
      const name = el('td', 'name');
      const who = el('span', 'who');
      who.append(el('span', 'dot'), nameEl(p));
      name.append(who);
      r.append(el('td'), name, el('td', 'num', `${p.filled || 0} digits`), el('td', 'num', total ? `${Math.round((100 * (p.filled || 0)) / total)}%` : ''));
      rows.push(r);
    }
  } else {
    const mine = me && me.rank;
    const fs = [...game.finishes.values()].filter((f) => f.player).sort((a, b) => a.rank - b.rank);
    const left = game.players.filter((p) => !p.rank).length;
    if (solo && mine) {
      // A race of one has no winner: it has a time and a score.
      $('finish-title').textContent = `Solved in ${fmt(me.elapsed_ms)}`;
      const f = game.finishes.get(me.id);
      $('finish-sub').textContent = f ? `${f.score} points` : '';
    } else {
      $('finish-title').textContent = mine ? (me.rank === 1 ? 'You won!' : `You finished ${ordinal(me.rank)}`) : game.phase === 'finished' ? 'The race is over' : 'Finished';
      $('finish-sub').textContent = game.phase === 'finished' ? 'Final ranks' : left ? `${left} still racing` : '';
    }
    for (const f of fs) {
      const r = row(f.rank, game.player(f.player) || { name: game.nameOf(f.player) }, fmt(f.elapsed_ms), f.score);
      if (f.player === game.me.id) r.classList.add('me');
      rows.push(r, why(game, f));
    }
  }
  $('finish-rows').replaceChildren(...rows);
}

function row(rank, player, time, score) {
  const tr = el('tr');
  tr.dataset.rank = rank;
  tr.append(el('td', 'rank', ordinal(rank)), nameEl(player, 'td', 'name'), el('td', 'num time', time), el('td', 'num score', `${score} pts`));
  return tr;
}

const plural = (n, one) => `${n} ${n === 1 ? one : `${one}s`}`;

// why is the row under a finish that works its score out: the level's
// points, less a point a second, 50 a mistake and 100 a hint
// (docs/protocol.md, "Score"), so that a player sees why a later finish
// can score more.
function why(game, f) {
  const base = BASE[game.room.level] || BASE.easy;
  const s = Math.floor((f.elapsed_ms || 0) / 1000), m = f.mistakes || 0, h = f.hints || 0;
  const sum = base - s - MISTAKE_POINTS * m - HINT_POINTS * h;
  const parts = [`${base}`, `${s} s`, `${plural(m, 'mistake')} × ${MISTAKE_POINTS}`, `${plural(h, 'hint')} × ${HINT_POINTS}`];
  const tr = el('tr', 'why');
  const td = el('td', null, `${parts.join(' − ')} = ${f.score}${sum < 1 ? ' (a finish scores at least 1)' : ''}`);
  td.colSpan = 4;
  tr.append(td);
  return tr;
}

// scoring says, under the table, how places and points are given.
function scoring(game) {
  const base = BASE[game.room.level] || BASE.easy;
  const points = `Points: ${base} for ${title(game.room.level || 'easy')}, less 1 a second, ${MISTAKE_POINTS} a mistake, ${HINT_POINTS} a hint.`;
  if (game.mode !== 'race') return points;
  const freeze = game.penalty ? ` A hint also froze the board ${Math.round(game.penalty / 1000)} s, counted in the time.` : '';
  return game.players.length > 1 ? `Places go by who finished first. ${points}${freeze}` : `${points}${freeze}`;
}

// CONN says each connection state in words.
const CONN = {
  connecting: 'Connecting…',
  open: 'Connected',
  reconnecting: 'Reconnecting…',
  closed: 'Disconnected',
  replaced: 'Playing in another tab',
};

let retryAt = 0;

// offline says by the board that the link is down, and how many digits
// wait for it.
export function offline(down, waiting) {
  const p = $('offline');
  if (!p) return;
  p.hidden = !down;
  const t = !waiting ? 'Connection lost · reconnecting…' : `Reconnecting… ${waiting === 1 ? '1 digit' : `${waiting} digits`} to send`;
  if (down && p.textContent !== t) p.textContent = t;
}

// connState shows the connection's state in #conn; while a reconnection
// waits, connTick counts its seconds down.
export function connState(state, detail) {
  const c = $('conn');
  c.hidden = false;
  c.dataset.state = state;
  retryAt = state === 'reconnecting' && detail > 1 ? Date.now() + detail * 1000 : 0;
  let text = CONN[state] || state;
  if (state === 'closed' && detail === 'room_ended') text = 'Room ended';
  c.textContent = text;
  connTick();
}

function connTick() {
  if (!retryAt) return;
  const s = Math.ceil((retryAt - Date.now()) / 1000);
  const text = s > 0 ? `Reconnecting in ${s}s…` : CONN.reconnecting;
  const c = $('conn');
  if (c.textContent !== text) c.textContent = text;
}
