// replay.js: the replay page, /r/ID/replay (?round=N). It reads the round
// from GET /api/rooms/ID/replay (every page of it) and plays its events
// again through the room page's own model (Game.apply) and board (Board,
// read-only): a race shows each racer's board side by side, the winner
// first; co-op shows the shared board with each player's digits in their
// colour and, as cursors are not kept, each player's last move as where
// they were.

import { Game, errorText, fmt, ordinal, shown } from './game.js';
import { Board } from './board.js';
import { el, nameEl } from './ui.js';
import * as api from './api.js';

const $ = (id) => document.getElementById(id);
// How long, in game time, a conflict stays marked on its board.
const CONFLICT_MS = 1500;

// page mounts the replay of round (1 when absent) of room id; mount puts
// a template in the page (app.js's).
export async function page(id, round, mount) {
  mount('replay-tpl');
  document.documentElement.dataset.page = 'replay';
  $('room-tag').textContent = id;
  document.title = `Replay ${id} · Sudoku Arena`;
  let r;
  try {
    const base = `/api/rooms/${encodeURIComponent(id)}/replay?round=${round}`;
    r = await api.get(base);
    // A long round comes in pages, each naming the next one's start.
    const events = r.events;
    for (let next = r.next; next;) {
      const page = await api.get(`${base}&after=${next}`);
      events.push(...page.events);
      next = page.next;
    }
    r.events = events;
  } catch (e) {
    fail(id, e);
    return;
  }
  new Player(id, r).start();
}

function fail(id, e) {
  const box = $('rp-boards');
  box.replaceChildren();
  document.querySelector('.replay').dataset.state = 'error';
  $('rp-controls').hidden = true;
  const msg = e.code === 'offline' ? e.message : errorText(e);
  const p = el('p', 'rp-fail', msg);
  p.dataset.code = e.code;
  const back = el('a', 'button', e.code === 'replay_live' ? 'Back to the room' : 'Home');
  back.href = e.code === 'replay_live' ? `/r/${encodeURIComponent(id)}` : '/';
  box.append(p, back);
}

// Player plays one round's events on its boards.
class Player {
  constructor(id, r) {
    this.id = id; this.r = r;
    this.colours = new Map(r.players.map((p) => [p.id, p.colour]));
    const t0 = Date.parse(r.started_at || (r.events[0] && r.events[0].at)) || 0;
    this.events = r.events.map((e) => ({ t: Math.max(0, Date.parse(e.at) - t0), ev: e.event }));
    const last = this.events.length ? this.events[this.events.length - 1].t : 0;
    const fin = r.finished_at ? Date.parse(r.finished_at) - t0 : 0;
    this.end = Math.max(last, fin, 0);
    this.t = 0; this.pos = 0; this.speed = 1; this.playing = false;
    this.feedAt = this.feedOf();
    this.views = this.build();
    this.reset();
  }

  colour(id) { return this.colours.get(id) || 0; }

  // build makes a board for each racer (winner first) or the shared one.
  build() {
    const r = this.r;
    const box = $('rp-boards');
    box.dataset.mode = r.mode;
    const order = (p) => (p.finished && p.rank ? p.rank : 1e9 + p.colour);
    const owners = r.mode === 'race' ? [...r.players].sort((a, b) => order(a) - order(b)) : [null];
    box.dataset.count = String(owners.length);
    return owners.map((p) => {
      const card = el('section', 'rp-card');
      const head = el('header', 'who');
      if (p) {
        card.dataset.player = p.id;
        card.style.setProperty('--pc', `var(--p${p.colour % 7})`);
        head.append(el('span', 'dot'), nameEl(p, 'span', 'pname'));
      } else {
        // The shared board's key: each player's colour.
        for (const q of r.players) {
          const k = el('span', 'who rp-key');
          k.style.setProperty('--pc', `var(--p${q.colour % 7})`);
          k.append(el('span', 'dot'), nameEl(q, 'span', 'pname'));
          head.append(k);
        }
      }
      const badge = el('span', 'rp-badge');
      head.append(badge);
      const bar = el('div', 'rp-bar');
      const fill = el('span');
      bar.append(fill);
      const root = el('div', 'rp-board');
      root.setAttribute('role', 'grid');
      root.setAttribute('aria-readonly', 'true');
      root.setAttribute('aria-label', p ? `Board of ${shown(p)}` : 'The shared board');
      const stats = el('p', 'rp-stats muted');
      card.append(head, bar, root, stats);
      box.append(card);
      const pad = el('div');
      pad.append(el('div', 'digits'));
      return { owner: p, card, badge, fill, stats, root, pad, game: null, board: null };
    });
  }

