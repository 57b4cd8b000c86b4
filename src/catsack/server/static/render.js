// Drawing a view (View.to_dict() of the core) into the table page.
//
// These functions only display what the server sent: nothing hidden is
// guessed or derived, except the ranking, which R22 defines from the public
// final scores and cat points.

import { fill, h } from "/static/api.js";
import { cardBackSVG, cardFaceSVG, cardKindClass, cardLabel, cardName, cardNames } from "/static/cards.js";
import { purchasePreview } from "/static/dogs.js";
import { lang, list, mice, num, t } from "/static/i18n.js";

export function statusLabel(status) {
  return ["connected", "away", "bot", "open"].includes(status) ? t(`status.${status}`) : status;
}

/** The bot levels a table offers, weakest first (the server's BOT_LEVELS). */
export const BOT_LEVELS = ["random", "heuristic", "expert:easy", "expert:normal", "expert:strong", "expert"];
// Every bot spec a table may seat (the server's SEATABLE_BOTS): today's levels, then the former ones.
const BOT_SPECS = [...BOT_LEVELS, "ismcts:easy", "ismcts:normal", "ismcts:strong"];

/** The bot spec behind a bot seat's server name ("expert:strong 2" -> "expert:strong"), or null. */
export function botSpec(player) {
  if (player?.kind !== "bot" || !player.name) return null;
  const spec = player.name.split(" ")[0];
  return BOT_SPECS.includes(spec) ? spec : null;
}

/** A friendly name for a bot level: "Strong bot" for expert:strong. */
export function botLevelName(spec) {
  return t(`bot.${spec}`);
}

/** A player of a finished game as its table showed it: the server's lists name bots by spec and seat
 * ("heuristic 2"), people read the level's friendly name ("Simple bot 2"). */
export function playerName(name) {
  const found = /^(\S+) ([1-5])$/.exec(name);
  return found && BOT_SPECS.includes(found[1]) ? t("bot.named", { level: botLevelName(found[1]), n: Number(found[2]) }) : name;
}

/** A player as the lists of games show them (lobby, My games, profiles): {@link playerName}, marked
 * when a bot finished the person's seat (the server keeps the person's name there). */
export function listedPlayer(name, finishedByBot = false) {
  const shown = playerName(name);
  return finishedByBot ? t("seat.finishedByBot", { name: shown }) : shown;
}

/** Display names by seat, from the players list (seat numbers shown 1-based); bots get friendly
 * names with their seat number ("Strong bot 2"), their spec goes in a tooltip (seatTitles). */
export function seatNames(players, seats) {
  const names = [];
  for (let seat = 0; seat < seats; seat += 1) {
    const player = players?.find((p) => p.seat === seat);
    const spec = botSpec(player);
    if (spec) names.push(t("bot.named", { level: botLevelName(spec), n: seat + 1 }));
    else names.push(player?.name || t("seat.n", { n: seat + 1 }));
  }
  // Two people of one name: tell them apart by seat.
  return names.map((name, seat) => (names.indexOf(name) !== names.lastIndexOf(name) ? `${name} ${seat + 1}` : name));
}

/** A tooltip per seat: the bot's spec for bots, else the name itself. */
export function seatTitles(players, seats, names) {
  const titles = [];
  for (let seat = 0; seat < seats; seat += 1) {
    const spec = botSpec(players?.find((p) => p.seat === seat));
    titles.push(spec ? t("bot.title", { spec }) : names[seat]);
  }
  return titles;
}

function ownerName(owner, names) {
  return owner === null || owner === undefined ? t("dummy") : names[owner];
}

/** A small "?" button that shows the help text for a term (tooltip on hover, bubble on tap). */
export function helpTip(key) {
  const text = t(`help.${key}`);
  const button = h("button", {
    type: "button",
    class: "help-tip",
    title: text,
    "aria-label": text,
    "aria-expanded": "false",
    dataset: { help: key },
  }, "?");
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    const open = button.getAttribute("aria-expanded") === "true";
    for (const other of document.querySelectorAll(".help-tip[aria-expanded='true']")) {
      other.setAttribute("aria-expanded", "false");
      other.nextElementSibling?.classList.contains("help-pop") && other.nextElementSibling.remove();
    }
    if (!open) {
      button.setAttribute("aria-expanded", "true");
      button.after(h("span", { class: "help-pop", role: "note" }, text));
    }
  });
  return button;
}

