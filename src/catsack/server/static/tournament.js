// One tournament: its settings, live standings with every player's results by round, the current
// round's tables (watch links, and "Play" for the viewer's own seat), and the entry buttons.

import { api, h, saveSeat } from "/static/api.js";
import { errorText, languagePicker, num, t, translatePage } from "/static/i18n.js";
import { botLevelName } from "/static/render.js";
import { currentAccount } from "/static/session.js";
import { paceText, when } from "/static/tourtexts.js";

const $ = (id) => document.getElementById(id);
const tid = decodeURIComponent(window.location.pathname.split("/").pop() ?? "");
const POLL_MS = 2000;
let account = null;
let shown = null;

/** A player's name as the pages show it: people by name (linked to the profile), bots by level. */
function who(p) {
  if (p.kind === "filler") return h("span", { class: "filler", title: t("tour.fillerTitle") }, t("tour.filler", { level: botLevelName(p.bot) }));
  if (p.kind === "bot") return h("span", { class: "bot" }, t("bot.named", { level: botLevelName(p.bot), n: p.entry }));
  return p.profile ? h("a", { href: p.profile }, p.name) : h("span", {}, p.name);
}

function fmt(x) {
  return num(x);
}

function resultText(r) {
  let base = t("tour.resultLine", { round: r.round, table: r.table, place: r.place, points: fmt(r.points) });
  if (shown?.format === "arena") {
    base = t("arena.resultLine", { table: r.table, place: r.place, points: fmt(r.points) });
    if (r.doubled) base = `${base} · ${t("arena.doubled")}`;
  }
  return r.abandoned ? `${base} · ${t("acct.abandoned")}` : base;
}

function drawStandings(d) {
  $("provisional").hidden = !d.provisional;
  $("standings").replaceChildren(
    ...d.standings.map((row) =>
      h(
        "tr",
        { class: row.withdrawn ? "withdrawn" : "", dataset: { entry: String(row.entry) } },
        h("td", { class: "rank" }, String(row.rank)),
        h(
          "td",
          { class: "name" },
          who(row),
          row.withdrawn ? ` (${t("tour.withdrawn")})` : "",
          row.streak >= 2 ? h("span", { class: "streak" }, ` · ${t("arena.streak", { n: row.streak })}`) : "",
        ),
        h("td", { class: "points" }, fmt(row.points)),
        h("td", { class: "wins" }, fmt(row.wins)),
        h("td", { class: "score" }, String(row.score)),
        h(
          "td",
          { class: "results" },
          h(
            "details",
            {},
            h("summary", {}, t("tour.nGames", { n: row.rounds.length })),
            h(
              "ul",
              {},
              ...row.rounds.map((r) =>
                h("li", { dataset: { round: String(r.round) } }, r.game ? h("a", { href: `/replay/${r.game}` }, resultText(r)) : resultText(r)),
              ),
            ),
          ),
        ),
      ),
    ),
  );
}

function drawTables(d) {
  $("round-title").textContent =
    d.format === "arena"
      ? t("arena.tables")
      : d.round
        ? t("tour.roundTables", { n: d.round, of: d.rounds })
        : t("tour.tables");
  const items = d.tables.map((tb) =>
    h(
      "li",
      { class: `table-item${tb.mine ? " mine" : ""}`, dataset: { table: String(tb.table), status: tb.status } },
      h("span", { class: "table-link" }, t("tour.tableN", { n: tb.table })),
      h("span", { class: "table-players" }, ...tb.players.flatMap((p, i) => (i ? [", ", who(p)] : [who(p)]))),
      h("span", { class: "table-meta" }, t(`join.status.${tb.status}`)),
      d.duplicate && tb.status !== "over" ? null : h("a", { class: "button small watch", href: tb.watch }, t("tour.watch")),
    ),
  );
  $("tables").replaceChildren(...(items.length ? items : [h("li", { class: "hint" }, t("tour.noTables"))]));
  $("entries").replaceChildren(
    ...d.entries_list.map((e) => h("li", {}, who(e), e.withdrawn ? ` (${t("tour.withdrawn")})` : "")),
  );
}

