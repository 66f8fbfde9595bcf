// settings.js: the player's settings, kept in this browser's local storage
// and, for an account, with the account (POST /api/account/settings, read
// back with the session), so that they follow it; applied to the page as data attributes for the
// style sheets and read by the board. What they change of the look
// (prefs.css), the sounds (sound.js) and the dialog that changes them
// (dialogs.js) load only when needed.

import { account, onSession, post, store } from './api.js';

// DEFAULTS are every setting and its value until the player changes it:
// same and peers shade the selected digit's copies and the selected cell's
// row, column and box; conflicts marks clashing digits and marks at once
// (a race's refused clashes show whatever it says); palette is 'standard' or 'safe' (a
// colour-blind-safe, high-contrast set); left puts the pad on the left;
// sound plays short blips.
export const DEFAULTS = { same: true, peers: true, conflicts: true, palette: 'standard', left: false, sound: false };

let current = read(store.get('settings'));
let listener = () => {};

// read is the settings of saved (an object; a string of JSON), each of the
// right type, else its default.
function read(saved) {
  try { if (typeof saved === 'string') saved = JSON.parse(saved || '{}'); } catch { /* a damaged value: the defaults */ }
  saved = saved && typeof saved === 'object' ? saved : {};
  const out = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) if (typeof saved[k] === typeof DEFAULTS[k]) out[k] = saved[k];
  if (!['standard', 'safe'].includes(out.palette)) out.palette = DEFAULTS.palette;
  return out;
}

// get is the value of setting k.
export const get = (k) => current[k];

// set changes setting k, keeps it and applies it.
export function set(k, v) {
  adopt({ ...current, [k]: v });
  if (account()) post('/api/account/settings', { settings: current }).catch(() => { /* kept here; saved with the next change */ });
}

// adopt makes the settings the current ones, here and in local storage.
function adopt(s) {
  current = read(s);
  store.set('settings', JSON.stringify(current));
  apply();
  listener();
}

// An account's settings, once read with the session, are this browser's.
// An account with none yet takes this browser's, when they are not the
// defaults.
onSession((me) => {
  if (!me || !me.account) return;
  if (me.account.settings) adopt(me.account.settings);
  else if (JSON.stringify(current) !== JSON.stringify(DEFAULTS)) post('/api/account/settings', { settings: current }).catch(() => {});
});

// onChange has the page call fn after each change (the last page's fn:
// one page shows at a time).
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
