// The service worker: the site as an installable app, and the rules readable offline.
//
// Pages and files are fetched from the network first (the server is authoritative: a table is
// never shown from a stale copy); what the cache holds is used only when the network fails.
// Installing puts the rules in every language they are written in (with their card pictures), the
// offline page and the styles into the cache. The API and the WebSocket are never cached.

const CACHE = "catsack-v1";
const RULES_PICTURES = /*RULES_PICTURES*/[];
// The languages of the rules page, the first being its default (the server fills them in: /sw.js).
const RULES_LANGUAGES = /*RULES_LANGUAGES*/["en"];
const PRECACHE = [
  "/offline",
  ...RULES_LANGUAGES.map((lang) => `/rules?lang=${lang}`),
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

function rulesLanguageOf(value) {
  const base = String(value ?? "").toLowerCase().split("-")[0];
  return RULES_LANGUAGES.includes(base) ? base : null;
}

/** The rules' language offline: ?lang=, else the reader's chosen language (the catsack_lang cookie,
 * which the pages set), else the browser's, else the default. */
async function rulesLanguage(url) {
  let cookie = null;
  try {
    cookie = (await self.cookieStore?.get("catsack_lang"))?.value ?? null;
  } catch {
    // no Cookie Store in this browser: the browser's languages decide
  }
  const browser = (self.navigator.languages ?? []).map(rulesLanguageOf).find(Boolean);
  return rulesLanguageOf(url.searchParams.get("lang")) ?? rulesLanguageOf(cookie) ?? browser ?? RULES_LANGUAGES[0];
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
          const rules = await caches.match(`/rules?lang=${await rulesLanguage(url)}`);
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
