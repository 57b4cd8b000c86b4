// The training page: the decisions an analysis marked as mistakes or blunders, to retry.
//
// A position is drawn from the deciding seat's own view at that moment (the server sends nothing
// else: R23), with the moves the analysis valued as the choices. The answer is the analysis's own
// verdict and sentences, in the page's language (the server renders them from one catalogue per
// language, as `catsack analyse` does). Every text on screen is from the page language's catalogue.

import { api, ApiError, fill, h } from "/static/api.js";
import { errorText, lang, languagePicker, mice, num, rulesUrl, t, translatePage } from "/static/i18n.js";
import { botSpec, cardElement, drawHint, drawMouseCards, drawRow, drawSeats, moveText, seatNames, seatTitles } from "/static/render.js";

const $ = (id) => document.getElementById(id);

const state = {
  positions: [],
  position: null, // the position shown: {id, view, names, choices, ...}
  names: [],
  titles: [],
  answered: false,
};

function showBanner(text) {
  $("banner-text").textContent = text;
  $("banner").hidden = false;
}

function phaseName(phase) {
  if (phase === "placement") return t("replay.phase.placement");
  if (phase === "bidding") return t("replay.phase.bidding");
  if (phase === "last choice") return t("replay.phase.lastChoice");
  return phase;
}

/** The seats as the replay names them: "heuristic 2" at seat 2 is a bot, anything else a person. */
function players(serverNames) {
  return serverNames.map((name, seat) => {
    const [, number, ...rest] = name.split(" ");
    if (!rest.length && Number(number) === seat + 1 && botSpec({ kind: "bot", name })) return { seat, kind: "bot", name, status: "replay" };
    return { seat, kind: "human", name: name.replace(/ \(seat \d+\)$/, ""), status: "replay" };
  });
}

function params() {
  const query = new URLSearchParams(window.location.search);
  const hash = new URLSearchParams(window.location.hash.slice(1));
  return { source: query.get("source"), id: hash.get("p") };
}

// ---------------------------------------------------------------- the list

async function loadList() {
  const source = $("train-source").value;
  const theme = $("train-theme").value;
  const difficulty = $("train-difficulty").value;
  const query = new URLSearchParams({ source });
  if (theme) query.set("theme", theme);
  if (difficulty) query.set("difficulty", difficulty);
  const empty = $("train-empty");
  let answer;
  try {
    answer = await api(`/api/training?${query}`);
  } catch (err) {
    state.positions = [];
    $("train-list").replaceChildren();
    empty.textContent = err instanceof ApiError && err.status === 401 ? t("train.loginFirst") : errorText(err);
    empty.hidden = false;
    document.body.dataset.list = "error";
    return;
  }
  state.positions = answer.positions;
  empty.hidden = answer.positions.length > 0;
  empty.textContent = source === "own" ? t("train.emptyOwn") : t("train.emptyPool");
  $("train-list").replaceChildren(
    ...answer.positions.map((p) =>
      h(
        "li",
        { dataset: { id: p.id, theme: p.theme, difficulty: p.difficulty } },
        h(
          "button",
          { type: "button", class: "button small", onclick: () => openPosition(p.id) },
          t("train.item", { round: p.round, phase: phaseName(p.phase), seats: p.seats }),
          h("span", { class: "chip" }, t(`train.theme.${p.theme}`)),
          h("span", { class: "chip" }, t(`train.difficulty.${p.difficulty}`)),
          h("span", { class: `chip flag-${p.class}` }, t(`replay.flag.${p.class}`)),
          p.attempts ? h("span", { class: "muted" }, ` ${t("train.solvedOf", { solved: p.solved, attempts: p.attempts })}`) : null,
        ),
      ),
    ),
  );
  document.body.dataset.list = String(answer.positions.length);
}

// ---------------------------------------------------------------- one position

