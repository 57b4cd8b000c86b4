// At the table besides the game: chat (with muting), the turn sound and the "your turn"
// notification, and the host's "hand this seat to a bot" button.
//
// Chat text is only ever put into the page as text (textContent), never as markup.

import { api, h } from "/static/api.js";
import { errorText, t } from "/static/i18n.js";
import { announce } from "/static/live.js";

function storage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function loadJson(key, fallback) {
  try {
    return JSON.parse(storage()?.getItem(key) ?? "null") ?? fallback;
  } catch {
    return fallback;
  }
}

function saveJson(key, value) {
  storage()?.setItem(key, JSON.stringify(value));
}

/** The chat panel: messages, a mute toggle per player, and (for seated players) an input. */
export class Chat {
  constructor({ root, table, send }) {
    this.root = root;
    this.table = table;
    this.send = send;
    this.seat = null;
    this.muted = new Set(loadJson(`catsack:mute:${table}`, []));
    this.messages = [];
    // Focusable, so that a keyboard can scroll it; named by the panel's title.
    this.list = h("ol", { id: "chat-log", class: "chat-log", tabindex: "0", "aria-label": t("chat.title") });
    this.input = h("input", {
      id: "chat-input",
      maxlength: 200,
      autocomplete: "off",
      "aria-label": t("chat.placeholder"),
      placeholder: t("chat.placeholder"),
    });
    this.form = h(
      "form",
      { id: "chat-form", class: "chat-form", onsubmit: (e) => this.submit(e) },
      this.input,
      h("button", { class: "button small", type: "submit" }, t("chat.send")),
    );
    this.root.replaceChildren(h("h2", {}, t("chat.title")), this.list, this.form);
    this.setSeat(null);
  }

  setSeat(seat) {
    this.seat = seat;
    this.form.hidden = seat === null;
  }

  submit(event) {
    event.preventDefault();
    const text = this.input.value.trim();
    if (!text) return;
    if (this.send({ type: "chat", text })) this.input.value = "";
  }

  /** A `chat` frame: new messages, or the table's history on (re)connect. */
  receive(frame) {
    if (frame.history) this.messages = [];
    const seen = new Set(this.messages.map((m) => m.n));
    for (const m of frame.messages ?? []) {
      if (seen.has(m.n)) continue;
      this.messages.push(m);
      // A new message of someone else is said once (the page's one live region); the history is not.
      if (!frame.history && m.seat !== this.seat && !this.muted.has(m.seat)) announce(t("chat.said", { name: m.name, text: m.text }), "chat");
    }
    this.messages.sort((a, b) => a.n - b.n);
    this.draw();
  }

  toggleMute(seat) {
    if (this.muted.has(seat)) this.muted.delete(seat);
    else this.muted.add(seat);
    saveJson(`catsack:mute:${this.table}`, [...this.muted]);
    this.draw();
  }

  draw() {
    const items = this.messages
      .filter((m) => !this.muted.has(m.seat))
      .map((m) =>
        h(
          "li",
          { class: m.seat === this.seat ? "mine" : "" },
          h("strong", { class: "chat-name" }, m.name),
          m.guest ? h("span", { class: "tag guest", title: t("seat.guestTitle") }, t("seat.guest")) : null,
          " ",
          h("span", { class: "chat-text" }, m.text),
          m.seat === this.seat
            ? null
            : h(
                "button",
                { class: "link mute", type: "button", title: t("chat.mute"), onclick: () => this.toggleMute(m.seat) },
                t("chat.mute"),
              ),
        ),
      );
    const mutedSeats = [...this.muted];
    if (mutedSeats.length) {
      items.push(
        h(
          "li",
          { class: "hint" },
          t("chat.mutedCount", { n: mutedSeats.length }),
          " ",
          h("button", { class: "link", type: "button", onclick: () => this.unmuteAll() }, t("chat.unmute")),
        ),
      );
    }
    this.list.replaceChildren(...items);
    this.list.scrollTop = this.list.scrollHeight;
  }

  unmuteAll() {
    this.muted.clear();
    saveJson(`catsack:mute:${this.table}`, []);
    this.draw();
  }
}

/** The turn sound (on by default, can be switched off) and a notification while the tab is hidden
 * (the browser asks for permission only after the player clicks to enable it). */
export class TurnAlerts {
  constructor({ root }) {
    this.sound = loadJson("catsack:turnSound", true);
    this.wasMyTurn = false;
    this.soundBox = h("input", { type: "checkbox", id: "turn-sound" });
    this.soundBox.checked = this.sound;
    this.soundBox.addEventListener("change", () => {
      this.sound = this.soundBox.checked;
      saveJson("catsack:turnSound", this.sound);
    });
    this.notifyButton = h(
      "button",
      { id: "turn-notify", class: "button small", type: "button", onclick: () => this.enableNotifications() },
      t("alerts.notify"),
    );
    this.notifyButton.hidden = !("Notification" in window) || Notification.permission === "granted";
    root.replaceChildren(
      h("label", { class: "toggle" }, this.soundBox, " ", t("alerts.sound")),
      " ",
      this.notifyButton,
    );
  }

  async enableNotifications() {
    if (!("Notification" in window)) return;
    const answer = await Notification.requestPermission();
    this.notifyButton.hidden = answer === "granted";
  }

  /** Call after every state: alerts once when the turn comes to this player. */
  update(myTurn) {
    if (myTurn && !this.wasMyTurn) {
      if (this.sound) beep();
      if (document.hidden && "Notification" in window && Notification.permission === "granted") {
        const note = new Notification(t("alerts.title"), { body: t("alerts.body"), tag: "catsack-turn" });
        note.onclick = () => window.focus();
      }
    }
    this.wasMyTurn = myTurn;
  }
}

let audio = null;

function beep() {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 660;
    gain.gain.setValueAtTime(0.08, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.25);
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.25);
  } catch {
    // no audio (autoplay policy before any click): silently skip
  }
}

/** The host's button for an away player's seat: hand it to a bot now. */
export function handToBotButton(table, seat, token, onDone) {
  return h(
    "button",
    {
      class: "button small hand-to-bot",
      type: "button",
      title: t("host.handTitle"),
      onclick: async () => {
        try {
          await api(`/api/tables/${encodeURIComponent(table)}/seats/${seat}/bot`, { method: "POST", token });
          onDone(null);
        } catch (err) {
          onDone(errorText(err));
        }
      },
    },
    t("host.hand"),
  );
}
