// share.js: the share card after a finish. Its text says what the game
// was (the daily and its date, a race, co-op), the level, the time, the
// mistakes, the hints and the rank, with a 3×3 picture of the order in
// which the player finished the nine boxes, and no digit of the puzzle; an
// image of the same is drawn on a canvas. The card shares them
// (navigator.share where the device has it), copies the text, saves the
// image and gives a link that challenges a friend on the same puzzle.
// Boxes keeps the order, from the player's own board as the game goes.

import { el } from './ui.js';
import { fmt, ordinal } from './game.js';

const $ = (id) => document.getElementById(id);

// CLOCKS picture the order: the box finished first shows one o'clock, the
// ninth nine o'clock; a box not finished is white.
const CLOCKS = ['🕐', '🕑', '🕒', '🕓', '🕔', '🕕', '🕖', '🕗', '🕘'];
const OPEN = '⬜';

// BOXES are the cells of each box, boxes in reading order.
const BOXES = Array.from({ length: 9 }, (_, b) => Array.from({ length: 9 },
  (_, i) => (Math.floor(b / 3) * 3 + Math.floor(i / 3)) * 9 + (b % 3) * 3 + (i % 3)));

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

// KEEP is how many games' box orders this browser keeps, newest last.
const KEEP = 12;
const STORE = 'arena.boxes';

function loadAll() {
  try { return JSON.parse(localStorage.getItem(STORE) || '{}') || {}; } catch { return {}; }
}

function saveOrder(key, order) {
  const all = loadAll();
  delete all[key];
  all[key] = order;
  const keys = Object.keys(all);
  for (const k of keys.slice(0, Math.max(0, keys.length - KEEP))) delete all[k];
  try { localStorage.setItem(STORE, JSON.stringify(all)); } catch { /* private mode */ }
}

// Boxes follows the player's board (their own in a race or a daily, the
// shared one in co-op) and keeps the order in which its boxes became full:
// a box emptied again (an undo) leaves the order and goes to its end when
// it is full again. It is kept per room, round and player in local
// storage, so that a reload in the middle of a game keeps it; boxes found
// full when the page first sees the board go in reading order.
export class Boxes {
  constructor(game) {
    this.game = game;
    this.key = '';
    this.order = [];
  }

  // see reads the board; the room page calls it after each event.
  see() {
    const g = this.game;
    if (!g.givens || g.spectator || !g.me.id) return;
    const key = `${g.room.id}.${g.room.round}.${g.me.id}`;
    if (key !== this.key) {
      this.key = key;
      this.order = (loadAll()[key] || []).slice();
    }
    if (g.phase !== 'running' && g.phase !== 'finished') return;
    const full = BOXES.map((cells) => cells.every((c) => g.board[c]));
    const order = this.order.filter((b) => full[b]);
    for (let b = 0; b < 9; b++) if (full[b] && !order.includes(b)) order.push(b);
    if (order.join() === this.order.join()) return;
    this.order = order;
    saveOrder(key, order);
  }
}

// finished is the finish the card is about: the player's own, or in
// co-op the team's (a snapshot of a solved co-op room has each player's
// share of its mistakes and hints, which add up to the team's); null
// before it.
function finished(game) {
  if (game.spectator || !game.me.id) return null;
  const mine = game.finishes.get(game.me.id) || null;
  if (game.mode !== 'coop') return mine;
  const team = game.finishes.get('team');
  if (team || !mine) return team || null;
  const sum = (k) => game.players.reduce((n, p) => n + (p[k] || 0), 0);
  return { elapsed_ms: mine.elapsed_ms, mistakes: sum('mistakes'), hints: sum('hints') };
}

// shareable says whether the room page offers the card: this player (or
// their team) has finished, and on a daily the leaderboard has been read
// (result, the daily's note, says whether the finish ranked).
const shareable = (game, result) => !!finished(game) && (game.mode !== 'daily' || !!result);

// sync shows the finish card's Share button when the card can be had, and
// closes the card when it no longer can (a rematch's new round).
export function sync(game, result) {
  const ok = shareable(game, result);
  const b = $('share');
  if (b) b.hidden = !ok;
  const box = $('share-card');
  if (box && box.open && !ok) box.close();
}

// shortDate is 26 Nov 2026, the same in every locale.
function shortDate(date) {
  const [y, m, d] = date.split('-').map(Number);
  return `${d} ${MONTHS[m - 1]} ${y}`;
}

const plural = (n, one) => `${n || 0} ${one}${n === 1 ? '' : 's'}`;

