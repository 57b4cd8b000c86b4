// The table page: join or watch, then play over catsack-ws/1.
//
// The page keeps no game state of its own: every `state` frame carries the
// receiver's whole view and the page redraws from it. Events are used only
// for the log and for brief animations.

import { api, ApiError, downloadJson, forgetSeat, h, joinTable, loadName, loadSeat, saveSeat, seatLabel } from "/static/api.js";
import { cardLabel } from "/static/cards.js";
import { TableConnection } from "/static/connection.js";
import { duration } from "/static/days.js";
import { addReviewButtons, noteRematch } from "/static/rematch.js";
import { describeEvent } from "/static/events.js";
import { currentAccount } from "/static/session.js";
import { Chat, handToBotButton, TurnAlerts } from "/static/social.js";
import { date, errorText, languagePicker, rulesUrl, t, translatePage } from "/static/i18n.js";
import { announce } from "/static/live.js";
import { TextTable } from "/static/textmode.js";
import {
  BOT_LEVELS,
  drawFinal,
  drawHand,
  drawHint,
  drawLastRound,
  drawMouseCards,
  drawPreview,
  drawRow,
  drawSeats,
  helpTip,
  moveText,
  seatNames,
  seatTitles,
  statusLabel,
} from "/static/render.js";

const $ = (id) => document.getElementById(id);

const MOVE_TIMEOUT_MS = 10000;
const JOIN_REFRESH_MS = 3000;
const LOG_LIMIT = 400;
const MAX_ANIMATED_EVENTS = 16; // a long catch-up after a reconnect is logged, not animated

const tableId = decodeURIComponent(window.location.pathname.split("/").filter(Boolean)[1] ?? "");

const state = {
  table: null, // the table as GET /api/tables/{id} shows it (options, players)
  seat: loadSeat(tableId), // {seat, token, name} or null
  version: null,
  view: null,
  players: [],
  tableStatus: null,
  deadline: null,
  pending: null, // the move in flight: {actionId, move, timer}
  hint: null,
  hintPending: false,
  loggedVersion: -1,
  statesSeen: 0,
  connection: "idle",
  turnSaid: null, // the version whose "your turn" was last announced
};
let connection = null;
let joinTimer = null;
// The chat panel and the turn alerts (made in start()), the logged-in account or null.
let chat = null;
let alerts = null;
let textTable = null;
let account;
// Hooks for page add-ons (the guided game's coach): frameHooks get each state frame after it
// is drawn, drawHooks run after every redraw of the controls.
const frameHooks = [];
const drawHooks = [];

/** A touch screen without a fine pointer: no keyboard badges or shortcut hints. */
const TOUCH = window.matchMedia("(hover: none) and (pointer: coarse)").matches ||
  (navigator.maxTouchPoints > 0 && !window.matchMedia("(any-pointer: fine)").matches);

// ---------------------------------------------------------------- banner

function showBanner(text, { kind = "error", actions = [], autoHideMs = 0 } = {}) {
  const banner = $("banner");
  banner.dataset.kind = kind;
  $("banner-text").textContent = text;
  $("banner-actions").replaceChildren(...actions);
  banner.hidden = false;
  announce(text);
  clearTimeout(showBanner.timer);
  if (autoHideMs) showBanner.timer = setTimeout(hideBanner, autoHideMs);
}

function hideBanner() {
  $("banner").hidden = true;
}

// ---------------------------------------------------------------- helpers

let actionCounter = 0;

/** A unique action id; crypto.randomUUID needs a secure context, getRandomValues does not. */
function newActionId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const random = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  actionCounter += 1;
  return `${Date.now().toString(36)}-${actionCounter}-${random}`;
}

function names() {
  const seats = state.view?.seats ?? state.table?.seats ?? 0;
  return seatNames(state.players.length ? state.players : state.table?.players, seats);
}

function titles(namesList) {
  const seats = state.view?.seats ?? state.table?.seats ?? 0;
  return seatTitles(state.players.length ? state.players : state.table?.players, seats, namesList);
}

function inviteLink() {
  return `${window.location.origin}/t/${encodeURIComponent(tableId)}`;
}

function legalBids(view) {
  return view.legal.filter((m) => m.startsWith("bid ")).map((m) => Number(m.slice(4)));
}

function myTurn() {
  const view = state.view;
  return Boolean(view && view.seat !== null && view.to_move === view.seat && state.tableStatus === "playing");
}

function canAct() {
  return myTurn() && !state.pending && state.connection === "open";
}

// ---------------------------------------------------------------- joining

async function loadTable() {
  state.table = await api(`/api/tables/${encodeURIComponent(tableId)}`);
  // The guided game's table is named in the learner's language.
  const lesson = window.localStorage?.getItem(`catsack:learn:${tableId}`);
  const title = (lesson ? t("learn.tableName") : state.table.name) || t("table.named", { id: tableId });
  $("table-title").textContent = title;
  $("table-title").title = title;
  document.title = `${title} — ${t("brand")}`;
  if (!state.players.length) state.players = state.table.players ?? [];
}

