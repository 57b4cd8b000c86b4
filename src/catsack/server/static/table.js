// The table page: join or watch, then play over catsack-ws/1.
//
// The page keeps no game state of its own: every `state` frame carries the
// receiver's whole view and the page redraws from it. Events are used only
// for the log and for brief animations.

import { api, ApiError, downloadJson, forgetSeat, h, joinTable, loadName, loadSeat, seatLabel } from "/static/api.js";
import { TableConnection } from "/static/connection.js";
import {
  drawFinal,
  drawHand,
  drawHint,
  drawLastRound,
  drawMouseCards,
  drawRow,
  drawSeats,
  seatNames,
  STATUS_LABELS,
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
};
let connection = null;
let joinTimer = null;

// ---------------------------------------------------------------- banner

function showBanner(text, { kind = "error", actions = [], autoHideMs = 0 } = {}) {
  const banner = $("banner");
  banner.dataset.kind = kind;
  $("banner-text").textContent = text;
  $("banner-actions").replaceChildren(...actions);
  banner.hidden = false;
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
  const title = state.table.name || `Table ${tableId}`;
  $("table-title").textContent = title;
  document.title = `${title} — The Cat in the Sack`;
  if (!state.players.length) state.players = state.table.players ?? [];
}

function drawJoinPanel() {
  const table = state.table;
  const players = table.players ?? [];
  const open = players.filter((p) => p.status === "open");
  const statusText = { open: "waiting for players", playing: "game in progress", over: "game over" }[table.status];
  $("join-summary").textContent =
    `${table.seats} players · ${statusText ?? table.status}` +
    (open.length ? ` · ${open.length} open seat${open.length > 1 ? "s" : ""}` : " · no open seat: you can watch");
  $("join-seats").replaceChildren(
    ...players.map((player) =>
      h(
        "li",
        { class: `join-seat status-${player.status}` },
        h("span", { class: "seat-name" }, `Seat ${player.seat + 1}: `, seatLabel(player)),
        h("span", { class: `tag status ${player.status}` }, STATUS_LABELS[player.status] ?? player.status),
        player.status === "open"
          ? h(
              "button",
              {
                class: "button primary small",
                type: "button",
                dataset: { seat: String(player.seat) },
                "aria-label": `Take seat ${player.seat + 1}`,
                onclick: () => takeSeat(player.seat),
              },
              "Take this seat",
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
    showBanner(`Cannot load the table: ${err.message}`);
  }
}

function showJoin() {
  $("join-panel").hidden = false;
  $("game").hidden = true;
  $("join-name").value = $("join-name").value || loadName();
  drawJoinPanel();
  clearInterval(joinTimer);
  joinTimer = setInterval(() => {
    if (document.visibilityState === "visible") refreshJoinPanel();
  }, JOIN_REFRESH_MS);
}

async function takeSeat(seat) {
  const name = $("join-name").value.trim();
  const error = $("join-error");
  if (!name) {
    error.textContent = "Please enter your name first.";
    error.hidden = false;
    $("join-name").focus();
    return;
  }
  error.hidden = true;
  try {
    const joined = await joinTable(tableId, name, seat);
    state.seat = { seat: joined.seat, token: joined.token, name };
    enterGame();
  } catch (err) {
    error.textContent = `Could not take seat ${seat + 1}: ${err.message}`;
    error.hidden = false;
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
  const label = {
    connecting: "connecting…",
    open: "connected",
    waiting: `reconnecting in ${detail}…`,
    stopped: "disconnected",
  }[status];
  const el = $("connection");
  el.textContent = label ?? status;
  el.dataset.state = status;
  if (status !== "open") clearPending();
  if (status === "open" && $("banner").dataset.kind === "connection") hideBanner();
  if (status === "waiting" && connection?.attempt > 1) {
    showBanner(`Connection lost. Trying again in ${detail}…`, {
      kind: "connection",
      actions: [h("button", { class: "button small", type: "button", onclick: () => connection.retryNow() }, "Retry now")],
    });
  }
  renderControls();
}

function handleFrame(frame) {
  switch (frame.type) {
    case "welcome":
      if (state.seat && frame.seat !== state.seat.seat && frame.seat !== null) state.seat.seat = frame.seat;
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
    case "notice":
      showBanner(frame.message, { kind: "notice", autoHideMs: 8000 });
      appendLog(frame.message, "notice");
      break;
    case "hint":
      state.hintPending = false;
      if (frame.version === state.version) state.hint = frame;
      render();
      break;
    default:
      break; // pong and anything newer than this client
  }
}

function applyState(frame) {
  const animate = state.statesSeen > 0 && (frame.events?.length ?? 0) <= MAX_ANIMATED_EVENTS;
  state.statesSeen += 1;
  for (const event of frame.events ?? []) {
    if (event.version > state.loggedVersion || state.loggedVersion < 0) appendLog(event.text, event.kind);
  }
  if (frame.events?.length) state.loggedVersion = Math.max(state.loggedVersion, ...frame.events.map((e) => e.version));
  state.version = frame.version;
  state.view = frame.view;
  state.players = frame.players ?? state.players;
  state.tableStatus = frame.table_status ?? state.tableStatus;
  state.deadline = frame.deadline ?? null;
  if (state.pending && state.pending.version < frame.version) clearPending();
  if (state.hint && state.hint.version !== frame.version) state.hint = null;
  render();
  if (animate) animateEvents(frame.events ?? []);
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
      showBanner(frame.message, { autoHideMs: 6000 });
      resync();
      break;
    case "hints_off":
      state.hintPending = false;
      showBanner("Hints are switched off at this table.", { autoHideMs: 5000 });
      break;
    case "replaced":
      connection.stop("replaced");
      forgetSeat(tableId);
      state.seat = null;
      showBanner(frame.message || "You were away too long: a bot took over your seat.", {
        kind: "replaced",
        actions: [
          h("button", { class: "button small", type: "button", onclick: () => (hideBanner(), watch()) }, "Watch the game"),
          h("a", { class: "button small", href: "/" }, "Back to the lobby"),
        ],
      });
      break;
    case "unauthorized":
      connection.stop("unauthorized");
      if (state.seat) {
        forgetSeat(tableId);
        state.seat = null;
        showBanner("Your seat at this table is no longer valid. Take an open seat or watch.");
        refreshJoinPanel().then(showJoin);
      } else {
        showBanner(frame.message);
      }
      break;
    case "unknown_table":
      connection.stop("unknown table");
      showBanner("This table does not exist (any more).", {
        actions: [h("a", { class: "button small", href: "/" }, "Back to the lobby")],
      });
      break;
    case "rate_limited":
      showBanner("Too many messages: slow down a little.", { autoHideMs: 4000 });
      break;
    default:
      if (mine) clearPending();
      showBanner(frame.message || `Error: ${frame.code}`, { autoHideMs: 8000 });
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
    showBanner(`Bid a whole number from ${Math.min(...bids)} to ${Math.max(...bids)}.`, { autoHideMs: 4000 });
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
  const button = $("invite-button");
  try {
    await navigator.clipboard.writeText(link);
    button.textContent = "Link copied!";
    setTimeout(() => (button.textContent = "Copy invite link"), 2000);
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
    $("status-line").textContent = "Connecting to the table…";
    renderControls();
    return;
  }
  const focusKey = document.activeElement?.dataset?.key;
  const seatNamesList = names();
  document.body.dataset.phase = view.phase;
  document.body.dataset.seat = view.seat ?? "spectator";

  const badge = $("round-badge");
  badge.hidden = false;
  badge.textContent = view.phase === "over" ? "Game over" : `Round ${view.round} / 9`;

  drawSeats($("seats"), view, state.players, seatNamesList);
  drawRow($("row"), view, seatNamesList);
  drawMouseCards($("mouse-cards"), view);
  drawLastRound($("last-round"), view, seatNamesList);
  $("bank").textContent = `${view.bank} mice`;
  $("high-bid").textContent = view.high_bid
    ? `${view.high_bid} (${seatNamesList[view.high_bidder]})`
    : view.phase === "placement"
      ? "–"
      : "none yet";
  $("start-player").textContent = seatNamesList[view.start];

  const me = view.seat;
  $("me").hidden = me === null || view.phase === "over";
  if (me !== null) {
    $("my-money").textContent = `Your money: ${view.money[me]} mice`;
    $("my-removed").textContent = view.removed ? `Removed from your set: ${view.removed}` : "";
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
            ).catch((err) => showBanner(`Cannot download your record: ${err.message}`))
        : null,
    });
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
    return `Waiting for players: ${open} open seat${open === 1 ? "" : "s"}. Share the invite link.`;
  }
  if (view.phase === "over") return "The game is over.";
  if (state.connection === "stopped") return "Disconnected from the table.";
  if (state.connection === "connecting") return "Connecting to the table…";
  if (state.connection !== "open") return "Connection lost: reconnecting… (your moves wait until it is back)";
  const mover = view.to_move === null ? "" : seatNamesList[view.to_move];
  if (view.seat === null) return `You are watching. ${mover} is to move.`;
  if (state.pending) return `Sending “${state.pending.move}”…`;
  if (!myTurn()) return `Waiting for ${mover}…`;
  if (view.phase === "placement") return "Your turn: place a card face down (keys 1–9).";
  if (view.phase === "last choice") return "Nobody bid: buy the row for 1 mouse, or pass and the round is void.";
  const bids = legalBids(view);
  return bids.length ? `Your turn: bid ${bids[0]} or more, or pass (P).` : "Your turn: you cannot outbid, so pass (P).";
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
  document.title = `${active ? "▶ Your turn — " : ""}${state.table?.name || "Table"} — The Cat in the Sack`;

  if (view.seat !== null) drawHand($("hand"), view, { busy: Boolean(state.pending), canAct: active, onPlace: sendMove });

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
    const current = Number(input.value);
    if (!Number.isInteger(current) || current < min || current > max) input.value = String(min);
    bidButton.textContent = lastChoice ? "Buy for 1 mouse" : "Bid";
    input.setAttribute("aria-label", `Bid amount, ${min} to ${max}`);
  } else {
    bidButton.textContent = "Bid";
  }
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
          amount === max && amount !== min ? `All in: ${amount}` : `Bid ${amount}`,
        ),
      );
    }
  }
  $("quick-bids").replaceChildren(...quick);

  const pass = $("pass-button");
  pass.hidden = view.phase === "placement";
  pass.disabled = !(active && view.legal.includes("pass"));
  pass.textContent = lastChoice ? "Pass (void round)" : "Pass";
  const next = view.next_payout;
  pass.title = next ? `Passing now pays ${next} mice` : "Passing now pays nothing";

  const hint = $("hint-button");
  hint.hidden = !state.table?.hints || view.seat === null || view.phase === "over";
  hint.disabled = !myTurn() || state.hintPending || state.connection !== "open";
  hint.textContent = state.hintPending ? "Thinking…" : "Hint";

  drawTimer();
}

