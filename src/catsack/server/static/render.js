// Drawing a view (View.to_dict() of the core) into the table page.
//
// These functions only display what the server sent: nothing hidden is
// guessed or derived, except the ranking, which R22 defines from the public
// final scores and cat points.

import { h } from "/static/api.js";
import { cardBackSVG, cardFaceSVG, cardKindClass, cardName } from "/static/cards.js";

export const STATUS_LABELS = { connected: "online", away: "away", bot: "bot", open: "open seat" };

/** Display names by seat, from the players list (seat numbers shown 1-based). */
export function seatNames(players, seats) {
  const names = [];
  for (let seat = 0; seat < seats; seat += 1) {
    const player = players?.find((p) => p.seat === seat);
    names.push(player?.name || `Seat ${seat + 1}`);
  }
  // Two bots of one level share a name: tell them apart by seat.
  return names.map((name, seat) => (names.indexOf(name) !== names.lastIndexOf(name) ? `${name} ${seat + 1}` : name));
}

function ownerName(owner, names) {
  return owner === null || owner === undefined ? "the dummy" : names[owner];
}

/** A card picture: a face for a known token, a back for null. */
export function cardElement(token, { faceDown = false, small = false, label } = {}) {
  const classes = ["card"];
  if (small) classes.push("small");
  if (token) classes.push(cardKindClass(token));
  else classes.push("back");
  if (faceDown) classes.push("own-face-down");
  return h(
    "span",
    { class: classes.join(" "), role: "img", "aria-label": label ?? (token ? cardName(token) : "face-down card") },
    h("span", { class: "card-inner", html: token ? cardFaceSVG(token) : cardBackSVG() }),
    faceDown ? h("span", { class: "face-down-tag", "aria-hidden": "true" }, "face down") : null,
  );
}

function mice(n) {
  return n === 1 ? "1 mouse" : `${n} mice`;
}

function fact(kind, label, value, title) {
  return h("span", { class: `fact ${kind}`, title }, h("span", { class: "fact-label" }, label), " ", h("b", {}, value));
}

function seatPanel(view, seat, player, names, { isMe }) {
  const passed = view.passed[seat];
  const bid = view.bids[seat];
  const toMove = view.to_move === seat;
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
    if (passed) bidText = "passed";
    else if (bid > 0) bidText = `bid ${bid}`;
    else bidText = "no bid";
  }

  return h(
    "article",
    {
      class: classes.join(" "),
      id: `seat-${seat}`,
      dataset: { seat: String(seat) },
      "aria-label": `${names[seat]}${isMe ? " (you)" : ""}`,
      "aria-current": toMove ? "true" : null,
    },
    h(
      "header",
      { class: "seat-head" },
      h("span", { class: "seat-name" }, names[seat]),
      isMe ? h("span", { class: "tag you" }, "you") : null,
      h("span", { class: `tag status ${status}` }, STATUS_LABELS[status] ?? status),
      view.start === seat ? h("span", { class: "tag start", title: "Start player this round" }, "starts") : null,
    ),
    h(
      "div",
      { class: "seat-facts" },
      fact("money", "mice", money === null ? "?" : String(money), money === null ? "Money: secret (R24)" : "Money"),
      fact("cards", "hand", String(view.hand_sizes[seat]), "Cards in hand"),
      fact("cats", "cats", String(view.cat_points[seat]), "Cat points won"),
      bidText ? h("span", { class: `fact bid${view.high_bidder === seat ? " high" : ""}` }, bidText) : null,
      toMove ? h("span", { class: "fact turn" }, "to move") : null,
    ),
    won.length
      ? h(
          "div",
          { class: "won", "aria-label": `Won: ${won.map(cardName).join(", ")}` },
          won.map((t) => h("span", { class: `chip ${cardKindClass(t)}`, "aria-hidden": "true" }, t.replace("-", "−"))),
        )
      : null,
  );
}

/** The players' panels, starting with the seat after ours so we are last (closest to our hand). */
export function drawSeats(container, view, players, names) {
  const order = [];
  const first = view.seat === null ? 0 : (view.seat + 1) % view.seats;
  for (let i = 0; i < view.seats; i += 1) order.push((first + i) % view.seats);
  container.replaceChildren(
    ...order.map((seat) =>
      seatPanel(
        view,
        seat,
        players?.find((p) => p.seat === seat),
        names,
        { isMe: seat === view.seat },
      ),
    ),
  );
}

