"""Swiss tournaments for tables of 3 to 5: seating by standings, scoring by rank, tie-breaks.

Pure functions over plain values (no database, no server), so the rules below are
checked directly against hand-computed tables (tests/test_tournaments.py) and
documented once, in docs/tournaments.md.

*Seating.* Entries still in the tournament are taken in standings order (round 1:
by rating, then by entry number) and cut into tables from the top: the leaders sit
together, as on Board Game Arena. When the entries do not fill whole tables, the
table count is ``ceil(entries / seats)`` and the missing seats are *filler* bots:
one per table from the bottom table up, then a second per table from the bottom
up, and so on, so the leaders' table is full of entries whenever it can be.
Then tablemates who met before are separated where a swap between two tables at
most three apart lowers the number of repeated pairs (among swaps that do, the one
between players closest in the standings is made first), until no swap helps. A pair
where one blocks the other counts more than all repeated pairs together, so such a
pair is parted whenever a swap can do it (never when the entries fill one table).
Within a table the seats are the table's entries in standings order, fillers last,
rotated by the round number so the same player is not always first to act.

*Scoring (rank points).* At a table of ``n`` seats, place ``k`` (R22: score, then
cat points) earns ``n - k`` points; players still tied share the points of the
places they cover (two tied for first at 4 seats: (3 + 2) / 2 = 2.5 each).
Filler bots take places like anyone but earn nothing for anyone; a seat abandoned to
a bot (its player withdrawn) earns nothing.

*Scoring (duplicate deals).* Every table of a round plays the same deal, so seat
``s`` holds the same cards at every table. A player is compared with the entries
who sat in the same seat at the other tables of the round: one point for each whose
result (score, then cat points) it beat, half a point for each it tied, scaled to
the rank points' range: ``(seats - 1) * won / compared``. Filler bots and abandoned
seats are not compared with; a player compared with nobody (one table, or only
fillers elsewhere) gets its rank points instead.

*Standings and tie-breaks.* Total points, then table wins (a first place shared by
``k`` players counts ``1/k``), then players who stayed before players who withdrew, then
the sum of game scores, then the entry number (who entered first).

*Withdrawn players.* A game whose seat was abandoned to a bot counts for nothing: no
points, no win, and what the bot scored is not the player's, so it is left out of the
score sum. Games played before withdrawing keep what they earned.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

__all__ = [
    "RoundScore",
    "SeatResult",
    "Standing",
    "duplicate_points",
    "filler_counts",
    "meetings",
    "pair_round",
    "place_points",
    "places",
    "repeated_pairs",
    "score_round",
    "standings",
]


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat of a finished tournament table: its entry (``None``: a filler bot) and its result."""

    entry: int | None
    seat: int
    score: int
    cats: int
    abandoned: bool = False


@dataclass(frozen=True, slots=True)
class RoundScore:
    """What one entry earned in one round."""

    entry: int
    table: int
    seat: int
    place: int
    points: float
    score: int
    cats: int
    win: float
    abandoned: bool
    round: int = 0


@dataclass(slots=True)
class Standing:
    """An entry's place in the standings with the figures that decide it."""

    entry: int
    points: float = 0.0
    wins: float = 0.0
    score: int = 0
    withdrawn: bool = False
    rounds: list[RoundScore] = field(default_factory=list)

    def key(self) -> tuple[float, float, bool, int, int]:
        """The sort key, best first; equal in its first four places, two entries share a rank."""
        return (-round(self.points, 9), -round(self.wins, 9), self.withdrawn, -self.score, self.entry)


def places(results: Sequence[SeatResult]) -> list[int]:
    """Each seat's place at its table by R22 (score, then cat points); tied seats share the best place."""
    keys = [(r.score, r.cats) for r in results]
    return [1 + sum(1 for o in keys if o > k) for k in keys]


def place_points(results: Sequence[SeatResult]) -> list[float]:
    """Rank points per seat: place k of n earns n - k; tied seats share the points of the places they cover."""
    n = len(results)
    ps = places(results)
    out = []
    for p in ps:
        tied = ps.count(p)
        out.append(sum(n - k for k in range(p, p + tied)) / tied)
    return out


def duplicate_points(tables: Sequence[Sequence[SeatResult]], seats: int) -> dict[int, float | None]:
    """Per entry, its duplicate points (``None`` when there was nobody to compare it with)."""
    by_seat: dict[int, list[SeatResult]] = {}
    for table in tables:
        for r in table:
            if r.entry is not None and not r.abandoned:
                by_seat.setdefault(r.seat, []).append(r)
    out: dict[int, float | None] = {}
    for group in by_seat.values():
        for r in group:
            assert r.entry is not None
            others = [o for o in group if o is not r]
            if not others:
                out[r.entry] = None
                continue
            mine = (r.score, r.cats)
            won = sum(1.0 if mine > (o.score, o.cats) else 0.5 if mine == (o.score, o.cats) else 0.0 for o in others)
            out[r.entry] = (seats - 1) * won / len(others)
    return out


