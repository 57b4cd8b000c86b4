// Round 1 in figures: for each card that can be shown first in round 1 (R11), what the row sold for and
// how many points its buyer kept, drawn as box plots over the game database's finished public games, with
// the number of games behind each figure. The figures come from /api/database/explorer.

import { api, h } from "/static/api.js";
import { date, errorText, languagePicker, num, t, translatePage } from "/static/i18n.js";

const SVG = "http://www.w3.org/2000/svg";
// R1's order: the cats from the best, the rabbit, the dogs.
const CARDS = ["+15", "+11", "+8", "+5", "+3", "-5", "-8", "R", "LD", "SD"];
const BUYERS = ["all", "person", "bot"];

translatePage();
document.title = `${t("ex.title")} — ${t("brand")}`;
document.getElementById("lang-slot").append(languagePicker());
for (const el of document.querySelectorAll(".ex-seats")) el.textContent = t("ex.seatsN", { n: Number(el.dataset.n) });

const form = document.getElementById("ex-form");
const buyerSelect = document.getElementById("ex-buyer");
const chart = document.getElementById("ex-chart");
const chartTitle = document.getElementById("ex-chart-title");
const rowsBody = document.getElementById("ex-rows");
const summary = document.getElementById("ex-summary");

function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  for (const child of children) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

function cardName(token) {
  return ["R", "LD", "SD"].includes(token) ? t(`card.${token}`) : t("card.cat", { value: token });
}

function spread(stats) {
  return stats ? t("ex.median", { median: num(stats.median), q1: num(stats.q1), q3: num(stats.q3) }) : "–";
}

/** The axis: from the lowest to the highest value shown (0 always in), in steps of 5 or 10. */
function axis(cells) {
  let lo = 0;
  let hi = 5;
  for (const cell of cells) {
    for (const stats of [cell.price, cell.kept]) {
      if (!stats) continue;
      lo = Math.min(lo, stats.min);
      hi = Math.max(hi, stats.max);
    }
  }
  const step = hi - lo > 40 ? 10 : 5;
  return { lo: Math.floor(lo / step) * step, hi: Math.ceil(hi / step) * step, step };
}

/** One box plot: whiskers from the lowest to the highest value, the box from q1 to q3, a line at the median. */
function box(stats, x, y, height, kind, label) {
  const mid = y + height / 2;
  const left = x(stats.q1);
  return svg(
    "g",
    { class: `ex-box ex-${kind}` },
    svg("title", {}, `${label}: ${spread(stats)}; ${num(stats.min)} – ${num(stats.max)}`),
    svg("line", { class: "ex-whisker", x1: x(stats.min), x2: x(stats.max), y1: mid, y2: mid }),
    svg("line", { class: "ex-whisker", x1: x(stats.min), x2: x(stats.min), y1: y + 2, y2: y + height - 2 }),
    svg("line", { class: "ex-whisker", x1: x(stats.max), x2: x(stats.max), y1: y + 2, y2: y + height - 2 }),
    svg("rect", { class: "ex-iqr", x: left, y, width: Math.max(2, x(stats.q3) - left), height, rx: 2 }),
    svg("line", { class: "ex-median", x1: x(stats.median), x2: x(stats.median), y1: y - 2, y2: y + height + 2 }),
    svg("circle", { class: "ex-dot", cx: x(stats.median), cy: mid, r: 4 }),
  );
}