/** How many cards the row holds once everyone placed (R10). */
function rowLength(view) {
  return view.seats === 3 ? 4 : view.seats;
}

export function drawRow(container, view, names) {
  const items = view.row.map((rc, position) => {
    const own = rc.owner !== null && rc.owner === view.seat;
    const faceDown = !rc.face_up;
    let label;
    if (rc.face_up) label = `${cardName(rc.card)}, face up`;
    else if (rc.card) label = `${cardName(rc.card)}, your card, still face down`;
    else label = "face down";
    return h(
      "li",
      {
        class: `slot${rc.face_up ? " up" : " down"}${own ? " own" : ""}`,
        dataset: { position: String(position) },
        id: `row-${position}`,
      },
      cardElement(rc.card, {
        faceDown: faceDown && Boolean(rc.card),
        label: `Card ${position + 1}, ${ownerName(rc.owner, names)}'s: ${label}`,
      }),
      h("span", { class: "owner" }, rc.owner === null ? "dummy" : names[rc.owner]),
    );
  });
  if (view.phase === "placement") {
    for (let position = view.row.length; position < rowLength(view); position += 1) {
      items.push(
        h(
          "li",
          { class: "slot empty", dataset: { position: String(position) }, "aria-label": `Card ${position + 1}: not placed yet` },
          h("span", { class: "card empty-card" }),
          h("span", { class: "owner" }, "…"),
        ),
      );
    }
  }
  container.replaceChildren(...items);
}

export function drawMouseCards(container, view) {
  // R13: the next passer takes the lowest mouse card that still holds mice.
  const next = view.phase === "bidding" ? view.mouse_card_mice.findIndex((m) => m > 0) : -1;
  container.replaceChildren(
    ...view.mouse_cards.map((value, i) => {
      const held = view.mouse_card_mice[i];
      return h(
        "li",
        {
          class: `mouse-card${held ? "" : " empty"}${i === next ? " next" : ""}`,
          id: `mouse-${i}`,
          "aria-label": `${value}-mouse card: ${held ? mice(held) : "empty"}${i === next ? ", next passer takes it" : ""}`,
        },
        h("span", { class: "mouse-value" }, String(value)),
        h(
          "span",
          { class: "mouse-held", "aria-hidden": "true" },
          held ? Array.from({ length: held }, () => h("span", { class: "mouse-dot" })) : "empty",
        ),
        i === next ? h("span", { class: "next-tag", "aria-hidden": "true" }, "next pass") : null,
      );
    }),
  );
}