// card is what the text and the image say: {kind, level, time, stats:
// [mistakes, hints, rank], order, link}. On a daily, result is the
// finish's note (ranked or not, held for review) and mine the player's
// leaderboard row (null: none), whose rank a ranked finish says.
function card(game, boxes, result, mine) {
  const f = finished(game);
  const m = game.room;
  let kind;
  if (m.mode === 'daily') kind = `daily ${shortDate(m.date)}`;
  else if (m.mode === 'coop') kind = 'co-op';
  else kind = m.date ? `race on the daily ${shortDate(m.date)}` : 'race';
  let rank;
  if (m.mode === 'daily') rank = result && result.review ? 'under review' : result && result.ranked && mine ? `rank ${mine.rank}` : 'unranked';
  else if (m.mode === 'coop') rank = game.players.length > 1 ? `${game.players.length} together` : 'solo';
  else rank = `${ordinal(f.rank)} of ${game.players.length}`;
  const stats = [plural(f.mistakes, 'mistake'), plural(f.hints, 'hint'), rank];
  // A rated race says what it did to the rating, as the finish card does.
  const rated = $('finish-rating');
  if (m.mode === 'race' && rated && !rated.hidden) stats.push(rated.textContent);
  return {
    kind,
    level: m.level,
    time: fmt(f.elapsed_ms),
    stats,
    order: boxes.order.slice(),
    link: m.date ? `${location.origin}/daily/${m.date}/${m.level}` : `${location.origin}/`,
  };
}

// text is the card as text: one line, the picture, the link.
function text(c) {
  const rows = [0, 1, 2].map((r) => [0, 1, 2].map((k) => CLOCKS[c.order.indexOf(r * 3 + k)] || OPEN).join(''));
  return [`Sudoku Arena ${c.kind} · ${c.level} · ${c.time} · ${c.stats.join(' · ')}`, ...rows, c.link].join('\n');
}

// challengeLink opens the same puzzle for a friend: a daily's page (their
// own copy of the day's puzzle, ranked for them if it is still the day), or
// home with the puzzle's givens in the own-puzzle card, one click from a
// new room. The room is made when the friend comes, so the link does not
// run out as an empty room does.
function challengeLink(game) {
  const m = game.room;
  if (m.date) return `${location.origin}/daily/${m.date}/${m.level}`;
  return `${location.origin}/?puzzle=${game.givens.map((d) => d || '.').join('')}`;
}

const css = (name) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

// draw paints the card on a 1080×1080 canvas in the page's colours (light
// or dark, as the page is).
async function draw(canvas, c) {
  const W = 1080;
  canvas.width = W;
  canvas.height = W;
  const g = canvas.getContext('2d');
  const font = css('--font') || 'sans-serif';
  const accent = css('--accent'), fg = css('--fg'), muted = css('--muted');
  g.fillStyle = css('--surface') || '#fff';
  g.fillRect(0, 0, W, W);
  g.fillStyle = accent;
  g.fillRect(0, 0, W, 16);
  const icon = new Image();
  icon.src = '/icon-192.png';
  try {
    await icon.decode();
    g.drawImage(icon, 88, 80, 88, 88);
  } catch { /* the words alone */ }
  g.textBaseline = 'alphabetic';
  g.fillStyle = fg;
  g.font = `700 56px ${font}`;
  g.fillText('Sudoku Arena', 200, 144);
  g.fillStyle = accent;
  g.font = `700 40px ${font}`;
  g.fillText(`${c.kind} · ${c.level}`.toUpperCase(), 88, 270, W - 176);
  g.fillStyle = fg;
  g.font = `800 200px ${font}`;
  g.fillText(c.time, 80, 470, W - 176);
  g.fillStyle = muted;
  g.font = `500 44px ${font}`;
  g.fillText(c.stats.join(' · '), 88, 550, W - 176);
  // The boxes: the first finished in full colour, the last faintest, each
  // with a clock whose hand says its place.
  const size = 120, gap = 12, x0 = 88, y0 = 620;
  for (let b = 0; b < 9; b++) {
    const x = x0 + (b % 3) * (size + gap), y = y0 + Math.floor(b / 3) * (size + gap);
    const n = c.order.indexOf(b);
    g.globalAlpha = n < 0 ? 0.12 : 1 - n * 0.08;
    g.fillStyle = n < 0 ? muted : accent;
    g.beginPath();
    g.roundRect(x, y, size, size, 14);
    g.fill();
    g.globalAlpha = 1;
    if (n < 0) continue;
    const cx = x + size / 2, cy = y + size / 2, r = size * 0.32;
    g.strokeStyle = css('--accent-fg') || '#fff';
    g.lineWidth = 6;
    g.lineCap = 'round';
    g.beginPath();
    g.arc(cx, cy, r, 0, 2 * Math.PI);
    g.moveTo(cx, cy);
    const a = ((n + 1) / 12) * 2 * Math.PI;
    g.lineTo(cx + Math.sin(a) * r * 0.75, cy - Math.cos(a) * r * 0.75);
    g.moveTo(cx, cy);
    g.lineTo(cx, cy - r * 0.95);
    g.stroke();
  }
  g.fillStyle = muted;
  g.font = `400 36px ${font}`;
  const lines = ['The order of the boxes:', 'the first finished at', 'one o’clock, the last', 'at nine.'];
  lines.forEach((l, i) => g.fillText(l, 520, 680 + i * 50));
  g.font = `600 36px ${font}`;
  g.fillText(location.host, 88, 1040, W - 176);
}

