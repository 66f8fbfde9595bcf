// pwa.js: the installed app's side of the page. It registers the service
// worker (sw.js), which keeps the app shell for the page to open without a
// network, and says plainly when the network is gone: a line under the
// header while a page is open, or the offline page when the page opened
// without one (the session could not be read); the page comes back by
// itself when the network does.

import { el } from './ui.js';

// PROBE_MS is how often an offline page asks the server whether it is
// back, for a network that returns without the browser saying so.
const PROBE_MS = 5000;

// offlinePage is whether the offline page is shown (it says so itself).
let offlinePage = false;

// start registers the worker and watches the network. A new release's
// worker takes over at once; the page reloads to run its files the next
// time it is out of sight (another app or tab in front), unless a game is
// under way or it is the account page, which may show what it shows only
// once (recovery codes).
export function start() {
  const sheet = el('link');
  sheet.rel = 'stylesheet';
  sheet.href = '/pwa.css';
  document.head.append(sheet);
  const line = el('p', 'net-off', 'You are offline. The game comes back by itself when the network does.');
  line.id = 'net-off';
  line.setAttribute('role', 'status');
  document.querySelector('header.top').after(line);
  const show = () => { line.hidden = navigator.onLine || offlinePage; };
  show();
  addEventListener('online', show);
  addEventListener('offline', show);
  if (!('serviceWorker' in navigator)) return;
  const updating = !!navigator.serviceWorker.controller;
  let stale = false;
  const refresh = () => {
    const { page, phase } = document.documentElement.dataset;
    if (stale && document.hidden && page !== 'account' && phase !== 'running' && phase !== 'countdown') location.reload();
  };
  navigator.serviceWorker.addEventListener('controllerchange', () => { stale = updating; refresh(); });
  document.addEventListener('visibilitychange', refresh);
  // After the page's load: the worker's install fetches the whole shell,
  // which would otherwise compete with the page's own first paint.
  const register = () => navigator.serviceWorker.register('/sw.js').catch(() => { /* the page works without it */ });
  if (document.readyState === 'complete') register();
  else addEventListener('load', register, { once: true });
}

// offline shows the offline page in #app (or, with a network, that the
// server is out of reach), and reloads when the server answers again.
export function offline() {
  document.documentElement.dataset.page = 'offline';
  const card = el('section', 'card offline-page');
  card.id = 'offline-page';
  card.setAttribute('role', 'status');
  const again = el('button', 'primary', 'Try again');
  again.type = 'button';
  again.addEventListener('click', () => location.reload());
  // The device may have a network and the server be out of reach; the
  // browser may learn which after the page has opened.
  const title = el('h1'), why = el('p');
  const say = () => {
    title.textContent = navigator.onLine ? 'Sudoku Arena cannot be reached' : 'You are offline';
    why.textContent = navigator.onLine
      ? 'The server does not answer just now. This page comes back by itself when it does.'
      : 'Sudoku Arena needs the network to play, and this device has none just now. This page comes back by itself when the network does.';
  };
  say();
  addEventListener('offline', say);
  addEventListener('online', say);
  card.append(title, why, again);
  document.getElementById('app').replaceChildren(card);
  offlinePage = true;
  const line = document.getElementById('net-off');
  if (line) line.hidden = true;
  let timer = 0;
  const probe = async () => {
    clearTimeout(timer);
    try {
      const r = await fetch('/livez', { cache: 'no-store' });
      if (r.ok) { location.reload(); return; }
    } catch { /* still offline */ }
    timer = setTimeout(probe, PROBE_MS);
  };
  addEventListener('online', probe);
  timer = setTimeout(probe, PROBE_MS);
}
