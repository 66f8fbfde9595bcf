// app.js: the entry point. It reads the session (api.start), picks the
// page from the address (route), and wires the room page: the Link
// (socket), the Game (model), the Board and the panels around it (a
// daily's too).

import { Link } from './net.js';
import { Game, fmt, refusal as refuse } from './game.js';
import { Board } from './board.js';
import * as ui from './ui.js';
import * as api from './api.js';
import * as daily from './daily.js';
import * as settings from './settings.js';

const ID = /^[23456789abcdefghjkmnpqrstuvwxyz]{8}$/;
const { store } = api;
const $ = (id) => document.getElementById(id);
const MODES = { race: 'Race', coop: 'Co-op', daily: 'Daily' };

// The theme follows the system; data-theme mirrors it for scripts and tests.
const dark = matchMedia('(prefers-color-scheme: dark)');
const theme = () => { document.documentElement.dataset.theme = dark.matches ? 'dark' : 'light'; };
theme();
dark.addEventListener('change', theme);

// dialogs opens one of the dialogs (settings, keys, the first game's
// guide), whose module loads the first time one is asked for.
const dialogs = () => import('./dialogs.js');

// An account's settings follow it (dialogs.js keeps them in step).
api.onSession((me) => { if (me && me.account) dialogs().then((m) => m.sync(me.account)); });

// ? shows the keys, on any page (Esc closes them).
document.addEventListener('keydown', (e) => {
  const t = e.target;
  if (e.key !== '?' || e.ctrlKey || e.metaKey || e.altKey || (t && t.closest && t.closest('input, textarea, select, dialog'))) return;
  e.preventDefault();
  dialogs().then((m) => m.keys());
});

function mount(tpl) {
  const app = $('app');
  app.replaceChildren($(tpl).content.cloneNode(true));
  header();
  // A game page's settings button.
  const gear = $('settings-open');
  if (gear) gear.addEventListener('click', () => dialogs().then((m) => m.settings()));
  return app;
}

// header shows the links to the player's record and to the account page:
// "Sign in" for a guest (or nobody yet), the handle for an account.
function header() {
  const me = $('me'), id = api.myId(), acct = api.account();
  me.hidden = !id || location.pathname === `/p/${id}`;
  me.href = `/p/${encodeURIComponent(id)}`;
  const a = $('acct');
  a.textContent = acct ? acct.handle : 'Sign in';
  a.classList.toggle('signed-in', !!acct);
  a.title = acct ? 'Your account' : 'Sign in, or keep your history with an account';
  if (location.pathname === '/account') a.setAttribute('aria-current', 'page');
  else a.removeAttribute('aria-current');
}
api.onSession(header);

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
  playingAs();
  const level = $('level');
  level.value = store.get('level') || 'easy';
  const say = (text) => { const m = $('message'); m.textContent = text; };
  // needName checks the name field (an account plays under its handle) and
  // makes this browser's guest the first time; tell says what is wrong.
  const needName = (tell = say) => named(name, tell);
  const create = async (mode, btn) => {
    btn.disabled = true;
    say('');
    if (!await needName()) { btn.disabled = false; return; }
    store.set('level', level.value);
    try {
      location.assign(`/r/${await api.createRoom({ mode, level: level.value })}`);
    } catch (e) {
      say(refusal(e));
      btn.disabled = false;
    }
  };
  $('create-race').addEventListener('click', (e) => create('race', e.currentTarget));
  $('create-coop').addEventListener('click', (e) => create('coop', e.currentTarget));
  const join = async () => {
    const id = roomIdFrom($('join-code').value);
    if (!id) { say('That is not a room code: 8 letters and digits, or a link to a room.'); return; }
    // With a name typed, the room's page need not ask for it.
    const n = cleanName(name.value);
    if (n && !api.account()) {
      store.set('name', n);
      await api.ensurePlayer(n).catch(() => {});
    }
    location.assign(`/r/${id}`);
  };
  $('join').addEventListener('click', join);
  $('join-code').addEventListener('keydown', (e) => { if (e.key === 'Enter') join(); });
  name.addEventListener('keydown', (e) => { if (e.key === 'Enter') $('create-race').click(); });
  name.addEventListener('change', () => { const n = cleanName(name.value); if (n) store.set('name', n); });
  ownPuzzle(needName);
  import('./playnow.js').then((m) => { m.homePlayNow(needName); m.homeBoard(); }).catch(() => {});
  daily.homeDailies();
}

