// A player's profile: rating, figures over finished games, rating history (an SVG line drawn
// here, no library), recent games with links to their replay.

import { ago, api, h } from "/static/api.js";
import { errorText, languagePicker, num, t, translatePage } from "/static/i18n.js";
import { listedPlayer } from "/static/render.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** The rating after each rated game as a line; the first point is the starting 1000. */
export function ratingChart(history) {
  const points = [1000, ...history.map((g) => g.rating)];
  const width = 480;
  const height = 160;
  const pad = 28;
  const left = 44; // room for the tick labels ("1000") left of the first point
  const lo = Math.min(...points) - 10;
  const hi = Math.max(...points) + 10;
  const x = (i) => left + (i * (width - left - pad)) / Math.max(1, points.length - 1);
  const y = (v) => height - pad - ((v - lo) * (height - 2 * pad)) / (hi - lo);
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "rating-chart" });
  chart.setAttribute("aria-label", t("acct.ratingHistory"));
  chart.append(svg("line", { x1: left, y1: height - pad, x2: width - pad, y2: height - pad, class: "axis" }));
  for (const v of [lo + 10, hi - 10]) {
    const label = svg("text", { x: 2, y: y(v) + 4, class: "tick" });
    label.textContent = String(Math.round(v));
    chart.append(label);
  }
  const path = points.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  chart.append(svg("path", { d: path, class: "line", fill: "none" }));
  points.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(v), r: 3, class: "dot" });
    const title = svg("title");
    title.textContent = i === 0 ? String(v) : `${v} (${t("acct.place", { n: history[i - 1].rank })})`;
    dot.append(title);
    chart.append(dot);
  });
  return chart;
}

async function main() {
  translatePage();
  $("lang-slot").append(languagePicker());
  const name = decodeURIComponent(window.location.pathname.split("/").pop() ?? "");
  $("player-name").textContent = name;
  document.title = `${name} — ${t("brand")}`;
  let p;
  try {
    p = await api(`/api/users/${encodeURIComponent(name)}`);
  } catch (err) {
    const banner = $("banner");
    banner.textContent = errorText(err);
    banner.hidden = false;
    return;
  }
  for (const id of ["p-stats", "p-history", "p-recent"]) $(id).hidden = false;
  $("player-name").textContent = p.name;
  if (p.kind === "bot") {
    // A bot account (a program on the bot API): marked, with the person it belongs to.
    const owner = p.owner_profile ? h("a", { href: p.owner_profile }, p.owner) : null;
    $("p-bot").replaceChildren(
      h("span", { class: "badge" }, t("bots.badge")),
      " ",
      owner ? h("span", {}, `${t("bots.ownedBy")} `, owner) : h("span", { class: "hint" }, t("bots.noOwner")),
    );
    $("p-bot").hidden = false;
  }
  $("p-rating").textContent = String(p.rating);
  $("p-games").textContent = String(p.games);
  $("p-wins").textContent = String(p.wins);
  $("p-score").textContent = p.average_score === null ? "–" : num(p.average_score);
  $("p-margin").textContent = p.average_margin === null ? "–" : (p.average_margin > 0 ? "+" : "") + num(p.average_margin);
  const rep = p.reputation ?? { finished: 0, abandoned: 0 };
  $("p-reputation").textContent = t("acct.reputationText", { finished: rep.finished, abandoned: rep.abandoned });
  $("chart").replaceChildren(
    p.history.length ? ratingChart(p.history) : h("p", { class: "hint" }, t("acct.noRatedGames")),
  );
  $("recent").replaceChildren(
    ...p.recent.map((g) =>
      h(
        "li",
        { class: g.won ? "won" : "" },
        h("a", { href: g.replay }, g.players.map((name, seat) => listedPlayer(name, g.finished_by_bot?.includes(seat))).join(", ")),
        " ",
        h("span", { class: "hint" }, `${t("acct.score")} ${g.score} · ${ago(g.finished)}`),
        g.won ? h("strong", {}, ` ${t("acct.won")}`) : null,
        g.abandoned ? h("span", { class: "tag abandoned" }, ` ${t("acct.abandoned")}`) : null,
      ),
    ),
  );
}

await main();
