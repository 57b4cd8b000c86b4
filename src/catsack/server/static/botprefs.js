// The account page's bots part: the logged-in person's bot accounts (docs/bot-api.md), a form that
// creates one and shows its API token this once, and a button that revokes a bot's token. Shown once
// account.js shows the logged-in part.

import { api } from "/static/api.js";
import { errorText, t } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

function row(bot) {
  const li = document.createElement("li");
  li.className = "bot-account";
  const link = document.createElement("a");
  link.href = bot.profile;
  link.textContent = bot.name;
  const mark = document.createElement("span");
  mark.className = "badge";
  mark.textContent = t("bots.badge");
  const state = document.createElement("span");
  state.className = "hint";
  state.textContent = bot.revoked ? t("bots.revoked") : bot.online ? t("bots.online") : t("bots.offline");
  li.append(link, " ", mark, " ", state);
  if (!bot.revoked) {
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.className = "button ghost";
    revoke.textContent = t("bots.revoke");
    revoke.addEventListener("click", async () => {
      try {
        await api(`/api/account/bots/${encodeURIComponent(bot.name)}`, { method: "DELETE" });
        say(t("bots.revokedSay", { name: bot.name }), true);
        load();
      } catch (err) {
        say(errorText(err));
      }
    });
    li.append(" ", revoke);
  }
  return li;
}

async function load() {
  try {
    const bots = await api("/api/account/bots");
    $("bots-list").replaceChildren(...bots.map(row));
    $("bots-none").hidden = bots.length > 0;
  } catch {
    // logged out meanwhile: account.js shows the login forms
  }
}

$("bots-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    const bot = await api("/api/account/bots", { method: "POST", body: { name: $("bots-name").value } });
    $("bots-token").value = bot.token;
    $("bots-token-panel").hidden = false;
    $("bots-name").value = "";
    say(t("bots.created", { name: bot.name }), true);
    load();
  } catch (err) {
    say(errorText(err));
  }
});
$("bots-token-done").addEventListener("click", () => {
  $("bots-token").value = "";
  $("bots-token-panel").hidden = true;
});

const member = $("member");
new MutationObserver(() => {
  if (!member.hidden) load();
}).observe(member, { attributes: true, attributeFilter: ["hidden"] });
if (!member.hidden) load();
