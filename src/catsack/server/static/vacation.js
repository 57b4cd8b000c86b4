// The account page's vacation part: how many days a year the server allows, how many are left, and
// starting or ending a vacation (the account's turn-based clocks stand still meanwhile). Shown once
// account.js shows the logged-in part.

import { api } from "/static/api.js";
import { date, errorText, num, t } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

const when = (iso) => date(iso, { dateStyle: "medium", timeStyle: "short" });

function show(v) {
  $("vacation-hint").textContent = v.enabled ? t("vac.hint", { n: v.days_per_year }) : t("vac.off");
  const away = Boolean(v.until);
  $("vacation-form").hidden = !v.enabled || away;
  $("vacation-end").hidden = !away;
  $("vacation-days").max = String(Math.max(1, Math.floor(v.left_days)));
  const state = $("vacation-state");
  state.hidden = !v.enabled;
  const used = t("vac.used", { used: num(v.used_days, 1), n: v.days_per_year, left: num(v.left_days, 1) });
  state.textContent = away ? `${t("vac.until", { date: when(v.until) })} ${used}` : used;
  state.dataset.state = away ? "away" : "home";
  return v;
}

async function load() {
  try {
    show(await api("/api/vacation"));
  } catch {
    // logged out meanwhile: account.js shows the login forms
  }
}

$("vacation-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const v = show(await api("/api/vacation/start", { method: "POST", body: { days: Number($("vacation-days").value) } }));
    say(t("vac.started", { date: when(v.until) }), true);
  } catch (err) {
    say(errorText(err));
  }
});
$("vacation-end").addEventListener("click", async () => {
  try {
    show(await api("/api/vacation/end", { method: "POST" }));
    say(t("vac.ended"), true);
  } catch (err) {
    say(errorText(err));
  }
});

const member = $("member");
new MutationObserver(() => {
  if (!member.hidden) load();
}).observe(member, { attributes: true, attributeFilter: ["hidden"] });
if (!member.hidden) load();
