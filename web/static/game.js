// game.js: the room as this client knows it, and how each server event
// changes it. No DOM here: apply() returns what the views should show
// (feed lines, a message, cells to flash) and the views render the model.

export const BASE = { easy: 1000, medium: 2000, hard: 3000, expert: 4000, master: 5000, beyond: 5000 };

// What a mistake and a hint take off a score (docs/protocol.md, "Score").
export const MISTAKE_POINTS = 50, HINT_POINTS = 100;

// rc names a cell as the protocol's messages do: r1c1 … r9c9.
export const rc = (c) => `r${Math.floor(c / 9) + 1}c${(c % 9) + 1}`;

// peers are the 20 cells sharing a row, column or box with each cell.
export const PEERS = Array.from({ length: 81 }, (_, c) => {
  const r = Math.floor(c / 9), k = c % 9, br = r - (r % 3), bk = k - (k % 3);
  const s = new Set();
  for (let i = 0; i < 9; i++) {
    s.add(r * 9 + i);
    s.add(i * 9 + k);
    s.add((br + Math.floor(i / 3)) * 9 + bk + (i % 3));
  }
  s.delete(c);
  return [...s];
});

const time = (s) => (s ? Date.parse(s) : 0);

// score follows docs/protocol.md ("Score") for snapshots, which carry no score.
export function score(level, elapsedMs, mistakes, hints) {
  return Math.max(1, (BASE[level] || 1000) - Math.floor(elapsedMs / 1000) - MISTAKE_POINTS * (mistakes || 0) - HINT_POINTS * (hints || 0));
}

export class Game {
  constructor() {
    this.me = { id: '', name: '', role: 'player', host: false };
    this.reset();
    this.offset = 0; // server clock minus ours, ms
    this.pending = new Map(); // cell -> digit typed, not yet answered (Link.pending)
  }

  reset() {
    this.room = { id: '', mode: 'race', level: 'easy', phase: 'waiting', round: 1, host: '', date: '' };
    this.givens = null;          // array of 81 digits (0 empty) or null before the puzzle is shown
    this.board = new Array(81).fill(0);
    this.notes = new Map();      // cell -> {corner: Set, centre: Set}
    this.colours = new Map();    // cell -> colours 1 to 9 (co-op: the server's; a race: this browser's)
    this.by = new Array(81).fill(''); // co-op: who placed each digit
    this.players = [];           // in joining order
    this.spectators = 0;
    this.solution = null;
    this.startsAt = 0; this.startedAt = 0; this.finishedAt = 0;
    this.roster = []; this.startsBy = 0; // a group race (playnow.js)
    this.penalty = 0;
    this.cursors = new Map();    // co-op: player id -> cell
    this.finishes = new Map();   // player id (or 'team') -> finish event
    this.hinted = [];            // cells of the last hint on this board
  }

  get mode() { return this.room.mode; }
  get phase() { return this.room.phase; }
  get spectator() { return this.me.role === 'spectator'; }
  get host() { return !!this.me.id && !this.spectator && this.room.host === this.me.id; }
  now() { return Date.now() + this.offset; }
  player(id) { return this.players.find((p) => p.id === id); }
  nameOf(id) { const p = this.player(id); return p ? shown(p) : 'Someone'; }
  mine() { return this.player(this.me.id); }

  clock(now) { if (now) this.offset = time(now) - Date.now(); }

  // frozenUntil is when this racer may place digits again (0: not frozen).
  frozenUntil() {
    const p = this.mine();
    const t = p ? time(p.frozen_until) : 0;
    return t > this.now() ? t : 0;
  }

  // canPlay says whether moves make sense now (the server decides anyway).
  canPlay() {
    const p = this.mine();
    return !this.spectator && this.phase === 'running' && this.givens && !(p && p.rank);
  }