/** A card picture: a face for a known token, a back for null. */
export function cardElement(token, { faceDown = false, small = false, label } = {}) {
  const classes = ["card"];
  if (small) classes.push("small");
  if (token) classes.push(cardKindClass(token));
  else classes.push("back");
  if (faceDown) classes.push("own-face-down");
  // label "": the picture is decoration of a control that names the card itself (a hand card's button).
  const named = label !== "";
  return h(
    "span",
    {
      class: classes.join(" "),
      role: named ? "img" : null,
      "aria-label": named ? (label ?? (token ? cardName(token) : t("card.faceDown"))) : null,
      "aria-hidden": named ? null : "true",
    },
    h("span", { class: "card-inner", html: token ? cardFaceSVG(token) : cardBackSVG() }),
    faceDown ? h("span", { class: "face-down-tag", "aria-hidden": "true" }, t("card.faceDownTag")) : null,
  );
}

function fact(kind, label, value, title) {
  return h("span", { class: `fact ${kind}`, title }, h("span", { class: "fact-label" }, label), " ", h("b", {}, value));
}

function seatPanel(view, seat, player, names, titles, { isMe, waiting }) {
  const passed = view.passed[seat];
  const bid = view.bids[seat];
  // Before every seat is taken nothing has started: nobody is to move and no hand is dealt yet.
  const toMove = !waiting && view.to_move === seat;
  const money = view.money[seat];
  const status = player?.status ?? "open";
  const won = view.won[seat];
  const classes = ["seat", `status-${status}`];
  if (isMe) classes.push("mine");
  if (toMove) classes.push("to-move");
  if (passed) classes.push("passed");
  if (view.high_bidder === seat) classes.push("high");
  if (view.winners.includes(seat) && view.phase === "over") classes.push("winner");

  let bidText = "";
  if (view.phase === "bidding" || view.phase === "last choice") {
    if (passed) bidText = t("seat.passed");
    else if (bid > 0) bidText = t("seat.bid", { n: bid });
    else bidText = t("seat.noBid");
  }

  return h(
    "article",
    {
      class: classes.join(" "),
      id: `seat-${seat}`,
      dataset: { seat: String(seat) },
      "aria-label": isMe ? t("seat.youLabel", { name: names[seat] }) : names[seat],
      "aria-current": toMove ? "true" : null,
    },
    h(
      "header",
      { class: "seat-head" },
      h("span", { class: "seat-name", title: titles[seat] }, names[seat]),
      player?.guest ? h("span", { class: "tag guest", title: t("seat.guestTitle") }, t("seat.guest")) : null,
      player?.bot_account ? h("span", { class: "tag bot-account" }, t("bots.badge")) : null,
      isMe ? h("span", { class: "tag you" }, t("seat.you")) : null,
      h("span", { class: `tag status ${status}` }, statusLabel(status)),
      !waiting && view.start === seat ? h("span", { class: "tag start", title: t("help.start") }, t("seat.starts")) : null,
    ),
    waiting ? null : h(
      "div",
      { class: "seat-facts" },
      fact("money", t("seat.mice"), money === null ? "?" : String(money), money === null ? t("seat.moneySecret") : t("seat.money")),
      fact("cards", t("seat.hand"), String(view.hand_sizes[seat]), t("seat.handTitle")),
      fact("cats", t("seat.cats"), String(view.cat_points[seat]), t("seat.catsTitle")),
      bidText ? h("span", { class: `fact bid${view.high_bidder === seat ? " high" : ""}` }, bidText) : null,
      toMove ? h("span", { class: "fact turn" }, t("seat.toMove")) : null,
    ),
    won.length
      ? h(
          "div",
          { class: "won", role: "img", "aria-label": t("seat.won", { cards: cardNames(won) }) },
          won.map((c) => h("span", { class: `chip ${cardKindClass(c)}`, "aria-hidden": "true" }, cardLabel(c))),
        )
      : null,
  );
}

