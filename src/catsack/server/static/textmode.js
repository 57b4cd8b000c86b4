// The text table: the game as words for screen readers and braille displays, played by typing
// short commands ("place 3", "bid 7", "pass") and read on demand ("row", "hand", "money", "scores",
// "clock", "help"). Answers are said through the page's one live region (live.js) and kept, not
// live, in a transcript under the command line.
//
// Command words come from the catalogue (text.cmd.<command>: "lege|leg" in German), and the English
// words work in every language. The module only reads the view the server sent (R23) and sends
// moves through the page's own sendMove, after checking them against the view's legal moves.

import { h } from "/static/api.js";
import { cardName, cardNames } from "/static/cards.js";
import { list, mice, t } from "/static/i18n.js";
import { announce } from "/static/live.js";
import { lastRoundText, moveText, previewText, ranking } from "/static/render.js";

const COMMANDS = ["place", "bid", "buy", "pass", "row", "hand", "money", "bids", "bank", "scores", "clock", "turn", "last", "help"];
const TOKENS = ["R", "LD", "SD"];
const KEEP = 60; // transcript lines kept
const STORE_KEY = "catsack:textTable";

/** Lower case without accents, so "rangée" and "rangee", "Lege" and "lege" are one word. */
function fold(text) {
  return String(text).normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().trim();
}

/** Is the text table on (?text=1 in the address, else the reader's last choice)? */
export function textTableWanted() {
  const asked = new URLSearchParams(window.location.search).get("text");
  if (asked === "1" || asked === "0") return asked === "1";
  try {
    return window.localStorage.getItem(STORE_KEY) === "1";
  } catch {
    return false;
  }
}

function rememberChoice(on) {
  try {
    window.localStorage.setItem(STORE_KEY, on ? "1" : "0");
  } catch {
    // no storage: the choice lasts as long as the page
  }
}

/** word -> command: the English words, then the page language's (which win where they differ). */
function vocabulary(commands = COMMANDS) {
  const words = new Map(commands.map((c) => [c, c]));
  for (const command of commands) {
    for (const word of t(`text.cmd.${command}`).split("|")) if (fold(word)) words.set(fold(word), command);
  }
  return words;
}

/** A typed line as {command, arg} (arg: the rest of the line), or {unknown: word}. */
export function parseCommand(line, words = vocabulary()) {
  const text = String(line).trim().replace(/\s+/g, " ");
  const space = text.indexOf(" ");
  const word = fold(space < 0 ? text : text.slice(0, space));
  const arg = space < 0 ? "" : text.slice(space + 1).trim();
  const command = words.get(word);
  return command ? { command, arg } : { unknown: space < 0 ? text : text.slice(0, space) };
}

/** The card of `hand` that `arg` names: its place in the hand (1-9), a cat's value ("+11", "-3"),
 * or a rabbit or dog by its letters or its name in the page's language or English; else null. */
export function cardOf(arg, hand) {
  const text = fold(arg).replace(/\u2212/g, "-");
  if (/^\d+$/.test(text)) return hand[Number(text) - 1] ?? null;
  if (/^[+-]\d+$/.test(text)) return hand.includes(text) ? text : null;
  for (const token of TOKENS) {
    const names = [token, t(`tok.${token}`), cardName(token), { R: "rabbit", LD: "large dog", SD: "small dog" }[token]];
    if (names.some((name) => fold(name) === text) && hand.includes(token)) return token;
  }
  return null;
}

