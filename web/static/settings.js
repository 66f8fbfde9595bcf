// settings.js: the player's settings as this browser keeps them, applied
// as data attributes (for the style sheets) and read by the board.
// Changing them, and keeping them with an account, is dialogs.js's; what
// they change of the look (prefs.css) and the sounds (sound.js) load when
// a setting needs them.

import { store } from './api.js';

// DEFAULTS: same-digit and peer shading, conflicts shown at once, the
// palette ('standard' or a colour-blind-safe 'safe'), the pad on the
// left, sounds.
export const DEFAULTS = { same: true, peers: true, conflicts: true, palette: 'standard', left: false, sound: false };

let current, listener = () => {};

// get is the value of setting k.
export const get = (k) => current[k];

// onChange has the page (one shows at a time) call fn after a change.
export const onChange = (fn) => { listener = fn; };

// adopt makes settings s (an object, or its JSON) the current ones, each
// of the right type or its default, kept and applied.
export function adopt(s) {
  try { if (typeof s === 'string') s = JSON.parse(s || '{}'); } catch { s = {}; }
  current = { ...DEFAULTS };
  for (const k in DEFAULTS) if (s && typeof s[k] === typeof DEFAULTS[k]) current[k] = s[k];
  if (current.palette !== 'safe') current.palette = 'standard';
  store.set('settings', JSON.stringify(current));
  const d = document.documentElement.dataset;
  d.palette = current.palette;
  d.hand = current.left ? 'left' : 'right';
  if ((current.left || current.palette === 'safe') && !document.getElementById('prefs-css')) {
    document.head.append(Object.assign(document.createElement('link'), { id: 'prefs-css', rel: 'stylesheet', href: '/prefs.css' }));
  }
  listener();
}

// blip plays what event ev sounds like to player me, when sounds are on.
export function blip(ev, me) {
  if (current.sound && ['move', 'error', 'finish'].includes(ev.type)) import('./sound.js').then((m) => m.event(ev, me));
}

adopt(store.get('settings'));
