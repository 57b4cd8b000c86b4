// The operator's fair-play page (CATSACK_ADMIN_ACCOUNTS): the soft-play report, pair by pair with its
// evidence and games, and a button per game that takes its rating changes back. The server decides who
// may see it; everyone else is shown the refusal in their language.

import { api, fill, h } from "/static/api.js";
import { errorText, languagePicker, num, t, translatePage } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
const percent = (x) => num(Math.round(x * 100));

function say(text) {
  $("banner").textContent = text;
  $("banner").hidden = !text;
}

async function revert(table, button) {
  button.disabled = true;
  try {
    const done = await api(`/api/admin/games/${encodeURIComponent(table)}/revert`, {
      method: "POST",
      body: { reason: $("reason").value.trim() },
    });
    const changes = done.changes.map((c) => `${c.name} ${c.before} → ${c.after}`).join(", ");
    button.replaceWith(h("span", { class: "reverted", dataset: { table } }, t("admin.reverted", { changes })));
    say("");
  } catch (err) {
    button.disabled = false;
    say(errorText(err));
  }
}

function gameItem(table) {
  const button = h("button", { class: "button small revert-button", type: "button", dataset: { table } }, t("admin.revert"));
  button.addEventListener("click", () => revert(table, button));
  return h("li", { class: "admin-game" }, h("a", { href: `/replay/${encodeURIComponent(table)}` }, t("admin.game", { table })), " ", button);
}

function pairItem(p) {
  return h(
    "li",
    { class: `table-item pair-item${p.stands_out ? " stands-out" : ""}`, dataset: { a: p.a, b: p.b } },
    h("span", { class: "table-link" }, `${p.a} + ${p.b}`, p.stands_out ? h("span", { class: "tag" }, t("admin.standsOut")) : null),
    h(
      "span",
      { class: "table-meta" },
      [
        t("admin.together", { games: p.games_together, overlap: percent(p.overlap) }),
        t("admin.passes", {
          passes: p.passes_while_partner_led,
          turns: p.turns_while_partner_led,
          share: percent(p.pass_share_partner_led),
          others: percent(p.pass_share_others_led),
        }),
        t("admin.raises", { n: p.raises_over_each_other }),
        `z = ${p.z}`,
      ].join(" · "),
    ),
    h("h3", { class: "admin-games-title" }, t("admin.games")),
    h("ul", { class: "admin-games" }, p.tables.map(gameItem)),
  );
}

async function load() {
  let report;
  try {
    report = await api(`/api/admin/fairplay${$("show-all").checked ? "?all=true" : ""}`);
  } catch (err) {
    $("denied").textContent = errorText(err);
    $("denied").hidden = false;
    document.body.dataset.loaded = "denied";
    return;
  }
  const th = report.thresholds;
  $("thresholds").textContent = t("admin.thresholds", {
    gap: percent(th.min_gap),
    z: th.min_z,
    turns: th.min_turns,
    games: report.games_read,
  });
  $("controls").hidden = false;
  fill($("pairs"), report.pairs.length ? report.pairs.map(pairItem) : h("li", { class: "hint" }, t("admin.none")));
  document.body.dataset.loaded = "yes";
}

translatePage();
document.title = `${t("admin.title")} — ${t("brand")}`;
$("lang-slot").append(languagePicker());
$("show-all").addEventListener("change", () => load());
await load();
