// The page's language: one catalogue per language (static/i18n/<lang>.json), the browser's
// language by default, and a picker whose choice is kept in localStorage and in the
// `catsack_lang` cookie (the server's /rules page reads the cookie).
//
// Every visible string of the lobby and table pages comes from the catalogue: HTML
// elements name their key in data-i18n (text), data-i18n-title, data-i18n-placeholder
// and data-i18n-aria-label; scripts call t(key, params).

export const LANGUAGES = { en: "English", de: "Deutsch" };
const STORE_KEY = "catsack:lang";
const COOKIE = "catsack_lang";

function stored() {
  try {
    const value = window.localStorage.getItem(STORE_KEY);
    if (value in LANGUAGES) return value;
  } catch {
    // storage disabled: the cookie still remembers
  }
  const cookie = document.cookie.split("; ").find((c) => c.startsWith(`${COOKIE}=`));
  const value = cookie?.slice(COOKIE.length + 1);
  return value in LANGUAGES ? value : null;
}

function fromBrowser() {
  for (const tag of navigator.languages ?? [navigator.language ?? "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

/** The language in use: ?lang= in the address, then the remembered choice, then the browser's. */
function chooseLanguage() {
  const asked = new URLSearchParams(window.location.search).get("lang");
  if (asked in LANGUAGES) {
    remember(asked);
    return asked;
  }
  return stored() ?? fromBrowser();
}

function remember(lang) {
  try {
    window.localStorage.setItem(STORE_KEY, lang);
  } catch {
    // no storage: the cookie is enough
  }
  document.cookie = `${COOKIE}=${lang}; path=/; max-age=31536000; SameSite=Lax`;
}

export const lang = chooseLanguage();

async function load(code) {
  const response = await fetch(`/static/i18n/${code}.json`);
  if (!response.ok) throw new Error(`catalogue ${code}: ${response.status}`);
  return response.json();
}

let catalogue = {};
let fallback = {};
try {
  fallback = await load("en");
  catalogue = lang === "en" ? fallback : await load(lang);
} catch {
  catalogue = fallback; // a missing catalogue shows English rather than keys
}
document.documentElement.lang = lang;

/**
 * The text for `key` with {name} placeholders filled from `params`. A value may be
 * {one, other}: `params.n === 1` picks `one`.
 */
export function t(key, params = {}) {
  let value = catalogue[key] ?? fallback[key];
  if (value === undefined) return key;
  if (typeof value === "object") value = params.n === 1 ? value.one : value.other;
  return value.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

function has(key) {
  return key in catalogue || key in fallback;
}

/** The {placeholders} of `key`'s text that `params` leaves unfilled. */
function unfilled(key, params) {
  const value = catalogue[key] ?? fallback[key];
  const text = typeof value === "object" ? Object.values(value).join(" ") : String(value);
  return [...text.matchAll(/\{(\w+)\}/g)].some(([, name]) => !(name in params));
}

/**
 * A refused request in the page's language, for every page: `err` is an ApiError (api.js:
 * status, code, params, the server's English message), an `error` frame of the WebSocket
 * ({code, message, params}) or any other Error. The text is the catalogue's `err.<code>` with the
 * error's params filled in; `{detail}` there is the server's own message, shown as a marked
 * "(Server: …)" part for codes whose details only the server can word. A `seconds` param (the
 * Retry-After wait) adds a sentence. Only a code the catalogue does not know shows the server's
 * message as it is.
 */
export function errorText(err) {
  const code = typeof err?.code === "string" ? err.code : null;
  const message = typeof err?.message === "string" ? err.message : String(err ?? "");
  const params = { ...(err?.params ?? {}), detail: message };
  // A refused form: each field's problem as a reason the catalogue words (server/problems.py).
  if (Array.isArray(params.problems)) params.problems = params.problems.map(problemText).join("; ");
  const key = `err.${code}`;
  if (!code || !has(key)) {
    // A code this page does not know yet (a newer server): its own words are all there is.
    if (code || Number.isInteger(err?.status)) return message || t("err.other", { code: code ?? err.status });
    return t("err.unexpected", { detail: message }); // not the server's refusal: a failure in this page
  }
  let text;
  if (!unfilled(key, params)) text = t(key, params);
  else if (has(`${key}.plain`)) text = t(`${key}.plain`, params); // the wording without the missing details
  else text = t(key, params).replace(/\{\w+\}/g, "…");
  const seconds = Number(params.seconds);
  if (Number.isFinite(seconds) && seconds > 0) text += ` ${t("err.retryIn", { n: Math.ceil(seconds) })}`;
  return text;
}

/** One field's problem of a refused form, "name: at most 24 characters", in the page's language. */
function problemText(problem) {
  const field = String(problem?.field ?? "");
  const top = field.split(".")[0];
  const label = has(`err.field.${top}`) ? t(`err.field.${top}`) : field;
  const why = `err.why.${problem?.reason}`;
  return `${label}: ${has(why) ? t(why, problem?.params ?? {}) : t("err.why.bad_value")}`;
}

/** "1 mouse" / "3 mice" in the page's language. */
export function mice(n) {
  return t("mice", { n });
}

/** Fill every data-i18n* element under `root` from the catalogue. */
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const attr of ["title", "placeholder", "aria-label"]) {
    for (const el of root.querySelectorAll(`[data-i18n-${attr}]`)) el.setAttribute(attr, t(el.getAttribute(`data-i18n-${attr}`)));
  }
}

/** A <select> that switches the language (the page reloads in the new one). */
export function languagePicker() {
  const select = document.createElement("select");
  select.className = "lang-picker";
  select.id = "lang-picker";
  select.setAttribute("aria-label", t("lang.label"));
  select.title = t("lang.label");
  for (const [code, name] of Object.entries(LANGUAGES)) {
    const option = document.createElement("option");
    option.value = code;
    option.textContent = name;
    option.selected = code === lang;
    select.append(option);
  }
  select.addEventListener("change", () => {
    remember(select.value);
    const url = new URL(window.location.href);
    url.searchParams.delete("lang");
    // The same address with a #fragment (the replay's #ply=) would only scroll: reload it instead.
    if (url.href === window.location.href) window.location.reload();
    else window.location.replace(url.toString());
  });
  return select;
}

/** The rules page in this language. */
export function rulesUrl() {
  return `/rules?lang=${lang}`;
}
