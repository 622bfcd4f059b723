// Stampede's service worker. scripts/finish-build.mjs writes it into each
// build with that build's files, so after one visit the app opens and works
// with the network off (a classroom on flaky Wi-Fi keeps going).
//
// A page load goes to the network first, so a new build shows as soon as it
// is deployed, and falls back to the kept page offline. Every other file is
// named by its content, so a kept copy is never stale: it is served from the
// cache first. Each build keeps its files under its own version and drops
// the older builds' once it takes over.

const VERSION = '__VERSION__';
const FILES = ['__FILES__'];
const CACHE = `stampede-${VERSION}`;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(FILES))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((key) => key.startsWith('stampede-') && key !== CACHE).map((key) => caches.delete(key))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.mode === 'navigate') {
    event.respondWith(
      fetch(request).catch(() =>
        caches.open(CACHE).then((cache) => cache.match('./')).then((page) => page ?? Response.error()),
      ),
    );
    return;
  }
  event.respondWith(caches.match(request).then((kept) => kept ?? fetch(request)));
});
