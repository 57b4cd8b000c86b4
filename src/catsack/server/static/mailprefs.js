// The account page's e-mail part: add (and verify by the mailed link) or remove an address, and
// choose which kinds of mail to get and their language. Shown once account.js shows the logged-in part; a server
// without SMTP settings says it sends no e-mail.

import { api } from "/static/api.js";
import "/static/days.js";
import { LANGUAGES, errorText, t } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

function show(mail) {
  $("mail-off-note").hidden = mail.enabled;
  $("mail-form").hidden = !mail.enabled;
  $("mail-prefs").hidden = !mail.enabled || !mail.address;
  if (!mail.enabled) return;
  if (document.activeElement !== $("mail-address")) $("mail-address").value = mail.address ?? "";
  $("mail-remove").hidden = !mail.address;
  $("mail-state").textContent = !mail.address ? t("days.noAddress") : mail.verified ? t("days.verified") : t("days.unverified");
  $("mail-state").dataset.state = !mail.address ? "none" : mail.verified ? "verified" : "unverified";
  for (const box of document.querySelectorAll("#mail-prefs input[data-kind]")) box.checked = Boolean(mail.prefs[box.dataset.kind]);
  if (mail.lang && document.activeElement !== $("mail-lang")) $("mail-lang").value = mail.lang;
}

// The mails' language: each language by its own name, as the page's language picker lists them.
for (const [code, name] of Object.entries(LANGUAGES)) {
  const option = document.createElement("option");
  option.value = code;
  option.lang = code;
  option.textContent = name;
  $("mail-lang").append(option);
}

async function load() {
  try {
    show(await api("/api/mail"));
  } catch {
    // logged out meanwhile: account.js shows the login forms
  }
}

$("mail-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  try {
    show(await api("/api/mail/address", { method: "POST", body: { address: $("mail-address").value.trim() } }));
    say(t("days.verifySent"), true);
  } catch (err) {
    say(errorText(err));
  }
});
$("mail-remove").addEventListener("click", async () => {
  try {
    show(await api("/api/mail/address", { method: "DELETE" }));
  } catch (err) {
    say(errorText(err));
  }
});
for (const box of document.querySelectorAll("#mail-prefs input[data-kind]")) {
  box.addEventListener("change", async () => {
    try {
      show(await api("/api/mail/prefs", { method: "POST", body: { [box.dataset.kind]: box.checked } }));
    } catch (err) {
      say(errorText(err));
    }
  });
}

$("mail-lang").addEventListener("change", async () => {
  try {
    show(await api("/api/mail/prefs", { method: "POST", body: { lang: $("mail-lang").value } }));
  } catch (err) {
    say(errorText(err));
  }
});

const member = $("member");
new MutationObserver(() => {
  if (!member.hidden) load();
}).observe(member, { attributes: true, attributeFilter: ["hidden"] });
if (!member.hidden) load();

const mail = new URLSearchParams(window.location.search).get("mail");
if (mail === "verified") say(t("days.addressVerified"), true);
else if (mail === "bad_link") say(t("days.badLink"));
else if (mail) say(errorText({ code: mail, message: "" })); // a link refused for a reason (address_taken)
