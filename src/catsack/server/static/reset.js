// A forgotten password: ask for a link by the account's verified e-mail address, or, opened from
// that link (#token=…), set the new password (the link works once, for an hour).

import { api } from "/static/api.js";
import { errorText, languagePicker, t, translatePage } from "/static/i18n.js";
import { rememberAccount } from "/static/session.js";

const $ = (id) => document.getElementById(id);

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

translatePage();
document.title = `${t("days.resetTitle")} — ${t("brand")}`;
$("lang-slot").append(languagePicker());

let token = null;
let enabled = false;
try {
  enabled = (await api("/api/mail/status")).enabled;
} catch {
  enabled = false;
}

/** Ask for a link, or (opened from the link: #token=…) set the new password. */
function show() {
  token = new URLSearchParams(window.location.hash.slice(1)).get("token");
  $("mail-off").hidden = enabled || Boolean(token);
  $("ask-form").hidden = !enabled || Boolean(token);
  $("new-form").hidden = !token;
}
window.addEventListener("hashchange", show);
show();

$("ask-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await api("/api/account/reset", { method: "POST", body: { address: $("reset-address").value.trim() } });
    say(t("days.resetSent"), true);
  } catch (err) {
    say(errorText(err));
  }
});
$("new-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    await api("/api/account/reset/confirm", { method: "POST", body: { token, password: $("reset-password").value } });
    history.replaceState(null, "", "/reset"); // the used token leaves the address bar
    const me = (await api("/api/account/session")).account;
    rememberAccount(me?.name ?? null);
    say(t("days.resetDone"), true);
    $("new-form").hidden = true;
  } catch (err) {
    say(errorText(err));
  }
});
