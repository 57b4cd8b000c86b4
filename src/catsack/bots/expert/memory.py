"""What the expert keeps of a table's earlier games (``expert:memory=1``).

A bot that plays several games at one table (a sitting: the same :class:`~catsack.bots.base.Bot` objects
given to :func:`catsack.bots.base.play_game` game after game, each game opened with ``reset`` and
``meet``) can read, from each finished game, how that table's players of unknown kind placed their cards.
Everything read here was public when the game was played: every card placed in a finished round was
turned up, with who placed it (R14, R23), and the expert keeps nothing of its own hand. Three facts are
read, each counted over the players of unknown kind (people, or every seat when the kinds are hidden)
and pooled over the table, since the seats of a sitting need not keep their places:

* **Who leads round 1 as start player**: whether the start player's round-1 card was its +15 or +11.
  In the next games it sets round 1's share of the ``lead`` style (``lead1``): people who open with a
  small cat and bid 1 make ``rule`` tables likelier, and the expert then expects the followers to hide
  good cats rather than dump them.
* **Who leads behind a start player who led** (five seats): whether a player in the first two places
  behind a start player who placed its +15 or +11 (the expert included) placed its own +15 there
  too, as ``dmc`` does and ``ismcts:strong`` never does (*Who leads round 1* in docs/bots.md). It
  sets the chance of :data:`~catsack.bots.expert.players.ALWAYS` awareness (``always``).
* **Who hides its worst cards**: each player's share of the ``dump`` style read from all its placements
  of the game (:func:`~catsack.bots.expert.players.styles`). It sets the ``dump`` style's prior share
  from round 2 on (``dump``) and in round 1 (``dump1``).

Each estimate is a mean over what was seen and :data:`PSEUDO_COUNT` observations of the option's own
value (so with nothing seen it is the option's value, and one game moves it part of the way).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from catsack.bots.expert.players import (
    ALWAYS_PLACES,
    DUMP,
    PERSON_ALWAYS_SEATS,
    known_kind,
    met_as,
    seat_priors,
    styles,
)
from catsack.bots.expert.spec import DUMP_PRIOR, STYLE_PRIORS
from catsack.cards import Card
from catsack.view import View

__all__ = ["LEAD_CARDS", "PSEUDO_COUNT", "Recalled", "TableMemory"]

#: How many observations of the option's own value each estimate starts with.
PSEUDO_COUNT = 2.0
#: A start player who placed one of these in round 1 led it (``lead`` style, R11: it is the card shown).
LEAD_CARDS = frozenset({Card.P15, Card.P11})


@dataclass(frozen=True)
class Recalled:
    """The options a table's earlier games set for the next one (:meth:`TableMemory.recall`)."""

    lead1: float  # round 1's share of the ``lead`` style for players of unknown kind
    always: float  # at five seats, their chance of leading from the places behind a start player who leads
    dump: float  # the ``dump`` style's prior share from round 2 on
    dump1: float  # ... and in round 1
    games: int  # the games read


class TableMemory:
    """Counts of what the players of unknown kind did in a table's earlier games (see the module)."""

    def __init__(self) -> None:
        self.table: tuple[int, tuple[str, ...]] | None = None  # seat count and the known kinds met
        self.forget()

    def forget(self) -> None:
        """Start over (another table)."""
        self.games = 0
        self.starts = 0  # unknown start players of round 1 ...
        self.start_leads = 0  # ... who led their +15 or +11
        self.follows = 0  # unknown players in the first two places behind a start player who led ...
        self.follow_leads = 0  # ... who placed their +15 there too
        self.players = 0  # unknown players read at a game's end ...
        self.dumped = 0.0  # ... and the sum of their ``dump`` shares

    def meet(self, players: Sequence[str | None]) -> None:
        """The table of the next game (:meth:`catsack.bots.base.Bot.meet`): another number of seats or other
        known kinds at it make another table, and what was read is forgotten."""
        table = (len(players), tuple(sorted(p for p in players if p is not None)))
        if table != self.table:
            self.forget()
            self.table = table

    def read(self, view: View, players: Sequence[str | None] | None) -> None:
        """Add a game, as its last ``view`` from the bot's seat shows it (its finished rounds); ``players`` is the
        table as met (``None``: not met, everyone of unknown kind). Each player's style is read from the
        ``expert``'s prior (:data:`.spec.DUMP_PRIOR` for the ``dump`` style)."""
        n = view.seats
        if not view.rounds or view.seat is None:
            return
        met = met_as(players) if players is not None and len(players) == n else [None] * n
        unknown = [s != view.seat and not known_kind(met[s]) for s in range(n)]
        self.games += 1
        first = view.rounds[0]
        cards = dict(zip(first.owners, first.row, strict=True))
        start = first.start
        led = cards[start] in LEAD_CARDS
        if unknown[start]:
            self.starts += 1
            self.start_leads += led
        if led and n in PERSON_ALWAYS_SEATS:
            for k in ALWAYS_PLACES:
                s = (start + k) % n
                if unknown[s]:
                    self.follows += 1
                    self.follow_leads += cards[s] == Card.P15
        prior = STYLE_PRIORS["read"]
        read = styles(view, priors=seat_priors(met, prior, DUMP_PRIOR))
        for s in range(n):
            if unknown[s]:
                self.players += 1
                self.dumped += read[s][DUMP]

    def recall(self, lead1: float, always: float, dump: float, dump1: float) -> Recalled | None:
        """The options for the next game, from the options' own values (the bot's) and what was read; ``None``
        before any game was read (the bot then plays with its own options)."""
        if self.games == 0:
            return None
        k = PSEUDO_COUNT

        def mean(own: float, seen: float, count: float) -> float:
            return (k * own + seen) / (k + count)

        return Recalled(
            lead1=min(0.95, max(0.05, mean(lead1, self.start_leads, self.starts))),
            always=mean(always, self.follow_leads, self.follows),
            dump=mean(dump, self.dumped, self.players),
            dump1=mean(dump1, self.dumped, self.players),
            games=self.games,
        )
