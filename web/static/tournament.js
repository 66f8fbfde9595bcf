// tournament.js: the tournaments, /t (upcoming, running and finished ones)
// and one tournament, /t/ID: its podium, its standings, each player's
// races linked to their replays, and the join and withdraw buttons. While
// it is live, the WebSocket /ws/tournaments/ID keeps the top of the
// standings and the player's own line (its "you") up to date; the full
// standings are read from the API on demand and once at the end. A player
// paired into a race is shown the way to it. Loaded on demand; every
// string from the server is set as text.

import { el } from './ui.js';
import * as api from './api.js';
import { ordinal, refusal } from './game.js';

const $ = (id) => document.getElementById(id);

function sheet() {
  if (document.querySelector('link[href="/tournament.css"]')) return;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/tournament.css';
  document.head.append(link);
}

// when is a time as the page shows it: the hour, and the day when it is not today.
function when(iso) {
  const d = new Date(iso);
  const t = d.toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === new Date().toDateString() ? t : `${d.toLocaleDateString('en-GB', { day: 'numeric', month: 'short' })} ${t}`;
}

function shell(mount, title) {
  const app = mount('player-tpl');
  const page = el('div', 'tournament-page');
  const hero = el('section', 'hero');
  const h1 = el('h1', '', 'Tournament');
  h1.id = 't-title';
  const sub = el('p', 'muted');
  sub.id = 't-sub';
  hero.append(h1, sub);
  const msg = el('p', 'message');
  msg.id = 't-message';
  msg.setAttribute('role', 'alert');
  const body = el('div');
  body.id = 't-body';
  page.append(hero, msg, body);
  app.replaceChildren(page);
  document.documentElement.dataset.page = 'tournament';
  $('room-tag').textContent = '';
  document.title = `${title} · Sudoku Arena`;
  sheet();
  return app;
}

// route is /t or /t/ID.
export function route(path, mount) {
  const id = /^\/t\/([^/]+)\/?$/.exec(path);
  return id ? page(id[1], mount) : list(mount);
}

// list is /t.
export async function list(mount) {
  shell(mount, 'Tournaments');
  $('t-title').textContent = 'Tournaments';
  $('t-sub').textContent = 'Arenas: race again as soon as you finish; points for your place, double on a winning streak.';
  let l;
  try {
    l = await api.get('/api/tournaments');
  } catch (e) {
    $('t-message').textContent = refusal(e);
    return;
  }
  const body = $('t-body');
  for (const [key, head, empty] of [['running', 'Running now', 'None is running.'], ['upcoming', 'Upcoming', 'None is scheduled.'], ['finished', 'Finished', 'None has finished yet.']]) {
    const sec = el('section', 'card t-list');
    sec.dataset.status = key;
    sec.append(el('h2', '', head));
    const ts = l[key] || [];
    if (!ts.length) sec.append(el('p', 'muted', empty));
    const ul = el('ul', 't-items');
    for (const t of ts) {
      const li = el('li');
      const a = el('a', '', t.name);
      a.href = `/t/${encodeURIComponent(t.id)}`;
      const what = key === 'upcoming' ? `starts ${when(t.starts_at)}` : key === 'running' ? `ends ${when(t.ends_at)}` : when(t.starts_at);
      li.append(a, el('span', 'muted', ` · ${api.title(t.level)} · ${what} · ${api.count(t.players)} ${t.players === 1 ? 'player' : 'players'}`));
      ul.append(li);
    }
    sec.append(ul);
    body.append(sec);
  }
}

// page is /t/ID.
export async function page(id, mount) {
  shell(mount, 'Tournament');
  let t;
  try {
    t = await api.get(`/api/tournaments/${encodeURIComponent(id)}`);
  } catch (e) {
    $('t-title').textContent = e.code === 'tournament_not_found' ? 'No such tournament' : 'Not available just now';
    $('t-message').textContent = refusal(e);
    return;
  }
  const view = new View(id);
  view.drawFull(t);
  if (t.status !== 'finished') view.watch();
}

