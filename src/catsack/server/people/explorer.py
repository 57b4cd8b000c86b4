"""The game database's explorer: what round 1's row sold for and what it was worth to its buyer, by the card
shown first (docs/database.md, "The explorer").

Round 1 is the one round every game shares a start for: everyone holds a full hand and 15 mice (R5). Once
everyone has placed, the row's first card is turned up (R11: the start player's card, with three players the
dummy's) and the bidding begins; that card is all anyone at the table has seen of the row. For each table
size (3, 4, 5 seats) and each of the ten cards that can show first, the tally counts:

* the games, and the rounds that ended void (nobody bought the row, R19);
* per kind of buyer (a person, a bot, as the record's ``agents`` name the buying seat at the game's end):
  the **price** (the winning bid, R15; 1 for the last choice's purchase), the **kept** points (the cats that
  went into the buyer's won pile after the dogs, R16, R17, R21) and the **net** (kept points less the price,
  what the purchase added to the buyer's score), each as counts of whole numbers.

Counts of whole numbers merge by addition, so the figures of a month, of a day, and of the whole database are
sums of one another: the server keeps a tally per dumped day and month and adds them up
(:mod:`catsack.server.people.gamedb`), and anyone can recompute every figure from the public dumps with
:meth:`Tally.add_record`. The quartiles are the linear interpolation between order statistics (Python's
``statistics.quantiles(method="inclusive")``).

Only the core and records are used: no I/O, no server.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from catsack.cards import TOKENS
from catsack.game import Game
from catsack.record import Record
from catsack.setup import SEAT_COUNTS

__all__ = ["BUYERS", "FORMAT", "VOID", "Cell", "Tally", "buyer_kind", "quantile", "stats"]

#: The format of the explorer's answer (``/api/database/explorer``).
FORMAT = "catsack-explorer/1"
#: The kinds of buyer, as a record's ``agents`` entry for the buying seat says: ``"human"`` is a person,
#: a bot spec a bot, no ``agents`` at all unknown (counted under "all" only).
BUYERS = ("person", "bot", "unknown")
#: The key of the rounds nobody bought (R19).
VOID = "void"
#: The measures of a bought row.
MEASURES = ("price", "kept", "net")


def buyer_kind(agents: Sequence[Any] | None, seat: int) -> str:
    """``"person"``, ``"bot"`` or ``"unknown"``: who sat at ``seat`` as the record's ``agents`` say."""
    if not isinstance(agents, Sequence) or isinstance(agents, str) or not 0 <= seat < len(agents):
        return "unknown"
    agent = agents[seat]
    if agent == "human":
        return "person"
    return "bot" if isinstance(agent, str) and agent else "unknown"


@dataclass
class Cell:
    """The rounds 1 of one table size, first card and kind of buyer (or :data:`VOID`): how many, and the
    counts of each measure's values."""

    games: int = 0
    price: Counter[int] = field(default_factory=Counter)
    kept: Counter[int] = field(default_factory=Counter)
    net: Counter[int] = field(default_factory=Counter)

    def add(self, other: Cell) -> None:
        self.games += other.games
        self.price.update(other.price)
        self.kept.update(other.kept)
        self.net.update(other.net)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"games": self.games}
        for name in MEASURES:
            counts: Counter[int] = getattr(self, name)
            if counts:
                out[name] = {str(v): n for v, n in sorted(counts.items())}
        return out

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Cell:
        cell = cls(games=int(obj["games"]))
        for name in MEASURES:
            counts: Counter[int] = getattr(cell, name)
            for value, n in dict(obj.get(name, {})).items():
                counts[int(value)] += int(n)
        return cell


Key = tuple[int, str, str]


