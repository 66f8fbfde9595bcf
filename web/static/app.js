// app.js: the entry point. It picks the page from the address (home at /,
// a room at /r/ID), keeps the player's name and token in local storage, and
// wires the room page: the Link (socket), the Game (model), the Board and
// the panels around it.

import { Link } from './net.js';
import { Game, errorText } from './game.js';
import { Board } from './board.js';
import * as ui from './ui.js';

const ID = /^[23456789abcdefghjkmnpqrstuvwxyz]{8}$/;
const store = {
  get: (k) => { try { return localStorage.getItem(`arena.${k}`) || ''; } catch { return ''; } },
  set: (k, v) => { try { if (v) localStorage.setItem(`arena.${k}`, v); else localStorage.removeItem(`arena.${k}`); } catch { /* private mode */ } },
};
const $ = (id) => document.getElementById(id);

// The theme follows the system; data-theme mirrors it for scripts and tests.
const dark = matchMedia('(prefers-color-scheme: dark)');
const theme = () => { document.documentElement.dataset.theme = dark.matches ? 'dark' : 'light'; };
theme();
dark.addEventListener('change', theme);

function mount(tpl) {
  const app = $('app');
  app.replaceChildren($(tpl).content.cloneNode(true));
  return app;
}

// cleanName trims a display name; '' when it is not one the server takes.
function cleanName(s) {
  const n = (s || '').trim();
  return n && [...n].length <= 24 && !/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/.test(n) ? n : '';
}

// roomIdFrom accepts a room code or any link ending in /r/CODE.
function roomIdFrom(s) {
  const t = (s || '').trim().toLowerCase();
  const m = /\/r\/([0-9a-z]+)\/?(?:[?#].*)?$/.exec(t);
  const id = m ? m[1] : t;
  return ID.test(id) ? id : '';
}

function home() {
  document.documentElement.dataset.page = 'home';
  mount('home-tpl');
  $('room-tag').textContent = '';
  const name = $('name');
  name.value = store.get('name');
  const level = $('level');
  level.value = store.get('level') || 'easy';
  const say = (text) => { const m = $('message'); m.textContent = text; };
  const needName = () => {
    const n = cleanName(name.value);
    if (!n) { say('Pick a name first: 1 to 24 characters.'); name.focus(); return ''; }
    store.set('name', n);
    return n;
  };
  const create = async (mode, btn) => {
    if (!needName()) return;
    store.set('level', level.value);
    btn.disabled = true;
    say('');
    try {
      const res = await fetch('/api/rooms', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ mode, level: level.value }),
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok || !body.id) {
        const code = body.error ? body.error.code : 'unavailable';
        say(code === 'rate_limited' ? 'Too many new rooms at once; wait a minute.' : errorText({ code }));
        btn.disabled = false;
        return;
      }
      location.assign(`/r/${body.id}`);
    } catch {
      say('The server cannot be reached. Check the connection and try again.');
      btn.disabled = false;
    }
  };
  $('create-race').addEventListener('click', (e) => create('race', e.currentTarget));
  $('create-coop').addEventListener('click', (e) => create('coop', e.currentTarget));
  const join = () => {
    const id = roomIdFrom($('join-code').value);
    if (!id) { say('That is not a room code: 8 letters and digits, or a link to a room.'); return; }
    const n = cleanName(name.value);
    if (n) store.set('name', n);
    location.assign(`/r/${id}`);
  };
  $('join').addEventListener('click', join);
  $('join-code').addEventListener('keydown', (e) => { if (e.key === 'Enter') join(); });
  name.addEventListener('keydown', (e) => { if (e.key === 'Enter') $('create-race').click(); });
  name.addEventListener('change', () => { const n = cleanName(name.value); if (n) store.set('name', n); });
}

