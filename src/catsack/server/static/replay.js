// The replay page: step through a game move by move, from one perspective, with a
// score chart, the rounds' results and, for finished games of this server, the post-game analysis.
//
// Every frame comes from the server, computed by the rules core from the game (a seat's frames
// are that seat's views: R23), and is drawn with the live table's components (render.js).
// Every text on screen is from the page language's catalogue (i18n.js, keys under "replay.");
// the server's English move texts ("bid 3") and default names ("heuristic 2") are only read.

import { api, ApiError, errorFrom, h, loadSeat } from "/static/api.js";
import { cardKindClass, cardLabel, cardName } from "/static/cards.js";
import { errorText, languagePicker, mice, num, rulesUrl, t, translatePage } from "/static/i18n.js";
import { announce } from "/static/live.js";
import { TextTable } from "/static/textmode.js";
import {
  botSpec,
  cardElement,
  drawHint,
  drawLastRound,
  drawMouseCards,
  drawRow,
  drawSeats,
  moveText,
  seatNames as displayNames,
  seatTitles,
} from "/static/render.js";

const $ = (id) => document.getElementById(id);

const POLL_MS = 400;
const COLOURS = ["#c0392b", "#2471a3", "#229954", "#b9770e", "#7d3c98"];
const MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

const parts = window.location.pathname.split("/").filter(Boolean);
const tableId = parts[0] === "replay" && parts[1] ? decodeURIComponent(parts[1]) : null;

const state = {
  data: null, // the replay payload (catsack-replay/1)
  ply: 0,
  names: [], // the seats' names in the page's language
  titles: [], // their tooltips (a bot's spec)
  perspective: null,
  upload: null, // {text, name} of an uploaded record
  analysis: null, // the analysis result shown, {seat, decisions, summary}
  analysisSeat: 0,
  polling: null,
  chartX: null, // the score chart's x position of a round
};

// ---------------------------------------------------------------- small helpers

let textTable = null;

function showBanner(text) {
  $("banner-text").textContent = text;
  $("banner").hidden = false;
  announce(text);
}

function hideBanner() {
  $("banner").hidden = true;
}

/** The seats' names in the page's language, read from the server's (live.seat_names, _upload_payload):
 * "heuristic 2" at seat 2 is a bot ("Simple bot 2", its spec in a tooltip), "Seat 3" an unnamed seat,
 * and "Ann (seat 2)" a repeated name (displayNames tells those apart itself). */
function replayPlayers(serverNames) {
  return serverNames.map((name, seat) => {
    const repeated = /^(.*) \(seat (\d+)\)$/.exec(name);
    if (repeated && Number(repeated[2]) === seat + 1) return { seat, kind: "human", name: repeated[1], status: "replay" };
    const [first, number, ...rest] = name.split(" ");
    if (!rest.length && Number(number) === seat + 1) {
      if (botSpec({ kind: "bot", name })) return { seat, kind: "bot", name, status: "replay" };
      if (first === "Seat") return { seat, kind: "human", name: "", status: "replay" };
    }
    return { seat, kind: "human", name, status: "replay" };
  });
}

function names() {
  return state.names;
}

/** The catalogue text of `key` with {placeholders} filled by DOM nodes (a move in <strong>, a command in <code>). */
function tNodes(key, nodes) {
  const parts = t(key).split(/\{(\w+)\}/);
  return parts.map((part, i) => (i % 2 ? (nodes[part] ?? `{${part}}`) : part)).filter((part) => part !== "");
}

function perspectiveLabel(p) {
  return p === "all" ? t("replay.everything") : t("replay.viewOf", { name: names()[p] ?? t("seat.n", { n: p + 1 }) });
}

/** One move as a sentence: the server's move text ("place +5", "place ?" for a card this view
 * may not see, "bid 3", "pass") told in the page's language. */
function moveLine(seat, text) {
  const name = names()[seat];
  if (text === "place ?") return t("replay.move.placeHidden", { name });
  if (text.startsWith("place ")) return t("replay.move.place", { name, card: cardName(text.slice(6)) });
  if (text.startsWith("bid ")) return t("replay.move.bid", { name, n: text.slice(4) });
  if (text === "pass") return t("replay.move.pass", { name });
  return `${name}: ${text}`;
}

