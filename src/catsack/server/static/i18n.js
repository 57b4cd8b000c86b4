// The page's language and its texts: the one loader of every page's catalogue.
//
// The languages come from the server (/i18n/languages.json, made from catsack.locales), each with
// its catalogue static/i18n/<code>.json. The language is ?lang= in the address, then the reader's
// choice (kept in localStorage and in the `catsack_lang` cookie, which the server's pages read),
// then the browser's languages, then the server's default. A key missing from a catalogue shows the
// English text, never the key.
//
// Every visible string comes from the catalogue: HTML elements name their key in data-i18n (text),
// data-i18n-title, data-i18n-placeholder and data-i18n-aria-label; scripts call t(key, params).
// Numbers are written by the locale (Intl.NumberFormat: num()), dates and times by Intl.DateTimeFormat
// (date(), time()), lists by Intl.ListFormat (list()), and a text that depends on a count {n} is a
// plural entry {one, other, ...} whose form Intl.PluralRules picks.

const STORE_KEY = "catsack:lang";
const COOKIE = "catsack_lang";
// Used only when the server's list cannot be read (offline): English alone.
const FALLBACK_LIST = { languages: [{ code: "en", name: "English" }], default: "en", chosen: "en" };

async function fetchJson(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status}`);
  return response.json();
}

let served = FALLBACK_LIST;
try {
  served = await fetchJson("/i18n/languages.json");
} catch {
  // offline or an older server: English only
}

/** Every language a page can be read in: {code: name}, in the server's order. */
export const LANGUAGES = Object.fromEntries(served.languages.map(({ code, name }) => [code, name]));

function known(value) {
  return typeof value === "string" && Object.hasOwn(LANGUAGES, value) ? value : null;
}

function stored() {
  try {
    const value = known(window.localStorage.getItem(STORE_KEY));
    if (value) return value;
  } catch {
    // storage disabled: the cookie still remembers
  }
  const cookie = document.cookie.split("; ").find((c) => c.startsWith(`${COOKIE}=`));
  return known(cookie?.slice(COOKIE.length + 1));
}

function fromBrowser() {
  for (const tag of navigator.languages ?? [navigator.language ?? ""]) {
    const base = known(String(tag).toLowerCase().split("-")[0]);
    if (base) return base;
  }
  return null;
}

/** The language in use: ?lang= in the address, then the remembered choice, then the browser's. */
function chooseLanguage() {
  const asked = known(new URLSearchParams(window.location.search).get("lang"));
  if (asked) {
    remember(asked);
    return asked;
  }
  return stored() ?? fromBrowser() ?? known(served.chosen) ?? known(served.default) ?? "en";
}

function remember(code) {
  try {
    window.localStorage.setItem(STORE_KEY, code);
  } catch {
    // no storage: the cookie is enough
  }
  document.cookie = `${COOKIE}=${code}; path=/; max-age=31536000; SameSite=Lax`;
}

export const lang = chooseLanguage();

let catalogue = {};
let fallback = {};
try {
  fallback = await fetchJson("/static/i18n/en.json");
  catalogue = lang === "en" ? fallback : await fetchJson(`/static/i18n/${lang}.json`);
} catch {
  catalogue = fallback; // a missing catalogue shows English rather than keys
}
document.documentElement.lang = lang;

const plurals = new Intl.PluralRules(lang);
// Grouping from five digits on ("12,345", "12.345", "12 345"): ratings and scores stay "1500".
const numbers = new Intl.NumberFormat(lang, { maximumFractionDigits: 2, useGrouping: "min2" });
const lists = new Intl.ListFormat(lang, { type: "conjunction" });

/** A number in the page's language; with `digits`, exactly that many decimals ("2.5", "2,5"). */
export function num(value, digits = null) {
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  if (digits === null) return numbers.format(n);
  return new Intl.NumberFormat(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: "min2" }).format(n);
}

/** A date (a Date, an ISO string or milliseconds) in the page's language; `options` as Intl.DateTimeFormat's. */
export function date(value, options = { dateStyle: "medium" }) {
  const d = value instanceof Date ? value : new Date(value);
  return Number.isNaN(d.getTime()) ? "" : new Intl.DateTimeFormat(lang, options).format(d);
}

/** A time of day in the page's language ("14:05", "2:05 PM"). */
export function time(value = new Date()) {
  return date(value, { timeStyle: "short" });
}

/** "Ann, Bea and Cy" in the page's language. */
export function list(items) {
  return lists.format(items.map(String));
}

/** The form of a plural entry for the count `n` (Intl.PluralRules), else its `other` form. */
function pluralForm(value, n) {
  const form = Number.isFinite(Number(n)) ? plurals.select(Number(n)) : "other";
  return value[form] ?? value.other;
}

/**
 * The text for `key` with {name} placeholders filled from `params`; numbers are written by the
 * locale. A value may be a plural entry ({one, other, ...}) chosen by `params.n`.
 */
export function t(key, params = {}) {
  let value = catalogue[key] ?? fallback[key];
  if (value === undefined) return key;
  if (typeof value === "object") value = pluralForm(value, params.n);
  return value.replace(/\{(\w+)\}/g, (whole, name) => {
    if (!(name in params)) return whole;
    const param = params[name];
    return typeof param === "number" ? num(param) : String(param);
  });
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

/** "1 mouse" / "3 mice" in the page's language (a count whose plural the language's rules pick). */
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
    option.lang = code; // a screen reader says each language's name in that language
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
