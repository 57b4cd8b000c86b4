"""A plain-words account of a game, round by round, from its public events.

Used by ``catsack replay`` and by interfaces' logs. It narrates the events the
engine reports (R10–R22) and re-derives nothing.

The sentences are English messages of the package's catalogues: a caller that speaks another language
passes that language's translations (:func:`catsack.i18n.translations`, any object with the standard
library's ``gettext``, ``ngettext`` and ``pgettext``); the default says them in English. The browser's
event log says the same sentences (their texts are shared: catsack.i18n.SHARED_WORDS).
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Sequence
from typing import Protocol

from catsack.cards import Card
from catsack.events import (
    BidMade,
    Bought,
    DogChase,
    DogsCancel,
    Event,
    GameOver,
    LastChoice,
    Passed,
    Placed,
    Refill,
    Revealed,
    RoundStarted,
    RoundVoid,
)
from catsack.game import Game

__all__ = [
    "ENGLISH",
    "Translations",
    "card_label",
    "describe_event",
    "final_table",
    "is_you",
    "narrate",
    "narrate_event",
    "seat_names",
]


class Translations(Protocol):
    """What the narrative needs of a language's messages (the standard library's gettext API)."""

    def gettext(self, message: str, /) -> str: ...
    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...
    def pgettext(self, context: str, message: str, /) -> str: ...


#: The messages as written: English.
ENGLISH: Translations = gettext.NullTranslations()


def seat_names(seats: int, players: Sequence[str] | None = None, t: Translations = ENGLISH) -> list[str]:
    """The players' names, or "Seat 1" to "Seat n" where a record names nobody: numbers people read count
    from 1 (R4), while records and the API index seats from 0."""
    if players and len(players) == seats:
        return list(players)
    return [t.gettext("Seat {n}").format(n=i + 1) for i in range(seats)]


def _ordinal(pos: int, t: Translations) -> str:
    """A row position as a word: "first" to "fifth"."""
    words = (
        t.pgettext("ordinal", "first"),
        t.pgettext("ordinal", "second"),
        t.pgettext("ordinal", "third"),
        t.pgettext("ordinal", "fourth"),
        t.pgettext("ordinal", "fifth"),
    )
    return words[pos]


def _mice(n: int, t: Translations) -> str:
    return t.ngettext("{n} mouse", "{n} mice", n).format(n=n)


def card_label(token: str, t: Translations = ENGLISH) -> str:
    """A card as logs write it: a cat's value, the language's letters for the rabbit and the dogs
    (``R``, ``LD``, ``SD`` in English: the record's tokens)."""
    if token == "R":
        # i18n: the rabbit's letter, as its card shows it (the browser's tok.R).
        return t.pgettext("card letters", "R")
    if token == "LD":
        # i18n: the large dog's letters, as its card shows them (the browser's tok.LD).
        return t.pgettext("card letters", "LD")
    if token == "SD":
        # i18n: the small dog's letters, as its card shows them (the browser's tok.SD).
        return t.pgettext("card letters", "SD")
    return token


def _and(items: Sequence[str], t: Translations) -> str:
    """Names joined as a sentence lists them: "Ann", "Ann and Bea", "Ann, Bea and Cy"."""
    if len(items) < 2:
        return "".join(items)
    # i18n: the last two of a list of names ("Ann, Bea and Cy"): {first} holds the others, comma-separated.
    return t.gettext("{first} and {last}").format(first=", ".join(items[:-1]), last=items[-1])


def is_you(name: str, t: Translations = ENGLISH) -> bool:
    """Whether a player's name is the word for the reader ("You", or its translation): the narrative then
    speaks to that player in the second person."""
    return name.strip().casefold() in {"you", t.gettext("You").casefold()}


def narrate_event(ev: Event, names: Sequence[str], t: Translations = ENGLISH) -> str:
    """:func:`describe_event`, addressing a player named "You" (in ``t``'s language too) in the second
    person ("You place")."""
    you = next((i for i, name in enumerate(names) if is_you(name, t)), None)
    return describe_event(ev, names, t, you=you)


def describe_event(ev: Event, names: Sequence[str], t: Translations = ENGLISH, *, you: int | None = None) -> str:
    """One sentence for one event, in ``t``'s language; the seat ``you`` is spoken to ("You bid 3.")."""
    match ev:
        case Placed(seat, pos):
            if seat == you:
                return t.gettext("You place a card face down ({nth} in the row).").format(nth=_ordinal(pos, t))
            return t.gettext("{name} places a card face down ({nth} in the row).").format(
                name=names[seat], nth=_ordinal(pos, t)
            )
        case Revealed(pos, owner, card):
            nth, label = _ordinal(pos, t), card_label(card.token, t)
            if owner is None:
                return t.gettext("The {nth} card (the dummy's) is turned up: {card}.").format(nth=nth, card=label)
            if owner == you:
                return t.gettext("The {nth} card (yours) is turned up: {card}.").format(nth=nth, card=label)
            return t.gettext("The {nth} card ({owner}'s) is turned up: {card}.").format(
                nth=nth, owner=names[owner], card=label
            )
        case BidMade(seat, total):
            if seat == you:
                return t.gettext("You bid {total}.").format(total=total)
            return t.gettext("{name} bids {total}.").format(name=names[seat], total=total)
        case Passed(seat, payout, card):
            if card is None:
                if seat == you:
                    return t.gettext("You pass; the mouse cards are empty, so nothing is paid.")
                return t.gettext("{name} passes; the mouse cards are empty, so nothing is paid.").format(
                    name=names[seat]
                )
            if seat == you:
                return t.gettext("You pass and take {mice} from the {card}-mouse card.").format(
                    mice=_mice(payout, t), card=card
                )
            return t.gettext("{name} passes and takes {mice} from the {card}-mouse card.").format(
                name=names[seat], mice=_mice(payout, t), card=card
            )
        case LastChoice(seat):
            if seat == you:
                return t.gettext("Nobody bid: you may buy the row for 1 mouse or pass.")
            return t.gettext("Nobody bid: {name} may buy the row for 1 mouse or pass.").format(name=names[seat])
        case DogChase(dog, cat):
            name = t.pgettext("card", "large dog") if dog.token == "LD" else t.pgettext("card", "small dog")
            if cat is None:
                return t.gettext("The {dog} finds no cat and goes back to the box.").format(dog=name)
            return t.gettext("The {dog} chases the {cat} cat away; both go back to the box.").format(dog=name, cat=cat)
        case DogsCancel(dogs):
            return t.gettext("{n} dogs in the row: they scare each other off and no cat is chased.").format(n=len(dogs))
        case Bought(seat, price, cards):
            got = " ".join(card_label(c.token, t) for c in cards) or t.pgettext("cards", "nothing")
            if seat == you:
                return t.gettext("You buy the row for {mice} and take {cards}.").format(mice=_mice(price, t), cards=got)
            return t.gettext("{name} buys the row for {mice} and takes {cards}.").format(
                name=names[seat], mice=_mice(price, t), cards=got
            )
        case RoundVoid(rnd, seat):
            if seat == you:
                return t.gettext("You pass too: round {round} is void and the row goes back to the box.").format(
                    round=rnd
                )
            return t.gettext("{name} passes too: round {round} is void and the row goes back to the box.").format(
                name=names[seat], round=rnd
            )
        case Refill(filled, bank):
            if filled:
                return t.gettext("The bank refills the mouse cards (bank now {bank}).").format(bank=bank)
            return t.gettext("The mouse cards stay empty next round (bank {bank}).").format(bank=bank)
        case RoundStarted(rnd, start):
            if start == you:
                return t.gettext("Round {round}: you start.").format(round=rnd)
            return t.gettext("Round {round}: {name} starts.").format(round=rnd, name=names[start])
        case GameOver(_, winners):
            if len(winners) == 1:
                if winners[0] == you:
                    return t.gettext("Game over. You win.")
                return t.gettext("Game over. {name} wins.").format(name=names[winners[0]])
            if you in winners:
                others = _and([names[w] for w in winners if w != you], t)
                return t.gettext("Game over. You share the victory with {names}.").format(names=others)
            return t.gettext("Game over. {names} share the victory.").format(names=_and([names[w] for w in winners], t))
    raise TypeError(f"not an event: {ev!r}")  # pragma: no cover


def narrate(game: Game, players: Sequence[str] | None = None, t: Translations = ENGLISH) -> list[str]:
    """The whole game so far as lines of text: moves with what they caused, then the table."""
    names = seat_names(game.seats, players, t)
    lines = [
        t.gettext("{n} players: {names}.").format(n=game.seats, names=", ".join(names)),
        narrate_event(RoundStarted(1, game.setup.start), names, t),
    ]
    log = game.event_log()
    for events in log:
        for ev in events:
            if isinstance(ev, RoundStarted):
                lines.append("")
            lines.append(("" if isinstance(ev, RoundStarted) else "  ") + narrate_event(ev, names, t))
    if game.is_over:
        lines.append("")
        lines.extend(final_table(game, names, t))
    else:
        who = game.to_move
        lines.append("")
        # i18n: {phase} is the game's phase as the record writes it ("placement", "bidding", "last choice").
        lines.append(
            t.gettext("(The record stops here: {name} to move, {phase}.)").format(
                name=names[who] if who is not None else "-", phase=game.phase
            )
        )
    return lines


def final_table(
    game: Game,
    names: Sequence[str],
    t: Translations = ENGLISH,
    pile: Callable[[Sequence[Card]], str] | None = None,
) -> list[str]:
    """Scores, cat points, money and rank (R21, R22) as aligned text lines; ``pile`` writes a won pile (by
    default its cards in the order won)."""
    scores = game.scores()
    cats = game.cat_points()
    money = game.money
    ranks = game.ranking()
    heads = (
        t.pgettext("table", "rank"),
        t.pgettext("table", "player"),
        t.pgettext("table", "score"),
        t.pgettext("table", "cats"),
        t.pgettext("table", "mice"),
        t.pgettext("table", "won pile"),
    )
    widths = [max(4, len(heads[0])), max([len(heads[1]), *map(len, names)]), max(5, len(heads[2]))]
    widths += [max(4, len(heads[3])), max(4, len(heads[4]))]

    def line(rank: object, name: object, score: object, cat: object, mice: object, won: str) -> str:
        a, b, c, d, e = widths
        return f"{rank:>{a}}  {name!s:<{b}}  {score:>{c}}  {cat:>{d}}  {mice:>{e}}  {won}"

    out = [line(*heads)]
    for s in sorted(range(game.seats), key=lambda i: (ranks[i], i)):
        won = game.won(s)
        written = pile(won) if pile is not None else " ".join(card_label(c.token, t) for c in won) or "-"
        out.append(line(ranks[s], names[s], scores[s], cats[s], money[s], written))
    return out