// ownPuzzle wires the home page's "Your own puzzle" card: a room on a
// pasted puzzle (or the one in /?puzzle=…), its refusals said in words.
// needName(say) checks the name field, saying what is wrong.
function ownPuzzle(needName) {
  const field = $('own-puzzle');
  field.value = new URLSearchParams(location.search).get('puzzle') || '';
  if (field.value) field.closest('.own').scrollIntoView({ block: 'center' });
  const say = (text) => { $('own-message').textContent = text; };
  const create = async (mode, btn) => {
    if (!field.value.trim()) { say('Paste a puzzle first: 81 cells, row by row.'); field.focus(); return; }
    btn.disabled = true;
    say('');
    if (!await needName(say)) { btn.disabled = false; return; }
    try {
      location.assign(`/r/${await api.createRoom({ mode, puzzle: field.value })}`);
    } catch (e) {
      import('./lab.js').then((m) => say(m.puzzleRefusal(e)));
      btn.disabled = false;
    }
  };
  $('own-race').addEventListener('click', (e) => create('race', e.currentTarget));
  $('own-coop').addEventListener('click', (e) => create('coop', e.currentTarget));
}

// playingAs shows, in place of the name field, the handle an account plays
// under.
function playingAs() {
  const acct = api.account();
  const as = $('playing-as');
  if (!as) return;
  as.hidden = !acct;
  $('name-field').hidden = !!acct;
  if (acct) as.querySelector('strong').textContent = acct.handle;
}

// named checks a name field and makes this browser's guest player under
// it the first time a name is needed (POST /api/session); an account plays
// under its handle. It answers whether the page may go on, having said
// what is wrong with tell.
async function named(field, tell) {
  if (api.account()) return true;
  const n = cleanName(field.value);
  if (!n) { tell('Pick a name first: 1 to 24 characters.'); field.focus(); return false; }
  store.set('name', n);
  try {
    await api.ensurePlayer(n);
    return true;
  } catch (e) {
    tell(refuse(e, ['bad_name'], 'Too many new players from here just now; wait a minute.'));
    field.focus();
    return false;
  }
}

// refusal says why a request to make a room was refused.
const refusal = (e) => refuse(e, ['bad_field'], 'Too many new rooms at once; wait a minute.');