function drawTimer() {
  const box = $("timer-box");
  const deadline = state.deadline ? Date.parse(state.deadline) : NaN;
  box.hidden = Number.isNaN(deadline) || state.view?.phase === "over";
  if (box.hidden) return;
  const seconds = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  $("timer").textContent = `${seconds} s`;
  box.classList.toggle("urgent", seconds <= 10 && myTurn());
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
        floatText(`seat-${event.seat}`, `bids ${event.total}`);
        break;
      case "Passed":
        flash(`seat-${event.seat}`, "anim-pass");
        if (event.payout) floatText(`seat-${event.seat}`, `+${event.payout} mice`);
        break;
      case "Bought":
        flash(`seat-${event.seat}`, "anim-buy");
        flash("last-round", "anim-glow");
        break;
      case "DogChase":
      case "DogsCancel":
        flash("last-round", "anim-chase");
        showBanner(event.text, { kind: "notice", autoHideMs: 4000 });
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
    if (target.id === "bid-amount" && event.key === "Escape") target.blur();
    return; // Enter in the bid box submits its form
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

async function start() {
  $("invite-link").value = inviteLink();
  $("invite-button").addEventListener("click", copyInvite);
  $("banner-close").addEventListener("click", hideBanner);
  $("watch-button").addEventListener("click", watch);
  $("bid-form").addEventListener("submit", (event) => {
    event.preventDefault();
    bidFromInput();
  });
  $("pass-button").addEventListener("click", () => sendMove("pass"));
  $("hint-button").addEventListener("click", askHint);
  document.addEventListener("keydown", onKey);
  setInterval(drawTimer, 500);

  if (!tableId) {
    showBanner("No table given in the address.", { actions: [h("a", { class: "button small", href: "/" }, "Lobby")] });
    return;
  }
  try {
    await loadTable();
  } catch (err) {
    const text = err instanceof ApiError && err.status === 404 ? "This table does not exist." : `Cannot load the table: ${err.message}`;
    showBanner(text, { actions: [h("a", { class: "button small", href: "/" }, "Back to the lobby")] });
    return;
  }
  if (state.seat) enterGame();
  else showJoin();
}

start();
