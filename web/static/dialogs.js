// dialogs.js: the settings dialog, the keys overlay (?) and the guide a
// player's first game shows. Loaded the first time one is asked for, with
// its style sheet, so that pages that never open them do not pay for them.

import * as prefs from './settings.js';
import { account, post } from './api.js';

// set changes setting k, here and, for an account, with the account.
function set(k, v) {
  prefs.adopt({ ...all(), [k]: v });
  if (account()) post('/api/account/settings', { settings: all() }).catch(() => { /* kept here; saved with the next change */ });
}

const all = () => Object.fromEntries(Object.keys(prefs.DEFAULTS).map((k) => [k, prefs.get(k)]));

// sync takes an account's settings when a page loads; an account with
// none yet takes this browser's, when they are not the defaults.
export function sync(acct) {
  if (acct.settings) prefs.adopt(acct.settings);
  else if (JSON.stringify(all()) !== JSON.stringify(prefs.DEFAULTS)) post('/api/account/settings', { settings: all() }).catch(() => {});
}

// h makes an element: attributes (or properties, for on* handlers and
// booleans) and children, strings set as text.
function h(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (typeof v === 'boolean') e[k] = v;
    else e.setAttribute(k, v);
  }
  e.append(...kids.filter((k) => k != null));
  return e;
}

let sheet = null;

// styled loads the dialogs' style sheet once, and waits for it.
function styled() {
  sheet = sheet || new Promise((done) => {
    const link = h('link', { rel: 'stylesheet', href: '/dialogs.css' });
    link.addEventListener('load', done);
    link.addEventListener('error', done);
    document.head.append(link);
  });
  return sheet;
}

// modal shows a dialog of id over the page (Esc closes it, the focus stays
// in it and goes back where it was once it closes), made anew each time.
async function modal(id, title, body, extra) {
  await styled();
  document.getElementById(id)?.remove();
  const d = h('dialog', { id, class: 'dlg', 'aria-labelledby': `${id}-title` },
    h('div', { class: 'dlg-head' }, h('h2', { id: `${id}-title` }, title),
      h('button', { type: 'button', class: 'icon', 'aria-label': 'Close', onclick: () => d.close() }, '✕')),
    ...body,
    h('div', { class: 'buttons' }, extra, h('button', { type: 'button', class: 'primary', onclick: () => d.close() }, 'Done')));
  d.addEventListener('close', () => d.remove());
  document.body.append(d);
  d.showModal();
  return d;
}

// check is a setting's checkbox with its label and a line under it.
function check(key, label, help) {
  const id = `set-${key}`;
  return h('div', { class: 'set' },
    h('input', { type: 'checkbox', id, checked: prefs.get(key), onchange: (e) => set(key, e.target.checked) }),
    h('label', { for: id }, label, help ? h('span', { class: 'muted' }, help) : null));
}

// settings opens the settings dialog.
export function settings() {
  const palette = h('fieldset', { class: 'set-group' }, h('legend', null, 'Colours'),
    ...[['standard', 'Standard'], ['safe', 'Colour-blind safe, high contrast']].map(([v, text]) => h('div', { class: 'set' },
      h('input', { type: 'radio', name: 'palette', id: `set-palette-${v}`, value: v, checked: prefs.get('palette') === v, onchange: () => set('palette', v) }),
      h('label', { for: `set-palette-${v}` }, text))));
  return modal('settings', 'Settings', [
    check('same', 'Highlight the same digit'),
    check('peers', 'Shade the row, column and box'),
    check('conflicts', 'Show conflicts at once', 'Clashing digits and marks in red. A race always shows what the server refuses.'),
    palette,
    check('left', 'Left-handed', 'The pad on the left (mirrored on a phone).'),
    check('sound', 'Sounds', 'A short tone for a digit, a clash and a finish.'),
    h('p', { class: 'hint-text' }, account() ? 'Kept with your account, on every browser you sign in on.' : 'Kept in this browser; an account keeps them on every device.'),
  ], h('button', { type: 'button', onclick: () => keys() }, 'Keys'));
}

// KEYS are the game's keys, as SudokuPad has them.
const KEYS = [
  ['1 – 9', 'place a digit, or a mark or colour in that mode'],
  ['Shift + 1 – 9', 'corner mark'],
  ['Ctrl (or Alt) + 1 – 9', 'centre mark'],
  ['Z  X  C  V', 'digit, corner, centre and colour mode'],
  ['Space', 'next mode'],
  ['Arrows, Home, End', 'move'],
  ['Drag, Ctrl + click, Shift + click or arrows', 'select several cells: a digit, mark or colour goes on them all'],
  ['Delete, Backspace, 0', 'clear the cell (its colours in colour mode)'],
  ['Ctrl + Z, Ctrl + Y', 'undo, redo (colours too)'],
  ['Esc', 'back to one cell, deselect, or close this'],
  ['?', 'these keys'],
];

// keys opens the keys overlay.
export function keys() {
  document.getElementById('settings')?.close();
  return modal('keys', 'Keys', [h('table', { class: 'keys-table' }, h('tbody', null,
    ...KEYS.map(([k, what]) => h('tr', null, h('th', { scope: 'row' }, h('kbd', null, k)), h('td', null, what)))))]);
}

// guide shows, beside the board, a short guide to the modes and keys: a
// card that stays until dismissed, over nothing, shown only if still()
// says so once its look has loaded.
export async function guide(still) {
  const side = document.querySelector('.side');
  if (!side || document.getElementById('guide')) return;
  await styled();
  if (!still()) return;
  const card = h('section', { id: 'guide', class: 'panel guide', 'aria-labelledby': 'guide-title' },
    h('div', { class: 'dlg-head' }, h('h2', { id: 'guide-title' }, 'How to play'),
      h('button', { type: 'button', id: 'guide-ok', onclick: () => card.remove() }, 'Got it')),
    h('ul', null,
      h('li', null, 'Pick a cell, then a digit: on the pad, or keys 1 to 9.'),
      h('li', null, 'Digit, Corner, Centre and Colour change what a digit does (keys Z X C V; Shift and Ctrl for marks).'),
      h('li', null, '⚙ has the settings; ', h('button', { type: 'button', class: 'link', onclick: () => keys() }, 'all the keys'), ' with ?.')));
  side.prepend(card);
}