// copyText puts text on the clipboard; field (a text field holding it) is
// the fallback where the clipboard is not allowed.
async function copyText(text, field) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    field.select();
    document.execCommand('copy');
  }
}

// open shows the share card, a modal dialog over the page; it is drawn
// anew each time.
export function open(game, boxes, result, mine) {
  let box = $('share-card');
  if (!box) {
    box = build();
    document.body.append(box);
  }
  const c = card(game, boxes, result, mine);
  const t = text(c);
  const field = $('share-text');
  field.value = t;
  $('share-status').textContent = '';
  $('share-challenge-row').hidden = true;
  const canvas = $('share-image');
  canvas.dataset.drawn = '';
  draw(canvas, c).then(() => { canvas.dataset.drawn = 'true'; });
  box.dataset.mode = game.mode;
  box.challenge = challengeLink(game);
  box.file = `sudoku-arena-${game.room.date || game.room.id}-${game.room.level}.png`;
  if (!box.open) box.showModal();
  // The whole text in view, lines wrapped on a narrow screen.
  field.style.height = 'auto';
  field.style.height = `${field.scrollHeight + 2}px`;
  $('share-go').focus();
}

// build makes the card once, with its buttons wired.
function build() {
  // part is an element with an id, a class and attributes.
  const part = (tag, id, cls, attrs = {}) => {
    const e = el(tag, cls);
    e.id = id;
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    return e;
  };
  const box = part('dialog', 'share-card', 'share-card', { 'aria-labelledby': 'share-title' });
  const title = part('h2', 'share-title');
  title.textContent = 'Share your result';
  const canvas = part('canvas', 'share-image', 'share-image', { role: 'img', 'aria-label': 'Your result as an image' });
  const field = part('textarea', 'share-text', 'share-text', { readonly: '', 'aria-label': 'Your result as text' });
  const status = part('p', 'share-status', 'share-status', { role: 'status' });
  const say = (s) => { status.textContent = s; };
  const button = (id, label, primary) => {
    const b = part('button', id, primary ? 'primary' : '', { type: 'button' });
    b.textContent = label;
    return b;
  };
  const go = button('share-go', navigator.share ? 'Share' : 'Copy text', true);
  const save = button('share-save', 'Save image');
  const challenge = button('share-challenge', 'Challenge a friend');
  const close = button('share-close', 'Close');
  const row = el('div', 'buttons');
  row.append(go, save, challenge, close);
  const link = part('input', 'share-challenge-link', 'share-link', { readonly: '', 'aria-label': 'Challenge link' });
  const linkRow = part('div', 'share-challenge-row', 'inline');
  linkRow.hidden = true;
  linkRow.append(link);
  box.append(title, canvas, field, row, linkRow, status);

  const png = () => new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
  go.addEventListener('click', async () => {
    const t = field.value;
    if (navigator.share) {
      const blob = await png();
      const files = blob ? [new File([blob], box.file, { type: 'image/png' })] : [];
      try {
        await navigator.share(files.length && navigator.canShare && navigator.canShare({ files }) ? { text: t, files } : { text: t });
        say('Shared');
      } catch (e) {
        if (e.name !== 'AbortError') { await copyText(t, field); say('Copied'); }
      }
      return;
    }
    await copyText(t, field);
    say('Copied');
  });
  save.addEventListener('click', async () => {
    const blob = await png();
    if (!blob) { say('The image could not be made on this device.'); return; }
    const a = el('a');
    a.href = URL.createObjectURL(blob);
    a.download = box.file;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    say('Image saved');
  });
  challenge.addEventListener('click', async () => {
    link.value = box.challenge;
    linkRow.hidden = false;
    await copyText(box.challenge, link);
    say('Copied: send the link to a friend, it opens the same puzzle for them.');
  });
  close.addEventListener('click', () => box.close());
  return box;
}