  snapshot(r) {
    this.reset();
    this.room = { id: r.id, mode: r.mode, level: r.level, phase: r.phase, round: r.round, host: r.host || '', date: r.date || '', se: r.se, berserk: !!r.berserk };
    this.clock(r.now);
    this.givens = r.givens ? [...r.givens].map(digit) : null;
    this.board = r.board ? [...r.board].map(digit) : this.givens ? this.givens.slice() : new Array(81).fill(0);
    for (const n of r.notes || []) this.notes.set(n.cell, { corner: new Set(n.corner || []), centre: new Set(n.centre || []) });
    for (const k of r.colours || []) this.colours.set(k.cell, k.colours || []);
    this.solution = r.solution || null;
    this.startsAt = time(r.starts_at); this.startedAt = time(r.started_at); this.finishedAt = time(r.finished_at);
    this.roster = r.roster || []; this.startsBy = time(r.starts_by);
    this.players = (r.players || []).map((p) => ({ ...p }));
    this.spectators = r.spectators || 0;
    this.penalty = r.hint_penalty_ms || 0;
    for (const [id, cells] of Object.entries(r.placed_by || {})) for (const c of cells) this.by[c] = id;
    for (const p of this.players) {
      if (p.rank) this.finishes.set(p.id, { player: p.id, rank: p.rank, elapsed_ms: p.elapsed_ms, mistakes: p.mistakes, hints: p.hints, score: score(r.level, p.elapsed_ms || 0, p.mistakes, p.hints) });
    }
  }

  notesOf(c) {
    let n = this.notes.get(c);
    if (!n) { n = { corner: new Set(), centre: new Set() }; this.notes.set(c, n); }
    return n;
  }

  // apply changes the model by one event. It returns what to show besides
  // the model: {feed: [{kind, text}], message: {code, text} | null,
  // flash: [cells], conflict: [cells], explain: string | undefined}.
  apply(ev) {
    // explain: the hint's explanation to show by the board ('' clears it).
    const out = { feed: [], message: null, flash: [], conflict: [], explain: undefined };
    switch (ev.type) {
      case 'welcome': {
        const again = !!this.me.id;
        this.me = { ...ev.you };
        if (ev.room) this.snapshot(ev.room);
        if (ev.history) out.feed.push(...this.past(ev.history));
        const first = this.spectator ? `You are watching as ${this.me.name}.` : `You joined as ${this.me.name}.`;
        out.feed.push({ kind: 'info', text: again ? 'Reconnected.' : first });
        break;
      }
      case 'state': {
        const before = this.phase;
        this.snapshot(ev.room);
        if (this.phase === 'running' && before !== 'running') out.feed.push({ kind: 'info', text: 'Go! The puzzle is on the board.' });
        if (this.phase === 'preparing') out.feed.push({ kind: 'rematch', text: 'Rematch: a new puzzle is on its way.' });
        if (this.phase === 'waiting' && before !== 'waiting') out.feed.push({ kind: 'rematch', text: `Round ${this.room.round}: waiting for ${this.nameOf(this.room.host)} to start.` });
        if (this.phase === 'finished' && before !== 'finished') out.feed.push({ kind: 'finish', text: this.mode === 'race' && this.players.length > 1 ? 'The race is over.' : 'The puzzle is solved.' });
        break;
      }
      case 'countdown':
        this.clock(ev.now);
        this.room.phase = 'countdown';
        this.startsAt = time(ev.starts_at);
        out.feed.push({ kind: 'info', text: this.startsBy ? 'The race starts.' : `${this.nameOf(this.room.host)} started the game.` });
        this.startsBy = 0;
        break;
      case 'move': {
        if (this.mode === 'race' && ev.player !== this.me.id) break;
        this.board[ev.cell] = ev.digit;
        this.by[ev.cell] = ev.digit ? ev.player : '';
        if (ev.digit) this.notes.delete(ev.cell);
        for (const c of ev.cleared || []) {
          const n = this.notes.get(c);
          if (n) { n.corner.delete(ev.digit); n.centre.delete(ev.digit); }
        }
        this.hinted = [];
        out.explain = '';
        break;
      }
      case 'note': {
        if (this.mode === 'race' && ev.player !== this.me.id) break;
        this.notes.set(ev.cell, { corner: new Set(ev.corner || []), centre: new Set(ev.centre || []) });
        break;
      }
      case 'colour': this.colours.set(ev.cell, ev.colours || []); break;
      case 'progress': {
        const p = this.player(ev.player);
        if (p) Object.assign(p, { filled: ev.filled, empty: ev.empty, mistakes: ev.mistakes, hints: ev.hints, moves: ev.moves });
        break;
      }
      case 'hint': this.hint(ev, out); break;
      case 'presence': this.presence(ev, out); break;
      case 'cursor':
        if (ev.player !== this.me.id) this.cursors.set(ev.player, ev.cell);
        break;
      case 'finish': this.finish(ev, out); break;
      case 'berserk':
        Object.assign(this.player(ev.player) || {}, { berserk: true });
        out.feed.push({ kind: 'info', text: `${this.nameOf(ev.player)} went berserk.` });
        break;
      case 'board_full': out.message = { code: 'board_full', text: 'The board is full, but some digits are wrong: look for them, a hint will not say which.' }; break;
      case 'pong': {
        // Half the round trip late; frequent pings must not make the clock jitter.
        const o = time(ev.now) + (ev.rtt || 0) / 2 - Date.now();
        if (Math.abs(o - this.offset) > 150) this.offset = o;
        break;
      }
      case 'error': this.error(ev, out); break;
    }
    return out;
  }