/** The players' panels, starting with the seat after ours so we are last (closest to our hand);
 * `waiting`: the table still has open seats (names and who is online only). */
export function drawSeats(container, view, players, names, titles, { waiting = false } = {}) {
  const order = [];
  const first = view.seat === null ? 0 : (view.seat + 1) % view.seats;
  for (let i = 0; i < view.seats; i += 1) order.push((first + i) % view.seats);
  fill(container, 
    ...order.map((seat) =>
      seatPanel(
        view,
        seat,
        players?.find((p) => p.seat === seat),
        names,
        titles,
        { isMe: seat === view.seat, waiting },
      ),
    ),
  );
}

/** How many cards the row holds once everyone placed (R10). */
function rowLength(view) {
  return view.seats === 3 ? 4 : view.seats;
}

export function drawRow(container, view, names, titles) {
  const items = view.row.map((rc, position) => {
    const own = rc.owner !== null && rc.owner === view.seat;
    const faceDown = !rc.face_up;
    let label;
    if (rc.face_up) label = t("row.faceUp", { card: cardName(rc.card) });
    else if (rc.card) label = t("row.ownDown", { card: cardName(rc.card) });
    else label = t("row.down");
    return h(
      "li",
      {
        class: `slot${rc.face_up ? " up" : " down"}${own ? " own" : ""}`,
        dataset: { position: String(position) },
        id: `row-${position}`,
      },
      cardElement(rc.card, {
        faceDown: faceDown && Boolean(rc.card),
        label: t("row.cardLabel", { n: position + 1, owner: ownerName(rc.owner, names), what: label }),
      }),
      h(
        "span",
        { class: "owner", title: rc.owner === null ? t("dummy") : titles[rc.owner] },
        rc.owner === null ? t("dummy") : names[rc.owner],
      ),
    );
  });
  if (view.phase === "placement") {
    for (let position = view.row.length; position < rowLength(view); position += 1) {
      items.push(
        h(
          "li",
          { class: "slot empty", dataset: { position: String(position) }, "aria-label": t("row.notPlaced", { n: position + 1 }) },
          h("span", { class: "card empty-card" }),
          h("span", { class: "owner" }, "…"),
        ),
      );
    }
  }
  fill(container, ...items);
}

export function drawMouseCards(container, view) {
  // R13: the next passer takes the lowest mouse card that still holds mice.
  const next = view.phase === "bidding" ? view.mouse_card_mice.findIndex((m) => m > 0) : -1;
  fill(container, 
    ...view.mouse_cards.map((value, i) => {
      const held = view.mouse_card_mice[i];
      return h(
        "li",
        {
          class: `mouse-card${held ? "" : " empty"}${i === next ? " next" : ""}`,
          id: `mouse-${i}`,
          "aria-label": t(i === next ? "mouse.labelNext" : "mouse.label", { value, held: held ? mice(held) : t("mouse.empty") }),
          title: i === next ? t("help.nextPass") : null,
        },
        h("span", { class: "mouse-value" }, String(value)),
        h(
          "span",
          { class: "mouse-held", "aria-hidden": "true" },
          held ? Array.from({ length: held }, () => h("span", { class: "mouse-dot" })) : t("mouse.empty"),
        ),
        i === next ? h("span", { class: "next-tag", "aria-hidden": "true" }, t("mouse.nextPass")) : null,
      );
    }),
  );
}

