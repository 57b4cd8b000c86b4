// The account page: log in or register; when logged in, log out, export games, claim the
// games this browser played as a guest (their seat tokens prove it), change the password,
// delete the account.

import { api, storedSeats } from "/static/api.js";
import { errorText, languagePicker, t, translatePage } from "/static/i18n.js";
import { rememberAccount } from "/static/session.js";

const $ = (id) => document.getElementById(id);

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

async function show() {
  let me = null;
  try {
    // Asked where a guest is no error (GET /api/account answers a guest 401, logged in the console).
    me = (await api("/api/account/session")).account;
  } catch {
    me = null;
  }
  // The lobby and table pages ask the server only when this says someone logged in here.
  rememberAccount(me?.name ?? null);
  $("guest").hidden = me !== null;
  $("member").hidden = me === null;
  if (me) {
    const link = $("me-link");
    link.textContent = me.name;
    link.href = `/u/${encodeURIComponent(me.name)}`;
    $("me-rating").textContent = String(me.rating);
    $("me-games").textContent = String(me.games);
  }
  return me;
}

function onSubmit(id, action) {
  $(id).addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const message = await action();
      say(message ?? "", true);
      await show();
    } catch (err) {
      say(errorText(err));
    }
  });
}

translatePage();
document.title = `${t("acct.account")} — ${t("brand")}`;
$("lang-slot").append(languagePicker());

onSubmit("login-form", async () => {
  await api("/api/account/login", {
    method: "POST",
    body: { name: $("login-name").value.trim(), password: $("login-password").value },
  });
  return t("acct.welcome");
});
onSubmit("register-form", async () => {
  await api("/api/account/register", {
    method: "POST",
    body: { name: $("register-name").value.trim(), password: $("register-password").value },
  });
  return t("acct.welcome");
});
onSubmit("password-form", async () => {
  await api("/api/account/password", {
    method: "POST",
    body: { old: $("old-password").value, new: $("new-password").value },
  });
  $("password-form").reset();
  return t("acct.passwordChanged");
});
onSubmit("delete-form", async () => {
  if (!window.confirm(t("acct.deleteConfirm"))) return "";
  await api("/api/account", { method: "DELETE", body: { password: $("delete-password").value } });
  return t("acct.deleted");
});
$("logout").addEventListener("click", async () => {
  await api("/api/account/logout", { method: "POST" });
  say("");
  await show();
});
$("claim").addEventListener("click", async () => {
  try {
    const seats = storedSeats().map(([table, seat]) => ({ table, token: seat.token }));
    const answer = await api("/api/account/claim", { method: "POST", body: { seats } });
    say(t("acct.claimed", { n: answer.claimed.length }), true);
    await show();
  } catch (err) {
    say(errorText(err));
  }
});
await show();
