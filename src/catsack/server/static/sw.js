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

// Push notifications (catsack.server.people.push): the server's message is small JSON — kind, title, body,
// the page to open and a tag (one notification per tag, so a message sent twice shows once). It says
// whose turn it is and where, never a card. A click opens that page: in a window of the site already
// open if there is one, else in a new one.

/** The page a notification opens: a path of this site, never another site's address. */
function pageOf(value) {
  const text = typeof value === "string" ? value : "";
  if (!text.startsWith("/") || text.startsWith("//")) return "/games";
  const url = new URL(text, self.location.origin);
  return url.origin === self.location.origin ? url.pathname + url.search + url.hash : "/games";
}

function pushMessage(event) {
  try {
    const found = event.data ? event.data.json() : null;
    if (found && typeof found === "object") return found;
  } catch {
    // not JSON: shown as the generic notice below
  }
  return {};
}

self.addEventListener("push", (event) => {
  const message = pushMessage(event);
  const title = typeof message.title === "string" && message.title ? message.title : "catsack";
  const options = {
    body: typeof message.body === "string" ? message.body : "",
    tag: typeof message.tag === "string" && message.tag ? message.tag : undefined,
    lang: typeof message.lang === "string" ? message.lang : undefined,
    icon: "/static/icon-192.png",
    badge: "/static/icon-192.png",
    data: { url: pageOf(message.url), kind: typeof message.kind === "string" ? message.kind : "" },
  };
  event.waitUntil(self.registration.showNotification(title, options));
});

/** Show ``path`` in a window of the site: the one showing it already, else the first one open
 * (navigated there), else a new one. */
async function openPage(path) {
  const target = new URL(path, self.location.origin).href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same = windows.find((w) => w.url === target);
  if (same) return same.focus();
  const open = windows.find((w) => new URL(w.url).origin === self.location.origin);
  if (open) {
    const moved = (await open.navigate(target)) ?? open;
    try {
      return await moved.focus();
    } catch {
      return moved; // focusing needs the click's permission, which some browsers give only once
    }
  }
  return self.clients.openWindow(target);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const opening = openPage(pageOf(event.notification.data?.url));
  event.waitUntil(opening);
});