def score_round(
    tables: Sequence[Sequence[SeatResult]], *, duplicate: bool = False, round_no: int = 0, first_table: int = 1
) -> list[RoundScore]:
    """What every entry earned in round ``round_no`` from its tables' results (the tables in order,
    numbered from ``first_table``; seats in order)."""
    seats = len(tables[0]) if tables else 0
    dup = duplicate_points(tables, seats) if duplicate else {}
    out = []
    for t, table in enumerate(tables):
        ps = places(table)
        pts = place_points(table)
        firsts = sum(1 for p in ps if p == 1)
        for r, place, rank_points in zip(table, ps, pts, strict=True):
            if r.entry is None:
                continue
            points = 0.0 if r.abandoned else rank_points
            if duplicate and not r.abandoned and dup.get(r.entry) is not None:
                points = float(dup[r.entry] or 0.0)
            win = 0.0 if r.abandoned or place != 1 else 1.0 / firsts
            out.append(
                RoundScore(r.entry, first_table + t, r.seat, place, points, r.score, r.cats, win, r.abandoned, round_no)
            )
    return out


def standings(
    entries: Sequence[int], rounds: Sequence[Sequence[RoundScore]], withdrawn: Collection[int] = ()
) -> list[Standing]:
    """The standings after ``rounds``, best first (points, table wins, stayed before ``withdrawn``, game
    score without abandoned games, entry number)."""
    table = {e: Standing(e, withdrawn=e in withdrawn) for e in entries}
    for scores in rounds:
        for s in scores:
            st = table.get(s.entry)
            if st is None:
                continue
            st.points += s.points
            st.wins += s.win
            if not s.abandoned:  # the stand-in bot's score is not the player's
                st.score += s.score
            st.rounds.append(s)
    return sorted(table.values(), key=Standing.key)


def filler_counts(entries: int, seats: int) -> list[int]:
    """Filler bots per table, top table first: the missing seats go one per table from the bottom up."""
    if entries <= 0:
        return []
    tables = math.ceil(entries / seats)
    counts = [0] * tables
    missing = tables * seats - entries
    t = tables - 1
    while missing:
        counts[t] += 1
        missing -= 1
        t = t - 1 if t > 0 else tables - 1
    return counts


def repeated_pairs(tables: Sequence[Sequence[int]], met: Mapping[frozenset[int], int]) -> int:
    """How many earlier meetings the tables repeat (a pair that met twice before counts 2)."""
    return sum(met.get(frozenset(p), 0) for table in tables for p in combinations(table, 2))


#: How many tables down a player may be moved to avoid a repeated tablemate: the leaders stay near the top.
SWAP_REACH = 3


def pair_round(
    order: Sequence[int],
    seats: int,
    met: Mapping[frozenset[int], int],
    round_no: int,
    apart: Collection[frozenset[int]] = (),
) -> list[list[int | None]]:
    """The tables of a round: ``order`` is the entries by standings (best first), ``met`` how often
    each pair of entries shared a table already, ``apart`` the pairs to keep at different tables where
    the swaps allow (one of them blocks the other): a swap that parts such a pair is made whatever it
    does to repeated meetings. Each table lists its seats (``None``: a filler bot)."""
    fillers = filler_counts(len(order), seats)
    groups: list[list[int]] = []
    i = 0
    for f in fillers:
        groups.append(list(order[i : i + seats - f]))
        i += seats - f
    rank = {e: k for k, e in enumerate(order)}
    # One pair kept apart outweighs every repeated meeting a swap could add or remove.
    heavy = 1 + 2 * sum(met.values())
    cost = dict(met)
    for pair in apart:
        cost[pair] = cost.get(pair, 0) + heavy

    def met_with(x: int, group: Sequence[int], skip: int) -> int:
        return sum(cost.get(frozenset((x, z)), 0) for z in group if z != skip)

    while True:
        best: tuple[int, int, int, int, int] | None = None  # (standings distance, t, a, u, b)
        for t in range(len(groups)):
            for u in range(t + 1, min(len(groups), t + 1 + SWAP_REACH)):
                gt, gu = groups[t], groups[u]
                for a, x in enumerate(gt):
                    for b, y in enumerate(gu):
                        delta = met_with(y, gt, x) - met_with(x, gt, x) + met_with(x, gu, y) - met_with(y, gu, y)
                        if delta < 0:
                            cand = (abs(rank[x] - rank[y]), t, a, u, b)
                            if best is None or cand < best:
                                best = cand
        if best is None:
            break
        _, t, a, u, b = best
        groups[t][a], groups[u][b] = groups[u][b], groups[t][a]
    tables: list[list[int | None]] = []
    for group, f in zip(groups, fillers, strict=True):
        members: list[int | None] = [*sorted(group, key=rank.__getitem__), *([None] * f)]
        shift = (round_no - 1) % seats
        tables.append(members[shift:] + members[:shift])
    return tables


def meetings(tables: Sequence[Sequence[int | None]]) -> Counter[frozenset[int]]:
    """The pairs of entries that shared a table, counted."""
    out: Counter[frozenset[int]] = Counter()
    for table in tables:
        people = [e for e in table if e is not None]
        out.update(frozenset(p) for p in combinations(people, 2))
    return out
