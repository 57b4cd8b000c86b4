// The account page's push part: turn notifications on or off for this device (the browser's push
// subscription, handed to the server), send a test, choose which kinds to get, and forget other
// devices. A server without a VAPID key says which setting turns push on; a browser without push
// (or with notifications blocked for the site) says so.

import { api } from "/static/api.js";
import { date, errorText, t } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);
const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

function say(text, ok = false) {
  const banner = $("banner");
  banner.textContent = text;
  banner.hidden = !text;
  banner.classList.toggle("ok", ok);
}

function note(text) {
  $("push-note").textContent = text;
  $("push-note").hidden = !text;
}

/** The server's public key (base64url) as the bytes PushManager.subscribe wants. */
function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (base64url.length % 4)) % 4));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

/** The SHA-256 of an endpoint, hex: how the server's device list names each device. */
async function keyOf(endpoint) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(endpoint));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function subscription() {
  if (!supported) return null;
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

let state = null;

async function show(push) {
  state = push;
  const panel = $("push-panel");
  panel.dataset.enabled = String(push.enabled);
  $("push-prefs").hidden = !push.enabled;
  for (const box of document.querySelectorAll("#push-prefs input[data-kind]")) box.checked = Boolean(push.prefs[box.dataset.kind]);
  if (!push.enabled) {
    // The setting's name is a command's word, not the page's language: shown as code.
    const [before, after = ""] = t("push.off").split("{setting}");
    const setting = document.createElement("code");
    setting.textContent = push.setting;
    $("push-note").replaceChildren(before, setting, after);
    $("push-note").hidden = false;
    $("push-actions").hidden = true;
    $("push-state").hidden = true;
    $("push-devices").hidden = true;
    panel.dataset.state = "off";
    return;
  }
  const sub = await subscription().catch(() => null);
  const mine = sub ? await keyOf(sub.endpoint) : null;
  const here = push.devices.some((d) => d.key === mine);
  if (!supported) note(t("push.unsupported"));
  else if (Notification.permission === "denied") note(t("push.denied"));
  else note("");
  $("push-state").hidden = !supported;
  $("push-state").textContent = here ? t("push.thisOn") : t("push.thisOff");
  panel.dataset.state = here ? "on" : "off";
  $("push-actions").hidden = !supported;
  $("push-on").hidden = here || Notification.permission === "denied";
  $("push-off").hidden = !here;
  $("push-test").hidden = !here;
  const list = $("push-device-list");
  list.replaceChildren();
  for (const device of push.devices) {
    const item = document.createElement("li");
    item.dataset.device = String(device.id);
    const label = document.createElement("span");
    const added = t("push.device", { date: date(device.created * 1000) });
    label.textContent = device.key === mine ? `${added} (${t("push.thisDevice")})` : added;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "button small ghost";
    remove.textContent = t("push.remove");
    remove.addEventListener("click", () => act(() => api(`/api/push/devices/${device.id}`, { method: "DELETE" })));
    item.append(label, " ", remove);
    list.append(item);
  }
  $("push-devices").hidden = push.devices.length === 0;
}

async function act(step, done = "") {
  try {
    await show(await step());
    if (done) say(done, true);
  } catch (err) {
    say(errorText(err));
  }
}

async function turnOn() {
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    await show(state);
    return state;
  }
  const registration = await navigator.serviceWorker.ready;
  let sub = await registration.pushManager.getSubscription();
  if (!sub) {
    sub = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(state.public_key) });
  }
  const body = { ...sub.toJSON(), lang: document.documentElement.lang || undefined };
  return api("/api/push/subscribe", { method: "POST", body });
}

async function turnOff() {
  const sub = await subscription();
  if (!sub) return api("/api/push");
  const answer = await api("/api/push/unsubscribe", { method: "POST", body: { endpoint: sub.endpoint } });
  await sub.unsubscribe().catch(() => false);
  return answer;
}

async function test() {
  const sub = await subscription();
  return api("/api/push/test", { method: "POST", body: { endpoint: sub?.endpoint ?? "" } });
}

$("push-on").addEventListener("click", () => act(turnOn));
$("push-off").addEventListener("click", () => act(turnOff));
$("push-test").addEventListener("click", () => act(test, t("push.testSent")));
for (const box of document.querySelectorAll("#push-prefs input[data-kind]")) {
  box.addEventListener("change", () => act(() => api("/api/push/prefs", { method: "POST", body: { [box.dataset.kind]: box.checked } })));
}

async function load() {
  try {
    await show(await api("/api/push"));
  } catch {
    // logged out meanwhile: account.js shows the login forms
  }
}

const member = $("member");
new MutationObserver(() => {
  if (!member.hidden) load();
}).observe(member, { attributes: true, attributeFilter: ["hidden"] });
if (!member.hidden) load();
