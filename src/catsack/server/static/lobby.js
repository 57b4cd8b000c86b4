// The lobby: open tables, recent games, and the form that creates a table.

import { ago, api, ApiError, h, loadName, saveName, saveSeat, seatLabel, storedSeats, forgetSeat } from "/static/api.js";
import { errorText, languagePicker, t, time, translatePage } from "/static/i18n.js";
import { BOT_LEVELS, listedPlayer, seatNames, seatTitles } from "/static/render.js";
import { currentAccount } from "/static/session.js";

// The choices per seat: an open seat for a person, or a bot level (the server's spec as value), weakest first.
const SEAT_CHOICES = ["human", ...BOT_LEVELS];
const QUICK_BOTS = "expert:normal"; // quick play with bots: the lobby's Normal level
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
      { id: `seat-${seat}`, name: `seat-${seat}`, "aria-label": t("seat.n", { n: seat + 1 }) },
      SEAT_CHOICES.map((value) =>
        h("option", { value, title: value === "human" ? null : value }, t(`lobby.level.${value}`)),
      ),
    );
    select.value = previous[seat - 1] ?? DEFAULT_LEVEL;
    list.append(h("li", {}, h("label", { for: `seat-${seat}` }, t("seat.n", { n: seat + 1 })), select));
  }
}

