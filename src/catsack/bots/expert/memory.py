"""What the expert keeps of a table's earlier games (``expert:memory=1``).

A bot that plays several games at one table (a sitting: the same :class:`~catsack.bots.base.Bot` objects
given to :func:`catsack.bots.base.play_game` game after game, each game opened with ``reset`` and
``meet``; or a server's rematch, :func:`catsack.server.people.rematch.carried_memory`) can read, from each
finished game, how that table's players of unknown kind placed their cards. Everything read here was
public when the game was played: every card placed in a finished round was turned up, with who placed it
(R14, R23), and the expert keeps nothing of its own hand. Three facts are read, each counted over the
players of unknown kind (people, bots of a kind the model has no prior for, or every seat when the kinds
are hidden; never the expert's own kind) and pooled over the table, since the seats of a sitting need
not keep their places:

* **Who leads round 1 as start player**: whether the start player's round-1 card was its +15 or +11.
  In the next games it sets round 1's share of the ``lead`` style (``lead1``): people who open with a
  small cat and bid 1 make ``rule`` tables likelier, and the expert then expects the followers to hide
  good cats rather than dump them.
* **Who leads behind a start player who led** (five seats): whether a player in the first two places
  behind a start player who placed its +15 or +11 (the expert included) placed its own +15 there
  too, as ``dmc`` does and ``ismcts:strong`` never does (``bench/round_gain.py --round1``). It
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
from typing import Any

from catsack.bots.expert.players import (
    ALWAYS_PLACES,
    DUMP,
    PERSON_ALWAYS_SEATS,
    kind_of,
    known_kind,
    met_as,
    seat_priors,
    styles,
)
from catsack.bots.expert.spec import DUMP_PRIOR, STYLE_PRIORS, parse_spec
from catsack.cards import Card
from catsack.errors import CatsackError
from catsack.view import View

__all__ = ["COUNTS", "LEAD_CARDS", "PSEUDO_COUNT", "Recalled", "TableMemory", "remembers"]

#: How many observations of the option's own value each estimate starts with.
PSEUDO_COUNT = 2.0
#: A start player who placed one of these in round 1 led it (``lead`` style, R11: it is the card shown).
LEAD_CARDS = frozenset({Card.P15, Card.P11})


#: The counts a memory keeps (:meth:`TableMemory.state`), each a number of at most :data:`MAX_COUNT`.
COUNTS = ("games", "starts", "start_leads", "follows", "follow_leads", "players", "dumped")
MAX_COUNT = 10**6


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

    def state(self) -> dict[str, Any]:
        """The memory as plain JSON values (a server keeps it with a table's rematch: :meth:`from_state`)."""
        out: dict[str, Any] = {name: getattr(self, name) for name in COUNTS}
        out["table"] = None if self.table is None else [self.table[0], list(self.table[1])]
        return out

    @classmethod
    def from_state(cls, data: object) -> TableMemory:
        """The memory :meth:`state` gave; raise ``ValueError`` naming what is wrong with anything else."""
        if not isinstance(data, dict):
            raise ValueError(f"a table memory is an object, not {type(data).__name__}")
        memory = cls()
        for name in COUNTS:
            value = data.get(name)
            whole = name != "dumped"
            if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
                raise ValueError(f"table memory: {name!r} must be a {'whole ' if whole else ''}number, not {value!r}")
            if not 0 <= value <= MAX_COUNT:
                raise ValueError(f"table memory: {name!r} must be from 0 to {MAX_COUNT}, not {value!r}")
            setattr(memory, name, value)
        if not memory.start_leads <= memory.starts or not memory.follow_leads <= memory.follows:
            raise ValueError("table memory: more leads than chances to lead")
        if memory.dumped > memory.players:
            raise ValueError("table memory: more dumping than players read")
        table = data.get("table")
        if table is not None:
            ok = isinstance(table, list) and len(table) == 2 and isinstance(table[0], int) and 3 <= table[0] <= 5
            kinds = table[1] if ok else None
            if (
                not ok
                or not isinstance(kinds, list)
                or len(kinds) > table[0]
                or not all(isinstance(k, str) for k in kinds)
            ):
                raise ValueError(f"table memory: 'table' must be [seats, [known kinds]], not {table!r}")
            memory.table = (table[0], tuple(kinds))
        return memory

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
        unknown = [s != view.seat and not known_kind(met[s]) and kind_of(met[s]) != "expert" for s in range(n)]
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


def remembers(spec: str) -> bool:
    """Whether the bot ``spec`` keeps a table memory: a classic expert spec (``classic``, or ``expert:`` with the
    classic expert's options) with ``memory=1`` (the default's)."""
    from catsack.bots.strongest import is_agent

    kind, _, arg = spec.strip().partition(":")
    if kind.strip() not in ("expert", "classic") or (kind.strip() == "expert" and is_agent(arg)):
        return False  # (the learned expert keeps a table's history itself)
    try:
        return parse_spec(arg).memory
    except CatsackError:  # no such bot could sit at a table
        return False