  // reset starts every board over, before the first event.
  reset() {
    const r = this.r;
    for (const v of this.views) {
      const g = new Game();
      g.me = { id: v.owner ? v.owner.id : '', name: '', role: v.owner ? 'player' : 'spectator', host: false };
      g.snapshot({ id: this.id, mode: r.mode, level: r.level, phase: 'waiting', round: r.round, givens: r.puzzle, players: [] });
      g.solution = r.solution;
      v.game = g;
      v.conflict = null;
      if (!v.board) {
        v.board = new Board(v.root, v.pad, g, () => {}, (pid) => this.colour(pid), () => {});
        // Several boards share a page: their cells' ids would repeat.
        for (const c of v.board.cells) c.removeAttribute('id');
      } else v.board.game = g;
    }
    this.pos = 0;
  }

  // apply plays event i on every board that shows it.
  apply(i) {
    const { t, ev } = this.events[i];
    for (const v of this.views) {
      const g = v.game, own = v.owner && v.owner.id;
      // A racer's board takes no other racer's hint or conflict.
      if (own && (ev.type === 'hint' || ev.type === 'error') && ev.player !== own) continue;
      if (ev.type === 'state') {
        // A stored state is the room's, not this board's: keep the board.
        const { board, notes, by, cursors } = g;
        g.apply(ev);
        Object.assign(g, { board, notes, by, cursors, solution: this.r.solution });
        g.givens = [...this.r.puzzle].map((ch) => (ch >= '1' && ch <= '9' ? ch.charCodeAt(0) - 48 : 0));
        continue;
      }
      const out = g.apply(ev);
      if (ev.type === 'move' && g.mode === 'coop') g.cursors.set(ev.player, ev.cell);
      if (out.conflict.length) v.conflict = { t, cells: out.conflict };
    }
  }

  // seek shows the boards at game time t.
  seek(t) {
    this.t = Math.min(Math.max(0, t), this.end);
    let n = 0;
    while (n < this.events.length && this.events[n].t <= this.t) n++;
    this.to(n);
  }

  // to shows the boards after the first n events.
  to(n) {
    if (n < this.pos) this.reset();
    while (this.pos < n) this.apply(this.pos++);
    this.render();
  }

  // step moves by one event, and the clock to its time.
  step(d) {
    this.pause();
    const n = Math.min(Math.max(0, this.pos + d), this.events.length);
    this.t = n > 0 ? this.events[n - 1].t : 0;
    this.to(n);
  }

  // feedOf is what each event adds to the feed, read once.
  feedOf() {
    const g = new Game();
    g.me = { id: '', name: '', role: 'spectator', host: false };
    g.snapshot({ id: this.id, mode: this.r.mode, level: this.r.level, phase: 'waiting', round: this.r.round, players: [] });
    return this.events.map(({ ev }) => g.apply(ev).feed);
  }