function draw(groups, seats, buyer) {
  const rows = CARDS.map((card) => groups.find((g) => g.seats === seats && g.card === card));
  const cells = rows.map((g) => g.buyers[buyer]);
  const { lo, hi, step } = axis(cells);
  // One unit of the drawing is one pixel of the page: the labels keep their size on a phone.
  const width = Math.max(300, Math.round(chart.parentElement.clientWidth || 640));
  const narrow = width < 520;
  const left = narrow ? 92 : 118;
  const right = narrow ? 48 : 64;
  const top = narrow ? 52 : 34;
  const rowHeight = 44;
  const height = top + rows.length * rowHeight + 40;
  const x = (v) => left + ((v - lo) / (hi - lo)) * (width - left - right);
  const parts = [];
  for (let v = lo; v <= hi; v += step) {
    parts.push(svg("line", { class: v === 0 ? "ex-zero" : "ex-grid", x1: x(v), x2: x(v), y1: top - 4, y2: height - 34 }));
    parts.push(svg("text", { class: "ex-tick", x: x(v), y: height - 20, "text-anchor": "middle" }, num(v)));
  }
  parts.push(svg("text", { class: "ex-axis", x: (left + width - right) / 2, y: height - 4, "text-anchor": "middle" }, t("ex.axis")));
  // The legend: side by side, or one under the other on a narrow page.
  const second = narrow ? { x: 8, y: 26 } : { x: left + 250, y: 8 };
  parts.push(
    svg("rect", { class: "ex-iqr ex-price-swatch", x: narrow ? 8 : left, y: 8, width: 14, height: 12, rx: 2 }),
    svg("text", { class: "ex-legend", x: (narrow ? 8 : left) + 20, y: 18 }, t("ex.price")),
    svg("rect", { class: "ex-iqr ex-kept-swatch", x: second.x, y: second.y, width: 14, height: 12, rx: 2 }),
    svg("text", { class: "ex-legend", x: second.x + 20, y: second.y + 10 }, t("ex.kept")),
  );
  rows.forEach((group, i) => {
    const cell = cells[i];
    const y = top + i * rowHeight;
    const row = svg("g", { class: "ex-row", "data-card": group.card, "data-n": cell.games });
    if (i % 2 === 0) row.append(svg("rect", { class: "ex-band", x: 0, y, width, height: rowHeight }));
    row.append(svg("text", { class: "ex-label", x: left - 10, y: y + rowHeight / 2 + 5, "text-anchor": "end" }, cardName(group.card)));
    if (cell.games === 0) {
      row.append(svg("text", { class: "ex-none", x: left + 6, y: y + rowHeight / 2 + 5 }, t("ex.none")));
    } else {
      row.append(box(cell.price, x, y + 8, 12, "price", t("ex.price")), box(cell.kept, x, y + 24, 12, "kept", t("ex.kept")));
    }
    row.append(svg("text", { class: "ex-n", x: width - right + 8, y: y + rowHeight / 2 + 5 }, t("ex.n", { n: cell.games })));
    parts.push(row);
  });
  chart.setAttribute("viewBox", `0 0 ${width} ${height}`);
  chart.replaceChildren(chartTitle, ...parts);
  chartTitle.textContent = t("ex.chart", { seats, buyer: t(`ex.buyer.${buyer}`) });
  rowsBody.replaceChildren(
    ...rows.map((group, i) =>
      h(
        "tr",
        { "data-card": group.card },
        h("th", { scope: "row" }, cardName(group.card)),
        h("td", {}, num(group.games)),
        h("td", {}, num(group.void)),
        h("td", {}, num(cells[i].games)),
        h("td", {}, spread(cells[i].price)),
        h("td", {}, spread(cells[i].kept)),
        h("td", {}, spread(cells[i].net)),
      ),
    ),
  );
}

function chosen() {
  const seats = Number(new FormData(form).get("seats"));
  return { seats, buyer: buyerSelect.value };
}

try {
  const figures = await api("/api/database/explorer");
  const games = (seats) => figures.groups.filter((g) => g.seats === seats).reduce((sum, g) => sum + g.games, 0);
  const asked = new URLSearchParams(window.location.search);
  let seats = Number(asked.get("seats"));
  if (![3, 4, 5].includes(seats)) seats = games(4) > 0 ? 4 : [3, 4, 5].reduce((a, b) => (games(b) > games(a) ? b : a), 4);
  form.querySelector(`input[name="seats"][value="${seats}"]`).checked = true;
  if (BUYERS.includes(asked.get("buyer"))) buyerSelect.value = asked.get("buyer");
  const show = () => {
    const { seats: s, buyer } = chosen();
    const n = games(s);
    const time = date(figures.updated, { dateStyle: "short", timeStyle: "short" });
    summary.textContent = n ? t("ex.summary", { n, seats: s, time }) : t("ex.empty", { seats: s });
    draw(figures.groups, s, buyer);
    const url = new URL(window.location.href);
    url.searchParams.set("seats", String(s));
    url.searchParams.set("buyer", buyer);
    window.history.replaceState(null, "", url);
    document.body.dataset.seats = String(s);
    document.body.dataset.buyer = buyer;
  };
  form.addEventListener("change", show);
  let resizing = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizing);
    resizing = setTimeout(show, 150);
  });
  show();
} catch (err) {
  summary.replaceChildren(h("span", { class: "form-error", role: "alert" }, errorText(err)));
}
document.body.dataset.ready = "yes";
