"""A plain-words account of a game, round by round, from its public events.

Used by ``catsack replay`` and by interfaces' logs. It narrates the events the
engine reports (R10–R22) and re-derives nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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

__all__ = ["describe_event", "final_table", "narrate", "narrate_event", "seat_names", "second_person"]

_ORDINAL = ("first", "second", "third", "fourth", "fifth")


def seat_names(seats: int, players: Sequence[str] | None = None) -> list[str]:
    """The players' names, or "Seat 1" to "Seat n" where a record names nobody: numbers people read count
    from 1 (R4), while records and the API index seats from 0."""
    if players and len(players) == seats:
        return list(players)
    return [f"Seat {i + 1}" for i in range(seats)]


# Stands for a player called "You" while a sentence is built, so that the verb can agree with it
# afterwards ("You place", not "You places").
_YOU = "\ue000"
_VERBS = {"places": "place", "bids": "bid", "passes": "pass", "buys": "buy", "starts": "start", "wins": "win"}
_VERB_RE = re.compile(_YOU + " (" + "|".join(_VERBS) + r")\b")


def second_person(text: str) -> str:
    """Turn a sentence about the placeholder for "You" (third person) into one addressed to the reader."""
    if _YOU not in text:
        return text
    text = text.replace("(" + _YOU + "'s)", "(yours)").replace(_YOU + "'s", "your")
    text = _VERB_RE.sub(lambda m: _YOU + " " + _VERBS[m.group(1)], text)
    if text.startswith(_YOU):  # "You pass and take 2 mice", "You buy the row ... and take +8"
        text = text.replace(" and takes ", " and take ")
    # Capital at the start of a sentence, lower case inside one ("Nobody bid: you may buy").
    text = re.sub(r"(^|[.!?] )" + _YOU, lambda m: m.group(1) + "You", text)
    return text.replace(_YOU, "you")


def narrate_event(ev: Event, names: Sequence[str]) -> str:
    """:func:`describe_event`, addressing a player named "You" in the second person ("You place")."""
    you = [i for i, name in enumerate(names) if name.strip().lower() == "you"]
    if not you:
        return describe_event(ev, names)
    names = [_YOU if i in you else name for i, name in enumerate(names)]
    return second_person(describe_event(ev, names))


def _mice(n: int) -> str:
    return f"{n} mouse" if n == 1 else f"{n} mice"


def describe_event(ev: Event, names: Sequence[str]) -> str:
    """One sentence for one event."""

    def who(seat: int | None) -> str:
        return "the dummy" if seat is None else names[seat]

    match ev:
        case Placed(seat, pos):
            return f"{names[seat]} places a card face down ({_ORDINAL[pos]} in the row)."
        case Revealed(pos, owner, card):
            return f"The {_ORDINAL[pos]} card ({who(owner)}'s) is turned up: {card}."
        case BidMade(seat, total):
            return f"{names[seat]} bids {total}."
        case Passed(seat, payout, card):
            if card is None:
                return f"{names[seat]} passes; the mouse cards are empty, so nothing is paid."
            return f"{names[seat]} passes and takes {_mice(payout)} from the {card}-mouse card."
        case LastChoice(seat):
            return f"Nobody bid: {names[seat]} may buy the row for 1 mouse or pass."
        case DogChase(dog, cat):
            kind = "large dog" if dog.token == "LD" else "small dog"
            if cat is None:
                return f"The {kind} finds no cat and goes back to the box."
            return f"The {kind} chases the {cat} cat away; both go back to the box."
        case DogsCancel(dogs):
            return f"{len(dogs)} dogs in the row: they scare each other off and no cat is chased."
        case Bought(seat, price, cards):
            got = " ".join(str(c) for c in cards) or "nothing"
            return f"{names[seat]} buys the row for {_mice(price)} and takes {got}."
        case RoundVoid(rnd, seat):
            return f"{names[seat]} passes too: round {rnd} is void and the row goes back to the box."
        case Refill(filled, bank):
            if filled:
                return f"The bank refills the mouse cards (bank now {bank})."
            return f"The mouse cards stay empty next round (bank {bank})."
        case RoundStarted(rnd, start):
            return f"Round {rnd}: {names[start]} starts."
        case GameOver(_, winners):
            won = " and ".join(names[w] for w in winners)
            return f"Game over. {won} {'wins' if len(winners) == 1 else 'share the victory'}."
    raise TypeError(f"not an event: {ev!r}")  # pragma: no cover


def narrate(game: Game, players: Sequence[str] | None = None) -> list[str]:
    """The whole game so far as lines of text: moves with what they caused, then the table."""
    names = seat_names(game.seats, players)
    lines = [
        f"{game.seats} players: " + ", ".join(names) + ".",
        narrate_event(RoundStarted(1, game.setup.start), names),
    ]
    log = game.event_log()
    for events in log:
        for ev in events:
            if isinstance(ev, RoundStarted):
                lines.append("")
            lines.append(("" if isinstance(ev, RoundStarted) else "  ") + narrate_event(ev, names))
    if game.is_over:
        lines.append("")
        lines.extend(final_table(game, names))
    else:
        who = game.to_move
        lines.append("")
        lines.append(f"(The record stops here: {names[who] if who is not None else '-'} to move, {game.phase}.)")
    return lines


def final_table(game: Game, names: Sequence[str]) -> list[str]:
    """Scores, cat points, money and rank (R21, R22) as aligned text lines."""
    scores = game.scores()
    cats = game.cat_points()
    money = game.money
    ranks = game.ranking()
    width = max(len(n) for n in names)
    out = [f"{'rank':>4}  {'player':<{width}}  {'score':>5}  {'cats':>4}  {'mice':>4}  won pile"]
    for s in sorted(range(game.seats), key=lambda i: (ranks[i], i)):
        pile = " ".join(str(c) for c in game.won(s)) or "-"
        out.append(f"{ranks[s]:>4}  {names[s]:<{width}}  {scores[s]:>5}  {cats[s]:>4}  {money[s]:>4}  {pile}")
    return out