function drawJoinPanel() {
  const table = state.table;
  const players = table.players ?? [];
  const open = players.filter((p) => p.status === "open");
  const statusText = ["open", "playing", "over"].includes(table.status) ? t(`join.status.${table.status}`) : table.status;
  const shown = seatNames(players, table.seats);
  $("join-summary").textContent =
    `${t("players.n", { n: table.seats })} · ${statusText}` +
    (open.length ? ` · ${t("join.open", { n: open.length })}` : ` · ${t("join.noOpen")}`);
  $("join-seats").replaceChildren(
    ...players.map((player) =>
      h(
        "li",
        { class: `join-seat status-${player.status}` },
        h(
          "span",
          { class: "seat-name" },
          t("seat.n", { n: player.seat + 1 }),
          ": ",
          player.status === "open" ? seatLabel(player) : shown[player.seat],
          player.guest ? ` (${t("seat.guest")})` : "",
        ),
        h("span", { class: `tag status ${player.status}` }, statusLabel(player.status)),
        player.status === "open"
          ? h(
              "button",
              {
                class: "button primary small",
                type: "button",
                dataset: { seat: String(player.seat) },
                "aria-label": t("join.takeN", { n: player.seat + 1 }),
                onclick: () => takeSeat(player.seat),
              },
              t("join.take"),
            )
          : null,
      ),
    ),
  );
}

async function refreshJoinPanel() {
  try {
    await loadTable();
    drawJoinPanel();
  } catch (err) {
    showBanner(t("err.loadTable", { detail: errorText(err) }));
  }
}

function showJoin() {
  $("join-panel").hidden = false;
  $("game").hidden = true;
  $("join-name").value = $("join-name").value || loadName();
  drawJoinPanel();
  offerTakeover();
  clearInterval(joinTimer);
  joinTimer = setInterval(() => {
    if (document.visibilityState === "visible") refreshJoinPanel();
  }, JOIN_REFRESH_MS);
}

async function takeSeat(seat) {
  const name = $("join-name").value.trim();
  const error = $("join-error");
  if (!name) {
    error.textContent = t("join.nameFirst");
    error.hidden = false;
    announce(error.textContent);
    $("join-name").focus();
    return;
  }
  error.hidden = true;
  try {
    const joined = await joinTable(tableId, name, seat);
    state.seat = { seat: joined.seat, token: joined.token, name };
    enterGame();
  } catch (err) {
    error.textContent = t("join.failed", { n: seat + 1, detail: errorText(err) });
    error.hidden = false;
    announce(error.textContent);
    refreshJoinPanel();
  }
}

function watch() {
  state.seat = null;
  enterGame();
}

// ---------------------------------------------------------------- connection

function enterGame() {
  clearInterval(joinTimer);
  $("join-panel").hidden = true;
  $("game").hidden = false;
  connection?.stop();
  connection = new TableConnection({
    table: tableId,
    token: () => state.seat?.token ?? null,
    // On a fresh page ask from version 0: the first state frame then carries the whole log so far.
    since: () => state.version ?? 0,
    onFrame: handleFrame,
    onStatus: setConnectionStatus,
  });
  connection.start();
  render();
}

function setConnectionStatus(status, detail) {
  state.connection = status;
  const label = ["connecting", "open", "waiting", "stopped"].includes(status) ? t(`conn.${status}`, { detail }) : status;
  const el = $("connection");
  el.firstElementChild.textContent = label;
  el.title = label;
  el.dataset.state = status;
  if (status !== "open") clearPending();
  if (status === "open" && $("banner").dataset.kind === "connection") hideBanner();
  if (status === "waiting" && connection?.attempt > 1) {
    showBanner(t("conn.lost", { detail }), {
      kind: "connection",
      actions: [h("button", { class: "button small", type: "button", onclick: () => connection.retryNow() }, t("conn.retry"))],
    });
  }
  renderControls();
}

function handleFrame(frame) {
  switch (frame.type) {
    case "welcome":
      if (state.seat && frame.seat !== state.seat.seat && frame.seat !== null) state.seat.seat = frame.seat;
      chat?.setSeat(frame.seat ?? null);
      break;
    case "chat":
      chat?.receive(frame);
      break;
    case "ratings":
      showRatings(frame);
      break;
    case "state":
      applyState(frame);
      break;
    case "ack":
      if (state.pending?.actionId === frame.action_id) clearPending();
      renderControls();
      break;
    case "error":
      handleError(frame);
      break;
    case "players":
      state.players = frame.players ?? state.players;
      render();
      break;
    case "notice": {
      const text = noticeText(frame);
      showBanner(text, { kind: "notice", autoHideMs: 8000 });
      appendLog(text, "notice");
      break;
    }
    case "rematch": // someone pressed "Play again"
      noteRematch(frame);
      render();
      break;
    case "hint":
      state.hintPending = false;
      if (frame.version === state.version) state.hint = frame;
      render();
      if (state.hint === frame) announce(`${t("hint.best")} ${moveText(frame.best)}`, "hint");
      // Below the hand on a laptop's screen the panel would open under the fold.
      if (state.hint === frame) $("hint-panel").scrollIntoView({ block: "nearest" });
      break;
    default:
      break; // pong and anything newer than this client
  }
}