function flagName(flag) {
  if (flag === "inaccuracy") return t("replay.flag.inaccuracy");
  if (flag === "mistake") return t("replay.flag.mistake");
  if (flag === "blunder") return t("replay.flag.blunder");
  return flag;
}

function phaseName(phase) {
  if (phase === "placement") return t("replay.phase.placement");
  if (phase === "bidding") return t("replay.phase.bidding");
  if (phase === "last choice") return t("replay.phase.lastChoice");
  return phase;
}

function pointsText(value) {
  return num(value, 1);
}

function hashParams() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const ply = Number(params.get("ply"));
  const view = params.get("view");
  return { ply: Number.isInteger(ply) && ply >= 0 ? ply : null, view };
}

function writeHash() {
  const params = new URLSearchParams();
  params.set("ply", String(state.ply));
  if (state.perspective !== null && state.perspective !== state.data?.perspectives[0]) params.set("view", String(state.perspective));
  history.replaceState(null, "", `#${params.toString()}`);
}

function parsePerspective(text) {
  if (text === null || text === undefined) return null;
  if (text === "all") return "all";
  const n = Number(text);
  return Number.isInteger(n) ? n : null;
}

// ---------------------------------------------------------------- loading

async function fetchReplay(perspective) {
  const query = perspective === null ? "" : `?perspective=${encodeURIComponent(String(perspective))}`;
  if (state.upload) {
    const name = encodeURIComponent(state.upload.name);
    const sep = query ? "&" : "?";
    let response;
    try {
      response = await fetch(`/api/replay${query}${sep}name=${name}`, { method: "POST", body: state.upload.text });
    } catch {
      throw new ApiError(0, t("err.unreachable"), "unreachable");
    }
    if (!response.ok) throw await errorFrom(response);
    return response.json();
  }
  const token = loadSeat(tableId)?.token;
  return api(`/api/tables/${encodeURIComponent(tableId)}/replay${query}`, { token });
}

async function load(perspective, ply) {
  const data = await fetchReplay(perspective);
  state.data = data;
  const players = replayPlayers(data.names);
  state.names = displayNames(players, data.seats);
  state.titles = seatTitles(players, data.seats, state.names);
  state.perspective = data.perspective;
  document.body.dataset.perspective = String(data.perspective);
  document.body.dataset.plies = String(data.plies);
  $("upload-panel").hidden = true;
  $("replay").hidden = false;
  // "Table" is the server's name for a table made without one (routes/tables.py), also a record's
  // event then: said here in the page's language.
  let title = data.title;
  if (title === "Table") title = tableId ? t("table.named", { id: tableId }) : t("table.title");
  else if (!title) title = tableId ? t("table.named", { id: tableId }) : t("replay.gameRecord");
  $("replay-title").textContent = t("replay.titleOf", { title });
  document.title = `${t("replay.titleOf", { title })} — ${t("brand")}`;
  $("ply-slider").max = String(data.plies);
  drawPerspectives();
  drawTimeline();
  drawRoundList();
  drawChart();
  drawRoundTable();
  drawAnalysisForm();
  drawFlags();
  goto(ply ?? 0);
  document.body.dataset.loaded = "yes";
}

// ---------------------------------------------------------------- stepping

function goto(ply, { say = true } = {}) {
  const data = state.data;
  if (!data) return "";
  state.ply = Math.max(0, Math.min(data.plies, Number(ply) || 0));
  drawFrame();
  drawChat();
  writeHash();
  // Each step is said once (the page's one live region); the text table says it as its answer instead.
  const status = $("status-line").textContent;
  if (say) announce(status, "step");
  return status;
}

/** The table's chat as it stood at this move: always as text, never as markup. */
function drawChat() {
  const messages = (state.data?.chat ?? []).filter((m) => m.ply <= state.ply);
  $("chat-panel").hidden = !(state.data?.chat ?? []).length;
  $("replay-chat").replaceChildren(
    ...messages.map((m) => {
      const item = document.createElement("li");
      const who = document.createElement("strong");
      who.className = "chat-name";
      who.textContent = m.name;
      const text = document.createElement("span");
      text.className = "chat-text";
      text.textContent = ` ${m.text}`;
      item.append(who);
      if (m.guest) {
        // A guest, marked as the table's seat list marks it (nobody passes for a registered player).
        const tag = document.createElement("span");
        tag.className = "tag guest";
        tag.title = t("seat.guestTitle");
        tag.textContent = t("seat.guest");
        item.append(" ", tag);
      }
      item.append(text);
      return item;
    }),
  );
}

