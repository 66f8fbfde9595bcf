// sw.js: the service worker. It keeps the app shell (the client's files of
// this release) in a cache named for the release, so the game opens at
// once, and opens at all without a network: the page then says it is
// offline. The server writes the release's content hash into BUILD and
// the shell's paths into SHELL when it starts (server/static.go), so a new
// release is a new worker with a new cache, and the old cache goes.
// Nothing the server answers live is ever cached: not the API, not the
// WebSocket, not the probes.

const BUILD = '__BUILD__';
const SHELL = ['__SHELL__'];
const CACHE = `shell-${BUILD}`;
const FILES = new Set(SHELL);

// LIVE is what always goes to the network.
const LIVE = /^\/(api\/|ws$|livez$|readyz$|healthz$|metrics$|debug\/)/;

// PAGE is an address the client's page answers (the server answers each
// with index.html): home, a room, its replay, a daily, a player, the lab,
// the account and the sign-in link.
const PAGE = /^\/(?:r\/[^/]+(?:\/replay)?|daily\/[^/]+\/[^/]+|p\/[^/]+|lab|account|signin)?\/?$/;

self.addEventListener('install', (e) => {
  // cache: 'reload' fetches past the browser's HTTP cache: the files of
  // this release, not a copy of the last.
  e.waitUntil(caches.open(CACHE)
    .then((c) => c.addAll(SHELL.map((u) => new Request(u, { cache: 'reload' }))))
    .then(() => self.skipWaiting()));
});

self.addEventListener('activate', (e) => {
  e.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k.startsWith('shell-') && k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener('fetch', (e) => {
  const req = e.request;
  if (req.method !== 'GET') return;
  const url = new URL(req.url);
  if (url.origin !== self.location.origin || LIVE.test(url.pathname)) return;
  if (req.mode === 'navigate') {
    if (PAGE.test(url.pathname)) e.respondWith(fromShell('/', req));
    return;
  }
  if (FILES.has(url.pathname)) e.respondWith(fromShell(url.pathname, req));
});

// fromShell answers with the shell's copy of path, or from the network
// when the cache lacks it (a cache the browser cleared).
async function fromShell(path, req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(path, { ignoreVary: true, ignoreSearch: true });
  return hit || fetch(req);
}
