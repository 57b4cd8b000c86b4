// One sentence per public event (R10-R22), in the page's language, from the event's
// fields (hub.event_dict): the server's English `text` is not shown.

import { cardLabel, cardName, cardNames } from "/static/cards.js";
import { list, mice, t } from "/static/i18n.js";

function ordinal(position) {
  return t(`ordinal.${position}`);
}

function who(seat, names) {
  return seat === null || seat === undefined ? t("dummy") : names[seat];
}

/** The log line for `event`, or "" for an event kind this client does not know. */
export function describeEvent(event, names) {
  switch (event.kind) {
    case "Placed":
      return t("ev.placed", { name: names[event.seat], nth: ordinal(event.position) });
    case "Revealed":
      return t("ev.revealed", { nth: ordinal(event.position), owner: who(event.owner, names), card: cardName(event.card) });
    case "BidMade":
      return t("ev.bid", { name: names[event.seat], total: event.total });
    case "Passed":
      if (event.mouse_card === null || event.mouse_card === undefined) return t("ev.passedEmpty", { name: names[event.seat] });
      return t("ev.passed", { name: names[event.seat], mice: mice(event.payout), card: event.mouse_card });
    case "LastChoice":
      return t("ev.lastChoice", { name: names[event.seat] });
    case "DogChase":
      if (!event.cat) return t("ev.dogAlone", { dog: t(`dog.${event.dog}`) });
      return t("ev.dogChase", { dog: t(`dog.${event.dog}`), cat: cardLabel(event.cat) });
    case "DogsCancel":
      return t("ev.dogsCancel", { n: event.dogs.length });
    case "Bought": {
      return t("ev.bought", { name: names[event.seat], mice: mice(event.price), cards: cardNames(event.cards) });
    }
    case "RoundVoid":
      return t("ev.void", { name: names[event.seat], round: event.round });
    case "Refill":
      return event.filled ? t("ev.refill", { bank: event.bank }) : t("ev.noRefill", { bank: event.bank });
    case "RoundStarted":
      return t("ev.roundStarted", { round: event.round, name: names[event.start] });
    case "GameOver": {
      const won = list(event.winners.map((s) => names[s]));
      return event.winners.length === 1 ? t("ev.gameOverOne", { name: won }) : t("ev.gameOverShared", { names: won });
    }
    default:
      return "";
  }
}