function roundStep(direction) {
  const starts = state.data?.round_starts ?? [];
  if (direction > 0) {
    const next = starts.find((s) => s > state.ply);
    goto(next ?? state.data.plies);
  } else {
    const prev = [...starts].reverse().find((s) => s < state.ply);
    goto(prev ?? 0);
  }
}

function onKey(event) {
  if (!state.data || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
  if (target instanceof HTMLInputElement && target.id !== "ply-slider") return;
  const actions = {
    ArrowRight: () => goto(state.ply + 1),
    ArrowLeft: () => goto(state.ply - 1),
    ArrowDown: () => roundStep(1),
    PageDown: () => roundStep(1),
    ArrowUp: () => roundStep(-1),
    PageUp: () => roundStep(-1),
    Home: () => goto(0),
    End: () => goto(state.data.plies),
  };
  const action = actions[event.key];
  if (!action) return;
  event.preventDefault(); // the slider would move by itself as well
  action();
}

// ---------------------------------------------------------------- drawing: the frame

function players() {
  return replayPlayers(state.data.names);
}

function drawFrame() {
  const data = state.data;
  const view = data.frames[state.ply];
  const seatNames = names();
  document.body.dataset.ply = String(state.ply);
  document.body.dataset.phase = view.phase;
  $("ply-slider").value = String(state.ply);
  $("ply-label").textContent = `${state.ply} / ${data.plies}`;
  const badge = $("round-badge");
  badge.hidden = false;
  badge.textContent = view.phase === "over" ? t("badge.over") : t("badge.round", { round: view.round });

  drawSeats($("seats"), view, players(), seatNames, state.titles);
  drawRow($("row"), view, seatNames, state.titles);
  drawMouseCards($("mouse-cards"), view);
  drawLastRound($("last-round"), view, seatNames, state.titles);
  $("bank").textContent = mice(view.bank);
  $("high-bid").textContent = view.high_bid ? `${view.high_bid} (${seatNames[view.high_bidder]})` : "–";
  $("start-player").textContent = seatNames[view.start] ?? "–";
  drawHands(view);

  let status;
  if (state.ply === 0) status = t("replay.status.start");
  else {
    const [seat, text] = data.moves[state.ply - 1];
    status = t("replay.status.move", { n: state.ply, plies: data.plies, move: moveLine(seat, text) });
  }
  if (view.phase === "over") status += ` · ${t("status.over")}`;
  $("status-line").textContent = status;
  textTable?.draw();

  for (const item of document.querySelectorAll("#timeline li.current")) item.classList.remove("current");
  const current = document.querySelector(`#timeline li[data-ply="${state.ply}"]`);
  if (current) {
    current.classList.add("current");
    current.scrollIntoView({ block: "nearest" });
  }
  const round = view.phase === "over" ? 10 : view.round;
  for (const item of document.querySelectorAll("#round-list li")) item.classList.toggle("current", Number(item.dataset.round) === round);
  drawChartCursor(view.rounds.length);
  drawDecision();
}

function drawHands(view) {
  const panel = $("hands");
  panel.hidden = !view.hands;
  if (!view.hands) return;
  const seatNames = names();
  const rows = view.hands.map((hand, seat) =>
    h(
      "div",
      { class: "hand-row", dataset: { seat: String(seat) } },
      h("span", { class: "hand-owner" }, seatNames[seat]),
      h("span", { class: "hand-cards" }, hand.map((token) => cardElement(token, { small: true }))),
      h("span", { class: "muted removed" }, t("replay.removed", { card: cardName(view.removed_all[seat]) })),
    ),
  );
  if (view.dummy_deck) {
    rows.push(
      h(
        "div",
        { class: "hand-row dummy" },
        h("span", { class: "hand-owner" }, t("replay.dummyDeck")),
        h("span", { class: "hand-cards" }, view.dummy_deck.map((token) => cardElement(token, { small: true }))),
        h("span", { class: "muted removed" }, t("replay.removed", { card: cardName(view.dummy_removed) })),
      ),
    );
  }
  $("hands-list").replaceChildren(...rows);
}

// ---------------------------------------------------------------- drawing: lists

function drawPerspectives() {
  const select = $("perspective");
  select.replaceChildren(
    ...state.data.perspectives.map((p) =>
      h("option", { value: String(p), selected: p === state.perspective }, perspectiveLabel(p)),
    ),
  );
  $("perspective-box").hidden = state.data.perspectives.length < 2;
}

function drawTimeline() {
  const data = state.data;
  const items = [
    h("li", { class: "move start", dataset: { ply: "0" } }, h("button", { type: "button", onclick: () => goto(0) }, t("replay.start"))),
  ];
  data.moves.forEach(([seat, text], i) => {
    const round = data.round_starts.indexOf(i);
    if (round >= 0) items.push(h("li", { class: "round-head" }, t("replay.round", { n: round + 1 })));
    items.push(
      h(
        "li",
        { class: "move", dataset: { ply: String(i + 1), seat: String(seat) } },
        h("button", { type: "button", onclick: () => goto(i + 1) }, `${i + 1}. ${moveLine(seat, text)}`),
      ),
    );
  });
  $("timeline").replaceChildren(...items);
}

function drawRoundList() {
  const data = state.data;
  const seatNames = names();
  $("round-list").replaceChildren(
    ...data.round_starts.map((start, i) => {
      const result = data.rounds[i];
      let text = t("replay.round", { n: i + 1 });
      if (result) {
        text = result.void
          ? t("replay.roundVoid", { n: i + 1 })
          : t("replay.roundBought", { n: i + 1, name: seatNames[result.buyer], mice: mice(result.price) });
      }
      return h("li", { dataset: { round: String(i + 1) } }, h("button", { type: "button", onclick: () => goto(start) }, text));
    }),
  );
}

function chips(tokens) {
  return tokens.map((token) => h("span", { class: `chip ${cardKindClass(token)}`, title: cardName(token) }, cardLabel(token)));
}

function drawRoundTable() {
  const data = state.data;
  const seatNames = names();
  const head = h(
    "thead",
    {},
    h(
      "tr",
      {},
      h("th", { scope: "col" }, t("replay.table.round")),
      h("th", { scope: "col" }, t("replay.table.row")),
      h("th", { scope: "col" }, t("replay.table.buyer")),
      h("th", { scope: "col" }, t("replay.table.price")),
      h("th", { scope: "col" }, t("replay.table.chased")),
      h("th", { scope: "col" }, t("replay.table.won")),
      h("th", { scope: "col" }, t("replay.table.payouts")),
    ),
  );
  const body = h(
    "tbody",
    {},
    data.rounds.map((r) =>
      h(
        "tr",
        { class: r.void ? "void" : "" },
        h("th", { scope: "row" }, String(r.number)),
        h("td", {}, chips(r.row)),
        h("td", {}, r.void ? t("replay.table.void") : seatNames[r.buyer]),
        h("td", {}, r.void ? "–" : String(r.price)),
        h("td", {}, r.chased.length ? chips(r.chased) : "–"),
        h("td", {}, r.won.length ? chips(r.won) : "–"),
        h("td", {}, r.payouts.length ? r.payouts.map(([s, a]) => `${seatNames[s]} +${a}`).join(", ") : "–"),
      ),
    ),
  );
  $("round-table").replaceChildren(h("caption", {}, t("replay.table.caption")), head, body);
}

// ---------------------------------------------------------------- the chart

const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const c of children) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

