// The leaderboard: people and bot levels on one rating scale, best first.

import { api, h } from "/static/api.js";
import { languagePicker, t, translatePage } from "/static/i18n.js";

translatePage();
document.getElementById("lang-slot").append(languagePicker());
const rows = await api("/api/leaderboard");
document.getElementById("board").replaceChildren(
  ...rows.map((r, i) =>
    h(
      "tr",
      { class: r.kind },
      h("td", {}, String(i + 1)),
      h("td", {}, r.profile ? h("a", { href: r.profile }, r.name) : h("span", { title: r.name }, t(`bot.${r.name}`))),
      h("td", {}, String(r.rating)),
      h("td", {}, String(r.games)),
      h("td", {}, String(Math.round(r.wins * 100) / 100)),
    ),
  ),
);
