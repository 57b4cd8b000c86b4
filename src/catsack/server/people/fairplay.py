"""The soft-play report: pairs of accounts whose bidding against each other stands out.

In an auction, colluders do not bid against each other: when one of them leads
the auction the other passes (R13 pays the passer, R14 leaves the row to the
leader cheaply). From finished rated games this module counts, for every pair of
accounts that shared a table:

- *passes while the partner leads*: of the bidding turns one of them had while
  the other was the high bidder, how many were passes; against the same two
  players' passes while anyone else led (in all their games);
- *raises over each other*: the bids of one over the other's lead (the other side
  of the same turns), shown as evidence;
- *table overlap*: games together, against the fewer games of the two.

Only a person's own moves count: a move the standby bot made for a seat after its
player left (or the turn timer made for them) is the bot's, not the account's, so it
is neither a turn of theirs nor a lead of theirs.

A pair *stands out* when the share of passes while the partner leads is higher
than while others lead by at least :data:`MIN_GAP`, the two-proportion z-score of
that difference is at least :data:`MIN_Z`, and there are at least
:data:`MIN_TURNS` such turns (a few games prove nothing). The figures are
evidence for a person to look at (the games are listed), not a verdict.

``catsack admin fairplay`` prints the report. The core (:func:`analyse`) works on
plain game facts, so it is tested with simulated colluding and honest bots.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import select

from catsack.game import Game
from catsack.server.people.accounts import Accounts, seat_users_t
from catsack.server.people.ratings import rated_games_t
from catsack.server.storage.store import actions_t, tables_t
from catsack.server.tables.live import setup_from_json
from catsack.setup import Setup

__all__ = [
    "MIN_GAP",
    "MIN_TURNS",
    "MIN_Z",
    "GameFacts",
    "PairStats",
    "Report",
    "Turn",
    "analyse",
    "bidding_turns",
    "load_games",
    "pairs_of",
    "report",
]

#: Least difference between the pass shares (partner leads, others lead) for a pair to stand out.
MIN_GAP = 0.2
#: Least z-score of that difference.
MIN_Z = 3.0
#: Least number of bidding turns one of the pair had while the other led.
MIN_TURNS = 20


@dataclass(frozen=True, slots=True)
class GameFacts:
    """A finished game as the report reads it: who sat where (an account key or ``None``), its moves,
    and who made each move (the action log's ``actor``: ``human``, ``bot`` or ``timer``; empty: every
    move was its seat's person's)."""

    table_id: str
    players: tuple[str | None, ...]
    setup: Setup
    moves: tuple[str, ...]
    actors: tuple[str, ...] = ()

    def by_person(self, ply: int) -> bool:
        """Whether move ``ply`` (from 0) was made by its seat's person, not a bot or timer for them."""
        return not self.actors or self.actors[ply] == "human"


class Turn(NamedTuple):
    """A bidding turn a person took while another seat led (R12-R14)."""

    seat: int
    leader: int
    passed: bool
    #: Whether the standing high bid was the leader's person's own (not their standby bot's).
    lead_by_person: bool


@dataclass(slots=True)
class PairStats:
    """What a pair of accounts did at the tables they shared."""

    a: str
    b: str
    games: int = 0
    games_a: int = 0
    games_b: int = 0
    partner_turns: int = 0  # bidding turns of one while the other led
    partner_passes: int = 0
    other_turns: int = 0  # bidding turns of either while a third player led (all their games)
    other_passes: int = 0
    tables: list[str] = field(default_factory=list)

    @property
    def pass_partner(self) -> float:
        return self.partner_passes / self.partner_turns if self.partner_turns else 0.0

    @property
    def pass_others(self) -> float:
        return self.other_passes / self.other_turns if self.other_turns else 0.0

    @property
    def raises_over_each_other(self) -> int:
        return self.partner_turns - self.partner_passes

    @property
    def overlap(self) -> float:
        fewer = min(self.games_a, self.games_b)
        return self.games / fewer if fewer else 0.0

    @property
    def z(self) -> float:
        """Two-proportion z-score of (passes while the partner leads) against (while others lead)."""
        n1, n2 = self.partner_turns, self.other_turns
        if not n1 or not n2:
            return 0.0
        pooled = (self.partner_passes + self.other_passes) / (n1 + n2)
        spread = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
        if spread == 0:
            return 0.0
        return (self.pass_partner - self.pass_others) / spread

    @property
    def stands_out(self) -> bool:
        return self.partner_turns >= MIN_TURNS and self.pass_partner - self.pass_others >= MIN_GAP and self.z >= MIN_Z

    def as_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "stands_out": self.stands_out,
            "games_together": self.games,
            "overlap": round(self.overlap, 3),
            "turns_while_partner_led": self.partner_turns,
            "passes_while_partner_led": self.partner_passes,
            "pass_share_partner_led": round(self.pass_partner, 3),
            "pass_share_others_led": round(self.pass_others, 3),
            "raises_over_each_other": self.raises_over_each_other,
            "z": round(self.z, 2),
            "tables": self.tables[:20],
        }