/** The player's hand as buttons; only legal placements are enabled (R10). */
export function drawHand(container, view, { busy, canAct, onPlace, keys = true }) {
  const legal = new Set(view.legal);
  fill(container, 
    ...view.hand.map((token, i) => {
      const move = `place ${token}`;
      const enabled = canAct && !busy && legal.has(move);
      const key = keys && i < 9 ? String(i + 1) : null;
      return h(
        "button",
        {
          type: "button",
          class: "hand-card",
          disabled: !enabled,
          dataset: { key: `hand-${token}`, move },
          "aria-label": key ? t("hand.placeKey", { card: cardName(token), key }) : t("hand.place", { card: cardName(token) }),
          "aria-keyshortcuts": key,
          onclick: () => onPlace(move),
        },
        cardElement(token, { label: "" }),
        key ? h("kbd", { class: "key-hint", "aria-hidden": "true" }, key) : null,
      );
    }),
  );
  if (!view.hand.length) container.append(h("p", { class: "muted" }, view.seat === null ? "" : t("hand.empty")));
}

function multisetMinus(items, remove) {
  const left = [...remove];
  return items.map((item) => {
    const i = left.indexOf(item);
    if (i < 0) return false;
    left.splice(i, 1);
    return true;
  });
}

/** What happened in the previous round, in words: who bought it for how much and what they won,
 * what the dogs did, what went back to the box (R16, R17, R19); "" before the first round ends. */
export function lastRoundText(view, names) {
  const last = view.rounds.at(-1);
  if (!last) return "";
  const kept = multisetMinus(last.row, last.won);
  const parts = [];
  if (last.void) parts.push(t("last.void", { round: last.number }));
  else {
    parts.push(t("last.bought", { round: last.number, name: names[last.buyer], mice: mice(last.price), cards: cardNames(last.won) }));
    const dogs = last.chased.filter((c) => c === "LD" || c === "SD");
    const cat = last.chased.find((c) => c !== "LD" && c !== "SD");
    if (dogs.length >= 2) parts.push(t("last.dogsCancel", { n: dogs.length }));
    else if (dogs.length === 1 && cat) parts.push(t("last.dogChase", { dog: t(`dog.${dogs[0]}`), cat: cardLabel(cat) }));
    else if (dogs.length === 1) parts.push(t("last.dogAlone", { dog: t(`dog.${dogs[0]}`) }));
    const gone = last.row.filter((_, i) => !kept[i]);
    if (gone.length) parts.push(t("last.gone", { cards: cardNames(gone) }));
  }
  return parts.join(" ");
}

/** The previous round: its row with what was won and what went back to the box (R16, R17, R19).
 * Its dog outcome is told here, under the round's number, and nowhere else. */
export function drawLastRound(container, view, names, titles) {
  const last = view.rounds.at(-1);
  if (!last) {
    container.hidden = true;
    return;
  }
  container.hidden = false;
  container.dataset.round = String(last.number);
  const kept = multisetMinus(last.row, last.won);
  fill(container, 
    h("h3", { class: "label" }, t("last.title", { round: last.number })),
    h("p", { class: "last-summary" }, lastRoundText(view, names)),
    h(
      "ol",
      { class: "row small-row" },
      last.row.map((token, i) =>
        h(
          "li",
          { class: `slot up${kept[i] ? " kept" : " gone"}` },
          cardElement(token, {
            small: true,
            label: t(kept[i] ? "last.cardWon" : "last.cardGone", { card: cardName(token), owner: ownerName(last.owners[i], names) }),
          }),
          h(
            "span",
            { class: "owner", title: last.owners[i] === null ? t("dummy") : titles[last.owners[i]] },
            last.owners[i] === null ? t("dummy") : names[last.owners[i]],
          ),
        ),
      ),
    ),
  );
}

/** The purchase preview in words (R16): what the dogs would do, what the buyer keeps, how many cards
 * are still face down ("" when nothing is hidden). */