function drawChart() {
  const chart = state.data.chart;
  const seatNames = names();
  const last = chart.at(-1);
  const legends = seatNames.map((name, seat) => {
    const value = last.score[seat] ?? last.cats[seat];
    return chart.some((c) => c.score[seat] === null) ? t("replay.chart.catsOnly", { name, value }) : `${name}: ${value}`;
  });
  // The legend's room grows with its longest line (names differ by language: "Einfacher Bot 2: 31").
  const m = { left: 40, right: Math.max(120, 16 + Math.max(...legends.map((l) => l.length)) * 7.5), top: 14, bottom: 30 };
  const width = m.left + 480 + m.right;
  const height = 260;
  const values = chart.flatMap((c) => c.score.map((s, i) => s ?? c.cats[i]));
  const top = Math.max(10, ...values);
  const bottom = Math.min(0, ...values);
  const x = (round) => m.left + (480 * round) / 9;
  state.chartX = x;
  const y = (v) => m.top + ((height - m.top - m.bottom) * (top - v)) / (top - bottom || 1);
  const label = t("replay.chart.label");
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "score-chart", role: "img", "aria-label": label });
  for (let r = 0; r <= 9; r += 1) {
    root.append(svg("line", { x1: x(r), x2: x(r), y1: m.top, y2: height - m.bottom, class: "grid" }));
    const tick = r === 0 ? t("replay.chart.start") : String(r);
    root.append(svg("text", { x: x(r), y: height - 10, "text-anchor": "middle", class: "axis" }, tick));
  }
  const step = Math.max(5, Math.ceil((top - bottom) / 6 / 5) * 5);
  for (let v = Math.ceil(bottom / step) * step; v <= top; v += step) {
    root.append(svg("line", { x1: m.left, x2: width - m.right, y1: y(v), y2: y(v), class: "grid" }));
    root.append(svg("text", { x: m.left - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" }, String(v)));
  }
  root.append(svg("line", { id: "chart-cursor", x1: x(0), x2: x(0), y1: m.top, y2: height - m.bottom, class: "cursor" }));
  seatNames.forEach((name, seat) => {
    const colour = COLOURS[seat % COLOURS.length];
    const secret = chart.some((c) => c.score[seat] === null);
    const points = chart.map((c) => [x(c.round), y(c.score[seat] ?? c.cats[seat])]);
    root.append(
      svg("polyline", {
        points: points.map(([px, py]) => `${px.toFixed(1)},${py.toFixed(1)}`).join(" "),
        fill: "none",
        stroke: colour,
        "stroke-width": 2.5,
        "stroke-dasharray": secret ? "5 4" : "none",
        class: "series",
        "data-seat": seat,
      }),
    );
    for (const [px, py] of points) root.append(svg("circle", { cx: px.toFixed(1), cy: py.toFixed(1), r: 3, fill: colour }));
    root.append(svg("text", { x: width - m.right + 8, y: m.top + 16 + seat * 18, fill: colour, class: "legend" }, legends[seat]));
  });
  const note = chart.some((c) => c.score.some((s) => s === null))
    ? h("p", { class: "muted" }, t("replay.chart.dashed"))
    : null;
  $("chart").replaceChildren(root, ...(note ? [note] : []));
}

function drawChartCursor(roundsDone) {
  const cursor = document.getElementById("chart-cursor");
  if (!cursor || !state.chartX) return;
  const px = state.chartX(roundsDone);
  cursor.setAttribute("x1", px.toFixed(1));
  cursor.setAttribute("x2", px.toFixed(1));
}

// ---------------------------------------------------------------- analysis

function analysable() {
  return Boolean(tableId && state.data?.table && state.data.over);
}

function drawAnalysisForm() {
  const seatNames = names();
  const select = $("analysis-seat");
  const usable = analysable();
  $("analysis-form").hidden = !usable;
  const command = h("code", {}, "catsack analyse RECORD --seat N");
  $("analysis-note").replaceChildren(
    ...(usable
      ? [t("replay.analysis.about")]
      : state.data?.table
        ? [t("replay.analysis.notOver")]
        : tNodes("replay.analysis.onlyHere", { command })),
  );
  if (!usable) return;
  if (!select.options.length) {
    select.replaceChildren(...seatNames.map((name, seat) => h("option", { value: String(seat) }, name)));
    const own = loadSeat(tableId);
    if (own) select.value = String(own.seat);
    state.analysisSeat = Number(select.value);
    fetchAnalysis(false);
  }
}

async function fetchAnalysis(start) {
  const seat = state.analysisSeat;
  const path = `/api/tables/${encodeURIComponent(tableId)}/analysis`;
  let answer;
  try {
    const token = loadSeat(tableId)?.token; // a private game's analysis is for its players only
    answer = start ? await api(path, { method: "POST", body: { seat }, token }) : await api(`${path}?seat=${seat}`, { token });
  } catch (err) {
    showBanner(t("replay.analysis.error", { detail: errorText(err) }));
    $("analysis-button").disabled = false;
    return;
  }
  if (seat !== state.analysisSeat) return; // the seat was changed meanwhile
  showAnalysis(answer);
}

function showAnalysis(answer) {
  clearTimeout(state.polling);
  const progress = $("analysis-progress");
  const button = $("analysis-button");
  document.body.dataset.analysis = answer.status;
  if (answer.status === "running") {
    progress.hidden = false;
    button.disabled = true;
    $("analysis-bar").max = Math.max(1, answer.total);
    $("analysis-bar").value = answer.done;
    $("analysis-progress-text").textContent = t("replay.analysis.progress", { done: answer.done, total: answer.total });
    state.polling = setTimeout(() => fetchAnalysis(false), POLL_MS);
    return;
  }
  progress.hidden = true;
  button.disabled = false;
  if (answer.status === "failed") {
    showBanner(t("replay.analysis.failed", { detail: answer.result?.error ?? t("replay.analysis.unknownError") }));
    return;
  }
  if (answer.status !== "done") {
    state.analysis = null;
    $("analysis-summary").hidden = true;
    button.textContent = t("replay.analysis.start");
    drawFlags();
    drawDecision();
    return;
  }
  button.textContent = t("replay.analysis.done");
  button.disabled = true;
  state.analysis = { seat: answer.seat, seed: answer.seed, level: answer.level, ...answer.result };
  drawSummary();
  drawFlags();
  drawDecision();
}

/** One term of the analysis summary and its value. */
function fact(term, value, valueAttrs = {}, kind = null) {
  return h("div", kind ? { class: kind } : {}, h("dt", {}, term), h("dd", valueAttrs, value));
}

/** The command line that repeats an analysis: `catsack analyse` counts seats from 1 (R4), the API from 0. */
function analyseCommand(a) {
  const level = a.level && a.level !== "default" ? ` --level ${a.level}` : "";
  return `catsack analyse RECORD --seat ${a.seat + 1} --seed ${a.seed}${level}`;
}

function drawSummary() {
  const a = state.analysis;
  const s = a.summary;
  const name = names()[a.seat];
  $("analysis-summary").hidden = false;
  $("analysis-summary").replaceChildren(
    h("h3", {}, t("replay.summary.title", { name, n: s.decisions })),
    h(
      "dl",
      { class: "summary-facts" },
      fact(t("replay.summary.perDecision"), num(s.lost_per_decision, 2), { id: "accuracy" }),
      fact(t("replay.summary.lost"), pointsText(s.lost)),
      fact(t("replay.summary.agreed"), t("replay.summary.agreedOf", { n: s.agreed, total: s.decisions })),
      fact(t("replay.summary.inaccuracies", { mark: MARKS.inaccuracy }), String(s.inaccuracy), {}, "flag-inaccuracy"),
      fact(t("replay.summary.mistakes", { mark: MARKS.mistake }), String(s.mistake), {}, "flag-mistake"),
      fact(t("replay.summary.blunders", { mark: MARKS.blunder }), String(s.blunder), {}, "flag-blunder"),
    ),
    h(
      "p",
      { class: "muted" },
      t("replay.summary.explain", { inaccuracy: a.thresholds.inaccuracy, mistake: a.thresholds.mistake, blunder: a.thresholds.blunder }),
      " ",
      ...tNodes("replay.summary.command", {
        command: h("code", {}, analyseCommand(a)),
      }),
    ),
    ...(s.mistake + s.blunder > 0
      ? [h("p", {}, h("a", { id: "training-link", class: "button small", href: "/training?source=own" }, t("replay.summary.train")))]
      : []),
  );
}

function decisionAt(moveIndex) {
  return state.analysis?.decisions.find((d) => d.ply === moveIndex) ?? null;
}

function drawFlags() {
  for (const item of document.querySelectorAll("#timeline li.move")) {
    item.classList.remove("flag", "flag-inaccuracy", "flag-mistake", "flag-blunder", "analysed");
    item.querySelector(".mark")?.remove();
    delete item.dataset.flag;
  }
  const ticks = [];
  const plies = state.data?.plies || 1;
  for (const d of state.analysis?.decisions ?? []) {
    const item = document.querySelector(`#timeline li.move[data-ply="${d.ply + 1}"]`);
    if (!item) continue;
    item.classList.add("analysed");
    if (!d.class) continue;
    item.classList.add("flag", `flag-${d.class}`);
    item.dataset.flag = d.class;
    const title = t("replay.flag.title", { flag: flagName(d.class), lost: pointsText(d.lost) });
    item.querySelector("button").append(h("span", { class: "mark", title }, ` ${MARKS[d.class]}`));
    ticks.push(
      h("button", {
        type: "button",
        class: `tick flag-${d.class}`,
        style: `left: ${((100 * (d.ply + 1)) / plies).toFixed(2)}%`,
        title: t("replay.flag.tick", { n: d.ply + 1, flag: flagName(d.class) }),
        tabindex: "-1",
        onclick: () => goto(d.ply + 1),
      }),
    );
  }
  $("slider-flags").replaceChildren(...ticks);
}

/** The analysed decision behind the move just shown (the move that led to this frame). */
function drawDecision() {
  const panel = $("decision");
  const d = state.ply > 0 ? decisionAt(state.ply - 1) : null;
  panel.hidden = !d;
  if (!d) return;
  const seatNames = names();
  const view = state.data.frames[d.ply];
  const lost = pointsText(d.lost);
  let verdict;
  if (d.class) verdict = h("span", { class: `verdict flag-${d.class}` }, t("replay.decision.flagged", { flag: flagName(d.class), mark: MARKS[d.class], lost }));
  else if (d.played === d.best) verdict = h("span", { class: "verdict good" }, t("replay.decision.botsChoice"));
  else if (d.margin !== undefined && d.lost <= d.margin)
    verdict = h("span", { class: "verdict good equal" }, t("replay.decision.equal", { lost, noise: pointsText(d.margin) }));
  else verdict = h("span", { class: "verdict good" }, t("replay.decision.lost", { lost }));
  const hint = h("div", { class: "decision-values" });
  // One moment throughout the panel: the values, sentences and beliefs are those of
  // the analysed seat's view before its move, so the panel's board is that view too (its row as the
  // analysis saw it), not the frame after the move that the main board shows.
  const before = d.facts?.row ? { ...view, seat: state.analysis.seat, phase: d.phase, row: d.facts.row } : view;
  drawHint(hint, d, before, seatNames);
  const board = h("ol", { class: "row decision-row", "aria-label": t("replay.decision.boardLabel", { n: d.ply + 1, name: seatNames[state.analysis.seat] }) });
  drawRow(board, before, seatNames, state.titles);
  for (const item of board.querySelectorAll("[id]")) item.removeAttribute("id"); // the main board's ids stay unique
  const switchView =
    state.perspective !== d.seat && state.analysis.seat !== state.perspective && state.data.perspectives.includes(state.analysis.seat)
      ? h(
          "button",
          { type: "button", class: "button small", onclick: () => changePerspective(state.analysis.seat) },
          t("replay.decision.seeView", { name: seatNames[state.analysis.seat] }),
        )
      : null;
  panel.replaceChildren(
    h("h3", { class: "label" }, t("replay.decision.title", { n: d.ply + 1, round: d.round, phase: phaseName(d.phase) })),
    h(
      "p",
      {},
      ...tNodes("replay.decision.played", {
        name: seatNames[state.analysis.seat],
        played: h("strong", {}, moveText(d.played)),
        best: h("strong", {}, moveText(d.best)),
        verdict,
      }),
    ),
    h("p", { class: "muted decision-moment" }, t("replay.decision.before", { n: d.ply + 1, name: seatNames[state.analysis.seat] })),
    board,
    hint,
    ...(switchView ? [switchView] : []),
  );
}

async function changePerspective(p, ply = state.ply) {
  try {
    await load(p, ply);
  } catch (err) {
    showBanner(t("replay.viewFailed", { detail: errorText(err) }));
  }
}

// ---------------------------------------------------------------- upload

async function openFile(file) {
  const error = $("upload-error");
  error.hidden = true;
  if (!file) return;
  if (file.size > 64 * 1024) {
    error.textContent = t("replay.upload.tooLarge", { name: file.name });
    error.hidden = false;
    announce(error.textContent);
    return;
  }
  state.upload = { text: await file.text(), name: file.name };
  try {
    await load(null, hashParams().ply ?? 0);
  } catch (err) {
    state.upload = null;
    error.textContent = t("replay.upload.failed", { detail: errorText(err) });
    error.hidden = false;
    announce(error.textContent);
    $("upload-panel").hidden = false;
    $("replay").hidden = true;
  }
}

function setUpUpload() {
  $("upload-panel").hidden = false;
  const zone = $("drop-zone");
  $("record-file").addEventListener("change", (event) => openFile(event.target.files[0]));
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    openFile(event.dataTransfer.files[0]);
  });
}

