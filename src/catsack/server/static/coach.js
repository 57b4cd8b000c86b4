// The coach of the guided first game (/learn): explains each moment as it happens and
// points at (highlights) the part of the page it talks about.
//
// It reads only what the page already has: the public events of each state frame and
// the learner's own view (R23). The learner's suggested moves come with the game
// (POST /api/learn); once the learner plays something else the coach stops suggesting
// and goes on explaining what happens.

import { fill, h } from "/static/api.js";
import { cardLabel, cardName } from "/static/cards.js";
import { mice, t } from "/static/i18n.js";
import { announce } from "/static/live.js";
import { moveText } from "/static/render.js";

const KEY_PREFIX = "catsack:learn:";
// The moments of the game, in the order they are usually met; "free" and "over" close the lesson.
export const MOMENTS = [
  "welcome",
  "first_reveal",
  "bidding",
  "pass_paid",
  "reveal_after_pass",
  "bought",
  "refill",
  "dog_chase",
  "last_choice",
  "dogs_cancel",
];
const SPOTS = {
  welcome: "#hand",
  first_reveal: "#row",
  bidding: "#actions",
  pass_paid: "#mouse-cards-box",
  reveal_after_pass: "#row",
  bought: "#last-round",
  refill: "#mouse-cards-box",
  dog_chase: "#last-round",
  dogs_cancel: "#last-round",
  // During the last choice the preview shows what 1 mouse buys; afterwards the round's result.
  last_choice: (view) => (view?.phase === "last choice" ? "#preview" : "#last-round"),
  free: "#row",
  over: "#final",
};
const WIDE = window.matchMedia("(min-width: 901px)");

function spotOf(id, view) {
  const spot = SPOTS[id];
  return typeof spot === "function" ? spot(view) : spot;
}

/** The stored lesson of a table ({script, seen}), or null when the table is no guided game. */
export function lessonOf(tableId) {
  try {
    const raw = window.localStorage.getItem(KEY_PREFIX + tableId);
    const lesson = raw ? JSON.parse(raw) : null;
    return lesson && Array.isArray(lesson.script) ? { seen: [], ...lesson } : null;
  } catch {
    return null;
  }
}

export function saveLesson(tableId, lesson) {
  try {
    window.localStorage.setItem(KEY_PREFIX + tableId, JSON.stringify(lesson));
  } catch {
    // no storage: the lesson lasts as long as the page
  }
}

export class Coach {
  constructor({ tableId, lesson, panel, names }) {
    this.tableId = tableId;
    this.lesson = lesson;
    this.panel = panel;
    this.names = names; // () => display names by seat
    this.queue = []; // [{id, params}] waiting to be shown; the head is shown
    this.current = null;
    this.view = null;
    this.myTurn = false;
    panel.hidden = false;
    document.body.dataset.coachSeen = lesson.seen.join(" ");
    // Beside the table on a wide screen (always in view), above the table on a narrow one.
    const place = () => {
      if (WIDE.matches) document.querySelector(".side")?.prepend(panel);
      else document.getElementById("status-line")?.after(panel);
    };
    place();
    WIDE.addEventListener("change", place);
  }

  push(id, params = {}) {
    if (this.lesson.seen.includes(id) || this.queue.some((s) => s.id === id)) return;
    this.queue.push({ id, params });
  }

  /** A state frame arrived (the page has drawn it): queue the moments its events show. */
  onFrame(frame, state) {
    const view = frame.view;
    if (!view) return;
    this.view = view;
    const names = this.names();
    if (view.round === 1 && view.phase === "placement") this.push("welcome");
    let passed = false;
    for (const ev of frame.events ?? []) {
      switch (ev.kind) {
        case "Revealed":
          if (ev.position === 0) this.push("first_reveal", { card: cardName(ev.card), name: ev.owner === null ? t("dummy") : names[ev.owner] });
          else if (passed) this.push("reveal_after_pass", { card: cardName(ev.card), n: ev.position + 1 });
          break;
        case "Passed":
          passed = true;
          // R13: the first passer of a filled round takes the lowest mouse card.
          if (ev.payout > 0 && ev.mouse_card === view.mouse_cards[0])
            this.push("pass_paid", { name: names[ev.seat], mice: mice(ev.payout), card: ev.mouse_card });
          break;
        case "Bought":
          this.push("bought", { name: names[ev.seat], mice: mice(ev.price) });
          break;
        case "Refill":
          if (ev.filled) this.push("refill", { bank: ev.bank });
          break;
        case "DogChase":
          if (ev.cat) this.push("dog_chase", { dog: t(`dog.${ev.dog}`), cat: cardLabel(ev.cat) });
          break;
        case "DogsCancel":
          this.push("dogs_cancel", { n: ev.dogs.length });
          break;
        case "LastChoice":
          this.push("last_choice", { name: names[ev.seat] });
          break;
        case "GameOver":
          this.push("over");
          break;
        default:
          break;
      }
    }
    if (view.phase === "bidding" && view.to_move === view.seat && state.tableStatus === "playing") this.push("bidding");
    if (MOMENTS.every((m) => this.lesson.seen.includes(m) || this.queue.some((s) => s.id === m))) this.push("free");
    if (!this.current) this.next();
    else this.draw();
  }