function applyState(frame) {
  const animate = state.statesSeen > 0 && (frame.events?.length ?? 0) <= MAX_ANIMATED_EVENTS;
  state.statesSeen += 1;
  const eventNames = seatNames(frame.players ?? state.players, frame.view?.seats ?? 0);
  // The first frame carries the game so far: logged, not read out; later events are said once each.
  const say = state.statesSeen > 1;
  for (const event of frame.events ?? []) {
    if (event.version > state.loggedVersion || state.loggedVersion < 0) {
      const text = describeEvent(event, eventNames);
      appendLog(text, event.kind);
      if (say) announce(text, "event");
    }
  }
  if (frame.events?.length) state.loggedVersion = Math.max(state.loggedVersion, ...frame.events.map((e) => e.version));
  state.version = frame.version;
  state.view = frame.view;
  state.players = frame.players ?? state.players;
  state.tableStatus = frame.table_status ?? state.tableStatus;
  state.deadline = frame.deadline ?? null;
  state.clock = frame.clock ?? null;
  if (state.pending && state.pending.version < frame.version) clearPending();
  if (state.hint && state.hint.version !== frame.version) state.hint = null;
  render();
  if (animate) animateEvents(frame.events ?? []);
  alerts?.update(myTurn());
  if (myTurn() && state.turnSaid !== state.version) {
    state.turnSaid = state.version;
    announce(statusText(state.view, names()), "turn");
  }
  for (const hook of frameHooks) hook(frame, state);
}

/** A rated game ended: everyone's change in the log, ours in the banner too. */
function showRatings(frame) {
  const seatNamesList = names();
  for (const c of frame.changes ?? []) {
    appendLog(t("rating.log", { name: seatNamesList[c.seat], before: c.before, after: c.after, rank: c.rank }), "rating");
  }
  const mine = (frame.changes ?? []).find((c) => c.seat === state.view?.seat && state.view?.seat !== null);
  if (mine) showBanner(t("rating.change", { before: mine.before, after: mine.after }), { kind: "rating" });
}

// ---------------------------------------------------------------- accounts and the host

/** The logged-in account ({name, rating, ...}) or null; asked once. */
async function loggedIn() {
  if (account === undefined) account = await currentAccount();
  return account;
}

/** The seat of a person at this table playing under the logged-in account's name, or null. */
async function accountSeat() {
  const me = await loggedIn();
  if (!me) return null;
  const players = state.players.length ? state.players : (state.table?.players ?? []);
  const player = players.find((p) => p.kind === "human" && p.name === me.name);
  return player ? player.seat : null;
}

/** A logged-in account holds a seat here but this browser has no token for it: offer to take it over. */
async function offerTakeover() {
  const me = await loggedIn();
  if (me) {
    // An account sits under its own name (the server uses it whatever is typed).
    $("join-name").value = me.name;
    $("join-name").readOnly = true;
  }
  $("join-rated").hidden = Boolean(me) || !state.table?.rated; // rated tables seat accounts and bots only
  const seat = state.seat ? null : await accountSeat();
  const box = $("takeover");
  box.hidden = seat === null;
  if (seat !== null) $("takeover-text").textContent = t("takeover.offer", { name: account.name, n: seat + 1 });
}

async function takeOver() {
  try {
    const joined = await api(`/api/tables/${encodeURIComponent(tableId)}/takeover`, { method: "POST" });
    saveSeat(tableId, joined.seat, joined.token, account?.name);
    state.seat = { seat: joined.seat, token: joined.token, name: account?.name };
    $("takeover").hidden = true;
    hideBanner();
    enterGame();
  } catch (err) {
    showBanner(t("takeover.failed", { detail: errorText(err) }));
  }
}

/** The table's host: the seat its creator took (the first seat not given a bot at creation). */
function hostSeat() {
  if (Number.isInteger(state.table?.host_seat)) return state.table.host_seat;
  const first = (state.table?.players ?? []).find((p) => p.kind !== "bot" || p.replaced);
  return first ? first.seat : null;
}

/** The waiting room of a table with open seats: who is missing, and for its host the bots that can
 * take the open seats now (POST /api/tables/{id}/bots), so nobody waits for people who never come. */
function drawWaiting(waiting) {
  const box = $("waiting");
  box.hidden = !waiting;
  if (!waiting) return;
  const open = state.players.filter((p) => p.status === "open").length;
  const host = state.seat !== null && state.seat?.seat === hostSeat();
  $("waiting-text").textContent = t(host ? "wait.host" : "wait.guest", { n: open });
  $("fill-bots").hidden = !host;
  const select = $("fill-level");
  if (host && !select.options.length) {
    for (const level of BOT_LEVELS) select.append(h("option", { value: level }, t(`lobby.level.${level}`)));
    select.value = "expert:normal";
  }
}