function drawHead(d) {
  $("t-name").textContent = d.name;
  document.title = `${d.name} — ${t("brand")}`;
  const arena = d.format === "arena";
  const facts = [
    t("players.n", { n: d.seats }),
    arena ? `${t("arena.tag")}, ${t("arena.window", { n: d.minutes })}` : t("tour.nRounds", { n: d.rounds }),
    paceText(d),
  ];
  if (arena) facts.push(d.bots_after ? t("arena.botsAfterN", { n: d.bots_after }) : t("arena.noBots"));
  if (d.rated) facts.push(t("lobby.ratedTag"));
  if (d.duplicate) facts.push(t("tour.duplicateTag"));
  $("t-facts").textContent = facts.join(" · ");
  let status = {
    upcoming: d.starts ? t("tour.startsOn", { when: when(d.starts) }) : t("tour.statusUpcoming"),
    running: d.deadline
      ? `${t("tour.roundOf", { n: d.round, of: d.rounds })} · ${t("tour.roundEnds", { when: when(d.deadline) })}`
      : t("tour.roundOf", { n: d.round, of: d.rounds }),
    finished: t("tour.statusFinished"),
    cancelled: t("tour.cancelled"),
  }[d.status];
  if (arena && d.status === "running") {
    status = d.ends && Date.parse(d.ends) > Date.now() ? t("arena.ends", { when: when(d.ends) }) : t("arena.over");
    const seated = d.tables.some((tb) => tb.mine);
    if (d.me?.entry && !seated && !d.entries_list.find((e) => e.entry === d.me.entry)?.withdrawn) {
      status = `${status} · ${t("arena.waiting")}`;
    }
  }
  $("t-status").textContent = status ?? d.status;
  document.body.dataset.status = d.status;
  document.body.dataset.round = String(d.round);
  const me = d.me;
  const entered = Boolean(me?.entry);
  // An arena takes entries while its window is open.
  const open = d.status === "upcoming" || (arena && d.status === "running" && Date.parse(d.ends) > Date.now());
  $("enter").hidden = !account || entered || !open;
  $("leave").hidden = !entered || !["upcoming", "running"].includes(d.status);
  $("start").hidden = !me?.creator || d.status !== "upcoming";
  const mine = d.tables.find((tb) => tb.mine && tb.status !== "over");
  const withdrawn = d.entries_list.find((e) => e.entry === me?.entry)?.withdrawn;
  $("play").hidden = !mine || Boolean(withdrawn);
  if (mine) {
    $("play").textContent = t("tour.play", { n: mine.table });
    $("play").dataset.game = mine.game;
  }
}

async function refresh() {
  const d = await api(`/api/tournaments/${encodeURIComponent(tid)}`);
  shown = d;
  drawHead(d);
  drawStandings(d);
  drawTables(d);
  document.body.dataset.ready = "yes";
  return d;
}

async function act(path, then) {
  const error = $("t-error");
  error.hidden = true;
  try {
    const answer = await api(path, { method: "POST" });
    if (then) await then(answer);
    await refresh();
  } catch (err) {
    error.textContent = errorText(err);
    error.hidden = false;
  }
}

async function play() {
  const game = $("play").dataset.game;
  await act(`/api/tables/${encodeURIComponent(game)}/takeover`, (seat) => {
    saveSeat(game, seat.seat, seat.token, account?.name);
    window.location.href = `/t/${encodeURIComponent(game)}`;
  });
}

async function main() {
  translatePage();
  $("lang-slot").append(languagePicker());
  account = await currentAccount();
  $("enter").addEventListener("click", () => act(`/api/tournaments/${encodeURIComponent(tid)}/enter`));
  $("leave").addEventListener("click", () => act(`/api/tournaments/${encodeURIComponent(tid)}/leave`));
  $("start").addEventListener("click", () => act(`/api/tournaments/${encodeURIComponent(tid)}/start`));
  $("play").addEventListener("click", play);
  try {
    await refresh();
  } catch (err) {
    $("banner").textContent = errorText(err);
    $("banner").hidden = false;
    return;
  }
  // Live: standings and tables follow the games (a short poll; finished tournaments stop asking).
  const timer = window.setInterval(async () => {
    if (shown && ["finished", "cancelled"].includes(shown.status)) {
      window.clearInterval(timer);
      return;
    }
    try {
      await refresh();
    } catch {
      // the next poll tries again
    }
  }, POLL_MS);
}

await main();