export function previewText(view) {
  const p = purchasePreview(view);
  const mode = p.exact ? "exact" : "partial";
  const dogs = p.dogs;
  // German declines the dog after "der" (exact) and after "ein" (partial) differently.
  const dogName = (token) => (p.exact ? t(`dog.${token}`) : cardName(token));
  let dogText;
  if (dogs.length >= 2) dogText = t(`preview.${mode}.cancel`, { n: dogs.length });
  else if (dogs.length === 1 && p.chased.length === 2)
    dogText = t(`preview.${mode}.chase`, { dog: dogName(dogs[0]), cat: cardLabel(p.chased[1]) });
  else if (dogs.length === 1) dogText = t(`preview.${mode}.alone`, { dog: dogName(dogs[0]) });
  else dogText = t(`preview.${mode}.noDog`);
  const points = p.kept.reduce((sum, c) => sum + (c === "R" ? 0 : Number(c)), 0);
  const keeps = t(p.exact ? "preview.keeps" : "preview.keepsSoFar", { cards: cardNames(p.kept), points: String(points).replace("-", "−") });
  return { p, dogs: dogText, keeps, hidden: p.exact ? "" : t("preview.hidden", { n: p.hidden }) };
}

/** The purchase preview (R16): what buying the row now would bring, from its face-up cards. */
export function drawPreview(container, view) {
  const show = (view.phase === "bidding" || view.phase === "last choice") && view.row.length > 0;
  container.hidden = !show;
  if (!show) return;
  const { p, dogs: dogText, keeps, hidden } = previewText(view);
  container.dataset.exact = p.exact ? "yes" : "no";
  container.dataset.kept = p.kept.join(" ");
  fill(container, 
    h("h3", { class: "label" }, view.phase === "last choice" ? t("preview.titleLast") : t("preview.title"), " ", helpTip("preview")),
    h("p", { class: "preview-dogs" }, dogText),
    h(
      "p",
      { class: "preview-keeps" },
      keeps,
      " ",
      p.kept.map((c) => h("span", { class: `chip ${cardKindClass(c)}`, "aria-hidden": "true" }, cardLabel(c))),
    ),
    hidden ? h("p", { class: "preview-hidden muted" }, hidden) : null,
  );
}

/** Ranking by score, ties broken by cat points, players still tied share a place (R22). */
export function ranking(view) {
  const seats = [...Array(view.seats).keys()];
  seats.sort((a, b) => view.scores[b] - view.scores[a] || view.cat_points[b] - view.cat_points[a]);
  let place = 0;
  return seats.map((seat, i) => {
    const prev = seats[i - 1];
    const tied = i > 0 && view.scores[prev] === view.scores[seat] && view.cat_points[prev] === view.cat_points[seat];
    if (!tied) place = i + 1;
    return { seat, place };
  });
}

export function drawFinal(container, view, names, { recordUrl, onMyRecord }) {
  const winners = view.winners.map((s) => names[s]);
  const rows = ranking(view).map(({ seat, place }) =>
    h(
      "tr",
      { class: view.winners.includes(seat) ? "winner" : "" },
      h("td", {}, `${place}.`),
      h(
        "th",
        { scope: "row" },
        names[seat],
        seat === view.seat ? ` (${t("seat.you")})` : "",
        view.winners.includes(seat) ? h("span", { class: "crown" }, ` ${t("final.winner")}`) : null,
      ),
      h("td", {}, String(view.cat_points[seat])),
      h("td", {}, String(view.money[seat] ?? "?")),
      h("td", { class: "score" }, String(view.scores[seat])),
    ),
  );
  fill(container, 
    h("h2", { id: "final-title" }, t("final.title")),
    h(
      "p",
      { class: "winners" },
      winners.length > 1 ? t("final.shared", { names: list(winners) }) : t("final.wins", { name: winners[0] ?? t("nobody") }),
    ),
    h(
      "table",
      { class: "scores", id: "scores" },
      h("caption", {}, t("final.caption")),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", { scope: "col" }, "#"),
          h("th", { scope: "col" }, t("final.player")),
          h("th", { scope: "col" }, t("final.cats")),
          h("th", { scope: "col" }, t("final.mice")),
          h("th", { scope: "col" }, t("final.score")),
        ),
      ),
      h("tbody", {}, rows),
    ),
    h(
      "p",
      { class: "final-links" },
      h("a", { class: "button", href: recordUrl, download: "" }, t("final.record")),
      onMyRecord ? h("button", { class: "button", type: "button", onclick: onMyRecord }, t("final.myRecord")) : null,
      // One gold button on the end screen: "Play again" (rematch.js); the lobby is a plain way out.
      h("a", { class: "button", href: "/" }, t("backToLobby")),
    ),
  );
}