async function fillWithBots() {
  const button = $("fill-button");
  const error = $("fill-error");
  error.hidden = true;
  button.disabled = true;
  try {
    await api(`/api/tables/${encodeURIComponent(tableId)}/bots`, {
      method: "POST",
      body: { level: $("fill-level").value },
      token: state.seat?.token,
    });
  } catch (err) {
    error.textContent = t("wait.failed", { detail: errorText(err) });
    error.hidden = false;
    announce(error.textContent);
  } finally {
    button.disabled = false;
  }
}

/** The host's "Hand to a bot" button beside every away player's seat (only in the host's browser). */
function drawHostButtons() {
  const mine = state.seat?.seat;
  if (mine === undefined || mine !== hostSeat() || state.tableStatus !== "playing" || state.view?.seat !== mine) return;
  if (state.clock) return; // a turn-based seat goes to a bot only when its clock runs out (err.clock_running)
  for (const player of state.players) {
    // A bot account's seat is a person's here (it has a connection that can be away), shown as a bot.
    if (player.seat === mine || (player.kind !== "human" && !player.bot_account) || player.status !== "away") continue;
    const head = document.querySelector(`#seat-${player.seat} .seat-head`);
    if (!head || head.querySelector(".hand-to-bot")) continue;
    head.append(
      handToBotButton(tableId, player.seat, state.seat.token, (error) => {
        if (error) showBanner(t("host.failed", { detail: error }), { autoHideMs: 6000 });
      }),
    );
  }
}

/** A server notice in the page's language (the server's own text is English). */
function noticeText(frame) {
  if (frame.code === "timer") {
    const move = /played (.+) for you/.exec(frame.message ?? "")?.[1];
    return move ? t("notice.timer", { move: moveText(move) }) : t("notice.timerPlain");
  }
  return frame.message ?? "";
}

function resync() {
  connection?.send({ type: "resync", since: state.version });
}

function handleError(frame) {
  const mine = state.pending && (!frame.action_id || frame.action_id === state.pending.actionId);
  switch (frame.code) {
    case "stale":
      // The table moved on before our move arrived: nothing was played; fetch the fresh state.
      if (mine) clearPending();
      resync();
      break;
    case "not_your_turn":
    case "illegal":
    case "game_over":
      if (mine) clearPending();
      showBanner(errorText(frame), { autoHideMs: 6000 });
      resync();
      break;
    case "bad_chat":
      showBanner(errorText(frame), { autoHideMs: 6000 });
      break;
    case "hints_off":
      state.hintPending = false;
      showBanner(errorText(frame), { autoHideMs: 5000 });
      break;
    case "replaced":
      connection.stop("replaced");
      forgetSeat(tableId);
      state.seat = null;
      showBanner(t("err.replaced"), {
        kind: "replaced",
        actions: [
          h("button", { class: "button small", type: "button", onclick: () => (hideBanner(), watch()) }, t("err.watch")),
          h("a", { class: "button small", href: "/" }, t("backToLobby")),
        ],
      });
      // Another device of this account took the seat over; it can be taken back here.
      accountSeat().then((seat) => {
        if (seat === null || state.seat) return;
        showBanner(t("takeover.offer", { name: account.name, n: seat + 1 }), {
          kind: "replaced",
          actions: [
            h("button", { class: "button small primary", type: "button", onclick: takeOver }, t("takeover.button")),
            h("button", { class: "button small", type: "button", onclick: () => (hideBanner(), watch()) }, t("err.watch")),
          ],
        });
      });
      break;
    case "unauthorized":
      connection.stop("unauthorized");
      if (state.seat) {
        forgetSeat(tableId);
        state.seat = null;
        showBanner(t("err.seatInvalid"));
        refreshJoinPanel().then(showJoin);
      } else {
        showBanner(t("err.unauthorized"));
      }
      break;
    case "unknown_table":
      connection.stop("unknown table");
      showBanner(t("err.unknown_table"), {
        actions: [h("a", { class: "button small", href: "/" }, t("backToLobby"))],
      });
      break;
    case "rate_limited":
      showBanner(errorText(frame), { autoHideMs: 4000 });
      break;
    default:
      if (mine) clearPending();
      showBanner(errorText(frame), { autoHideMs: 8000 });
      break;
  }
  renderControls();
}

// ---------------------------------------------------------------- actions

function clearPending() {
  if (!state.pending) return;
  clearTimeout(state.pending.timer);
  state.pending = null;
}

