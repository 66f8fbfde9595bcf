// board.js: the 9×9 grid and the digit pad, and the keyboard and pointer
// input on them. Rendering reads the Game model; input becomes protocol
// messages through act(msg). The server is the authority: a digit typed
// shows as pending until its event comes back (game.pending), and nothing
// else changes on the board before.

import { PEERS } from './game.js';
import * as settings from './settings.js';

// The pad's modes, and their keys as SudokuPad has them.
const MODES = ['digit', 'corner', 'centre', 'colour'];
const KEY_MODE = { KeyZ: 'digit', KeyX: 'corner', KeyC: 'centre', KeyV: 'colour' };

export class Board {
  // root: the #board element; pad: #pad; act(msg) sends a message;
  // colour(id) is a player's colour index; moved(cell) after the
  // selection changes.
  constructor(root, pad, game, act, colour, moved) {
    this.root = root; this.pad = pad; this.game = game; this.act = act;
    this.colour = colour; this.moved = moved;
    this.sel = -1; // the cell the keys move, one of the selected (many)
    this.many = new Set();
    this.mode = 'digit';
    // Undo's steps: 'move' (the server's), a batch {n} (the n moves of
    // one entry on several cells, taken back together) or colours
    // [{cell, was, now}] (the client's: docs/protocol.md, colour).
    this.done = []; this.undone = []; this.batch = null;
    this.flash = new Set();
    this.conflict = new Set();
    this.cells = [];
    this.keys = new Array(81).fill('');
    this.build();
    this.input();
  }

  build() {
    const frag = document.createDocumentFragment();
    for (let r = 0; r < 9; r++) {
      const row = document.createElement('div');
      row.setAttribute('role', 'row');
      row.className = 'row';
      for (let k = 0; k < 9; k++) {
        const c = r * 9 + k;
        const el = document.createElement('div');
        el.setAttribute('role', 'gridcell');
        el.id = `cell-${c}`;
        el.dataset.cell = c;
        el.dataset.r = r; el.dataset.k = k;
        el.style.setProperty('--wave', `${(r + k) * 35}ms`);
        const d = document.createElement('span');
        d.className = 'digit';
        const corner = document.createElement('span');
        corner.className = 'corner';
        // The marks' text, like the centre's, is one word a mark (spaces
        // the grid does not lay out), as the cell's label reads them.
        for (let i = 1; i <= 9; i++) {
          const m = document.createElement('i');
          m.className = `m${i}`;
          if (i > 1) corner.append(' ');
          corner.append(m);
        }
        const centre = document.createElement('span');
        centre.className = 'centre';
        const fill = document.createElement('span');
        fill.className = 'fill';
        el.append(d, corner, centre, fill);
        row.append(el);
        this.cells.push(el);
      }
      frag.append(row);
    }
    this.root.replaceChildren(frag);
    this.root.setAttribute('aria-multiselectable', 'true');

    const digits = this.pad.querySelector('.digits');
    const btns = [];
    for (let i = 1; i <= 9; i++) {
      const b = document.createElement('button');
      b.type = 'button';
      b.dataset.digit = i;
      const n = document.createElement('span');
      n.className = 'n';
      n.textContent = i;
      b.style.setProperty('--sw', `var(--c${i})`); // its swatch in colour mode
      const left = document.createElement('span');
      left.className = 'left';
      // The space (not laid out in the button's grid) keeps the digit and
      // its count two words, as the label says them.
      b.append(n, ' ', left);
      btns.push(b);
    }
    const erase = document.createElement('button');
    erase.type = 'button';
    erase.dataset.digit = '0';
    erase.className = 'erase';
    erase.setAttribute('aria-label', 'Erase');
    erase.title = 'Erase (Delete)';
    erase.textContent = '⌫';
    digits.replaceChildren(...btns, erase);
    this.padButtons = btns;
  }