  // past is the feed's lines for a welcome's history: the room's events
  // before this page joined, told on a copy of the room so that the model
  // (the snapshot has them already) does not change.
  past(events) {
    const copy = new Game();
    copy.me = { ...this.me };
    copy.room = { ...this.room, phase: '' };
    copy.players = this.players.map((p) => ({ ...p }));
    copy.offset = this.offset;
    const lines = [];
    for (const ev of events) {
      const out = copy.apply(ev);
      for (const l of out.feed) lines.push({ ...l, past: true });
    }
    return lines;
  }

  hint(ev, out) {
    const p = this.player(ev.player);
    if (p) { p.hints = ev.hints; if (ev.frozen_until) p.frozen_until = ev.frozen_until; }
    const who = ev.player === this.me.id ? 'You' : this.nameOf(ev.player);
    const name = ev.technique_name || ev.technique;
    // A race tells the others who asked, not the technique.
    let text = name ? `${who} took a hint: ${name}.` : `${who} took a hint.`;
    if (ev.explanation) text += ` ${ev.explanation}`;
    out.feed.push({ kind: 'hint', text });
    // A hint naming no cell (a race's "one of your digits is wrong")
    // clears the last one's.
    if (ev.player === this.me.id || this.mode !== 'race') this.hinted = (ev.cells || []).slice();
    if (ev.cells) out.flash = ev.cells.slice();
    if (ev.explanation) out.explain = `${name}: ${ev.explanation}`;
  }

  presence(ev, out) {
    if (ev.host !== undefined) this.room.host = ev.host || '';
    if (ev.role === 'spectator') {
      if (ev.status === 'joined') this.spectators++;
      if (ev.status === 'left') this.spectators = Math.max(0, this.spectators - 1);
      const kind = ev.status === 'joined' ? 'join' : 'leave';
      out.feed.push({ kind, text: `${ev.name} ${ev.status === 'joined' ? 'is watching' : 'stopped watching'}.` });
      return;
    }
    let p = this.player(ev.player);
    const who = shown(p || ev);
    switch (ev.status) {
      case 'joined':
        if (!p) {
          p = { id: ev.player, name: ev.name, guest: !!ev.guest, connected: true, filled: 0, empty: this.players[0] ? this.players[0].empty : 0, mistakes: 0, hints: 0, moves: 0 };
          this.players.push(p);
        }
        out.feed.push({ kind: 'join', text: `${who} joined.` });
        break;
      case 'away':
        if (p) p.connected = false;
        out.feed.push({ kind: 'away', text: `${who} lost the connection; their place is kept.` });
        break;
      case 'back':
        if (p) p.connected = true;
        out.feed.push({ kind: 'back', text: `${who} is back.` });
        break;
      case 'left':
        this.players = this.players.filter((q) => q.id !== ev.player);
        this.cursors.delete(ev.player);
        out.feed.push({ kind: 'leave', text: `${who} left.` });
        break;
    }
    if (ev.host && ev.status === 'left' && ev.host !== (p && p.id)) {
      out.feed.push({ kind: 'info', text: `${this.nameOf(ev.host)} is now the host.` });
    }
  }