function sendMove(move) {
  const view = state.view;
  if (!canAct() || !view.legal.includes(move)) return;
  const actionId = newActionId();
  state.pending = {
    actionId,
    move,
    version: state.version,
    // No answer at all: forget the move and ask for the state; a repeat is safe (same action_id rule).
    timer: setTimeout(() => {
      state.pending = null;
      resync();
      renderControls();
    }, MOVE_TIMEOUT_MS),
  };
  if (!connection.send({ type: "move", action_id: actionId, version: state.version, move })) clearPending();
  renderControls();
}

function bidFromInput() {
  const view = state.view;
  if (!view) return;
  const bids = legalBids(view);
  if (!bids.length) return;
  const input = $("bid-amount");
  const amount = Number(input.value);
  if (!Number.isInteger(amount) || !bids.includes(amount)) {
    showBanner(t("err.bidRange", { min: Math.min(...bids), max: Math.max(...bids) }), { autoHideMs: 4000 });
    input.focus();
    return;
  }
  sendMove(`bid ${amount}`);
}

function askHint() {
  if (!state.table?.hints || !myTurn() || state.hintPending) return;
  state.hintPending = true;
  connection.send({ type: "hint" });
  renderControls();
}

function stepBid(delta) {
  const input = $("bid-amount");
  if (input.disabled) return;
  const min = Number(input.min);
  const max = Number(input.max);
  const value = Number(input.value) || min;
  input.value = String(Math.min(max, Math.max(min, value + delta)));
}

async function copyInvite() {
  const link = inviteLink();
  const text = $("invite-text");
  try {
    await navigator.clipboard.writeText(link);
    text.textContent = t("invite.copied");
    setTimeout(() => (text.textContent = t("invite.copy")), 2000);
  } catch {
    // No clipboard (insecure context or permission refused): show the link to copy by hand.
    const fallback = $("invite-fallback");
    fallback.hidden = false;
    const input = $("invite-link");
    input.focus();
    input.select();
  }
}

// ---------------------------------------------------------------- drawing

function render() {
  const view = state.view;
  document.body.dataset.version = state.version ?? "";
  document.body.dataset.tableStatus = state.tableStatus ?? "";
  if (!view) {
    $("status-line").textContent = t("status.connectingTable");
    renderControls();
    return;
  }
  const focusKey = document.activeElement?.dataset?.key;
  const seatNamesList = names();
  const seatTitleList = titles(seatNamesList);
  document.body.dataset.phase = view.phase;
  document.body.dataset.seat = view.seat ?? "spectator";
  document.body.dataset.round = String(view.round);

  // Until every seat is taken nothing has started: no round, board or hand, but a waiting room.
  const waiting = state.tableStatus === "open";
  drawWaiting(waiting);
  const badge = $("round-badge");
  badge.hidden = waiting;
  badge.textContent = view.phase === "over" ? t("badge.over") : t("badge.round", { round: view.round });
  $("board").hidden = waiting;

  drawSeats($("seats"), view, state.players, seatNamesList, seatTitleList, { waiting });
  drawHostButtons();
  drawRow($("row"), view, seatNamesList, seatTitleList);
  drawMouseCards($("mouse-cards"), view);
  drawLastRound($("last-round"), view, seatNamesList, seatTitleList);
  drawPreview($("preview"), view);
  $("bank").textContent = t("mice", { n: view.bank });
  // "None yet" only while bids can still come (not at the end screen).
  $("high-bid").textContent = view.high_bid
    ? `${view.high_bid} (${seatNamesList[view.high_bidder]})`
    : view.phase === "placement" || view.phase === "over"
      ? "–"
      : t("board.noneYet");
  $("start-player").textContent = seatNamesList[view.start];
  $("start-player").title = seatTitleList[view.start];

  const me = view.seat;
  $("me").hidden = me === null || view.phase === "over" || waiting;
  if (me !== null) {
    $("my-money").textContent = t("me.money", { mice: t("mice", { n: view.money[me] }) });
    $("my-removed").textContent = view.removed ? t("me.removed", { card: cardLabel(view.removed) }) : "";
    $("my-removed-box").hidden = !view.removed;
  }

  const final = $("final");
  final.hidden = view.phase !== "over";
  if (view.phase === "over") {
    drawFinal(final, view, seatNamesList, {
      recordUrl: `/api/tables/${encodeURIComponent(tableId)}/record`,
      onMyRecord: state.seat
        ? () =>
            downloadJson(
              `/api/tables/${encodeURIComponent(tableId)}/record/${state.seat.seat}`,
              `catsack-${tableId}-seat${state.seat.seat + 1}.json`,
              state.seat.token,
            ).catch((err) => showBanner(t("err.record", { detail: errorText(err) })))
        : null,
    });
    addReviewButtons(final, tableId, state.seat);
    final.querySelector("#tournament-link")?.parentElement.remove(); // redrawn
    if (state.table?.tournament) {
      // A tournament's game: back to its page (standings, the next round's table).
      final.append(
        h("p", {}, h("a", { class: "button primary", id: "tournament-link", href: `/tournaments/${encodeURIComponent(state.table.tournament)}` }, t("tour.back"))),
      );
    }
  }

  const hintPanel = $("hint-panel");
  hintPanel.hidden = !state.hint;
  if (state.hint) drawHint(hintPanel, state.hint, view, seatNamesList);

  renderControls();
  if (focusKey) {
    const again = document.querySelector(`[data-key="${CSS.escape(focusKey)}"]`);
    if (again && !again.disabled) again.focus();
  }
}

