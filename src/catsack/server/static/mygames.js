// My games: every game of the account with whose turn it is and the time left (yours first), and
// the challenges sent and received (accept, decline, cancel). It refreshes whenever the badge does
// (days.js: when the server says the account's games changed, else by polling) and its clocks count
// down in between.

import { api, h, fill, loadSeat, saveSeat } from "/static/api.js";
import { duration, refresh } from "/static/days.js";
import { date, errorText, languagePicker, t, translatePage } from "/static/i18n.js";
import { listedPlayer } from "/static/render.js";

const $ = (id) => document.getElementById(id);
let games = [];
let loadedAt = Date.now();

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

/** Open a game: with this browser's seat token, else take the account's seat over on this device. */
async function play(game) {
  if (!loadSeat(game.table) && !game.replaced && game.status !== "over") {
    try {
      const joined = await api(`/api/tables/${encodeURIComponent(game.table)}/takeover`, { method: "POST" });
      saveSeat(game.table, joined.seat, joined.token, null);
    } catch (err) {
      say(errorText(err));
      return;
    }
  }
  window.location.assign(`/t/${encodeURIComponent(game.table)}`);
}

function left(game) {
  if (game.seconds_left === null || game.seconds_left === undefined) return null;
  return duration(game.seconds_left - (Date.now() - loadedAt) / 1000);
}

function gameItem(game) {
  const whose = game.your_turn
    ? t("days.yourMove")
    : game.status === "open"
      ? t("days.waitingPlayers")
      : game.status === "over"
        ? t("days.over")
        : t("days.theirMove", { name: game.to_move_name === null || game.to_move_name === undefined ? "?" : listedPlayer(game.to_move_name) });
  const clock = left(game);
  return h(
    "li",
    { class: `table-item game-item${game.your_turn ? " your-turn" : ""}`, dataset: { table: game.table } },
    h("button", { class: "button small primary play-button", type: "button", onclick: () => play(game) }, game.your_turn ? t("days.play") : t("days.open")),
    h("span", { class: "table-link" }, game.name || game.table),
    h(
      "span",
      { class: "table-meta" },
      whose,
      clock ? ` · ${t("days.left", { time: clock })}` : "",
      game.away_until && Date.parse(game.away_until) > Date.now() ? ` · ${t("vac.away", { date: date(game.away_until, { dateStyle: "medium", timeStyle: "short" }) })}` : "",
      game.turn_based ? ` · ${t("days.perMove", { n: game.turn_based.move_hours })}` : ` · ${t("days.realTime")}`,
      game.replaced ? ` · ${t("days.replaced")}` : "",
    ),
    h("span", { class: "table-players" }, game.players.map((name, seat) => listedPlayer(name, game.finished_by_bot?.includes(seat))).join(", ")),
  );
}

async function answer(challenge, verb) {
  try {
    const done = await api(`/api/challenges/${encodeURIComponent(challenge.id)}/${verb}`, { method: "POST" });
    say(verb === "accept" && done?.table ? t("days.accepted") : "", true);
    await load();
    refresh();
  } catch (err) {
    say(errorText(err));
  }
}

function challengeItem(c) {
  const pace = c.turn_based ? t("days.perMove", { n: c.turn_based.move_hours }) : t("days.realTime");
  const who = c.invitees.map((i) => `${i.name}${i.answer ? ` (${t(`days.answer.${i.answer}`)})` : ""}`).join(", ");
  const actions = [];
  if (c.status === "pending" && !c.mine && c.answer === null) {
    actions.push(h("button", { class: "button small primary accept-button", type: "button", onclick: () => answer(c, "accept") }, t("days.accept")));
    actions.push(h("button", { class: "button small decline-button", type: "button", onclick: () => answer(c, "decline") }, t("days.decline")));
  }
  if (c.status === "pending" && c.mine) {
    actions.push(h("button", { class: "button small cancel-button", type: "button", onclick: () => answer(c, "cancel") }, t("days.cancel")));
  }
  if (c.table) actions.push(h("a", { class: "button small", href: `/t/${encodeURIComponent(c.table)}` }, t("days.open")));
  return h(
    "li",
    { class: "table-item challenge-item", dataset: { challenge: c.id, status: c.status } },
    h("span", { class: "table-link" }, c.mine ? t("days.youChallenge", { names: who }) : t("days.challengesYou", { name: c.from })),
    h("span", { class: "table-meta" }, `${c.name ?? ""} · ${t("players.n", { n: c.seats })} · ${pace}`, c.rated ? ` · ${t("lobby.ratedTag")}` : "", ` · ${t(`days.status.${c.status}`)}`),
    c.mine ? null : h("span", { class: "table-players" }, who),
    h("span", { class: "challenge-actions" }, actions),
  );
}

function draw() {
  const mine = games.filter((g) => g.your_turn);
  const others = games.filter((g) => !g.your_turn && g.status !== "over");
  const over = games.filter((g) => g.status === "over");
  const none = (key) => h("li", { class: "muted" }, t(key));
  fill($("your-turn"), mine.length ? mine.map(gameItem) : none("days.noneYours"));
  fill($("others-turn"), others.length ? others.map(gameItem) : none("days.noneOthers"));
  fill($("finished"), over.length ? over.map(gameItem) : none("days.noneFinished"));
}

let challenges = [];

async function load() {
  const answer = await api("/api/mygames");
  $("guest-note").hidden = Boolean(answer.account);
  games = answer.games;
  challenges = answer.challenges;
  loadedAt = Date.now();
  draw();
  const list = $("invitations");
  fill(list, challenges.length ? challenges.map(challengeItem) : h("li", { class: "muted" }, t("days.noChallenges")));
  document.body.dataset.loaded = String(Number(document.body.dataset.loaded ?? 0) + 1);
}

function notifications() {
  const button = $("notify-button");
  if (!("Notification" in window) || Notification.permission !== "default") return;
  button.hidden = false;
  button.addEventListener("click", async () => {
    await Notification.requestPermission();
    button.hidden = true;
  });
}

translatePage();
document.title = `${t("days.myGames")} — ${t("brand")}`;
$("lang-slot").append(languagePicker());
notifications();
window.addEventListener("catsack:mygames", () => load().catch(() => {}));
setInterval(draw, 30_000); // the clocks count down between refreshes
try {
  await load();
} catch (err) {
  say(errorText(err));
}