function percent(p) {
  return new Intl.NumberFormat(lang, { style: "percent" }).format(p);
}

/** The strong bot's suggestion: best move, value per move, and per hidden row card its likely tokens. */
/** A move's text in the page's language ("place +11" -> "lege +11"). */
export function moveText(move) {
  if (!move) return "—";
  if (move.startsWith("place ")) {
    const token = move.slice(6);
    // A cat by its value; a rabbit or a dog by its name, in the case the language's verb takes.
    return /^[+-]/.test(token) ? t("move.place", { card: cardLabel(token) }) : t(`move.place${token}`);
  }
  if (move.startsWith("bid ")) return t("move.bid", { n: move.slice(4) });
  return move === "pass" ? t("move.pass") : move;
}

/** The search's figures at one decision (a hint, or an analysed decision of the replay): the best-valued
 * move, every move's value with its noise (±, a standard error), the moves as good as the best within the
 * noise, the sentences in the page's language, and per face-down row card its likely tokens. */
export function drawHint(container, hint, view, names) {
  const values = Object.entries(hint.values ?? {}).sort((a, b) => b[1] - a[1]);
  const noise = hint.noise ?? {};
  const equal = new Set(hint.equal ?? []);
  const sentences = hint.sentences?.[lang] ?? [];
  const top = values.length ? values[0][1] : 0;
  const bottom = values.length ? values.at(-1)[1] : 0;
  const span = top - bottom || 1;
  const beliefs = (hint.beliefs ?? [])
    .map((b, position) => ({ b, position }))
    .filter(({ b }) => b && typeof b === "object");
  fill(container, 
    h("h3", { class: "label" }, t("hint.title")),
    h("p", { class: "hint-best" }, t("hint.best"), " ", h("strong", { dataset: { move: hint.best ?? "" } }, moveText(hint.best))),
    sentences.length ? h("p", { class: "hint-sentences" }, sentences.join(" ")) : null,
    h(
      "ol",
      { class: "hint-values", "aria-label": t("hint.values") },
      values.map(([move, value]) =>
        h(
          "li",
          { class: [move === hint.best ? "best" : "", move !== hint.best && equal.has(move) ? "equal" : ""].join(" ").trim(), dataset: { move } },
          h("span", { class: "hint-move", dataset: { move } }, moveText(move), move !== hint.best && equal.has(move) ? h("span", { class: "hint-equal", title: t("hint.equalTitle") }, " ≈") : null),
          h("span", { class: "hint-bar", style: `--w: ${(8 + (92 * (value - bottom)) / span).toFixed(0)}%` }),
          h(
            "span",
            { class: "hint-figure" },
            h("span", { class: "hint-value" }, num(value, 1)),
            move in noise ? h("span", { class: "hint-noise" }, ` ±${num(noise[move], 1)}`) : null,
          ),
        ),
      ),
    ),
    Object.keys(noise).length ? h("p", { class: "hint-noise-note" }, t("hint.noiseNote")) : null,
    beliefs.length
      ? h(
          "div",
          { class: "hint-beliefs" },
          h("h4", {}, t("hint.beliefs")),
          h(
            "ul",
            {},
            beliefs.map(({ b, position }) => {
              const owner = view.row[position]?.owner;
              const odds = Object.entries(b)
                .filter(([, p]) => p > 0)
                .sort((x, y) => y[1] - x[1]);
              return h(
                "li",
                {},
                h("span", { class: "belief-card" }, t("hint.card", { n: position + 1, owner: ownerName(owner, names) })),
                odds.map(([token, p]) =>
                  h("span", { class: `chip ${cardKindClass(token)}`, title: cardName(token) }, `${cardLabel(token)} ${percent(p)}`),
                ),
              );
            }),
          ),
        )
      : null,
  );
}