function statusText(view, seatNamesList) {
  if (state.tableStatus === "open") {
    const open = state.players.filter((p) => p.status === "open").length;
    return t("status.waitingPlayers", { n: open });
  }
  if (view.phase === "over") return t("status.over");
  if (state.connection === "stopped") return t("status.disconnected");
  if (state.connection === "connecting") return t("status.connectingTable");
  if (state.connection !== "open") return t("status.reconnecting");
  const mover = view.to_move === null ? "" : seatNamesList[view.to_move];
  if (view.seat === null) return t("status.watching", { name: mover });
  if (state.pending) return t("status.sending", { move: moveText(state.pending.move) });
  if (!myTurn()) return t("status.waitingFor", { name: mover });
  // The text table names its commands, a keyboard its keys; a touch screen neither.
  const keys = textTable?.on ? "Text" : TOUCH ? "" : "Keys";
  if (view.phase === "placement") return t(`status.place${keys}`, { n: view.hand.length });
  if (view.phase === "last choice") return t(keys === "Text" ? "status.lastChoiceText" : "status.lastChoice");
  const bids = legalBids(view);
  return bids.length ? t(`status.bid${keys}`, { min: Math.min(...bids) }) : t(`status.cannotBid${keys}`);
}

/** Enable exactly the controls for the legal moves; everything is off while a move is in flight. */
function renderControls() {
  const view = state.view;
  const active = Boolean(view) && canAct();
  document.body.dataset.myTurn = active ? "yes" : "no";
  document.body.dataset.busy = state.pending ? "yes" : "no";
  if (!view) return;
  const seatNamesList = names();
  $("status-line").textContent = statusText(view, seatNamesList);
  document.title = `${active ? `▶ ${t("title.yourTurn")} — ` : ""}${state.table?.name || t("table.title")} — ${t("brand")}`;

  if (view.seat !== null)
    drawHand($("hand"), view, { busy: Boolean(state.pending), canAct: active, onPlace: sendMove, keys: !TOUCH });

  const bids = active ? legalBids(view) : [];
  const lastChoice = view.phase === "last choice";
  const input = $("bid-amount");
  const bidButton = $("bid-button");
  input.disabled = bids.length === 0 || lastChoice;
  bidButton.disabled = bids.length === 0;
  if (bids.length) {
    const min = Math.min(...bids);
    const max = Math.max(...bids);
    input.min = String(min);
    input.max = String(max);
    // A new turn starts from the lowest legal bid, the one the status line names;
    // within the same turn an amount the player typed is kept.
    const current = Number(input.value);
    if (input.dataset.turn !== String(state.version) || !Number.isInteger(current) || current < min || current > max) {
      input.value = String(min);
    }
    input.dataset.turn = String(state.version);
    bidButton.textContent = lastChoice ? t("me.buyFor1") : t("me.bid");
    input.setAttribute("aria-label", t("me.bidAmount", { min, max }));
  } else {
    bidButton.textContent = t("me.bid");
  }
  drawBuyPreview(view, lastChoice);
  $("bid-form").hidden = view.phase === "placement";

  const quick = [];
  if (bids.length && !lastChoice) {
    const min = Math.min(...bids);
    const max = Math.max(...bids);
    const amounts = [...new Set([min, min + 1, min + 2, min + 4, max])].filter((a) => a <= max).sort((a, b) => a - b);
    for (const amount of amounts) {
      quick.push(
        h(
          "button",
          {
            type: "button",
            class: "button small quick-bid",
            dataset: { key: `quick-${amount}`, bid: String(amount) },
            onclick: () => sendMove(`bid ${amount}`),
          },
          amount === max && amount !== min ? t("me.allIn", { n: amount }) : t("me.bidN", { n: amount }),
        ),
      );
    }
  }
  $("quick-bids").replaceChildren(...quick);

  const pass = $("pass-button");
  pass.hidden = view.phase === "placement";
  pass.disabled = !(active && view.legal.includes("pass"));
  pass.textContent = lastChoice ? t("me.passVoid") : t("me.pass");
  const next = view.next_payout;
  pass.title = next ? t("me.passPays", { mice: t("mice", { n: next }) }) : t("me.passPaysNothing");

  const hint = $("hint-button");
  hint.hidden = !state.table?.hints || view.seat === null || view.phase === "over";
  hint.disabled = !myTurn() || state.hintPending || state.connection !== "open";
  hint.textContent = state.hintPending ? t("me.thinking") : t("me.hint");

  drawTimer();
  for (const hook of drawHooks) hook();
  textTable?.draw();
}