  input() {
    // Tabbing onto the board selects a cell, so the keys work at once.
    this.root.addEventListener('focus', () => {
      if (this.sel < 0 && this.root.matches(':focus-visible')) this.select(0);
    });
    // A press selects a cell, with Ctrl/Cmd (toggles) or Shift adds it; a
    // drag adds the cells it crosses.
    let drag = false;
    this.root.addEventListener('pointerdown', (e) => {
      const el = e.target.closest('[data-cell]');
      if (!el) return;
      e.preventDefault();
      this.root.focus({ preventScroll: true });
      const c = Number(el.dataset.cell);
      const ctrl = e.ctrlKey || e.metaKey;
      if (ctrl && this.many.has(c) && this.many.size > 1) { this.many.delete(c); this.select(c === this.sel ? [...this.many].pop() : this.sel, true); }
      else this.select(c, ctrl || e.shiftKey);
      drag = true;
    });
    this.root.addEventListener('pointermove', (e) => {
      const el = drag && e.buttons && document.elementFromPoint(e.clientX, e.clientY)?.closest('#board [data-cell]');
      if (el && !this.many.has(+el.dataset.cell)) this.select(+el.dataset.cell, true);
    });
    for (const t of ['pointerup', 'pointercancel']) document.addEventListener(t, () => { drag = false; });
    this.pad.addEventListener('click', (e) => {
      const b = e.target.closest('button');
      if (!b) return;
      if (b.dataset.padMode) return this.setMode(b.dataset.padMode);
      if (b.dataset.digit != null) {
        const d = Number(b.dataset.digit);
        if (d === 0) this.erase(); else this.enter(d, this.mode);
      }
    });
    document.addEventListener('keydown', (e) => this.key(e));
  }

  key(e) {
    const t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA' || (t.closest && t.closest('dialog')))) return;
    if (!this.root.isConnected) return;
    const ctrl = e.ctrlKey || e.metaKey;
    if (ctrl && e.code === 'KeyZ') { e.preventDefault(); this.undo(e.shiftKey); return; }
    if (ctrl && e.code === 'KeyY') { e.preventDefault(); this.undo(true); return; }
    const m = /^(?:Digit|Numpad)([0-9])$/.exec(e.code);
    if (m) {
      e.preventDefault();
      const d = Number(m[1]);
      if (d === 0) return this.erase();
      // Alt+digit is a second way to centre marks, where the browser keeps
      // Ctrl+digit for itself (switching tabs).
      return this.enter(d, e.shiftKey ? 'corner' : ctrl || e.altKey ? 'centre' : this.mode);
    }
    if (ctrl || e.altKey) return;
    if (KEY_MODE[e.code]) { e.preventDefault(); this.setMode(KEY_MODE[e.code]); return; }
    let s = this.sel;
    switch (e.key) {
      case 'ArrowUp': s = s < 0 ? 0 : (s + 72) % 81; break;
      case 'ArrowDown': s = s < 0 ? 0 : (s + 9) % 81; break;
      case 'ArrowLeft': s = s < 0 ? 0 : s - (s % 9) + ((s % 9) + 8) % 9; break;
      case 'ArrowRight': s = s < 0 ? 0 : s - (s % 9) + ((s % 9) + 1) % 9; break;
      case 'Home': s = s < 0 ? 0 : s - (s % 9); break;
      case 'End': s = s < 0 ? 8 : s - (s % 9) + 8; break;
      case 'Delete': case 'Backspace': e.preventDefault(); this.erase(); return;
      case 'Escape': this.select(this.many.size > 1 ? this.sel : -1); return;
      case ' ': if (t === this.root) { e.preventDefault(); this.setMode(MODES[(MODES.indexOf(this.mode) + 1) % MODES.length]); } return;
      default: return;
    }
    e.preventDefault();
    if (t !== this.root && !(t && t.closest && t.closest('#pad'))) this.root.focus({ preventScroll: true });
    this.select(s, e.shiftKey);
  }

  setMode(mode) {
    this.mode = mode;
    for (const b of this.pad.querySelectorAll('[data-pad-mode]')) b.setAttribute('aria-pressed', String(b.dataset.padMode === mode));
    this.pad.dataset.mode = mode;
    this.renderPad();
  }

