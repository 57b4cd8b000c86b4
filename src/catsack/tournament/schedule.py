"""What a tournament plays: duplicate deals, seatings and the seeds of everything.

Every dealt setup (R4–R9) is replayed once per seating of the bots, so each
bot meets each deal from each seat and the luck of the deal cancels out. With
``seating="rotate"`` the seatings are the rotations of the bots through the
seats, which keep the order round the table: a bot always sits right after the
same neighbour. With ``seating="both"`` the rotations of the reversed order
follow, so each bot also sits right before that neighbour. All seeds derive
from the tournament seed and the game's place in the schedule — never from
worker identity or timing — so a tournament gives the same results whatever
the number of jobs or the backend.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from catsack.errors import CatsackError
from catsack.setup import SEAT_COUNTS, Setup

__all__ = ["SEATINGS", "TournamentConfig", "TournamentError", "chunk_deals", "derive_seed", "parse_bots"]

# The ways to seat the bots, and how many orders round the table each plays (times the seats: seatings per deal).
SEATINGS = {"rotate": 1, "both": 2}


class TournamentError(CatsackError):
    """A tournament that cannot be run as asked (bot count, game count, options)."""


def derive_seed(seed: int, *parts: object) -> int:
    """A 63-bit seed fixed by ``seed`` and ``parts`` alone (stable across processes and platforms)."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") >> 1


def parse_bots(text: str) -> tuple[str, ...]:
    """Split ``--bots`` (comma separated specs, one per seat) into specs."""
    specs = tuple(s.strip() for s in text.split(","))
    if any(not s for s in specs):
        raise TournamentError(f"--bots has an empty entry: {text!r} (give one bot spec per seat, comma separated)")
    return specs


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A tournament's fixed facts: the bots (one per seat), the number of games, the seed and the seating.

    ``hide_kinds`` is a table setting the bots honour: every seat is presented to them as a person
    (:meth:`catsack.bots.base.Bot.meet` gets ``None`` for each seat, and external programs no names), as
    at a server table of people, so a bot cannot set its prior about a player by the player's kind.

    ``games`` counts games in total; it must be a multiple of
    :attr:`seatings_per_deal`, since every deal is played once per seating:
    once per rotation of the bots through the seats (``seating="rotate"``),
    or once per rotation of both orders round the table (``seating="both"``).
    """

    bots: tuple[str, ...]
    games: int
    seed: int
    move_time: float = 5.0  # seconds per decision for external bots
    keep_moves: bool = False  # return each game's moves (needed for records)
    seating: str = "rotate"  # "rotate": the rotations of the bots; "both": those of the reversed order too
    hide_kinds: bool = False  # present every seat to the bots as a person (Bot.meet gets None for each seat)

    def __post_init__(self) -> None:
        n = len(self.bots)
        if n not in SEAT_COUNTS:
            raise TournamentError(f"a tournament needs 3, 4 or 5 bots, one per seat (R4), got {n}: {list(self.bots)}")
        if type(self.games) is not int or self.games < 1:
            raise TournamentError(f"the number of games must be a positive whole number, not {self.games!r}")
        if not isinstance(self.seating, str) or self.seating not in SEATINGS:
            raise TournamentError(
                f"unknown seating {self.seating!r} (choose from {', '.join(SEATINGS)}: 'rotate' plays each deal "
                "once per rotation of the bots through the seats, 'both' also with the order round the table reversed)"
            )
        k = self.seatings_per_deal
        if self.games % k:
            lo = self.games - self.games % k
            hint = f"{lo} or {lo + k}" if lo else f"{k}"
            if self.seating == "rotate":
                raise TournamentError(
                    f"--games {self.games} is not a multiple of the {n} seats: every deal is played once with the "
                    f"bots rotated through each seat, so use e.g. {hint}"
                )
            raise TournamentError(
                f"--games {self.games} is not a multiple of {k} (the {n} seats in both orders round the table): "
                f"with --seating both every deal is played once with the bots rotated through each seat in each "
                f"order, so use e.g. {hint}"
            )
        if type(self.seed) is not int:
            raise TournamentError(f"the seed must be a whole number, not {self.seed!r}")
        if not self.move_time > 0:
            raise TournamentError(f"the time per move must be positive, not {self.move_time!r}")

    @property
    def seats(self) -> int:
        return len(self.bots)

    @property
    def seatings_per_deal(self) -> int:
        """How many times each deal is played: the seats, times 2 with ``seating="both"``."""
        return self.seats * SEATINGS[self.seating]

    @property
    def deals(self) -> int:
        return self.games // self.seatings_per_deal

    def setup(self, deal: int) -> Setup:
        """The setup of deal number ``deal`` (0-based)."""
        return Setup.deal(self.seats, random.Random(derive_seed(self.seed, "deal", deal)))

    def entries(self, rotation: int) -> tuple[int, ...]:
        """Which bot (index into :attr:`bots`) plays each seat in seating ``rotation`` (0 to seatings_per_deal - 1).

        Seatings 0 to n - 1 rotate the bots: bot i sits at seat i + rotation. Seatings n to 2n - 1
        (``seating="both"``) reverse the order round the table: bot i sits at seat rotation - i, so
        the bot that sat right after another now sits right before it.
        """
        n = self.seats
        if not 0 <= rotation < self.seatings_per_deal:
            raise TournamentError(
                f"no seating {rotation} in a tournament of {self.seatings_per_deal} seatings per deal"
            )
        if rotation < n:
            return tuple((seat - rotation) % n for seat in range(n))
        return tuple((rotation - seat) % n for seat in range(n))

    def met(self, rotation: int) -> tuple[str | None, ...]:
        """What the bots are told of the table in seating ``rotation`` (:meth:`catsack.bots.base.Bot.meet`):
        each seat's spec, or ``None`` for every seat with :attr:`hide_kinds`."""
        if self.hide_kinds:
            return (None,) * self.seats
        return tuple(self.bots[e] for e in self.entries(rotation))

    def bot_seed(self, deal: int, rotation: int, seat: int) -> int:
        return derive_seed(self.seed, "bot", deal, rotation, seat)

    @property
    def unique_bots(self) -> tuple[str, ...]:
        """The distinct specs in order of first appearance (bots with the same spec are pooled)."""
        return tuple(dict.fromkeys(self.bots))


def chunk_deals(deals: int, jobs: int) -> list[range]:
    """Split the deals into work units: small enough to balance the workers, large enough to amortise."""
    if deals <= 0:
        return []
    size = max(1, min(25, -(-deals // (max(1, jobs) * 16))))
    return [range(start, min(start + size, deals)) for start in range(0, deals, size)]


def rotation_specs(config: TournamentConfig, rotation: int) -> Sequence[str]:
    """The spec at each seat in a seating (the ``players`` of the game's record)."""
    return [config.bots[e] for e in config.entries(rotation)]