  finish(ev, out) {
    const t = fmt(ev.elapsed_ms);
    if (!ev.player) {
      this.finishes.set('team', ev);
      for (const p of this.players) { p.rank = 1; p.elapsed_ms = ev.elapsed_ms; }
      out.feed.push({ kind: 'finish', text: `Solved together in ${t}! Team score ${ev.score}.` });
      return;
    }
    this.finishes.set(ev.player, ev);
    const p = this.player(ev.player);
    if (p) { p.rank = ev.rank; p.elapsed_ms = ev.elapsed_ms; p.frozen_until = undefined; }
    const who = ev.player === this.me.id ? 'You' : this.nameOf(ev.player);
    if (this.mode === 'daily') out.feed.push({ kind: 'finish', text: `${who} solved it in ${t}.` });
    else if (this.players.length === 1) out.feed.push({ kind: 'finish', text: `${who} solved it in ${t}, score ${ev.score}.` });
    else out.feed.push({ kind: 'finish', text: `${who} finished ${ordinal(ev.rank)} in ${t}, score ${ev.score}.` });
  }

  error(ev, out) {
    if (ev.code === 'conflict') {
      const cells = [ev.cell, ...(ev.cells || [])].filter((c) => c != null);
      out.flash = cells;
      out.conflict = cells;
      const mine = ev.player === this.me.id;
      // The event says its digit (a history's too); an older server's, only the message sent.
      const d = ev.digit || (ev.sent && ev.sent.digit);
      const others = (ev.cells || []).map(rc).join(', ');
      if (mine) {
        out.message = { code: 'conflict', text: d && others ? `${d} is already in ${others}: same row, column or box.` : 'That digit is already in the same row, column or box.' };
        out.feed.push({ kind: 'conflict', text: `Your ${d || 'digit'} at ${rc(ev.cell)} clashes${others ? ' with ' + others : ' with one of your digits'}.` });
      } else {
        out.feed.push({ kind: 'conflict', text: `${this.nameOf(ev.player)} hit a conflict${d ? ` (${d})` : ''} at ${rc(ev.cell)}${others ? ' with ' + others : ''}.` });
      }
      return;
    }
    if (ev.code === 'unavailable' && this.phase === 'finished' && this.host) {
      out.feed.push({ kind: 'rematch', text: 'No new puzzle could be had for the rematch; try again.' });
    }
    out.message = { code: ev.code, text: errorText(ev, this) };
  }
}

const digit = (ch) => (ch >= '1' && ch <= '9' ? ch.charCodeAt(0) - 48 : 0);