  // select makes c the selection (-1: none), or with add, adds it.
  select(c, add) {
    if (c === this.sel && !add && this.many.size < 2) return;
    if (!add || c < 0) this.many.clear();
    if (c >= 0) this.many.add(c);
    this.sel = c;
    if (c >= 0) this.root.setAttribute('aria-activedescendant', `cell-${c}`);
    else this.root.removeAttribute('aria-activedescendant');
    this.render();
    this.moved(c);
  }

  given(c) { const g = this.game.givens; return !!(g && g[c]); }

  // digit is what the cell shows: its pending digit, else the server's.
  digit(c) { const p = this.game.pending.get(c); return p ?? this.game.board[c]; }

  clashes(c, d) { return PEERS[c].some((p) => this.digit(p) === d); }

  // enter puts d in mode on the selected cells, a message each: on one,
  // whatever the cell (the server explains), on several, where it fits. A
  // mark or colour all have comes off, else goes on those without it.
  enter(d, mode) {
    if (this.sel < 0 || this.game.spectator) return;
    const one = this.many.size < 2;
    const some = (cells, has) => cells.filter((c) => has(c) === cells.every(has));
    if (mode === 'colour') return this.colourAll(some([...this.many], (c) => (this.game.colours.get(c) || []).includes(d)), d);
    if (mode === 'digit') return this.entry([...this.many].filter((c) => one || !this.given(c)).map((c) => ({ type: 'move', cell: c, digit: d })));
    const cells = some([...this.many].filter((c) => one || !this.digit(c)), (c) => !!this.game.notes.get(c)?.[mode].has(d));
    this.entry(cells.map((c) => ({ type: 'note', cell: c, digit: d, kind: mode })));
  }

  // entry sends one entry's messages: its moves, when several, are one
  // step for undo (moveDone counts those the server makes).
  entry(msgs) {
    this.batch = msgs.filter((m) => m.type === 'move').length > 1 ? { n: 0 } : null;
    this.send(msgs);
  }

  // send sends msgs at the server's pace (docs/protocol.md, "Limits").
  send(msgs, n = 30) {
    for (const m of msgs.slice(0, n)) this.act(m);
    if (msgs.length > n) setTimeout(() => this.send(msgs.slice(n), 20), 1100);
  }

  // colourAll sends colour k to each cell, a step for undo.
  colourAll(cells, k) {
    this.batch = null;
    if (!cells.length) return;
    this.done.push(cells.map((c) => {
      const was = this.game.colours.get(c) || [];
      return { cell: c, was, now: !k ? [] : was.includes(k) ? was.filter((x) => x !== k) : [...was, k].sort() };
    }));
    this.undone = [];
    this.send(cells.map((c) => ({ type: 'colour', cell: c, colour: k })));
  }

  // setColours puts a step's colours back (or on again), by toggles.
  setColours(step, back) {
    const msgs = [];
    for (const s of step) {
      const want = back ? s.was : s.now, have = this.game.colours.get(s.cell) || [];
      if (!want.length) { if (have.length) msgs.push({ type: 'colour', cell: s.cell, colour: 0 }); continue; }
      for (const k of new Set([...want, ...have])) if (want.includes(k) !== have.includes(k)) msgs.push({ type: 'colour', cell: s.cell, colour: k });
    }
    this.send(msgs);
  }

  moveDone() {
    if (!this.batch) this.done.push('move');
    else if (!this.batch.n++) this.done.push(this.batch);
    this.undone = [];
  }

  // undo takes back the last step (none kept: the server's last move).
  undo(redo) {
    this.batch = null;
    const [from, to] = redo ? [this.undone, this.done] : [this.done, this.undone];
    const s = from.pop() || 'move';
    const type = redo ? 'redo' : 'undo';
    if (s === 'move') this.act({ type });
    else if (s.n) this.send(Array.from({ length: s.n }, () => ({ type })));
    else this.setColours(s, !redo);
    to.push(s);
  }