/** The turn timer and the clock in words, for the text table's "clock" ("" without either). */
function clockText() {
  const parts = [];
  if (!$("timer-box").hidden) parts.push(`${t("board.timer")}: ${$("timer").textContent}`);
  if (!$("clock-box").hidden) parts.push(`${t("days.clock")}: ${$("clock-banks").textContent}`);
  return parts.join(". ");
}

/** Under R15's last choice the whole row is face up: say exactly what 1 mouse buys. */
function drawBuyPreview(view, lastChoice) {
  const box = $("buy-preview");
  box.hidden = !(lastChoice && myTurn());
  if (box.hidden) return;
  const kept = $("preview").dataset.kept ?? "";
  const cards = kept ? kept.split(" ").map(cardLabel).join(" ") : t("nothing");
  box.textContent = t("me.buyFor1Gets", { cards });
}

function drawTimer() {
  const box = $("timer-box");
  const deadline = state.deadline ? Date.parse(state.deadline) : NaN;
  box.hidden = Number.isNaN(deadline) || state.view?.phase === "over";
  drawClock();
  if (box.hidden) return;
  const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  // A turn-based table's clock runs in days and hours; a real-time timer in seconds.
  $("timer").textContent = state.clock ? duration(seconds) : t("seconds", { n: seconds });
  box.classList.toggle("urgent", (state.clock ? seconds <= 3600 : seconds <= 10) && myTurn());
}

/** " (on vacation until …)" while `seat`'s player is on vacation: their clock stands still. */
function awayText(seat) {
  const now = Date.now();
  const span = (state.clock.away?.[seat] ?? []).find(([from, until]) => Date.parse(from) <= now && now < Date.parse(until));
  return span ? ` (${t("vac.away", { date: date(span[1], { dateStyle: "medium", timeStyle: "short" }) })})` : "";
}

/** A turn-based table: each player's time bank, and the time per move. */
function drawClock() {
  const box = $("clock-box");
  box.hidden = !state.clock || state.view?.phase === "over";
  if (box.hidden) return;
  const list = names();
  // The server's bots have no clock: only the banks of people and bot accounts are shown.
  const clocked = (p) => p?.kind === "human" || (p?.bot_account && !p.replaced);
  const banks = state.clock.banks
    .map((seconds, seat) => (clocked(state.players[seat]) ? `${list[seat] ?? seat + 1} ${duration(seconds)}${awayText(seat)}` : null))
    .filter(Boolean);
  $("clock-banks").textContent = `${t("days.perMove", { n: Math.round(state.clock.move_seconds / 3600) })} · ${t("days.banks")}: ${banks.join(" · ")}`;
}

function appendLog(text, kind) {
  if (!text) return;
  const log = $("log");
  const nearBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  log.append(h("li", { class: `log-${String(kind).toLowerCase()}` }, text));
  while (log.childElementCount > LOG_LIMIT) log.firstElementChild.remove();
  if (nearBottom) log.scrollTop = log.scrollHeight;
}

// ---------------------------------------------------------------- animation

function flash(id, className) {
  const el = typeof id === "string" ? $(id) : id;
  if (!el) return;
  el.classList.remove(className);
  void el.offsetWidth; // restart the animation if it is already running
  el.classList.add(className);
  el.addEventListener("animationend", () => el.classList.remove(className), { once: true });
}

function floatText(id, text) {
  const el = $(id);
  if (!el) return;
  const bubble = h("span", { class: "float-text", "aria-hidden": "true" }, text);
  el.append(bubble);
  bubble.addEventListener("animationend", () => bubble.remove(), { once: true });
  setTimeout(() => bubble.remove(), 3000);
}

/** Brief highlights driven by the frame's events: reveals, bids, payouts, purchases and dog chases. */
function animateEvents(events) {
  // If the round ended within this frame, its row is gone: the "last round" panel shows it instead.
  const roundEnded = events.some((e) => e.kind === "Bought" || e.kind === "RoundVoid");
  for (const event of events) {
    switch (event.kind) {
      case "Placed":
        if (!roundEnded) flash(`row-${event.position}`, "anim-drop");
        break;
      case "Revealed":
        if (!roundEnded) flash(`row-${event.position}`, "anim-flip");
        break;
      case "BidMade":
        flash(`seat-${event.seat}`, "anim-bid");
        floatText(`seat-${event.seat}`, t("float.bids", { n: event.total }));
        break;
      case "Passed":
        flash(`seat-${event.seat}`, "anim-pass");
        if (event.payout) floatText(`seat-${event.seat}`, `+${t("mice", { n: event.payout })}`);
        break;
      case "Bought":
        flash(`seat-${event.seat}`, "anim-buy");
        flash("last-round", "anim-glow");
        break;
      case "DogChase":
      case "DogsCancel":
        // Told in the "last round" panel under its round number, not in a banner that would
        // outlive the round.
        flash("last-round", "anim-chase");
        break;
      case "RoundVoid":
        flash("last-round", "anim-glow");
        break;
      case "RoundStarted":
        flash("round-badge", "anim-pulse");
        break;
      default:
        break;
    }
  }
}