export class TextTable {
  /**
   * `root`: the text table's section; `page`: the page's accessors {view(), names(), myTurn(), pending(),
   * statusText(), clockText(), send(move)} (a replay has no send: nobody moves there); `extra`: more
   * commands by name, each a function of the typed argument that returns its answer (the replay's
   * next, back, start, end); `help`: the help's catalogue key; `onToggle(on)` redraws the page.
   */
  constructor({ root, toggle, page, onToggle, extra = {}, help = "text.help" }) {
    this.root = root;
    this.page = page;
    this.toggle = toggle;
    this.onToggle = onToggle;
    this.extra = extra;
    this.help = help;
    this.words = vocabulary([...COMMANDS, ...Object.keys(extra)]);
    this.state = root.querySelector("#text-state");
    this.history = root.querySelector("#text-history");
    this.input = root.querySelector("#text-command");
    root.querySelector("#text-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const line = this.input.value;
      this.input.value = "";
      this.run(line);
    });
    toggle.addEventListener("click", () => this.set(!this.on));
    this.set(textTableWanted(), { quiet: true });
  }

  /** Switch the text table on or off (kept for the next visit). */
  set(on, { quiet = false } = {}) {
    this.on = on;
    rememberChoice(on);
    document.body.classList.toggle("text-mode", on);
    this.root.hidden = !on;
    this.toggle.setAttribute("aria-pressed", on ? "true" : "false");
    this.onToggle?.(on);
    if (!quiet) announce(on ? t("text.onSaid") : t("text.offSaid"));
    if (on && !quiet) this.input.focus();
    this.draw();
  }

  /** Redraw the state summary (plain text: a reader moves to it; only answers are announced). */
  draw() {
    if (!this.on || !this.state) return;
    const view = this.page.view();
    if (!view) {
      this.state.replaceChildren(h("li", {}, this.page.statusText()));
      return;
    }
    const lines = [this.page.statusText(), this.turnText(view), this.rowText(view)];
    if (view.phase === "bidding" || view.phase === "last choice") lines.push(this.bidsText(view));
    if (view.seat !== null && view.phase !== "over") lines.push(this.handText(view), this.moneyText(view));
    if (view.phase === "over") lines.push(this.scoresText(view));
    const last = lastRoundText(view, this.page.names());
    if (last && view.phase !== "over") lines.push(last);
    this.state.replaceChildren(...lines.filter(Boolean).map((line) => h("li", {}, line)));
  }

  /** Keep a line of the transcript (not announced: the answer itself is). */
  note(text, kind) {
    this.history.append(h("li", { class: `text-${kind}` }, text));
    while (this.history.childElementCount > KEEP) this.history.firstElementChild.remove();
  }

  say(text) {
    this.note(text, "answer");
    announce(text, "answer");
  }

  /** Run one typed line. */
  run(line) {
    if (!String(line).trim()) return;
    this.note(`> ${line}`, "command");
    const parsed = parseCommand(line, this.words);
    if (parsed.unknown !== undefined) {
      this.say(t("text.unknown", { word: parsed.unknown }));
      return;
    }
    const view = this.page.view();
    if (!view) {
      this.say(this.page.statusText());
      return;
    }
    const names = this.page.names();
    if (Object.hasOwn(this.extra, parsed.command)) {
      this.say(this.extra[parsed.command](parsed.arg));
      return;
    }
    switch (parsed.command) {
      case "place":
      case "bid":
      case "buy":
      case "pass":
        this.move(parsed.command, parsed.arg, view);
        break;
      case "row":
        this.say(this.rowText(view, { preview: true }));
        break;
      case "hand":
        this.say(view.seat === null ? (this.page.handsText?.() || t("text.watching")) : this.handText(view));
        break;
      case "money":
        this.say(this.moneyText(view, { everyone: true }));
        break;
      case "bids":
        this.say(this.bidsText(view));
        break;
      case "bank":
        this.say(this.bankText(view));
        break;
      case "scores":
        this.say(this.scoresText(view));
        break;
      case "clock":
        this.say(this.page.clockText() || t("text.noClock"));
        break;
      case "turn":
        this.say(`${this.turnText(view)} ${this.page.statusText()}`);
        break;
      case "last":
        this.say(lastRoundText(view, names) || t("text.noLast"));
        break;
      default:
        this.say(t(this.help));
        break;
    }
  }

  /** Check a move command against the view and send it, or say why it cannot be played. */
  move(command, arg, view) {
    if (!this.page.send) return this.say(t("text.replayMoves"));
    if (view.seat === null) return this.say(t("text.watching"));
    if (view.phase === "over") return this.say(t("status.over"));
    if (!this.page.myTurn()) {
      const mover = view.to_move === null ? "" : this.page.names()[view.to_move];
      return this.say(t("text.notYourTurn", { name: mover }));
    }
    if (this.page.pending()) return this.say(t("text.busy"));
    let move = null;
    if (command === "pass") move = "pass";
    else if (command === "buy") move = "bid 1";
    else if (command === "place") {
      if (view.phase !== "placement") return this.say(t("text.notPlacing"));
      const card = cardOf(arg, view.hand);
      if (!card) return this.say(t("text.noCard", { card: arg || "?", n: view.hand.length }));
      move = `place ${card}`;
    } else {
      if (view.phase === "placement") return this.say(t("text.notBidding"));
      const bids = view.legal.filter((m) => m.startsWith("bid ")).map((m) => Number(m.slice(4)));
      if (!bids.length) return this.say(t("text.cannotBid"));
      const amount = arg === "" && view.phase === "last choice" ? 1 : Number(arg);
      if (!Number.isInteger(amount) || !bids.includes(amount))
        return this.say(t("err.bidRange", { min: Math.min(...bids), max: Math.max(...bids) }));
      move = `bid ${amount}`;
    }
    if (!view.legal.includes(move)) return this.say(t("text.illegal", { move: moveText(move) }));
    this.note(t("text.sent", { move: moveText(move) }), "answer");
    this.page.send(move);
  }

  turnText(view) {
    if (view.phase === "over") return t("badge.over");
    return t("badge.round", { round: view.round });
  }

  rowText(view, { preview = false } = {}) {
    const names = this.page.names();
    if (!view.row.length) return t("text.rowEmpty");
    const cards = view.row.map((rc, i) => {
      const owner = rc.owner === null ? t("dummy") : names[rc.owner];
      let what;
      if (rc.face_up) what = cardName(rc.card);
      else if (rc.card) what = t("text.yoursDown", { card: cardName(rc.card) });
      else what = t("row.down");
      return t("text.rowCard", { n: i + 1, owner, what });
    });
    let text = t("text.row", { cards: cards.join("; ") });
    if (preview && (view.phase === "bidding" || view.phase === "last choice")) {
      const p = previewText(view);
      text += ` ${p.dogs} ${p.keeps}${p.hidden ? ` ${p.hidden}` : ""}`;
    }
    return text;
  }

  handText(view) {
    if (!view.hand.length) return t("hand.empty");
    const cards = view.hand.map((token, i) => t("text.handCard", { n: i + 1, card: cardName(token) }));
    const removed = view.removed ? ` ${t("me.removed", { card: cardName(view.removed) })}` : "";
    return `${t("text.hand", { cards: cards.join(", ") })}${removed}`;
  }

  moneyText(view, { everyone = false } = {}) {
    const names = this.page.names();
    const mine = view.seat === null ? "" : t("me.money", { mice: mice(view.money[view.seat]) });
    if (!everyone) return mine;
    const others = [];
    for (let seat = 0; seat < view.seats; seat += 1) {
      if (seat === view.seat) continue;
      const money = view.money[seat];
      others.push(t("text.seatMoney", { name: names[seat], money: money === null ? t("text.secret") : mice(money) }));
    }
    return [mine, t("text.others", { list: list(others) })].filter(Boolean).join(" ");
  }

  bidsText(view) {
    const names = this.page.names();
    if (view.phase === "placement") return t("text.noBidsYet");
    const parts = [];
    for (let seat = 0; seat < view.seats; seat += 1) {
      let what;
      if (view.passed[seat]) what = t("seat.passed");
      else if (view.bids[seat] > 0) what = t("seat.bid", { n: view.bids[seat] });
      else what = t("seat.noBid");
      parts.push(t("text.seatMoney", { name: names[seat], money: what }));
    }
    const high = view.high_bid ? t("text.high", { n: view.high_bid, name: names[view.high_bidder] }) : t("text.noHigh");
    return `${t("text.bids", { list: list(parts) })} ${high}`;
  }

  bankText(view) {
    const cards = view.mouse_cards.map((value, i) =>
      t("mouse.label", { value, held: view.mouse_card_mice[i] ? mice(view.mouse_card_mice[i]) : t("mouse.empty") }),
    );
    const pays = view.next_payout ? t("me.passPays", { mice: mice(view.next_payout) }) : t("me.passPaysNothing");
    return `${t("text.bank", { mice: mice(view.bank) })} ${cards.join("; ")}. ${pays}.`;
  }

  scoresText(view) {
    const names = this.page.names();
    // During the game money may be secret (R24) and scores are not final: the cats won so far, in seat order.
    const order = view.scores ? ranking(view) : [...Array(view.seats).keys()].map((seat) => ({ seat, place: seat + 1 }));
    const lines = order.map(({ seat, place }) => {
      const money = view.money[seat];
      const won = view.won[seat] ?? [];
      return t(view.phase === "over" ? "text.finalLine" : "text.scoreLine", {
        place,
        name: names[seat],
        score: view.scores?.[seat] ?? "?",
        cats: view.cat_points[seat],
        money: money === null ? t("text.secret") : mice(money),
        won: cardNames(won),
      });
    });
    return lines.join(" ");
  }
}