  // erase clears each selected cell's digit, or else its marks of the
  // pad's kind (both in digit mode); in colour mode, its colours.
  erase() {
    if (this.sel < 0 || this.game.spectator) return;
    const cells = [...this.many], one = cells.length < 2;
    if (this.mode === 'colour') return this.colourAll(cells.filter((c) => (this.game.colours.get(c) || []).length), 0);
    const msgs = [];
    for (const c of cells) {
      // A given answers given_cell from the server, which the player then reads.
      if (this.digit(c)) { if (one || !this.given(c)) msgs.push({ type: 'move', cell: c, digit: 0 }); continue; }
      const n = this.game.notes.get(c);
      for (const kind of ['corner', 'centre']) {
        if (n && (this.mode === 'digit' || this.mode === kind) && n[kind].size) msgs.push({ type: 'note', cell: c, digit: 0, kind });
      }
    }
    this.entry(msgs);
  }

  // mark flashes cells for a moment (a conflict's or a hint's), and marks a
  // conflict's cells red while they flash.
  mark(cells, conflict) {
    const reduce = matchMedia('(prefers-reduced-motion: reduce)').matches;
    for (const c of cells) { this.flash.add(c); if (conflict) this.conflict.add(c); }
    this.render();
    setTimeout(() => {
      for (const c of cells) { this.flash.delete(c); if (conflict) this.conflict.delete(c); }
      this.render();
    }, reduce ? 2500 : 1600);
  }

  render() {
    const g = this.game, sel = this.sel;
    const b = g.board.map((d, c) => this.digit(c));
    const one = this.many.size < 2;
    const selDigit = sel >= 0 && one && settings.get('same') ? b[sel] : 0;
    const peers = sel >= 0 && one && settings.get('peers') ? new Set(PEERS[sel]) : null;
    // Conflicts show at once unless the player turned them off; a race's
    // clashing digits show as the server tells them, whatever the setting.
    const showClash = settings.get('conflicts');
    const clash = showClash || g.mode === 'race' ? localConflicts(b) : new Set();
    const hinted = new Set(g.hinted);
    const cursors = new Map();
    if (g.mode === 'coop') {
      for (const [id, c] of g.cursors) {
        if (!g.player(id)) continue;
        if (!cursors.has(c)) cursors.set(c, []);
        cursors.get(c).push(id);
      }
    }
    const shown = !!g.givens;
    for (let c = 0; c < 81; c++) {
      const d = shown ? b[c] : 0;
      const given = this.given(c);
      const n = shown && !d ? g.notes.get(c) : null;
      const corner = n ? [...n.corner].sort() : [];
      const centre = n ? [...n.centre].sort() : [];
      // Marks a peer's digit rules out, shown at once when conflicts are.
      const bad = showClash && n ? new Set([...corner, ...centre].filter((m) => PEERS[c].some((p) => b[p] === m))) : new Set();
      const colours = shown ? this.game.colours.get(c) || [] : [];
      const pending = shown && g.pending.has(c);
      const by = d && !given && g.mode === 'coop' ? (pending ? g.me.id : g.by[c]) : '';
      const cur = cursors.get(c) || [];
      const cls = ['cell'];
      if (given) cls.push('given'); else if (d) cls.push('entered');
      if (this.many.has(c)) cls.push('selected');
      else if (peers && peers.has(c)) cls.push('peer');
      if (selDigit && d === selDigit && shown) cls.push('same');
      if (clash.has(c) || this.conflict.has(c)) cls.push('conflict');
      if (this.flash.has(c)) cls.push('flash');
      if (hinted.has(c)) cls.push('hinted');
      if (g.solution && d && !given && g.solution[c] !== String(d)) cls.push('wrong');
      if (pending) cls.push('pending');
      const tint = [by, ...cur].map((id) => this.colour(id)).join();
      const key = `${cls.join(' ')}|${d}|${corner.join('')}|${centre.join('')}|${[...bad].join('')}|${colours.join('')}|${by}|${cur.join(',')}|${tint}`;
      if (key === this.keys[c]) continue;
      this.keys[c] = key;
      const el = this.cells[c];
      el.className = cls.join(' ');
      el.firstChild.textContent = d ? String(d) : '';
      const marks = el.children[1].children;
      for (let i = 0; i < 9; i++) {
        marks[i].textContent = n && n.corner.has(i + 1) ? String(i + 1) : '';
        marks[i].classList.toggle('clash', bad.has(i + 1) && n.corner.has(i + 1));
      }
      el.children[2].replaceChildren(...centre.flatMap((m, k) => {
        const i = document.createElement('i');
        i.textContent = m;
        if (bad.has(m)) i.className = 'clash';
        return k ? [' ', i] : [i];
      }));
      el.children[2].classList.toggle('long', centre.length > 4);
      // Colours: one fills the cell, several share it in slices.
      el.children[3].style.background = colours.length ? `linear-gradient(120deg, ${colours.map((k, i) => `var(--c${k}) ${(100 * i) / colours.length}% ${(100 * (i + 1)) / colours.length}%`).join(', ')})` : '';
      el.dataset.colours = colours.join('');
      // Who placed the digit: on the cell (for its colour) and on the digit.
      if (by) {
        el.dataset.by = el.firstChild.dataset.by = by;
        el.style.setProperty('--by', `var(--p${this.colour(by) % 7})`);
      } else if (el.dataset.by) {
        delete el.dataset.by;
        delete el.firstChild.dataset.by;
        el.style.removeProperty('--by');
      }
      for (const old of el.querySelectorAll('.cursor')) old.remove();
      for (const id of cur) {
        const k = document.createElement('span');
        k.className = 'cursor';
        k.dataset.player = id;
        k.style.setProperty('--pc', `var(--p${this.colour(id) % 7})`);
        const label = document.createElement('span');
        label.className = 'label';
        // The name tag is drawn from its attribute: a mark on the board,
        // not words of the cell, whose label says what it holds.
        label.dataset.name = g.player(id) ? g.player(id).name : g.nameOf(id); // short: no "(guest)" on the board
        k.append(label);
        el.append(k);
      }
      el.setAttribute('aria-label', label(c, d, given, corner, centre, clash.has(c)) + (colours.length ? `, colour ${colours.join(' ')}` : '') + (pending ? ', pending' : ''));
      el.setAttribute('aria-selected', String(this.many.has(c)));
    }
    this.renderPad();
  }