  render() {
    for (const v of this.views) {
      const g = v.game;
      const recent = v.conflict && this.t - v.conflict.t <= CONFLICT_MS;
      v.board.conflict = new Set(recent ? v.conflict.cells : []);
      v.board.render();
      const empty = g.givens.filter((d) => !d).length;
      const filled = g.board.filter((d, c) => d && !g.givens[c]).length;
      v.fill.style.width = `${empty ? (100 * filled) / empty : 0}%`;
      const p = v.owner ? g.player(v.owner.id) : null;
      const f = v.owner ? g.finishes.get(v.owner.id) : g.finishes.get('team') || [...g.finishes.values()][0];
      const wrong = g.board.filter((d, c) => d && !g.givens[c] && String(d) !== this.r.solution[c]).length;
      const hints = p ? p.hints || 0 : g.players.reduce((s, q) => s + (q.hints || 0), 0);
      v.stats.textContent = `${filled}/${empty} · ${wrong} wrong now · ${hints} ${hints === 1 ? 'hint' : 'hints'}`;
      v.badge.textContent = f ? `${f.rank && v.owner ? ordinal(f.rank) + ' · ' : 'Solved · '}${fmt(f.elapsed_ms)}` : '';
      v.card.dataset.finished = String(!!f);
      v.card.dataset.board = g.board.join('');
    }
    this.renderFeed();
    const slider = $('rp-slider');
    slider.value = String(this.t >= this.end ? Number(slider.max) : Math.round(this.t));
    $('rp-time').textContent = `${fmt(this.t)} / ${fmt(this.end)}`;
    const ended = this.pos >= this.events.length && this.t >= this.end;
    document.querySelector('.replay').dataset.state = ended ? 'ended' : this.playing ? 'playing' : 'paused';
    $('rp-play').textContent = this.playing ? 'Pause' : ended ? 'Replay' : 'Play';
    $('rp-back').disabled = this.pos === 0;
    $('rp-next').disabled = this.pos >= this.events.length;
  }

  renderFeed() {
    if (this.shownFeed === this.pos) return;
    this.shownFeed = this.pos;
    const items = [];
    for (let i = this.pos - 1; i >= 0 && items.length < 80; i--) {
      for (const it of this.feedAt[i]) {
        const li = el('li', null, it.text);
        li.dataset.kind = it.kind;
        const at = el('time', 'muted', fmt(this.events[i].t));
        li.prepend(at);
        items.push(li);
      }
    }
    $('feed').replaceChildren(...items);
  }

  play() {
    if (this.pos >= this.events.length && this.t >= this.end) this.seek(0);
    this.playing = true;
    let last = performance.now();
    const frame = (now) => {
      if (!this.playing) return;
      this.seek(this.t + (now - last) * this.speed);
      last = now;
      if (this.t >= this.end) { this.pause(); return; }
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    this.render();
  }

  pause() {
    this.playing = false;
    this.render();
  }

  setSpeed(s) {
    this.speed = s;
    for (const b of document.querySelectorAll('[data-speed]')) b.setAttribute('aria-pressed', String(Number(b.dataset.speed) === s));
  }

  start() {
    const r = this.r;
    const mode = r.mode === 'coop' ? 'Co-op' : r.mode === 'daily' ? 'Daily' : 'Race';
    $('rp-title').textContent = `${mode} replay · ${api.title(r.level || 'easy')}`;
    const won = r.mode === 'race' ? r.players.find((p) => p.rank === 1) : null;
    const team = r.players.find((p) => p.finished);
    const names = r.players.map(shown).join(', ');
    $('rp-sub').textContent = won ? `${shown(won)} won in ${fmt(won.elapsed_ms)} · ${names}` : team ? `Solved in ${fmt(team.elapsed_ms)} by ${names}` : names;
    const rounds = $('rp-rounds');
    if (r.rounds > 1) {
      for (let n = 1; n <= r.rounds; n++) {
        const a = el('a', null, `Round ${n}`);
        a.href = `/r/${encodeURIComponent(this.id)}/replay?round=${n}`;
        if (n === r.round) a.setAttribute('aria-current', 'page');
        rounds.append(a);
      }
    }
    const slider = $('rp-slider');
    // The slider moves in tenths of a second; its end is the game's.
    slider.max = String(Math.ceil(this.end / 100) * 100);
    slider.addEventListener('input', () => {
      const t = Number(slider.value);
      this.playing = false;
      this.seek(t);
    });
    $('rp-play').addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    $('rp-back').addEventListener('click', () => this.step(-1));
    $('rp-next').addEventListener('click', () => this.step(1));
    for (const b of document.querySelectorAll('[data-speed]')) b.addEventListener('click', () => this.setSpeed(Number(b.dataset.speed)));
    document.addEventListener('keydown', (e) => {
      if (e.target && e.target.tagName === 'INPUT' && e.key !== ' ') return;
      if (e.key === ' ' || e.key === 'k') { e.preventDefault(); $('rp-play').click(); }
      else if (e.key === ',') this.step(-1);
      else if (e.key === '.') this.step(1);
    });
    this.seek(0);
  }
}