// ---------------------------------------------------------------- start

async function start() {
  translatePage();
  document.title = `${t("replay.title")} — ${t("brand")}`;
  $("lang-slot").replaceChildren(languagePicker());
  $("rules-link").href = rulesUrl();
  $("banner-close").addEventListener("click", hideBanner);
  $("first-button").addEventListener("click", () => goto(0));
  $("last-button").addEventListener("click", () => goto(state.data?.plies ?? 0));
  $("back-button").addEventListener("click", () => goto(state.ply - 1));
  $("next-button").addEventListener("click", () => goto(state.ply + 1));
  $("round-back").addEventListener("click", () => roundStep(-1));
  $("round-next").addEventListener("click", () => roundStep(1));
  $("ply-slider").addEventListener("input", (event) => goto(Number(event.target.value)));
  $("perspective").addEventListener("change", (event) => changePerspective(parsePerspective(event.target.value)));
  $("analysis-seat").addEventListener("change", (event) => {
    state.analysisSeat = Number(event.target.value);
    state.analysis = null;
    $("analysis-button").textContent = t("replay.analysis.start");
    $("analysis-button").disabled = false;
    fetchAnalysis(false);
  });
  $("analysis-button").addEventListener("click", () => {
    $("analysis-button").disabled = true;
    fetchAnalysis(true);
  });
  document.addEventListener("keydown", onKey);
  const stepTo = (ply) => goto(ply, { say: false });
  textTable = new TextTable({
    root: $("text-table"),
    toggle: $("text-toggle"),
    help: "text.helpReplay",
    page: {
      view: () => state.data?.frames[state.ply] ?? null,
      names,
      myTurn: () => false,
      pending: () => false,
      statusText: () => $("status-line").textContent,
      clockText: () => "",
      handsText: () => ($("hands").hidden ? "" : $("hands-list").innerText.replace(/\s*\n\s*/g, "; ")),
    },
    extra: {
      next: () => stepTo(state.ply + 1),
      back: () => stepTo(state.ply - 1),
      start: () => stepTo(0),
      end: () => stepTo(state.data?.plies ?? 0),
      move: (arg) => stepTo(Number.parseInt(arg, 10)),
    },
  });
  window.addEventListener("hashchange", () => {
    const { ply, view } = hashParams();
    const wanted = parsePerspective(view) ?? state.data?.perspectives[0] ?? null;
    if (state.data && wanted !== null && wanted !== state.perspective) changePerspective(wanted, ply ?? state.ply);
    else if (ply !== null && ply !== state.ply) goto(ply);
  });

  if (!tableId) {
    setUpUpload();
    return;
  }
  $("back-to-table").href = `/t/${encodeURIComponent(tableId)}`;
  $("back-to-table").textContent = t("replay.backToTable");
  const { ply, view } = hashParams();
  try {
    await load(parsePerspective(view), ply);
  } catch (err) {
    if (err instanceof ApiError && err.status === 403 && view !== null) {
      await load(null, ply).catch((again) => showBanner(t("replay.loadFailed", { detail: errorText(again) })));
      return;
    }
    showBanner(err instanceof ApiError && err.status === 404 ? t("err.unknown_table") : t("replay.loadFailed", { detail: errorText(err) }));
  }
}

start();