// TOP is how many lines of the standings a live event carries (the
// server's TournamentTop).
const TOP = 10;

class View {
  constructor(id) {
    this.id = id;
    this.t = null;
    this.me = null; // the player's own line
    this.all = false; // the full standings are shown, not the live top
    this.ws = null; // the live socket, opened for the player watchedAs
    this.watchedAs = '';
    const body = $('t-body');
    this.bar = el('div', 'card t-bar');
    this.state = el('p', 't-state');
    this.state.setAttribute('role', 'status');
    this.go = el('a', 'button primary t-go');
    this.go.hidden = true;
    this.join = el('button', 'primary', 'Join');
    this.join.type = 'button';
    this.join.id = 't-join';
    this.join.addEventListener('click', () => this.act());
    this.bar.append(this.state, this.go, this.join);
    this.podium = el('ol', 't-podium');
    this.podium.setAttribute('aria-label', 'Podium');
    const standings = el('section', 'card');
    standings.append(el('h2', '', 'Standings'));
    this.table = el('table', 'ranks t-standings');
    this.table.id = 't-standings';
    const head = el('tr');
    for (const [text, cls] of [['#', 'num'], ['Player', ''], ['Races · replays', ''], ['Points', 'num']]) {
      const th = el('th', cls, text);
      th.scope = 'col';
      head.append(th);
    }
    const thead = el('thead');
    thead.append(head);
    this.rows = el('tbody');
    this.table.append(thead, this.rows);
    this.empty = el('p', 'muted', 'Nobody has joined yet.');
    this.more = el('button', 'quiet t-more');
    this.more.type = 'button';
    this.more.id = 't-more';
    this.more.hidden = true;
    this.more.addEventListener('click', () => this.toggleAll());
    standings.append(this.table, this.empty, this.more, el('p', 'hint-text', 'Points by place in each race: 1st 4, 2nd 3, 3rd 2, 4th 1; after two wins in a row they count double (×2) until a race is not won; a berserk win (no notes, no hints; dashed) scores 1 more.'));
    body.append(this.bar, this.podium, standings);
  }

  // drawFull draws the tournament with its full standings (the API's
  // answer): all of them when finished or asked for, else as a live event
  // would show them.
  drawFull(t) {
    const standings = t.standings || [];
    const me = standings.find((s) => s.player === api.myId());
    if (t.status === 'finished') this.all = true;
    if (this.all) {
      this.drawHead(t, me, standings.length);
      this.drawRows(standings, null);
      return;
    }
    this.drawLive({ ...t, players: standings.length, top: standings.slice(0, TOP), you: me });
  }

  // drawLive draws a "tournament" event: the top, and the player's own
  // line below it when it is not in the top.
  drawLive(ev) {
    this.drawHead(ev, ev.you, ev.players);
    if (this.all) return;
    const top = ev.top || [];
    const mine = ev.you && !top.some((s) => s.player === ev.you.player) ? ev.you : null;
    this.drawRows(top.map((s) => (ev.you && s.player === ev.you.player ? ev.you : s)), mine);
  }

  drawHead(t, me, players) {
    this.t = t;
    this.me = me || null;
    $('t-title').textContent = t.name;
    $('t-sub').textContent = `${api.title(t.level)} · ${when(t.starts_at)} to ${when(t.ends_at)} · ${api.count(players)} ${players === 1 ? 'player' : 'players'}`;
    const joined = me && !me.withdrawn;
    this.state.textContent = t.status === 'finished' ? 'Finished.' : t.status === 'running' ? `Running until ${when(t.ends_at)}.` : `Starts at ${when(t.starts_at)}.`;
    this.join.hidden = t.status === 'finished';
    this.join.textContent = joined ? 'Withdraw' : 'Join';
    this.join.className = joined ? 'quiet' : 'primary';
    this.go.hidden = !(joined && me.playing);
    if (me && me.playing) {
      this.go.textContent = 'Your race is ready: play';
      this.go.href = raceHref(t.id, me.playing);
    }
    this.more.hidden = t.status === 'finished' || players <= TOP;
    this.more.textContent = this.all ? `Top ${TOP} only` : `All ${api.count(players)} players`;
    this.empty.hidden = players > 0;
  }