// enter asks for a name before joining a room for the first time.
function enter(id, then) {
  document.documentElement.dataset.page = 'enter';
  mount('enter-tpl');
  $('room-tag').textContent = id;
  const name = $('name');
  name.value = store.get('name');
  name.focus();
  const btn = $('enter');
  const go = async () => {
    btn.disabled = true;
    const ok = await named(name, (text) => { $('message').textContent = text; });
    btn.disabled = false;
    if (ok) then();
  };
  btn.addEventListener('click', go);
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

// room plays room id; with day ({date, level, today}) it is a daily page's
// room, with the daily's panels beside the board.
function room(id, as, day) {
  const panels = day ? dailyShell(day) : (mount('room-tpl'), null);
  if (panels) panels.refresh();
  document.documentElement.dataset.page = day ? 'daily' : 'room';
  $('room-tag').textContent = id;
  const game = new Game();
  let dismissed = false;
  let finishKey = '';
  let playnow = null; // playnow.js, once loaded
  import('./playnow.js').then((m) => { playnow = m; render(); }).catch(() => {});
  // A tournament's race (/r/ID?t=T): tournament.js leads back to it.
  let back = null;
  const tid = new URLSearchParams(location.search).get('t');
  if (tid) import('./tournament.js').then((m) => { back = m.raceBack(tid, id); render(); }).catch(() => {});
  let link, conn = '';
  const act = (msg) => {
    if (game.spectator) return;
    if (msg.type === 'colour' && game.mode !== 'coop') return void ownColour(msg);
    // A digit waits for the link, shown pending; the rest needs it now (and
    // a clash the server will refuse at once is not shown).
    if (msg.type === 'move' && game.canPlay() && !game.frozenUntil() && !game.givens[msg.cell] && !(link.ready && msg.digit && board.clashes(msg.cell, msg.digit))) {
      link.place(msg, game.room.round, game.board[msg.cell]);
      render();
    } else if (!link.send(msg)) ui.message({ code: 'offline', text: 'Not connected: reconnecting…' });
  };
  // A race's colours are the racer's alone: kept in this browser, by
  // room and round, and never sent.
  const colourKey = () => `colours.${id}.${game.room.round}`;
  const ownColour = (msg) => {
    if (!game.givens) return;
    const was = game.colours.get(msg.cell) || [];
    const now = !msg.colour ? [] : was.includes(msg.colour) ? was.filter((k) => k !== msg.colour) : [...was, msg.colour].sort();
    game.colours.set(msg.cell, now);
    store.set(colourKey(), JSON.stringify([...game.colours].filter(([, ks]) => ks.length)));
    render();
  };
  const ownColours = () => {
    if (game.mode === 'coop') return;
    try { game.colours = new Map(JSON.parse(store.get(colourKey()) || '[]')); } catch { game.colours = new Map(); }
  };
  let cursorTimer = 0, cursorCell = -1;
  const moved = (c) => {
    if (game.mode !== 'coop' || game.spectator || c < 0) return;
    cursorCell = c;
    if (cursorTimer) return;
    cursorTimer = setTimeout(() => { cursorTimer = 0; link.send({ type: 'cursor', cell: cursorCell }); }, 80);
  };
  const board = new Board($('board'), $('pad'), game, act, (pid) => ui.colourOf(game, pid), moved);
  // The share card (share.js) loads with the room; its Boxes keep the
  // order in which the player finishes the boxes, for the card.
  let share = null, boxes = null;
  import('./share.js').then((m) => { share = m; boxes = new m.Boxes(game); render(); }).catch(() => {});

  // On a daily page, once this player has finished: their result on the
  // day's leaderboard, read again from the server (the panels too).
  // wasRanked is whether the attempt could rank when it began: a finish
  // that could and does not came past the attempt's 3 hours.
  let result = null, asked = false, read = false, mine = null, wasRanked;
  const dailyResult = () => {
    const me = game.mine();
    if (me && wasRanked === undefined) wasRanked = me.ranked !== false;
    if (!me || !me.rank) return;
    if (read) result = dailyNote(day, me, mine, panels.total, wasRanked);
    if (asked) return;
    asked = true;
    store.set(dayKey(day), '');
    panels.refresh().then((row) => {
      mine = row;
      read = true;
      render();
    });
  };

  const render = () => {
    const ro = game.spectator;
    $('board').setAttribute('aria-readonly', String(ro));
    $('pad').hidden = ro;
    document.querySelector('.room').classList.toggle('spectating', ro);
    if (game.me.id || !day) document.querySelector('.room').dataset.mode = game.mode;
    // Before play (the lobby, the countdown) the pad has nothing to do:
    // it is put away, in its place, so the board does not jump at the go.
    const before = !!game.me.id && ['waiting', 'countdown', 'preparing'].includes(game.phase);
    document.querySelector('.room').toggleAttribute('data-before', before);
    $('pad').inert = before;
    const m = game.room;
    const me = game.mine();
    const unranked = !!(me && me.ranked === false);
    document.querySelector('.room').dataset.ranked = String(!unranked);
    // The page's heading: the room until the server has said what it is.
    $('mode').textContent = !game.me.id ? `Room ${id}` : modeLabel(m, ro, unranked);
    document.title = `${MODES[m.mode] || 'Race'} ${id} · Sudoku Arena`;
    const playing = game.canPlay();
    for (const b of ['undo', 'redo', 'hint']) $(b).disabled = !playing;
    // Once this player is done the modes are too: they show it.
    for (const b of document.querySelectorAll('[data-pad-mode]')) b.disabled = !playing;
    board.render();
    ui.renderPlayers(game);
    ui.renderLobby(game);
    placeFocus(ro);
    const key = `${game.phase}|${game.finishes.size}`;
    if (key !== finishKey) { finishKey = key; dismissed = false; }
    if (panels) dailyResult();
    ui.renderFinish(game, dismissed, result);
    if (playnow) playnow.sync(game, (msg) => link.send(msg));
    if (back) back.sync(game);
    if (share) { boxes.see(); share.sync(game, result); }
    ui.tick(game);
    ui.offline(!!game.me.id && conn === 'reconnecting', game.pending.size);
    // For tests: the phase once the server has said it.
    if (game.me.id) document.documentElement.dataset.phase = game.phase;
    // A player's first game shows the guide to the keys and modes, once.
    if (game.phase === 'running' && !game.spectator && game.me.id && !store.get('guide')) {
      store.set('guide', 'shown');
      dialogs().then((m) => m.guide(() => game.phase === 'running'));
    }
    // The guide is for playing: a finished game (or a new round's lobby)
    // puts it away.
    if (game.phase !== 'running') document.getElementById('guide')?.remove();
  };

  // The keyboard's place: the host's Start while the room waits, then the
  // board once the game runs, so that no one tabs their way to it; each
  // once a round, and only when the focus is nowhere in particular (on the
  // page itself, or on what the game has just hidden).
  let focused = '';
  const placeFocus = (watching) => {
    const stage = game.phase === 'waiting' && !$('start').hidden ? 'lobby'
      : !watching && game.me.id && game.phase === 'running' ? 'play' : '';
    const at = `${stage}|${game.room.round}`;
    if (!stage || at === focused) return;
    focused = at;
    const a = document.activeElement;
    if (a && a !== document.body && !a.closest('#lobby, #daily-start, [hidden]')) return;
    $(stage === 'lobby' ? 'start' : 'board').focus({ preventScroll: true });
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
    if (ev.type === 'pong') return void game.apply(ev);
    if (ev.type === 'welcome') {
      clearNotice();
      if (ev.you && ev.you.name && ev.you.role === 'player') store.set('name', ev.you.name);
    }
    const out = game.apply(ev);
    if (ev.type === 'welcome' || ev.type === 'state') ownColours();
    settings.blip(ev, game.me.id);
    if (ev.refused) {
      // The join was refused: at first, or on a reconnection.
      switch (ev.code) {
        case 'game_started': case 'not_invited': case 'room_full':
          notice(refuse(ev), [['Watch', () => { link.stop('closed'); room(id, 'spectator'); }, true], goHome]);
          return;
        case 'room_not_found':
          if (day) { store.set(dayKey(day), ''); dailyPage(day.date, day.level, true); return; }
          notice('This room does not exist or has ended.', [['Make a new room', () => location.assign('/'), true]]);
          return;
        case 'bad_name':
          // The name was refused, or the session ended elsewhere (an
          // account signed out in another tab): ask again.
          store.set('name', '');
          api.refresh().catch(() => {}).then(() => enter(id, () => room(id)));
          return;
      }
    }
    // A message takes the hint's place under the board, and so its cells'.
    if (out.message) { ui.message(out.message); game.hinted = []; }
    else if ((ev.type === 'move' || ev.type === 'note') && ev.player === game.me.id) ui.message(null);
    if (out.feed.length) ui.feed(out.feed);
    if (out.explain !== undefined || ev.type === 'state') ui.explain(out.explain || '');
    // A refused clash flashes red where conflicts show (a race's always do).
    const clash = out.conflict.length > 0;
    if (out.flash.length && !(clash && game.mode !== 'race' && !settings.get('conflicts'))) board.mark(out.flash, clash);
    if (ev.type === 'state' && game.phase !== 'running') { board.select(-1); board.done = []; board.undone = []; }
    if (ev.type === 'move' && ev.player === game.me.id && !ev.undo && !ev.redo) board.moveDone();
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
    conn = state;
    ui.connState(state, detail);
    ui.offline(!!game.me.id && state === 'reconnecting', game.pending.size);
    if (state === 'replaced') {
      notice('This game is open in another tab or device.', [
        ['Play here', () => { clearNotice(); link.start(); }, true], goHome]);
    } else if (state === 'closed' && detail === 'room_ended') {
      if (day) { store.set(dayKey(day), ''); dailyPage(day.date, day.level, true); return; }
      notice('This room has ended.', [['Make a new room', () => location.assign('/'), true]]);
    }
  };

  // The player is the session's (its cookie goes with the socket): an
  // account plays under its handle, a guest under the name they typed last.
  link = new Link({
    room: id, as, name: as === 'spectator' ? cleanName(store.get('name')) : api.account() ? '' : store.get('name'),
    onState,
    onEvent,
    // Digits kept while the link was down, once it is back: sent, unless
    // the board has them or the game has moved on.
    settle: (m, round, fresh) => (!game.canPlay() || round !== game.room.round ? 'drop' : fresh && game.board[m.cell] === m.digit ? 'done' : 'send'),
    onFlush: (dropped) => {
      const n = dropped.length;
      if (n) ui.message({ code: 'dropped', text: `${n === 1 ? 'A digit' : `${n} digits`} typed while offline could not be sent: the game moved on.` });
      render();
    },
  });
  game.pending = link.pending;

  $('copy-link').addEventListener('click', async (e) => {
    const input = $('share-link');
    const btn = e.currentTarget;
    try { await navigator.clipboard.writeText(input.value); } catch { input.select(); document.execCommand('copy'); }
    btn.textContent = 'Copied';
    setTimeout(() => { btn.textContent = 'Copy'; }, 1500);
  });
  $('start').addEventListener('click', () => link.send({ type: 'start' }));
  $('rematch').addEventListener('click', () => link.send({ type: 'rematch' }));
  $('share').addEventListener('click', () => { if (share) share.open(game, boxes, result, mine); });
  $('again').addEventListener('click', (e) => {
    if (!day) return;
    link.stop('closed');
    startDaily(day, e.currentTarget, (text) => ui.message({ code: 'again', text }));
  });
  $('finish-close').addEventListener('click', () => {
    dismissed = true;
    render();
    if (day) document.querySelector('.daily-panel').scrollIntoView({ behavior: 'smooth', block: 'nearest' });
    else $('finish-open').focus();
  });
  $('finish-open').addEventListener('click', () => {
    dismissed = false;
    render();
    $('finish-close').focus();
  });
  $('leave').addEventListener('click', () => {
    const me = game.mine();
    if (game.phase === 'running' && me && !me.rank && !confirm('Leave the room? You give up your place in this game.')) return;
    link.send({ type: 'leave' });
    setTimeout(() => location.assign('/'), 150);
  });
  settings.onChange(() => render());
  $('undo').addEventListener('click', () => board.undo());
  $('redo').addEventListener('click', () => board.undo(true));
  $('hint').addEventListener('click', () => act({ type: 'hint' }));
  window.addEventListener('online', () => link.now());
  window.addEventListener('offline', () => link.now());
  document.addEventListener('visibilitychange', () => { if (!document.hidden) link.now(); });

  render();
  link.start();
  clearInterval(ticker);
  ticker = setInterval(() => ui.tick(game), 250);
  if (matchMedia('(max-width: 719px)').matches) document.querySelector('.feed-panel').open = false;
}

// modeLabel is the line above the board: "Daily · Easy · SE 1.5 · 22 Nov".
function modeLabel(m, watching, unranked) {
  const parts = [MODES[m.mode] || 'Race', api.title(m.level)];
  if (m.se) parts.push(`SE ${m.se.toFixed(1)}`);
  if (m.date) parts.push(new Date(`${m.date}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' }));
  if (m.round > 1) parts.push(`Round ${m.round}`);
  if (unranked) parts.push('Unranked');
  if (watching) parts.push('Watching');
  return parts.join(' · ');
}

// dayKey is where a daily page keeps the room of its attempt under way,
// so that a reload of an archive day comes back to it.
const dayKey = (day) => `daily.${day.date}.${day.level}`;

// dailyNote says what this finish was worth, for the finish banner: mine
// is the player's row on the day's leaderboard (null: none), wasRanked
// whether the attempt could rank when it began.
function dailyNote(day, me, mine, total, wasRanked) {
  if (me.review === 'held') {
    return { ranked: false, review: true, text: 'Under review: this finish was quicker or steadier than a person plays, so it waits off the leaderboard until someone has looked at it.' };
  }
  if (me.ranked !== false) {
    if (!mine) return { ranked: true, text: 'Ranked: your time is on its way to the leaderboard.' };
    const pen = mine.time_ms - mine.elapsed_ms;
    return { ranked: true, text: `Rank ${api.count(mine.rank)} of ${api.count(total)} · ${fmt(mine.time_ms)}${pen > 0 ? ` with ${fmt(pen)} of penalties` : ''}` };
  }
  if (day.date < day.today) return { ranked: false, text: 'Unranked: an archive day.' };
  if (wasRanked) return { ranked: false, text: 'Unranked: finished more than 3 hours after you first saw the board.' };
  const first = mine ? ` Your ranked finish today: rank ${api.count(mine.rank)} of ${api.count(total)} in ${fmt(mine.time_ms)}.` : '';
  return { ranked: false, text: `Unranked: only your first finish of the day counts.${first}` };
}

// dailyShell mounts the room page with the daily's panels beside the board
// and its start card over it, and answers the panels.
function dailyShell(day) {
  mount('room-tpl');
  document.documentElement.dataset.page = 'daily';
  const extra = $('daily-tpl').content.cloneNode(true);
  const start = extra.querySelector('#daily-start');
  start.hidden = true;
  document.querySelector('.board-wrap').append(start);
  document.querySelector('.side').prepend(extra);
  document.querySelector('.room').dataset.mode = 'daily';
  $('again').hidden = false;
  $('finish-close').textContent = 'See the leaderboard';
  $('leave').hidden = true;
  return new daily.Panels(day.date, day.level, day.today);
}

// startDaily makes a room on the daily and plays it here.
async function startDaily(day, btn, say) {
  btn.disabled = true;
  try {
    const id = await api.createRoom({ mode: 'daily', level: day.level, date: day.date });
    store.set(dayKey(day), id);
    room(id, undefined, day);
  } catch (e) {
    say(refusal(e));
    btn.disabled = false;
  }
}

// dailyPage is /daily/DATE/LEVEL: the attempt under way if there is one,
// else the start card over an empty board, with the leaderboard, the streak
// and the archive beside it. fresh skips the saved attempt (it has ended).
async function dailyPage(date, level, fresh) {
  const day = { date, level, today: api.today() };
  const panels = dailyShell(day);
  document.title = `Daily ${api.title(level)} ${date} · Sudoku Arena`;
  $('room-tag').textContent = '';
  const game = new Game();
  game.room.mode = 'daily';
  new Board($('board'), $('pad'), game, () => {}, () => 0, () => {}).render();
  for (const b of $('pad').querySelectorAll('button')) b.disabled = true;
  for (const b of ['undo', 'redo', 'hint']) $(b).disabled = true;
  $('mode').textContent = modeLabel({ mode: 'daily', level, date, round: 1 }, false, false);
  const say = (text) => { $('start-message').textContent = text; };
  const go = $('daily-go');
  const card = $('daily-start');
  $('start-kicker').textContent = 'Puzzle of the day';
  $('start-title').textContent = `${api.title(level)} · ${api.longDate(date)}`;

  let you = null, finished = 0, guestsRanked = false;
  try {
    const d = await api.get('/api/daily');
    day.today = d.date;
    guestsRanked = !!d.guests_ranked;
    const l = (d.levels || []).find((x) => x.level === level);
    if (date === d.date && l) {
      you = l.you || null; finished = l.finished;
      if (l.se) $('start-kicker').textContent += ` · SE ${l.se.toFixed(1)}`;
    }
  } catch { /* the start card works without it */ }
  if (!$('daily-go')) return; // the page changed meanwhile
  panels.today = day.today;
  panels.calendar();
  panels.refresh();
  const saved = fresh ? '' : store.get(dayKey(day));
  if (!fresh && you && you.status === 'playing' && you.room) return room(you.room, undefined, day);
  if (saved) return room(saved, undefined, day);

  card.hidden = false;
  const needName = !api.myId();
  $('start-name').hidden = !needName;
  if (needName) $('name').focus();
  if (date > day.today) {
    $('start-kicker').textContent = 'Not yet';
    $('start-sub').textContent = 'This day has not come yet: its puzzle is made at midnight UTC.';
    go.disabled = true;
    $('daily-race').hidden = true;
    return;
  }
  if (date < day.today) {
    $('start-kicker').textContent = 'From the archive';
    $('start-sub').textContent = 'A past day: play it for fun, unranked. The clock starts when the board appears.';
  } else if (you && you.status === 'solved') {
    $('start-sub').textContent = `${daily.statusText(you, finished)}. Play again for fun: a second attempt is unranked.`;
    go.textContent = 'Play again · unranked';
  } else if (!api.account() && !guestsRanked) {
    $('start-sub').textContent = 'Guests play unranked: sign in (a passkey, no password) to go on the leaderboard. The clock starts when the board appears.';
  } else if (you && you.ranked === false) {
    $('start-sub').textContent = 'You have had this puzzle already today: this attempt is unranked.';
  } else {
    $('start-sub').textContent = 'The clock starts when the board appears and runs on if you leave. Mistakes add 30 s and hints 60 s; your first finish today goes on the leaderboard.';
  }
  // The first name makes this browser's guest; then the start card asks
  // no more.
  const ready = async (btn) => {
    if (!needName) return true;
    btn.disabled = true;
    const ok = await named($('name'), say);
    btn.disabled = false;
    return ok;
  };
  go.addEventListener('click', async () => { if (await ready(go)) startDaily(day, go, say); });
  $('name').addEventListener('keydown', (e) => { if (e.key === 'Enter') go.click(); });
  $('daily-race').addEventListener('click', async (e) => {
    const btn = e.currentTarget;
    if (!await ready(btn)) return;
    btn.disabled = true;
    try {
      location.assign(`/r/${await api.createRoom({ mode: 'race', level, date })}`);
    } catch (err) {
      say(refusal(err));
      btn.disabled = false;
    }
  });
}

// playerPage is /p/ID.
function playerPage(id) {
  mount('player-tpl');
  document.documentElement.dataset.page = 'player';
  $('room-tag').textContent = '';
  // The player page's module (and its calendar) loads only there.
  import('./player.js').then((m) => m.page(id));
}

function route() {
  const path = location.pathname;
  // The account page's module (and its passkey helpers) loads only there.
  if (/^\/account\/?$/.test(path)) return import('./account.js').then((m) => m.page(mount));
  if (/^\/signin\/?$/.test(path)) return import('./account.js').then((m) => m.signinLink(mount));
  const d = /^\/daily\/([^/]+)\/([^/]+)\/?$/.exec(path);
  if (d) {
    if (api.validDate(d[1]) && api.LEVELS.includes(d[2])) return dailyPage(d[1], d[2]);
    home();
    $('message').textContent = 'That is not a daily puzzle: a date as YYYY-MM-DD and a level, easy to master.';
    return;
  }
  if (/^\/t(\/|$)/.test(path)) return import('./tournament.js').then((m) => m.route(path, mount));
  if (/^\/lab\/?$/.test(path)) {
    mount('lab-tpl');
    document.documentElement.dataset.page = 'lab';
    $('room-tag').textContent = '';
    return import('./lab.js').then((m) => m.page()); // the lab's module loads only there
  }
  const p = /^\/p\/([^/]+)\/?$/.exec(path);
  if (p) {
    let id;
    try {
      id = decodeURIComponent(p[1]);
    } catch {
      return home(); // a link whose id is not valid percent-encoding
    }
    return playerPage(id);
  }
  const rp = /^\/r\/([^/]+)\/replay\/?$/.exec(path);
  // The replay's page, like the account's, loads with its first visit.
  if (rp) return import('./replay.js').then((m) => m.page(rp[1].toLowerCase(), Math.max(1, Number(new URLSearchParams(location.search).get('round')) || 1), mount));
  const m = /^\/r\/([^/]+)\/?$/.exec(path);
  if (!m) return home();
  const id = m[1].toLowerCase();
  if (!api.myId()) return enter(id, () => room(id));
  room(id);
}

// The service worker and the offline page (pwa.js) load beside the
// session; a page opened without a network says so instead of its route.
const pwa = import('./pwa.js').catch(() => null);
api.start().then(async () => {
  const m = await pwa;
  if (m) m.start();
  if (m && api.offline()) return m.offline();
  return route();
});
