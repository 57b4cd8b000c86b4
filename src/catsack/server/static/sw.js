// The service worker: the site as an installable app, and the rules readable offline.
//
// Pages and files are fetched from the network first (the server is authoritative: a table is
// never shown from a stale copy); what the cache holds is used only when the network fails.
// Installing puts the rules in both languages (with their card pictures), the offline page and
// the styles into the cache. The API and the WebSocket are never cached.

const CACHE = "catsack-v1";
const RULES_PICTURES = /*RULES_PICTURES*/[];
const PRECACHE = [
  "/offline",
  "/rules?lang=en",
  "/rules?lang=de",
  "/static/catsack.css",
  "/static/favicon.svg",
  "/static/icon-192.png",
  ...RULES_PICTURES,
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

function cacheable(url) {
  return url.origin === self.location.origin && (url.pathname.startsWith("/static/") || url.pathname.startsWith("/rules"));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/") || url.pathname === "/ws") return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok && cacheable(url)) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(async () => {
        const cached = await caches.match(request);
        if (cached) return cached;
        if (url.pathname === "/rules") {
          // The rules in the language asked for, else the one the page's cookie picked, else English.
          const lang = url.searchParams.get("lang") === "de" ? "de" : "en";
          const rules = await caches.match(`/rules?lang=${lang}`);
          if (rules) return rules;
        }
        if (request.mode === "navigate") {
          const offline = await caches.match("/offline");
          if (offline) return offline;
        }
        return Response.error();
      }),
  );
});