function readForm() {
  const name = $("your-name").value.trim();
  if (!name) throw new Error(t("lobby.enterName"));
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
      throw new Error(t("lobby.badTimer"));
    }
  }
  // A turn-based table (played over days) has its clock instead of a real-time turn timer.
  const days = document.querySelector('input[name="pace"]:checked')?.value === "days";
  return {
    name,
    table: {
      seats: seatCount(),
      bots,
      money_visible: $("money-visible").checked,
      turn_seconds: days ? null : turnSeconds,
      turn_based: days ? { move_hours: Number($("move-hours").value), bank_hours: Number($("bank-hours").value) } : null,
      hints: $("hints").checked,
      rated: $("rated").checked,
      private: $("private").checked,
      name: $("table-name").value.trim() || t("lobby.defaultTable", { name }),
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
  button.textContent = t("lobby.creating");
  try {
    // One request: the server checks the name before it creates anything (a refused name leaves no table).
    const table = await api("/api/tables", { method: "POST", body: { ...form.table, player: form.name } });
    saveSeat(table.table, table.seat, table.token, form.name);
    saveName(form.name);
    window.location.assign(`/t/${encodeURIComponent(table.table)}`);
  } catch (err) {
    error.textContent = t("lobby.createFailed", { detail: errorText(err) });
    error.hidden = false;
    button.disabled = false;
    button.textContent = t("lobby.create");
  }
}

/** A seat's name in a table summary, with its account's rating when the lobby lists one. */
function playerLabel(player, names, ratings) {
  if (player.status === "open" || player.kind === "open") return seatLabel(player);
  const rating = ratings?.[player.seat];
  if (player.guest) return `${names[player.seat]} (${t("seat.guest")})`;
  if (player.replaced && player.kind === "bot") return listedPlayer(names[player.seat], true);
  // A bot account (a program over the bot API) is marked as a bot, with its rating.
  const marks = [player.bot_account ? t("bots.badge") : null, typeof rating === "number" ? rating : null].filter((m) => m !== null);
  return marks.length ? `${names[player.seat]} (${marks.join(", ")})` : names[player.seat];
}

function tableItem(table, extra) {
  const players = table.players ?? [];
  const open = players.filter((p) => p.status === "open").length;
  const names = seatNames(players, table.seats);
  const titles = seatTitles(players, table.seats, names);
  const ratings = table.ratings ?? null;
  return h(
    "li",
    { class: "table-item" },
    h("a", { href: `/t/${encodeURIComponent(table.table)}`, class: "table-link" }, table.name || table.table),
    h(
      "span",
      { class: "table-meta" },
      t("players.n", { n: table.seats }),
      open ? ` · ${t("lobby.nOpen", { n: open })}` : "",
      table.hints ? ` · ${t("lobby.withHints")}` : "",
      table.money_visible ? ` · ${t("lobby.moneyShown")}` : "",
      table.turn_seconds ? ` · ${t("lobby.timerN", { n: table.turn_seconds })}` : "",
      table.turn_based ? ` · ${t("days.perMove", { n: table.turn_based.move_hours })}` : "",
      table.rated ? ` · ${t("lobby.ratedTag")}` : "",
      table.private ? ` · ${t("lobby.privateTag")}` : "",
    ),
    h(
      "span",
      { class: "table-players", title: titles.join(", ") },
      players.map((p) => playerLabel(p, names, ratings)).join(", "),
    ),
    extra,
  );
}

async function refreshOpen() {
  try {
    const tables = await api("/api/tables");
    const list = $("open-tables");
    const items = (Array.isArray(tables) ? tables : (tables.tables ?? [])).map((tb) =>
      tableItem(tb, h("a", { class: "button small", href: `/t/${encodeURIComponent(tb.table)}` }, t("lobby.join"))),
    );
    list.replaceChildren(...(items.length ? items : [h("li", { class: "muted" }, t("lobby.noOpen"))]));
    $("open-updated").textContent = t("lobby.updated", { time: time() });
    showBanner("");
  } catch (err) {
    showBanner(t("lobby.loadFailed", { detail: errorText(err) }));
  }
}

async function refreshFinished() {
  try {
    const tables = await api("/api/tables/finished?limit=20");
    const list = $("finished-tables");
    const items = (Array.isArray(tables) ? tables : (tables.tables ?? [])).map((tb) =>
      tableItem(
        tb,
        h(
          "span",
          { class: "table-actions" },
          h("span", { class: "muted" }, ago(tb.finished)),
          // the replay page
          h("a", { class: "button small", href: `/replay/${encodeURIComponent(tb.table)}` }, t("lobby.replay")),
          h(
            "a",
            {
              class: "button small",
              href: `/api/tables/${encodeURIComponent(tb.table)}/record`,
              download: `catsack-${tb.table}.json`,
            },
            t("lobby.record"),
          ),
        ),
      ),
    );
    list.replaceChildren(...(items.length ? items : [h("li", { class: "muted" }, t("lobby.noFinished"))]));
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
        const label = ["open", "playing", "over"].includes(table.status) ? t(`lobby.mine.${table.status}`) : "";
        return tableItem(
          table,
          h("span", { class: "muted" }, t("lobby.mySeat", { n: seat.seat + 1, name: seat.name ?? t("seat.you"), status: label })),
        );
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

/** Quick play: the first open public table with the chosen seat count, or a new one; with
 * `bots`, a new table whose other seats that bot level takes, so the game starts at once. */
async function quickPlay(bots = null) {
  const error = $("create-error");
  const button = $(bots ? "quick-bots" : "quick-play");
  error.hidden = true;
  const name = $("your-name").value.trim();
  if (!account && !name) {
    error.textContent = t("lobby.enterName");
    error.hidden = false;
    $("your-name").focus();
    return;
  }
  button.disabled = true;
  try {
    const body = { seats: seatCount() };
    if (!account) body.name = name;
    if (bots) body.bots = bots;
    const joined = await api("/api/quickplay", { method: "POST", body });
    const shown = account?.name ?? name;
    saveSeat(joined.table, joined.seat, joined.token, shown);
    if (!account) saveName(name);
    window.location.assign(`/t/${encodeURIComponent(joined.table)}`);
  } catch (err) {
    error.textContent = t("lobby.quickFailed", { detail: errorText(err) });
    error.hidden = false;
    button.disabled = false;
  }
}

// The logged-in account (GET /api/account), or null for a guest.
let account = null;

/** The header's account link and the rated option: rated tables are for accounts. */
async function showAccount() {
  account = await currentAccount();
  const link = $("account-link");
  $("account-text").textContent = account ? account.name : t("acct.login");
  link.title = account ? t("acct.account") : "";
  link.classList.toggle("logged-in", Boolean(account));
  if (account) {
    $("your-name").value = account.name;
    $("your-name").readOnly = true;
  }
  $("rated").disabled = !account;
  if (!account) $("rated").checked = false;
  $("rated-hint").hidden = Boolean(account);
  document.body.dataset.account = account ? "signed-in" : "guest"; // the form is settled (tests wait for it)
}

function start() {
  translatePage();
  document.title = t("brand");
  $("lang-slot").replaceChildren(languagePicker());
  $("your-name").value = $("your-name").value || loadName(); // keep what was typed before the script ran
  for (const radio of document.querySelectorAll('input[name="seats"]')) radio.addEventListener("change", drawSeatSetup);
  drawSeatSetup();
  for (const radio of document.querySelectorAll('input[name="pace"]')) {
    radio.addEventListener("change", () => {
      $("turn-based-options").hidden = document.querySelector('input[name="pace"]:checked')?.value !== "days";
    });
  }
  $("create-form").addEventListener("submit", createTable);
  $("quick-play").addEventListener("click", () => quickPlay());
  $("quick-bots").addEventListener("click", () => quickPlay(QUICK_BOTS));
  showAccount();
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