/** The player's hand as buttons; only legal placements are enabled (R10). */
export function drawHand(container, view, { busy, canAct, onPlace }) {
  const legal = new Set(view.legal);
  container.replaceChildren(
    ...view.hand.map((token, i) => {
      const move = `place ${token}`;
      const enabled = canAct && !busy && legal.has(move);
      const key = i < 9 ? String(i + 1) : null;
      return h(
        "button",
        {
          type: "button",
          class: "hand-card",
          disabled: !enabled,
          dataset: { key: `hand-${token}`, move },
          "aria-label": `Place ${cardName(token)}${key ? ` (key ${key})` : ""}`,
          "aria-keyshortcuts": key,
          onclick: () => onPlace(move),
        },
        cardElement(token, { label: "" }),
        key ? h("kbd", { class: "key-hint", "aria-hidden": "true" }, key) : null,
      );
    }),
  );
  if (!view.hand.length) container.append(h("p", { class: "muted" }, view.seat === null ? "" : "No cards left."));
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

/** The previous round: its row with what was won and what went back to the box (R16, R17, R19). */
export function drawLastRound(container, view, names) {
  const last = view.rounds.at(-1);
  if (!last) {
    container.hidden = true;
    return;
  }
  container.hidden = false;
  const kept = multisetMinus(last.row, last.won);
  let summary;
  if (last.void) summary = `Round ${last.number} was void: nobody bought, the row went back to the box.`;
  else {
    summary = `Round ${last.number}: ${names[last.buyer]} bought the row for ${mice(last.price)}`;
    summary += last.won.length ? ` and won ${last.won.join(" ")}.` : " and won nothing.";
    if (last.chased.length) summary += ` Chased away: ${last.chased.join(" ")}.`;
    const gone = last.row.filter((_, i) => !kept[i]);
    if (gone.length) summary += ` Back to the box: ${gone.join(" ")}.`;
  }
  container.replaceChildren(
    h("h3", { class: "label" }, "Last round"),
    h("p", { class: "last-summary" }, summary),
    h(
      "ol",
      { class: "row small-row" },
      last.row.map((token, i) =>
        h(
          "li",
          { class: `slot up${kept[i] ? " kept" : " gone"}` },
          cardElement(token, {
            small: true,
            label: `${cardName(token)} from ${ownerName(last.owners[i], names)}: ${kept[i] ? "won" : "back to the box"}`,
          }),
          h("span", { class: "owner" }, last.owners[i] === null ? "dummy" : names[last.owners[i]]),
        ),
      ),
    ),
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
      h("th", { scope: "row" }, names[seat], seat === view.seat ? " (you)" : "", view.winners.includes(seat) ? h("span", { class: "crown" }, " winner") : null),
      h("td", {}, String(view.cat_points[seat])),
      h("td", {}, String(view.money[seat] ?? "?")),
      h("td", { class: "score" }, String(view.scores[seat])),
    ),
  );
  container.replaceChildren(
    h("h2", { id: "final-title" }, "Game over"),
    h(
      "p",
      { class: "winners" },
      winners.length > 1 ? `Shared victory: ${winners.join(" and ")}!` : `${winners[0] ?? "Nobody"} wins!`,
    ),
    h(
      "table",
      { class: "scores", id: "scores" },
      h("caption", {}, "Final scores: cats won plus money (R21)"),
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Cats"), h("th", { scope: "col" }, "Mice"), h("th", { scope: "col" }, "Score")),
      ),
      h("tbody", {}, rows),
    ),
    h(
      "p",
      { class: "final-links" },
      h("a", { class: "button", href: recordUrl, download: "" }, "Download the game record"),
      onMyRecord ? h("button", { class: "button", type: "button", onclick: onMyRecord }, "Download your record") : null,
      h("a", { class: "button primary", href: "/" }, "Back to the lobby"),
    ),
  );
}

function percent(p) {
  return `${Math.round(p * 100)}%`;
}

/** The strong bot's suggestion: best move, value per move, and per hidden row card its likely tokens. */
export function drawHint(container, hint, view, names) {
  const values = Object.entries(hint.values ?? {}).sort((a, b) => b[1] - a[1]);
  const top = values.length ? values[0][1] : 0;
  const bottom = values.length ? values.at(-1)[1] : 0;
  const span = top - bottom || 1;
  const beliefs = (hint.beliefs ?? [])
    .map((b, position) => ({ b, position }))
    .filter(({ b }) => b && typeof b === "object");
  container.replaceChildren(
    h("h3", { class: "label" }, "Hint"),
    h("p", { class: "hint-best" }, "Best move: ", h("strong", {}, hint.best ?? "—")),
    h(
      "ol",
      { class: "hint-values", "aria-label": "Estimated points per move" },
      values.map(([move, value]) =>
        h(
          "li",
          { class: move === hint.best ? "best" : "" },
          h("span", { class: "hint-move" }, move),
          h("span", { class: "hint-bar", style: `--w: ${(8 + (92 * (value - bottom)) / span).toFixed(0)}%` }),
          h("span", { class: "hint-value" }, value.toFixed(1)),
        ),
      ),
    ),
    beliefs.length
      ? h(
          "div",
          { class: "hint-beliefs" },
          h("h4", {}, "Face-down cards may be"),
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
                h("span", { class: "belief-card" }, `Card ${position + 1} (${ownerName(owner, names)}): `),
                odds.map(([token, p]) =>
                  h("span", { class: `chip ${cardKindClass(token)}`, title: cardName(token) }, `${token} ${percent(p)}`),
                ),
              );
            }),
          ),
        )
      : null,
  );
}