@dataclass
class Tally:
    """Round 1 of many games, by (seats, first card's token, buyer kind or :data:`VOID`)."""

    cells: dict[Key, Cell] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return sum(c.games for c in self.cells.values())

    def add_game(self, game: Game, agents: Sequence[Any] | None = None) -> None:
        """Count ``game``'s round 1 (it must be finished: a game still in round 1 is not counted)."""
        if not game.rounds:
            return
        first = game.rounds[0]
        key_card = first.row[0].token  # R11: the card turned up before the bidding
        if first.buyer is None or first.price is None:
            self._cell((game.seats, key_card, VOID)).games += 1
            return
        cell = self._cell((game.seats, key_card, buyer_kind(agents, first.buyer)))
        kept = sum(c.points for c in first.won)
        cell.games += 1
        cell.price[first.price] += 1
        cell.kept[kept] += 1
        cell.net[kept - first.price] += 1

    def add_record(self, record: Record) -> None:
        """Count a full record's round 1 (replayed to its end only); ``agents`` from its extra keys."""
        game = Game(record.setup())
        for move in record.moves:
            if game.rounds or game.is_over:
                break
            game.play(move)
        self.add_game(game, record.extra.get("agents"))

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to these."""
        for key, cell in other.cells.items():
            self._cell(key).add(cell)

    @classmethod
    def total(cls, tallies: Iterable[Tally]) -> Tally:
        out = cls()
        for t in tallies:
            out.add(t)
        return out

    def _cell(self, key: Key) -> Cell:
        found = self.cells.get(key)
        if found is None:
            found = self.cells[key] = Cell()
        return found

    def to_json(self) -> dict[str, Any]:
        """As JSON: ``{"4 +15 person": {"games": 3, "price": {"4": 2, "6": 1}, ...}, ...}``, keys sorted."""
        return {f"{s} {card} {kind}": self.cells[(s, card, kind)].to_json() for s, card, kind in sorted(self.cells)}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Tally:
        """The tally :meth:`to_json` wrote; ``ValueError`` (or ``KeyError``, ``TypeError``) for anything else."""
        out = cls()
        for key, value in obj.items():
            seats, card, kind = str(key).split(" ")
            if int(seats) not in SEAT_COUNTS or card not in TOKENS or kind not in (*BUYERS, VOID):
                raise ValueError(f"not a tally key: {key!r}")
            out._cell((int(seats), card, kind)).add(Cell.from_json(value))
        return out

    def summary(self) -> list[dict[str, Any]]:
        """Per table size and first card (every card, in R1's order, also those never seen first): the games,
        the void rounds and, per kind of buyer and for all buyers together, the bought rounds with the
        :func:`stats` of their price, kept points and net."""
        out = []
        for seats in SEAT_COUNTS:
            for card in TOKENS:
                void = self.cells.get((seats, card, VOID), Cell()).games
                every = Cell()
                buyers: dict[str, Any] = {}
                for kind in BUYERS:
                    cell = self.cells.get((seats, card, kind), Cell())
                    every.add(cell)
                    if kind != "unknown":
                        buyers[kind] = _cell_summary(cell)
                buyers = {"all": _cell_summary(every), **buyers}
                out.append({"seats": seats, "card": card, "games": every.games + void, "void": void, "buyers": buyers})
        return out


def _cell_summary(cell: Cell) -> dict[str, Any]:
    return {"games": cell.games, **{name: stats(getattr(cell, name)) for name in MEASURES}}


def quantile(counts: Mapping[int, int], p: float) -> float:
    """The ``p`` quantile (0 to 1) of the values counted in ``counts``: linear interpolation between the
    order statistics at position ``p * (n - 1)`` (``statistics.quantiles(method="inclusive")``, NumPy's
    default). ``ValueError`` for no values."""
    n = sum(counts.values())
    if n <= 0:
        raise ValueError("no values to take a quantile of")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"a quantile is between 0 and 1, not {p!r}")
    h = p * (n - 1)
    low = math.floor(h)
    items = sorted((v, c) for v, c in counts.items() if c > 0)
    a, b = _order_statistic(items, low), _order_statistic(items, min(low + 1, n - 1))
    return a + (h - low) * (b - a)


def _order_statistic(items: list[tuple[int, int]], i: int) -> int:
    """The ``i``-th smallest value (from 0) of ``(value, count)`` pairs in increasing order of value."""
    for value, count in items:
        if i < count:
            return value
        i -= count
    raise IndexError(i)


def stats(counts: Mapping[int, int]) -> dict[str, float | int] | None:
    """``n``, ``min``, ``q1``, ``median``, ``q3``, ``max`` and ``mean`` (two decimals) of the counted values;
    ``None`` for none."""
    n = sum(counts.values())
    if n == 0:
        return None
    mean = sum(v * c for v, c in counts.items()) / n
    return {
        "n": n,
        "min": min(v for v, c in counts.items() if c),
        "q1": quantile(counts, 0.25),
        "median": quantile(counts, 0.5),
        "q3": quantile(counts, 0.75),
        "max": max(v for v, c in counts.items() if c),
        "mean": round(mean, 2),
    }