  /** Show the next queued step (the "Got it" button). */
  next() {
    const step = this.queue.shift() ?? null;
    this.current = step;
    if (step && !this.lesson.seen.includes(step.id)) {
      this.lesson.seen.push(step.id);
      saveLesson(this.tableId, this.lesson);
      document.body.dataset.coachSeen = this.lesson.seen.join(" ");
    }
    this.draw();
    if (step) announce(`${t(`coach.${step.id}.title`)}. ${t(`coach.${step.id}`, step.params)}`, "coach");
    const spot = step && document.querySelector(spotOf(step.id, this.view));
    spot?.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
  }

  /** The learner's next suggested move, while they have followed the script so far. */
  suggestion() {
    const view = this.view;
    if (!view || view.seat === null || view.to_move !== view.seat || view.phase === "over") return null;
    const mine = view.history.filter(([seat]) => seat === view.seat).map(([, move]) => move);
    const script = this.lesson.script;
    if (mine.length >= script.length || mine.some((m, i) => m !== script[i])) return null;
    const move = script[mine.length];
    return view.legal.includes(move) ? move : null;
  }

  suggestedElement(move) {
    if (!move) return null;
    if (move === "pass") return document.getElementById("pass-button");
    if (move.startsWith("place ")) return document.querySelector(`.hand-card[data-move="${CSS.escape(move)}"]`);
    const amount = move.slice(4);
    return (
      document.querySelector(`.quick-bid[data-bid="${CSS.escape(amount)}"]`) ??
      (this.view?.phase === "last choice" ? document.getElementById("bid-button") : null)
    );
  }

  moveName(move) {
    if (this.view?.phase === "last choice") return move === "pass" ? t("me.passVoid") : t("me.buyFor1");
    return moveText(move);
  }

  /** Redraw the panel and the highlights (after every redraw of the page). */
  draw() {
    for (const el of document.querySelectorAll(".coach-spot, .coach-suggest")) el.classList.remove("coach-spot", "coach-suggest");
    const step = this.current;
    document.body.dataset.coachStep = step ? step.id : "";
    if (step) document.querySelector(spotOf(step.id, this.view))?.classList.add("coach-spot");
    const move = this.suggestion();
    const target = this.suggestedElement(move);
    target?.classList.add("coach-suggest");
    const done = MOMENTS.filter((m) => this.lesson.seen.includes(m)).length;
    const title = step ? t(`coach.${step.id}.title`) : t("coach.title");
    const text = step ? t(`coach.${step.id}`, step.params) : t("coach.waiting");
    fill(this.panel, 
      h("h2", {}, title),
      h("p", { class: "coach-text" }, text),
      move ? h("p", { class: "coach-suggestion" }, t("coach.suggest", { move: this.moveName(move) })) : null,
      h(
        "div",
        { class: "coach-actions" },
        step && (step.id !== "over" || this.queue.length) // the last word stays
          ? h("button", { id: "coach-next", class: "button small primary", type: "button", onclick: () => this.next() },
              this.queue.length ? t("coach.nextMore", { n: this.queue.length }) : t("coach.gotIt"))
          : null,
        h("a", { id: "coach-restart", class: "button small", href: "/learn" }, t("coach.restart")),
        h("a", { id: "coach-leave", class: "button small", href: "/" }, t("coach.leave")),
        h("span", { class: "coach-progress" }, t("coach.progress", { n: done, total: MOMENTS.length })),
      ),
    );
  }
}