  // drawRows shows the lines, then mine (the player's own line below
  // them) after a gap.
  drawRows(lines, mine) {
    this.drawPodium(this.t.status === 'finished' ? lines : []);
    const rows = lines.map((s) => this.row(s));
    if (mine) {
      const gap = el('tr', 't-gap');
      const td = el('td', 'muted', '⋯');
      td.colSpan = 4;
      gap.append(td);
      rows.push(gap, this.row(mine));
    }
    this.rows.replaceChildren(...rows);
  }

  drawPodium(lines) {
    const top = lines.slice(0, 3);
    this.podium.hidden = !top.length;
    this.podium.replaceChildren(...top.map((s) => {
      const li = el('li', `t-place p${s.rank}`);
      li.append(el('span', 't-rank', String(s.rank)), el('span', 't-name', s.name), el('span', 't-points', `${s.score} pts`));
      return li;
    }));
  }

  row(s) {
    const tr = el('tr');
    tr.dataset.player = s.player;
    if (s.player === api.myId()) tr.className = 'me';
    const name = el('td');
    const a = el('a', '', s.name);
    a.href = `/p/${encodeURIComponent(s.player)}`;
    name.append(a);
    if (s.fire) name.append(' ', el('span', 't-fire', '×2'));
    if (s.playing) name.append(el('span', 'muted', ' · racing'));
    if (s.withdrawn) name.append(el('span', 'muted', ' · withdrawn'));
    const td = el('td');
    const games = el('div', 't-games');
    td.append(games);
    if (!s.games) games.append(el('span', 'muted', `${api.count(s.wins)} ${s.wins === 1 ? 'win' : 'wins'}`));
    for (const g of s.games || []) {
      const link = el('a', `t-game${g.fire ? ' fire' : ''}${g.berserk ? ' berserk' : ''}`, g.place ? String(g.place) : '–');
      link.href = `/r/${encodeURIComponent(g.race)}/replay`;
      const how = g.berserk ? ', berserk' : '';
      link.setAttribute('aria-label', g.place ? `${g.place}${['', 'st', 'nd', 'rd'][g.place] || 'th'} place${how}, ${g.points} points: replay` : `not finished${how}: replay`);
      games.append(link);
    }
    tr.append(el('td', 'num', String(s.rank)), name, td, el('td', 'num t-score', String(s.score)));
    return tr;
  }

  // full reads the full standings and draws them.
  async full() {
    try {
      this.drawFull(await api.get(`/api/tournaments/${encodeURIComponent(this.id)}`));
      $('t-message').textContent = '';
    } catch (e) {
      $('t-message').textContent = refusal(e);
    }
  }

  // toggleAll switches between every player and the live top (the next
  // event, or the full standings read again, redraws it).
  async toggleAll() {
    this.all = !this.all;
    this.more.disabled = true;
    await this.full();
    this.more.disabled = false;
  }

  async act() {
    const leave = this.me && !this.me.withdrawn;
    this.join.disabled = true;
    try {
      if (!leave) await api.ensurePlayer(api.store.get('name') || 'Player');
      this.drawFull(await api.post(`/api/tournaments/${encodeURIComponent(this.id)}/${leave ? 'withdraw' : 'join'}`));
      $('t-message').textContent = '';
      this.rewatch();
    } catch (e) {
      $('t-message').textContent = refusal(e);
    }
    this.join.disabled = false;
  }

