"""What a tournament plays: duplicate deals, seat rotations and the seeds of everything.

Every dealt setup (R4–R9) is replayed once per rotation of the bots through
the seats, so each bot meets each deal from each seat and the luck of the deal
cancels out. All seeds derive from the tournament seed and the game's place in
the schedule — never from worker identity or timing — so a tournament gives
the same results whatever the number of jobs or the backend.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

from catsack.errors import CatsackError
from catsack.setup import SEAT_COUNTS, Setup

__all__ = ["TournamentConfig", "TournamentError", "chunk_deals", "derive_seed", "parse_bots"]


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
    """A tournament's fixed facts: the bots (one per seat), the number of games and the seed.

    ``games`` counts games in total; it must be a multiple of the number of
    seats, since every deal is played once per rotation.
    """

    bots: tuple[str, ...]
    games: int
    seed: int
    move_time: float = 5.0  # seconds per decision for external bots
    keep_moves: bool = False  # return each game's moves (needed for records)

    def __post_init__(self) -> None:
        n = len(self.bots)
        if n not in SEAT_COUNTS:
            raise TournamentError(f"a tournament needs 3, 4 or 5 bots, one per seat (R4), got {n}: {list(self.bots)}")
        if type(self.games) is not int or self.games < 1:
            raise TournamentError(f"the number of games must be a positive whole number, not {self.games!r}")
        if self.games % n:
            lo = self.games - self.games % n
            hint = f"{lo} or {lo + n}" if lo else f"{n}"
            raise TournamentError(
                f"--games {self.games} is not a multiple of the {n} seats: every deal is played once with the "
                f"bots rotated through each seat, so use e.g. {hint}"
            )
        if type(self.seed) is not int:
            raise TournamentError(f"the seed must be a whole number, not {self.seed!r}")
        if not self.move_time > 0:
            raise TournamentError(f"the time per move must be positive, not {self.move_time!r}")

    @property
    def seats(self) -> int:
        return len(self.bots)

    @property
    def deals(self) -> int:
        return self.games // self.seats

    def setup(self, deal: int) -> Setup:
        """The setup of deal number ``deal`` (0-based)."""
        return Setup.deal(self.seats, random.Random(derive_seed(self.seed, "deal", deal)))

    def entries(self, rotation: int) -> tuple[int, ...]:
        """Which bot (index into :attr:`bots`) plays each seat in a rotation: bot i sits at seat i + rotation."""
        n = self.seats
        return tuple((seat - rotation) % n for seat in range(n))

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
    """The spec at each seat in a rotation (the ``players`` of the game's record)."""
    return [config.bots[e] for e in config.entries(rotation)]