// fmt shows a duration as m:ss (or h:mm:ss).
export function fmt(ms) {
  const s = Math.max(0, Math.floor((ms || 0) / 1000));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), x = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${x}` : `${m}:${x}`;
}

// shown is a player's name as pages show it: a guest's marked "(guest)"
// (the server marks guests in player refs, snapshots and presence events).
export const shown = (p) => (!p ? '' : p.guest ? `${p.name} (guest)` : p.name);

export const ordinal = (n) => n + (n % 100 >= 11 && n % 100 <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] || 'th');

// ERRORS says every error code of docs/protocol.md as a short sentence.
const ERRORS = {
  bad_json: 'The server could not read that message.',
  unknown_type: 'The server did not understand that request.',
  bad_field: 'That request was not valid.',
  rate_limited: 'Too fast: slow down a little.',
  not_joined: 'Not in the room yet; joining…',
  already_joined: 'You are in this room already.',
  wrong_room: 'That was meant for another room.',
  room_not_found: 'This room does not exist or has ended.',
  bad_token: 'Your saved player was not recognised.',
  bad_name: 'Names are 1 to 24 characters, letters and spaces.',
  room_full: 'This room is full.',
  game_started: 'This race has started already. You can watch it, or join the next round.',
  not_invited: 'This race is for its matched players. You can watch it.',
  spectator: 'You are watching: spectators cannot play.',
  not_host: 'Only the host can do that.',
  berserk: 'No notes or hints after going berserk.',
  cannot_berserk: 'Berserk is for tournament races, before your first move.',
  starts_itself: 'This race starts by itself once its players are in.',
  not_started: 'The game has not started yet.',
  already_started: 'The game has started already.',
  finished: 'The game is over for you.',
  not_finished: 'A rematch is possible once someone has finished.',
  preparing: 'The next puzzle is on its way.',
  given_cell: 'That cell is a given: it cannot change.',
  cell_filled: 'Notes go on empty cells only.',
  conflict: 'That digit is already in the same row, column or box.',
  frozen: 'Your board is frozen after the hint.',
  nothing_to_undo: 'Nothing to undo.',
  nothing_to_redo: 'Nothing to redo.',
  undo_stale: 'That cell has changed since; undo skipped it.',
  coop_only: 'Cursors and colours are shared in co-op rooms only.',
  overloaded: 'The server is busy saving games: try your move again in a moment.',
  retry: 'The server could not be sure of saving your move; it goes again in a moment.',
  wrong_host: 'The game is not served at this address; open it from its usual link.',
  bad_content_type: 'The page sent what the server cannot read; reload and try again.',
  unavailable: 'The server is busy just now; try again in a moment.',
  server_full: 'The server is full just now; try again in a minute.',
  too_many_rooms: 'You have many rooms open already; finish or leave one first.',
  player_not_found: 'No player has that id.',
  tournament_not_found: 'No such tournament.',
  tournament_over: 'This tournament has ended.',
  not_in_tournament: 'You are not in this tournament.',
  already_queued: 'You are in the queue already.',
  ticket_not_found: 'That place in the queue is gone: press Play now again.',
  bad_puzzle: 'That is not a puzzle: 81 cells of digits, with . or 0 for an empty one.',
  no_solution: 'This puzzle has no solution: check the givens.',
  many_solutions: 'This puzzle has more than one solution: it needs more givens.',
  replay_live: 'This round is still being played: its replay opens once it is over.',
  replay_expired: 'This round is too old: its replay is no longer kept.',
  bad_handle: 'That handle cannot be used: pick another.',
  handle_taken: 'That handle is taken, or looks like one that is: pick another.',
  not_signed_in: 'You are not signed in to an account (any more): sign in again.',
  bad_origin: 'This page is not from this site, so the change was refused.',
  passkey_failed: 'The passkey could not be checked, or it took too long: try again.',
  bad_code: 'That code is not right, has been used already, or has expired.',
  already_account: 'This browser is signed in to an account already.',
};

// refusal says why an API request was refused: in the server's own words
// for the codes in own (they name the field, the cell or the givens), else
// in ours; busy is the sentence for rate_limited.
export function refusal(e, own = [], busy = 'Too many requests at once; wait a minute.') {
  if (e.code === 'offline') return e.message;
  if (e.code === 'rate_limited') return busy;
  if (own.includes(e.code) && e.message && e.message !== e.code) return `${e.message[0].toUpperCase()}${e.message.slice(1)}.`;
  return errorText({ code: e.code });
}

export function errorText(ev, game) {
  if (ev.code === 'frozen' && game) {
    const left = Math.ceil((game.frozenUntil() - game.now()) / 1000);
    if (left > 0) return `Frozen after your hint: ${left}s to go. Notes still work.`;
  }
  if (ev.code === 'given_cell' && ev.cell != null) return `${rc(ev.cell)} is a given: it cannot change.`;
  return ERRORS[ev.code] || 'Something went wrong; try again.';
}