// enter asks for a name before joining a room for the first time.
function enter(id, then) {
  document.documentElement.dataset.page = 'enter';
  mount('enter-tpl');
  $('room-tag').textContent = id;
  const name = $('name');
  name.value = store.get('name');
  name.focus();
  const go = () => {
    const n = cleanName(name.value);
    if (!n) { $('message').textContent = 'Pick a name: 1 to 24 characters.'; name.focus(); return; }
    store.set('name', n);
    then();
  };
  $('enter').addEventListener('click', go);
  // Say what the invitation is for, from the public view of the room.
  fetch(`/api/rooms/${encodeURIComponent(id)}`).then((r) => (r.ok ? r.json() : null)).then((r) => {
    const about = $('enter-about');
    if (!about) return;
    if (!r) { about.textContent = 'This room does not exist or has ended.'; return; }
    const names = (r.players || []).map((p) => p.name);
    const kind = r.mode === 'coop' ? 'A co-op game' : 'A race';
    about.textContent = `${kind}, ${r.level}${names.length ? `, with ${names.join(', ')}` : ''}.`;
  }).catch(() => {});
  name.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
}

let ticker = 0;

function room(id, as) {
  document.documentElement.dataset.page = 'room';
  mount('room-tpl');
  $('room-tag').textContent = id;
  const game = new Game();
  let dismissed = false;
  let finishKey = '';
  let link;
  const act = (msg) => {
    if (game.spectator) return;
    if (!link.send(msg)) ui.message({ code: 'offline', text: 'Not connected: reconnecting…' });
  };
  let cursorTimer = 0, cursorCell = -1;
  const moved = (c) => {
    if (game.mode !== 'coop' || game.spectator || c < 0) return;
    cursorCell = c;
    if (cursorTimer) return;
    cursorTimer = setTimeout(() => { cursorTimer = 0; link.send({ type: 'cursor', cell: cursorCell }); }, 80);
  };
  const board = new Board($('board'), $('pad'), game, act, (pid) => ui.colourOf(game, pid), moved);

  const render = () => {
    const ro = game.spectator;
    $('board').setAttribute('aria-readonly', String(ro));
    $('pad').hidden = ro;
    document.querySelector('.room').classList.toggle('spectating', ro);
    document.querySelector('.room').dataset.mode = game.mode;
    const m = game.room;
    $('mode').textContent = !game.me.id ? '' : `${m.mode === 'coop' ? 'Co-op' : 'Race'} · ${m.level[0].toUpperCase()}${m.level.slice(1)}${m.round > 1 ? ` · Round ${m.round}` : ''}${ro ? ' · Watching' : ''}`;
    document.title = `${m.mode === 'coop' ? 'Co-op' : 'Race'} ${id} · Sudoku Arena`;
    const playing = game.canPlay();
    for (const b of ['undo', 'redo', 'hint']) $(b).disabled = !playing;
    board.render();
    ui.renderPlayers(game);
    ui.renderLobby(game);
    const key = `${game.phase}|${game.finishes.size}`;
    if (key !== finishKey) { finishKey = key; dismissed = false; }
    ui.renderFinish(game, dismissed);
    ui.tick(game);
    // For tests: the phase once the server has said it.
    if (game.me.id) document.documentElement.dataset.phase = game.phase;
  };

  const notice = (text, actions) => {
    let n = $('notice');
    if (!n) {
      n = ui.el('section', 'notice');
      n.id = 'notice';
      document.querySelector('.board-wrap').append(n);
    }
    n.replaceChildren(ui.el('p', null, text));
    const row = ui.el('div', 'buttons');
    for (const [label, fn, primary] of actions) {
      const b = ui.el('button', primary ? 'primary' : '', label);
      b.type = 'button';
      b.addEventListener('click', fn);
      row.append(b);
    }
    n.append(row);
    n.hidden = false;
  };
  const clearNotice = () => { const n = $('notice'); if (n) n.hidden = true; };
  const goHome = ['Home', () => location.assign('/'), false];

  const onEvent = (ev) => {
    if (ev.type === 'welcome') {
      clearNotice();
      if (ev.you && ev.you.name && ev.you.role === 'player') store.set('name', ev.you.name);
    }
    const out = game.apply(ev);
    if (ev.refused) {
      // The join was refused: at first, or on a reconnection.
      switch (ev.code) {
        case 'game_started':
          notice('This race has started already. You can watch it, or join the next round.', [
            ['Watch', () => { link.stop('closed'); room(id, 'spectator'); }, true], goHome]);
          return;
        case 'room_not_found':
          notice('This room does not exist or has ended.', [['Make a new room', () => location.assign('/'), true]]);
          return;
        case 'room_full':
          notice('This room is full.', [['Watch', () => { link.stop('closed'); room(id, 'spectator'); }, true], goHome]);
          return;
        case 'bad_name':
          store.set('name', '');
          enter(id, () => room(id));
          return;
      }
    }
    if (out.message) ui.message(out.message);
    else if ((ev.type === 'move' || ev.type === 'note') && ev.player === game.me.id) ui.message(null);
    if (out.feed.length) ui.feed(out.feed);
    if (out.explain !== undefined || ev.type === 'state') ui.explain(out.explain || '');
    if (out.flash.length) board.mark(out.flash, out.conflict.length > 0);
    if (ev.type === 'state' && game.phase !== 'running') board.select(-1);
    // The solved moment: a wave over the board when this player's (or the
    // team's) finish comes live, not from a snapshot.
    if (ev.type === 'finish' && (!ev.player || ev.player === game.me.id)) {
      const b = $('board');
      b.classList.remove('solved');
      void b.offsetWidth;
      b.classList.add('solved');
    }
    render();
    if (link.lastSeq) document.documentElement.dataset.seq = String(link.lastSeq);
  };

  const onState = (state, detail) => {
    ui.connState(state, detail);
    if (state === 'replaced') {
      notice('This game is open in another tab or device.', [
        ['Play here', () => { clearNotice(); link.start(); }, true], goHome]);
    } else if (state === 'closed' && detail === 'room_ended') {
      notice('This room has ended.', [['Make a new room', () => location.assign('/'), true]]);
    }
  };

  link = new Link({
    room: id, as, name: as === 'spectator' ? cleanName(store.get('name')) : store.get('name'), token: store.get('token'),
    onEvent, onState,
    onToken: (token, name) => { store.set('token', token); if (name) store.set('name', name); },
  });

  $('copy-link').addEventListener('click', async (e) => {
    const input = $('share-link');
    const btn = e.currentTarget;
    try { await navigator.clipboard.writeText(input.value); } catch { input.select(); document.execCommand('copy'); }
    btn.textContent = 'Copied';
    setTimeout(() => { btn.textContent = 'Copy'; }, 1500);
  });
  $('start').addEventListener('click', () => link.send({ type: 'start' }));
  $('rematch').addEventListener('click', () => link.send({ type: 'rematch' }));
  $('finish-close').addEventListener('click', () => { dismissed = true; $('finish').hidden = true; });
  $('leave').addEventListener('click', () => {
    const me = game.mine();
    if (game.phase === 'running' && me && !me.rank && !confirm('Leave the room? You give up your place in this game.')) return;
    link.send({ type: 'leave' });
    setTimeout(() => location.assign('/'), 150);
  });
  $('undo').addEventListener('click', () => act({ type: 'undo' }));
  $('redo').addEventListener('click', () => act({ type: 'redo' }));
  $('hint').addEventListener('click', () => act({ type: 'hint' }));
  window.addEventListener('online', () => link.now());
  document.addEventListener('visibilitychange', () => { if (!document.hidden) link.now(); });

  render();
  link.start();
  clearInterval(ticker);
  ticker = setInterval(() => ui.tick(game), 250);
  if (matchMedia('(max-width: 719px)').matches) document.querySelector('.feed-panel').open = false;
}

function route() {
  const m = /^\/r\/([^/]+)\/?$/.exec(location.pathname);
  if (!m) return home();
  const id = m[1].toLowerCase();
  if (!store.get('name') && !store.get('token')) return enter(id, () => room(id));
  room(id);
}

route();