async function openPosition(id) {
  let p;
  try {
    p = await api(`/api/training/${encodeURIComponent(id)}`);
  } catch (err) {
    showBanner(errorText(err));
    return;
  }
  state.position = p;
  state.answered = false;
  const list = players(p.names);
  state.names = seatNames(list, p.seats);
  state.titles = seatTitles(list, p.seats, state.names);
  history.replaceState(null, "", `${window.location.search}#p=${encodeURIComponent(p.id)}`);
  const view = p.view;
  $("train-position").hidden = false;
  $("train-question").textContent = t("train.question");
  $("train-context").textContent = t("train.context", {
    name: state.names[p.seat],
    round: p.round,
    phase: phaseName(p.phase),
    theme: t(`train.theme.${p.theme}`),
  });
  drawSeats($("seats"), view, list, state.names, state.titles);
  drawRow($("row"), view, state.names, state.titles);
  drawMouseCards($("mouse-cards"), view);
  $("bank").textContent = mice(view.bank);
  $("high-bid").textContent = view.high_bid ? `${view.high_bid} (${state.names[view.high_bidder]})` : "–";
  $("start-player").textContent = state.names[view.start] ?? "–";
  $("train-hand").replaceChildren(...(view.hand ?? []).map((token) => cardElement(token, { small: true })));
  $("train-choices").replaceChildren(
    ...p.choices.map((move) =>
      h("button", { type: "button", class: "button", dataset: { move }, onclick: () => choose(move) }, moveText(move)),
    ),
  );
  $("train-verdict").hidden = true;
  $("train-verdict").replaceChildren();
  const replay = $("train-replay");
  replay.hidden = !p.table;
  if (p.table) replay.href = `/replay/${encodeURIComponent(p.table)}#ply=${p.ply}&view=${p.seat}`;
  document.body.dataset.position = p.id;
  delete document.body.dataset.verdict;
  $("train-position").scrollIntoView({ block: "start" });
}

async function choose(move) {
  const p = state.position;
  if (!p || state.answered) return;
  let v;
  try {
    v = await api(`/api/training/${encodeURIComponent(p.id)}/answer`, { method: "POST", body: { move } });
  } catch (err) {
    showBanner(errorText(err));
    return;
  }
  state.answered = true;
  for (const button of document.querySelectorAll("#train-choices button")) {
    button.disabled = true;
    button.classList.toggle("chosen", button.dataset.move === move);
  }
  const box = $("train-verdict");
  box.className = `train-verdict ${v.solved ? "solved" : "missed"}`;
  const head = v.solved
    ? t(move === v.best ? "train.solvedBest" : "train.solvedEqual", { move: moveText(move) })
    : t("train.missed", { move: moveText(move), best: moveText(v.best), lost: num(v.lost, 1) });
  const figures = h("div", { class: "decision-values" });
  drawHint(figures, { ...v, sentences: {} }, { ...p.view, seat: p.seat }, state.names);
  const played = v.played && v.played !== move ? h("p", { class: "muted" }, t("train.inGame", { move: moveText(v.played) })) : null;
  const uncounted = v.counted === false ? h("p", { class: "muted", id: "train-not-counted" }, t("train.notCounted")) : null;
  fill(
    box,
    h("p", { class: "verdict-head" }, head),
    h("p", { class: "train-sentences" }, (v.sentences?.[lang] ?? []).join(" ")),
    played,
    uncounted,
    figures,
  );
  box.hidden = false;
  document.body.dataset.verdict = v.solved ? "solved" : "missed";
}

function nextPosition() {
  const list = state.positions;
  if (!list.length) return;
  const at = list.findIndex((p) => p.id === state.position?.id);
  openPosition(list[(at + 1) % list.length].id);
}

// ---------------------------------------------------------------- start

async function start() {
  translatePage();
  document.title = `${t("train.title")} — ${t("brand")}`;
  $("lang-slot").replaceChildren(languagePicker());
  $("rules-link").href = rulesUrl();
  $("banner-close").addEventListener("click", () => {
    $("banner").hidden = true;
  });
  const { source, id } = params();
  for (const select of ["train-source", "train-theme", "train-difficulty"]) $(select).addEventListener("change", loadList);
  $("train-next").addEventListener("click", nextPosition);
  if (source === "pool" || source === "own") {
    $("train-source").value = source;
    await loadList();
  } else {
    // Opened without a source: the reader's own mistakes first, else the bot games' (a fresh install
    // has neither, and then says how the list fills up).
    $("train-source").value = "own";
    await loadList();
    if (!state.positions.length) {
      $("train-source").value = "pool";
      await loadList();
    }
    if (!state.positions.length) $("train-empty").textContent = t("train.emptyAll");
  }
  if (id) await openPosition(id);
  document.body.dataset.loaded = "yes";
}

start();