  // watch keeps the page live: each tournament event redraws the top and
  // the player's line; the final one reads the full standings. A dropped
  // socket is opened again after a pause while it runs.
  watch() {
    const ws = socket(this.id);
    ws.onmessage = (m) => {
      let ev;
      try { ev = JSON.parse(m.data); } catch { return; }
      if (ev.type !== 'tournament' || !$('t-body')) return;
      if (ev.status === 'finished') {
        this.t = ev;
        this.full();
      } else this.drawLive(ev);
    };
    ws.onclose = () => {
      if (this.ws === ws && this.t.status !== 'finished' && $('t-body')) setTimeout(() => this.watch(), 3000);
    };
    this.ws = ws;
    this.watchedAs = api.myId();
  }

  // rewatch opens the socket again when the player it was opened for is
  // not the page's (a visitor who became a player by joining): the
  // server knows a socket's player from its opening only.
  rewatch() {
    if (!this.ws || this.watchedAs === api.myId() || this.t.status === 'finished') return;
    const old = this.ws;
    this.watch();
    old.close();
  }
}

// socket is the tournament's live socket.
function socket(tid) {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return new WebSocket(`${proto}//${location.host}/ws/tournaments/${encodeURIComponent(tid)}`);
}

// raceHref is a tournament's race room, the tournament named in its
// query so that the room leads back to it (raceBack).
const raceHref = (tid, race) => `/r/${encodeURIComponent(race)}?t=${encodeURIComponent(tid)}`;

// raceBack is the way back from a tournament's race room (/r/ROOM?t=ID)
// to the tournament: a "Back to the tournament" link first among the
// finish card's actions. Once the player has finished, it watches the
// tournament's socket, and when that pairs them into another race it
// offers that race before the way back. sync(game) is called on each
// render.
export function raceBack(tid, roomId) {
  sheet();
  const back = el('a', 'button primary', 'Back to the tournament');
  back.id = 't-back';
  back.href = `/t/${encodeURIComponent(tid)}`;
  const next = el('a', 'button primary', 'Your next race is ready: play');
  next.id = 't-next';
  next.hidden = true;
  let ws = null;
  const paired = (ev) => {
    const race = ev.type === 'tournament' && ev.status === 'running' && ev.you ? ev.you.playing : '';
    next.hidden = !race || race === roomId;
    if (!next.hidden) next.href = raceHref(tid, race);
    back.className = next.hidden ? 'button primary' : 'button';
  };
  return {
    sync(game) {
      const actions = $('finish-actions');
      if (actions && back.parentNode !== actions) actions.prepend(next, back);
      const me = game.mine();
      if (ws || game.spectator || !(game.phase === 'finished' || (me && me.rank))) return;
      ws = socket(tid);
      ws.onmessage = (m) => {
        if (!back.isConnected) return void ws.close();
        try { paired(JSON.parse(m.data)); } catch { /* not an event */ }
      };
    },
  };
}

// places lists the player's places in finished tournaments on their page
// (/p/ID), each linked to its tournament; nothing when there are none.
export async function places(id) {
  let r;
  try {
    r = await api.get(`/api/players/${encodeURIComponent(id)}/tournaments?limit=10`);
  } catch {
    return;
  }
  const ts = (r && r.tournaments) || [];
  const before = document.querySelector('.player-page .card:last-child');
  if (!ts.length || !before) return;
  sheet();
  const sec = el('section', 'card');
  sec.id = 'player-tournaments';
  const ul = el('ul', 'pt-list');
  sec.append(el('h2', '', 'Tournaments'), ul);
  ul.append(...ts.map((t) => {
    const li = el('li');
    li.dataset.tournament = t.id;
    const a = el('a', '', t.name);
    a.href = `/t/${encodeURIComponent(t.id)}`;
    li.append(el('strong', '', `${ordinal(t.rank)} of ${api.count(t.players)}`), ' · ', a,
      el('span', 'muted', ` · ${api.shortDate(t.starts_at.slice(0, 10))} · ${t.score} pts`));
    return li;
  }));
  before.before(sec);
}
