"""Arena tournaments for tables of 3 to 5: a time window, a queue, points by rank and a streak bonus.

Pure functions over plain values (no database, no server), checked against hand-computed
tables in tests/test_arena.py and documented once, in docs/tournaments.md (*Arena*).

*The queue.* During the window every entry that is not at a table waits. As soon as at least
``seats`` wait, tables are made (:func:`seat_queue`): the waiting are taken by rating, best first;
a table starts with the best-rated one still waiting and takes the next ones by rating, passing over
anyone who sat with one of them at their last table while someone else can be taken instead (never
the same table twice in a row where the queue allows it). Who is left (fewer than ``seats``) waits
for the next games to end. When the creator allowed bots and someone has waited ``fill_after``
seconds, the waiting (up to ``seats``) sit down at once with filler bots in the empty seats.

*Points* (:func:`arena_points`). Place ``k`` at a table of ``n`` seats (R22: score, then cat points)
earns ``n - k`` (3 seats: 2, 1, 0; 4 seats: 3, 2, 1, 0; 5 seats: 4, 3, 2, 1, 0); tied players share
the points of the places they cover, as in Swiss (:func:`~catsack.server.tournaments.swiss.place_points`).
*Streak:* a first place (shared or not) when the entry's two previous games were first places too
earns double; any other result ends the streak. A seat abandoned to a bot earns nothing and ends it.

*Standings* (:func:`arena_standings`): points, then table wins (a first place shared by ``k`` counts
``1/k``), then the entry number.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace

from catsack.server.tournaments.swiss import RoundScore

__all__ = [
    "STREAK",
    "ArenaStanding",
    "Waiter",
    "arena_points",
    "arena_standings",
    "seat_queue",
]

#: How many first places in a row put an entry on a streak (its next first place earns double).
STREAK = 2


@dataclass(frozen=True, slots=True)
class Waiter:
    """An entry waiting in the queue: its rating and since when it waits (epoch seconds)."""

    entry: int
    rating: float
    since: float


def seat_queue(
    waiting: Sequence[Waiter],
    seats: int,
    last_mates: Mapping[int, Collection[int]],
    now: float,
    fill_after: float | None,
) -> list[list[int | None]]:
    """The tables to make now from the queue (each a list of seats; ``None``: a filler bot).

    ``last_mates`` gives, per entry, who sat with it at its last table; ``fill_after`` the seconds
    someone waits before the waiting get filler bots (``None``: the creator allowed no bots)."""
    if not 3 <= seats <= 5:
        raise ValueError(f"an arena table has 3 to 5 seats, not {seats}")
    pool = sorted(waiting, key=lambda w: (-w.rating, w.since, w.entry))
    tables: list[list[int | None]] = []

    def clashes(w: Waiter, group: Sequence[Waiter]) -> int:
        mates = last_mates.get(w.entry, ())
        return sum(1 for g in group if g.entry in mates or w.entry in last_mates.get(g.entry, ()))

    while len(pool) >= seats:
        group = [pool.pop(0)]
        while len(group) < seats:
            # The nearest by rating among those who add the fewest last-table mates.
            best = min(range(len(pool)), key=lambda i: (clashes(pool[i], group), i))
            group.append(pool.pop(best))
        tables.append([w.entry for w in group])
    if pool and fill_after is not None and now - min(w.since for w in pool) >= fill_after:
        tables.append([*(w.entry for w in pool), *([None] * (seats - len(pool)))])
    return tables


def arena_points(games: Sequence[RoundScore]) -> list[tuple[RoundScore, bool]]:
    """One entry's games in the order played (:class:`RoundScore` with the rank points of its table),
    each with its arena points and whether the streak doubled them."""
    out: list[tuple[RoundScore, bool]] = []
    run = 0  # first places in a row before this game
    for g in games:
        first = g.place == 1 and not g.abandoned
        doubled = first and run >= STREAK
        points = 0.0 if g.abandoned else g.points * (2 if doubled else 1)
        out.append((replace(g, points=points), doubled))
        run = run + 1 if first else 0
    return out


@dataclass(slots=True)
class ArenaStanding:
    """An entry's place in the arena's standings: points, table wins, games, the current streak."""

    entry: int
    points: float = 0.0
    wins: float = 0.0
    streak: int = 0  # first places in a row up to now (2 or more: the next first place earns double)
    withdrawn: bool = False
    games: list[tuple[RoundScore, bool]] = field(default_factory=list)

    def key(self) -> tuple[float, float, int]:
        """The sort key, best first; equal in its first two places, two entries share a rank."""
        return (-round(self.points, 9), -round(self.wins, 9), self.entry)


def arena_standings(
    entries: Sequence[int], games: Sequence[RoundScore], withdrawn: Collection[int] = ()
) -> list[ArenaStanding]:
    """The standings from every finished game's :class:`RoundScore` (``round``: the table's number, in
    the order the tables were made), best first."""
    by_entry: dict[int, list[RoundScore]] = {}
    for g in sorted(games, key=lambda g: (g.round, g.entry)):
        by_entry.setdefault(g.entry, []).append(g)
    table = []
    for e in entries:
        st = ArenaStanding(e, withdrawn=e in withdrawn)
        st.games = arena_points(by_entry.get(e, []))
        for g, _doubled in st.games:
            st.points += g.points
            st.wins += g.win
            st.streak = st.streak + 1 if g.place == 1 and not g.abandoned else 0
        table.append(st)
    return sorted(table, key=ArenaStanding.key)
