// settings.js: the player's settings, kept in this browser's local storage
// (not with an account), applied to the page as data attributes for the
// style sheets and read by the board. What they change of the look
// (prefs.css), the sounds (sound.js) and the dialog that changes them
// (dialogs.js) load only when needed.

import { store } from './api.js';

// DEFAULTS are every setting and its value until the player changes it:
// same and peers shade the selected digit's copies and the selected cell's
// row, column and box; conflicts marks clashing digits and marks at once
// (a race's refused clashes show whatever it says); palette is 'standard' or 'safe' (a
// colour-blind-safe, high-contrast set); left puts the pad on the left;
// sound plays short blips.
export const DEFAULTS = { same: true, peers: true, conflicts: true, palette: 'standard', left: false, sound: false };

let current = read();
let listener = () => {};

function read() {
  let saved = {};
  try { saved = JSON.parse(store.get('settings') || '{}') || {}; } catch { /* a damaged value: the defaults */ }
  const out = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) if (typeof saved[k] === typeof DEFAULTS[k]) out[k] = saved[k];
  if (!['standard', 'safe'].includes(out.palette)) out.palette = DEFAULTS.palette;
  return out;
}

// get is the value of setting k.
export const get = (k) => current[k];

// set changes setting k, keeps it and applies it.
export function set(k, v) {
  current = { ...current, [k]: v };
  store.set('settings', JSON.stringify(current));
  apply();
  listener(k, v);
}

// onChange has the page call fn(k, v) after each change (the last page's
// fn: one page shows at a time).
export const onChange = (fn) => { listener = fn; };

// apply sets the page's data attributes from the settings, with the
// style sheet that reads them once one needs it.
export function apply() {
  const d = document.documentElement.dataset;
  d.palette = current.palette;
  d.hand = current.left ? 'left' : 'right';
  if ((current.left || current.palette !== 'standard') && !document.getElementById('prefs-css')) {
    const link = document.createElement('link');
    link.id = 'prefs-css';
    link.rel = 'stylesheet';
    link.href = '/prefs.css';
    document.head.append(link);
  }
}

// blip plays the sound of kind (place, conflict, finish) when sounds are on.
export function blip(kind) {
  if (current.sound) import('./sound.js').then((m) => m.play(kind));
}

apply();