  renderPad() {
    const g = this.game;
    const count = new Array(10).fill(0);
    if (g.givens) for (let c = 0; c < 81; c++) count[this.digit(c)]++;
    for (const b of this.padButtons) {
      const d = Number(b.dataset.digit);
      const left = 9 - count[d];
      const span = b.lastChild;
      const text = !g.givens ? '' : left > 0 ? String(left) : '✓';
      if (span.textContent !== text) span.textContent = text;
      b.classList.toggle('done', left <= 0);
      b.setAttribute('aria-label', this.mode === 'colour' ? `Colour ${d}` : `${d}, ${left > 0 ? left + ' left' : 'all placed'}`);
    }
  }
}

function label(c, d, given, corner, centre, clash) {
  let s = `row ${Math.floor(c / 9) + 1}, column ${(c % 9) + 1}, `;
  if (d) s += given ? `${d}, given` : String(d);
  else if (corner.length || centre.length) {
    // Corner and centre marks together read as the cell shows them, one
    // run of digits, the words between in brackets (not read as part of
    // the visible text, so the label still holds it word for word).
    if (corner.length && centre.length) s += `notes ${corner.join(' ')} (and centre notes) ${centre.join(' ')}`;
    else if (corner.length) s += `notes ${corner.join(' ')}`;
    else s += `centre notes ${centre.join(' ')}`;
  } else s += 'empty';
  if (clash) s += ', conflict';
  return s;
}

// localConflicts finds digits that repeat in a row, column or box. The
// server refuses such moves, but two co-op players racing for peer cells,
// or a board from an older round, can still show one.
function localConflicts(b) {
  const out = new Set();
  for (let c = 0; c < 81; c++) {
    if (!b[c]) continue;
    for (const p of PEERS[c]) if (p > c && b[p] === b[c]) { out.add(c); out.add(p); }
  }
  return out;
}
