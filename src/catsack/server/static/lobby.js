// The lobby: open tables, recent games, and the form that creates a table.

import { ago, api, ApiError, h, joinTable, loadName, seatLabel, storedSeats, forgetSeat } from "/static/api.js";

const BOT_LEVELS = [
  ["human", "Human (open seat)"],
  ["random", "Bot: random"],
  ["heuristic", "Bot: heuristic"],
  ["ismcts:easy", "Bot: ISMCTS easy"],
  ["ismcts:normal", "Bot: ISMCTS normal"],
  ["ismcts:strong", "Bot: ISMCTS strong"],
];
const DEFAULT_LEVEL = "heuristic";
const REFRESH_MS = 4000;

const $ = (id) => document.getElementById(id);

function showBanner(text) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
}

function seatCount() {
  return Number(document.querySelector('input[name="seats"]:checked')?.value ?? 4);
}

/** One select per seat other than ours; the chosen levels survive a change of seat count. */
function drawSeatSetup() {
  const list = $("seat-setup");
  const previous = [...list.querySelectorAll("select")].map((s) => s.value);
  list.replaceChildren();
  for (let seat = 1; seat < seatCount(); seat += 1) {
    const select = h(
      "select",
      { id: `seat-${seat}`, name: `seat-${seat}`, "aria-label": `Seat ${seat + 1}` },
      BOT_LEVELS.map(([value, label]) => h("option", { value }, label)),
    );
    select.value = previous[seat - 1] ?? DEFAULT_LEVEL;
    list.append(h("li", {}, h("label", { for: `seat-${seat}` }, `Seat ${seat + 1}`), select));
  }
}

function readForm() {
  const name = $("your-name").value.trim();
  if (!name) throw new Error("Please enter your name.");
  const bots = {};
  for (let seat = 1; seat < seatCount(); seat += 1) {
    const level = $(`seat-${seat}`).value;
    if (level !== "human") bots[String(seat)] = level;
  }
  const timer = $("turn-seconds").value.trim();
  let turnSeconds = null;
  if (timer) {
    turnSeconds = Number(timer);
    if (!Number.isInteger(turnSeconds) || turnSeconds < 10 || turnSeconds > 3600) {
      throw new Error("The turn timer must be a whole number of seconds from 10 to 3600, or empty.");
    }
  }
  return {
    name,
    table: {
      seats: seatCount(),
      bots,
      money_visible: $("money-visible").checked,
      turn_seconds: turnSeconds,
      hints: $("hints").checked,
      name: $("table-name").value.trim() || `${name}'s table`,
    },
  };
}

async function createTable(event) {
  event.preventDefault();
  const error = $("create-error");
  const button = $("create-button");
  error.hidden = true;
  let form;
  try {
    form = readForm();
  } catch (err) {
    error.textContent = err.message;
    error.hidden = false;
    return;
  }
  button.disabled = true;
  button.textContent = "Creating…";
  try {
    const table = await api("/api/tables", { method: "POST", body: form.table });
    await joinTable(table.table, form.name, 0);
    window.location.assign(`/t/${encodeURIComponent(table.table)}`);
  } catch (err) {
    error.textContent = err instanceof ApiError ? `Could not create the table: ${err.message}` : String(err);
    error.hidden = false;
    button.disabled = false;
    button.textContent = "Create table and sit down";
  }
}

function tableItem(table, extra) {
  const players = table.players ?? [];
  const open = players.filter((p) => p.status === "open").length;
  return h(
    "li",
    { class: "table-item" },
    h("a", { href: `/t/${encodeURIComponent(table.table)}`, class: "table-link" }, table.name || table.table),
    h(
      "span",
      { class: "table-meta" },
      `${table.seats} players`,
      open ? ` · ${open} open` : "",
      table.hints ? " · hints" : "",
      table.money_visible ? " · money shown" : "",
      table.turn_seconds ? ` · ${table.turn_seconds} s timer` : "",
    ),
    h("span", { class: "table-players" }, players.map(seatLabel).join(", ")),
    extra,
  );
}

async function refreshOpen() {
  try {
    const tables = await api("/api/tables");
    const list = $("open-tables");
    const items = (Array.isArray(tables) ? tables : (tables.tables ?? [])).map((t) =>
      tableItem(t, h("a", { class: "button small", href: `/t/${encodeURIComponent(t.table)}` }, "Join")),
    );
    list.replaceChildren(...(items.length ? items : [h("li", { class: "muted" }, "No open tables. Create one!")]));
    $("open-updated").textContent = `updated ${new Date().toLocaleTimeString()}`;
    showBanner("");
  } catch (err) {
    showBanner(`Cannot load the open tables: ${err.message}`);
  }
}

async function refreshFinished() {
  try {
    const tables = await api("/api/tables/finished?limit=20");
    const list = $("finished-tables");
    const items = (Array.isArray(tables) ? tables : (tables.tables ?? [])).map((t) =>
      tableItem(
        t,
        h(
          "span",
          { class: "table-actions" },
          h("span", { class: "muted" }, ago(t.finished)),
          h(
            "a",
            {
              class: "button small",
              href: `/api/tables/${encodeURIComponent(t.table)}/record`,
              download: `catsack-${t.table}.json`,
            },
            "Record",
          ),
        ),
      ),
    );
    list.replaceChildren(...(items.length ? items : [h("li", { class: "muted" }, "No finished games yet.")]));
  } catch {
    // the open-tables refresh already reports an unreachable server
  }
}

async function refreshMine() {
  const list = $("my-tables");
  const seats = storedSeats().slice(0, 10);
  const items = await Promise.all(
    seats.map(async ([tableId, seat]) => {
      try {
        const table = await api(`/api/tables/${encodeURIComponent(tableId)}`);
        const label = { open: "waiting for players", playing: "playing", over: "finished" }[table.status] ?? "";
        return tableItem(table, h("span", { class: "muted" }, `seat ${seat.seat + 1} as ${seat.name ?? "you"} · ${label}`));
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) forgetSeat(tableId);
        return null;
      }
    }),
  );
  const shown = items.filter(Boolean);
  $("mine-title").hidden = shown.length === 0;
  list.replaceChildren(...shown);
}

function start() {
  $("your-name").value = loadName();
  for (const radio of document.querySelectorAll('input[name="seats"]')) radio.addEventListener("change", drawSeatSetup);
  drawSeatSetup();
  $("create-form").addEventListener("submit", createTable);
  refreshOpen();
  refreshFinished();
  refreshMine();
  setInterval(() => {
    if (document.visibilityState === "visible") refreshOpen();
  }, REFRESH_MS);
  setInterval(() => {
    if (document.visibilityState === "visible") refreshFinished();
  }, REFRESH_MS * 4);
}

start();
