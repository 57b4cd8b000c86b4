// HTTP helpers and the seat tokens kept in localStorage.

import { date, t } from "/static/i18n.js";

const TOKEN_PREFIX = "catsack:seat:";
const NAME_KEY = "catsack:name";

/**
 * A refused request: the HTTP status, the server's stable `code`, the details of its message as
 * `params` (with `seconds` from a Retry-After header) and its English `detail` as the message.
 * Pages show it with errorText() (i18n.js), which words it in the page's language.
 */
export class ApiError extends Error {
  constructor(status, detail, code = null, params = {}) {
    super(detail);
    this.status = status;
    this.code = code;
    this.params = params;
  }
}

// The code of an answer that names none (a proxy's 502 page, an older server): by its status.
const STATUS_CODES = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "too_large",
  422: "invalid",
  429: "rate_limited",
  500: "server_error",
  502: "unavailable",
  503: "unavailable",
  504: "unavailable",
};

/** The ApiError for a refused `response` (its JSON body `{detail, code, params}` when it has one). */
export async function errorFrom(response) {
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: the status says it all
  }
  let detail = `${response.status} ${response.statusText || "error"}`;
  if (typeof body?.detail === "string") detail = body.detail;
  else if (Array.isArray(body?.detail)) detail = body.detail.map((d) => d.msg ?? String(d)).join("; ");
  const code = typeof body?.code === "string" ? body.code : (STATUS_CODES[response.status] ?? null);
  const params = body?.params && typeof body.params === "object" ? { ...body.params } : {};
  const retry = Number(response.headers.get("Retry-After"));
  if (params.seconds === undefined && Number.isFinite(retry) && retry > 0) params.seconds = retry;
  return new ApiError(response.status, detail, code, params);
}

/** Fetch JSON from the API; throws ApiError with the server's message on a 4xx/5xx. */
export async function api(path, { method = "GET", body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, t("err.unreachable"), "unreachable");
  }
  if (!response.ok) throw await errorFrom(response);
  return response.status === 204 ? null : response.json();
}

/** Download a JSON answer as a file (used for records that need a bearer token). */
export async function downloadJson(path, filename, token) {
  const data = await api(path, { token });
  const blob = new Blob([JSON.stringify(data, null, 2) + "\n"], { type: "application/json" });
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: seats then last only as long as the page
  }
}

/** The stored seat {seat, token, name, saved} for a table, or null. */
export function loadSeat(tableId) {
  const raw = storage()?.getItem(TOKEN_PREFIX + tableId);
  if (!raw) return null;
  try {
    const seat = JSON.parse(raw);
    return typeof seat?.token === "string" && Number.isInteger(seat.seat) ? seat : null;
  } catch {
    return null;
  }
}

export function saveSeat(tableId, seat, token, name) {
  storage()?.setItem(TOKEN_PREFIX + tableId, JSON.stringify({ seat, token, name, saved: Date.now() }));
}

export function forgetSeat(tableId) {
  storage()?.removeItem(TOKEN_PREFIX + tableId);
}

/** Every stored seat as [tableId, seat], newest first. */
export function storedSeats() {
  const store = storage();
  if (!store) return [];
  const seats = [];
  for (let i = 0; i < store.length; i += 1) {
    const key = store.key(i);
    if (!key?.startsWith(TOKEN_PREFIX)) continue;
    const tableId = key.slice(TOKEN_PREFIX.length);
    const seat = loadSeat(tableId);
    if (seat) seats.push([tableId, seat]);
  }
  return seats.sort((a, b) => (b[1].saved ?? 0) - (a[1].saved ?? 0));
}

export function loadName() {
  return storage()?.getItem(NAME_KEY) ?? "";
}

export function saveName(name) {
  if (name) storage()?.setItem(NAME_KEY, name);
}

/** Join a table and remember the seat token; returns {seat, token, table}. */
export async function joinTable(tableId, name, seat) {
  const body = { name };
  if (seat !== undefined && seat !== null) body.seat = seat;
  const joined = await api(`/api/tables/${encodeURIComponent(tableId)}/join`, { method: "POST", body });
  saveSeat(tableId, joined.seat, joined.token, name);
  saveName(name);
  return joined;
}

/** A small DOM builder: h("button", {class: "x", onclick}, "text", child...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "html") el.innerHTML = value; // only ever used with our own constant SVG
    else if (key === "style") el.style.cssText = value; // a style attribute would break the CSP (style-src)
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A seat in a table summary: the player's name, or "open seat". */
export function seatLabel(player) {
  if (player.kind === "open" || player.status === "open") return t("status.open");
  return player.name ?? t("seat.n", { n: player.seat + 1 });
}

/** A short relative time ("2 min ago") for an ISO date. */
export function ago(iso) {
  if (!iso) return "";
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.max(0, Math.round((Date.now() - then) / 1000));
  if (seconds < 60) return t("ago.now");
  if (seconds < 3600) return t("ago.min", { n: Math.round(seconds / 60) });
  if (seconds < 86400) return t("ago.h", { n: Math.round(seconds / 3600) });
  return date(then);
}

/** Replace an element's children, skipping null/false (replaceChildren would show them as text). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}