// ---------------------------------------------------------------- keyboard

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement;
  if (typing) {
    if (target.id === "bid-amount") {
      // The help's keys work in the bid box too: + and - step the bid instead of typing a sign (which
      // would empty a number box), Escape leaves it; Enter submits its form.
      if (event.key === "Escape") target.blur();
      else if (event.key === "+" || event.key === "=" || event.key === "-") {
        event.preventDefault();
        stepBid(event.key === "-" ? -1 : 1);
      }
    }
    return;
  }
  const key = event.key;
  if (/^[1-9]$/.test(key)) {
    const card = state.view?.hand[Number(key) - 1];
    if (card) sendMove(`place ${card}`);
  } else if (key === "p" || key === "P") {
    if (state.view?.legal.includes("pass")) sendMove("pass");
  } else if (key === "b" || key === "B") {
    const input = $("bid-amount");
    if (!input.disabled) {
      event.preventDefault();
      input.focus();
      input.select();
    }
  } else if (key === "+" || key === "=") {
    stepBid(1);
  } else if (key === "-") {
    stepBid(-1);
  } else if (key === "Enter") {
    // On a button, Enter clicks it; elsewhere it bids the amount in the box.
    const onControl =
      target instanceof HTMLButtonElement ||
      target instanceof HTMLAnchorElement ||
      (target instanceof HTMLElement && target.closest("summary") !== null);
    if (onControl) return;
    if (!$("bid-button").disabled) {
      event.preventDefault();
      bidFromInput();
    }
  } else if (key === "h" || key === "H") {
    askHint();
  } else if (key === "?") {
    const help = $("help");
    help.open = !help.open;
  }
}

// ---------------------------------------------------------------- start

function placeHelpTips() {
  for (const slot of document.querySelectorAll(".help-slot")) slot.replaceChildren(helpTip(slot.dataset.help));
  document.addEventListener("click", () => {
    for (const open of document.querySelectorAll(".help-tip[aria-expanded='true']")) {
      open.setAttribute("aria-expanded", "false");
      if (open.nextElementSibling?.classList.contains("help-pop")) open.nextElementSibling.remove();
    }
  });
}

async function start() {
  translatePage();
  document.title = t("brand"); // until the table is loaded (an unknown table never is)
  document.body.classList.toggle("touch", TOUCH);
  $("lang-slot").replaceChildren(languagePicker());
  $("rules-link").href = rulesUrl();
  placeHelpTips();
  $("invite-link").value = inviteLink();
  $("invite-button").addEventListener("click", copyInvite);
  $("banner-close").addEventListener("click", hideBanner);
  $("watch-button").addEventListener("click", watch);
  $("takeover-button").addEventListener("click", takeOver);
  chat = new Chat({ root: $("chat-panel"), table: tableId, send: (frame) => connection?.send(frame) ?? false });
  alerts = new TurnAlerts({ root: $("turn-alerts") });
  $("bid-form").addEventListener("submit", (event) => {
    event.preventDefault();
    bidFromInput();
  });
  $("pass-button").addEventListener("click", () => sendMove("pass"));
  $("fill-button").addEventListener("click", fillWithBots);
  $("hint-button").addEventListener("click", askHint);
  textTable = new TextTable({
    root: $("text-table"),
    toggle: $("text-toggle"),
    page: {
      view: () => state.view,
      names,
      myTurn,
      pending: () => Boolean(state.pending),
      statusText: () => (state.view ? statusText(state.view, names()) : t("status.connectingTable")),
      clockText,
      send: sendMove,
    },
    onToggle: () => renderControls(),
  });
  document.addEventListener("keydown", onKey);
  setInterval(drawTimer, 500);

  if (!tableId) {
    showBanner(t("err.noTable"), { actions: [h("a", { class: "button small", href: "/" }, t("backToLobby"))] });
    return;
  }
  try {
    await loadTable();
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? t("err.unknown_table") : t("err.loadTable", { detail: errorText(err) });
    showBanner(text, { actions: [h("a", { class: "button small", href: "/" }, t("backToLobby"))] });
    return;
  }
  await startCoach();
  if (state.seat) enterGame();
  else showJoin();
}

/** The guided game's coach, when this table is the learner's guided game (/learn). */
async function startCoach() {
  if (!state.seat) return;
  const { Coach, lessonOf } = await import("/static/coach.js");
  const lesson = lessonOf(tableId);
  if (!lesson) return;
  // The guided game is the learner's alone with its bots: nobody to invite or chat with.
  $("invite-button").hidden = true;
  $("chat-panel").hidden = true;
  const coach = new Coach({ tableId, lesson, panel: $("coach"), names });
  frameHooks.push((frame) => coach.onFrame(frame, state));
  drawHooks.push(() => coach.draw());
}

start();