def bidding_turns(game: GameFacts) -> Iterator[Turn]:
    """Every bidding turn a seat's person took while another seat led (R12-R14); turns a bot or the
    timer took for them are left out."""
    g = Game(game.setup)
    lead_ply: int | None = None  # the move that made the standing high bid
    for ply, move in enumerate(game.moves):
        leader = g.high_bidder
        seat = g.to_move
        if g.phase == "bidding" and seat is not None and leader not in (None, seat) and game.by_person(ply):
            yield Turn(seat, leader, move == "pass", lead_ply is not None and game.by_person(lead_ply))
        g.play(move)
        if g.high_bidder is None:
            lead_ply = None
        elif g.high_bidder == seat and move.startswith("bid"):  # R12: the bidder leads
            lead_ply = ply


def analyse(games: Iterable[GameFacts]) -> list[PairStats]:
    """The statistics of every pair of accounts that shared a table, pairs that stand out first."""
    turns: Counter[tuple[str, str]] = Counter()  # (player, leader) -> turns
    passes: Counter[tuple[str, str]] = Counter()
    all_turns: Counter[str] = Counter()
    all_passes: Counter[str] = Counter()
    played: Counter[str] = Counter()
    together: dict[tuple[str, str], list[str]] = {}
    for game in games:
        people = [p for p in game.players if p is not None]
        played.update(set(people))
        for a in set(people):
            for b in set(people):
                if a < b:
                    together.setdefault((a, b), []).append(game.table_id)
        for turn in bidding_turns(game):
            me = game.players[turn.seat]
            lead = game.players[turn.leader] if turn.lead_by_person else None
            passed = turn.passed
            if me is None:
                continue
            all_turns[me] += 1
            all_passes[me] += passed
            if lead is not None and lead != me:
                turns[(me, lead)] += 1
                passes[(me, lead)] += passed
    out = []
    for (a, b), tables in together.items():
        pt = turns[(a, b)] + turns[(b, a)]
        pp = passes[(a, b)] + passes[(b, a)]
        out.append(
            PairStats(
                a,
                b,
                games=len(tables),
                games_a=played[a],
                games_b=played[b],
                partner_turns=pt,
                partner_passes=pp,
                other_turns=all_turns[a] + all_turns[b] - pt,
                other_passes=all_passes[a] + all_passes[b] - pp,
                tables=tables,
            )
        )
    out.sort(key=lambda s: (not s.stands_out, -s.z, s.a, s.b))
    return out


def load_games(engine: Any, limit: int = 5000) -> list[GameFacts]:
    """The newest ``limit`` rated games whose ratings stand (not reverted), with their accounts."""
    out = []
    with engine.connect() as conn:
        ids = [
            r.table_id
            for r in conn.execute(
                select(rated_games_t.c.table_id)
                .where(rated_games_t.c.reverted.is_(None))
                .order_by(rated_games_t.c.created.desc())
                .limit(limit)
            )
        ]
        for table_id in ids:
            row = conn.execute(select(tables_t).where(tables_t.c.id == table_id)).first()
            if row is None or row.status != "over":
                continue  # deleted by retention since
            setup = setup_from_json(row.seats, json.loads(row.setup))
            log = conn.execute(
                select(actions_t.c.move, actions_t.c.actor)
                .where(actions_t.c.table_id == table_id)
                .order_by(actions_t.c.version)
            ).all()
            bound = {
                int(r.seat): f"user:{r.user_id}"
                for r in conn.execute(select(seat_users_t).where(seat_users_t.c.table_id == table_id))
            }
            players = tuple(bound.get(s) for s in range(row.seats))
            moves, actors = tuple(a.move for a in log), tuple(a.actor for a in log)
            out.append(GameFacts(table_id, players, setup, moves, actors))
    return out


@dataclass(frozen=True, slots=True)
class Report:
    """The soft-play report: the pairs (as :meth:`PairStats.as_dict`, with account names) and how many
    rated games were read."""

    pairs: list[dict[str, Any]]
    games_read: int


def report(engine: Any, *, limit: int = 5000, everyone: bool = False) -> Report:
    """The report from the server's database: pairs that stand out (or every pair), with account names."""
    games = load_games(engine, limit)
    pairs = analyse(games)
    accounts = Accounts(engine)
    names: dict[str, str] = {}

    def name(key: str) -> str:
        if key not in names:
            account = accounts.by_id(int(key.removeprefix("user:")))
            names[key] = account.name if account is not None else key
        return names[key]

    shown = [{**p.as_dict(), "a": name(p.a), "b": name(p.b)} for p in pairs if everyone or p.stands_out]
    return Report(shown, len(games))


def pairs_of(stats: Sequence[PairStats]) -> set[frozenset[str]]:
    """The pairs that stand out, as sets of two account keys."""
    return {frozenset((s.a, s.b)) for s in stats if s.stands_out}
