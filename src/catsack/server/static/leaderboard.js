// The leaderboard: people and bot levels on one rating scale, best first.

import { api, h } from "/static/api.js";
import { errorText, languagePicker, num, t, translatePage } from "/static/i18n.js";

translatePage();
document.title = `${t("acct.leaderboard")} — ${t("brand")}`;
document.getElementById("lang-slot").append(languagePicker());
const board = document.getElementById("board");
try {
  const rows = await api("/api/leaderboard");
  board.replaceChildren(
    ...rows.map((r, i) =>
      h(
        "tr",
        { class: r.kind },
        h("td", {}, String(i + 1)),
        h("td", {}, r.profile ? h("a", { href: r.profile }, r.name) : h("span", { title: r.name }, t(`bot.${r.name}`))),
        h("td", {}, String(r.rating)),
        h("td", {}, String(r.games)),
        h("td", {}, num(r.wins)),
      ),
    ),
  );
} catch (err) {
  // The refusal in the page's language, where the table would be.
  board.replaceChildren(h("tr", {}, h("td", { colspan: 5, class: "form-error", role: "alert" }, errorText(err))));
}
document.body.dataset.ready = "yes";
