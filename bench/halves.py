"""Placement or bidding: which half of a bot's play loses its points against a table.

    .venv/bin/python bench/halves.py BOT --against SPEC [--base heuristic] [--seats 4] [--deals 16] [--seed 9100]

Seats four players in turn with ``n - 1`` copies of ``SPEC`` on the same duplicate deals (each deal once with the
player in every seat, the opponents' seeds fixed by deal and seat, every seat presented as a person): ``BASE``,
``BOT``, ``BOT`` bidding with ``BASE``'s placements (R10), and ``BASE`` bidding with ``BOT``'s placements. Each
line: the player's win share (R22, ties split), its paired score over ``BASE`` in the same seat of the same deal
with a 95 % bootstrap interval over deals, and a game's rows bought: how many, what they held for their buyer
(the points kept after the dogs, R16) and what they cost (R17), and how many of its bids raised the high bid by
more than one mouse (against players who let rows go, a jump only raises its own price). When neither mixed
player closes the gap, both halves lose points; when one does, that half is where they go.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import expert_strength as es  # a sibling script: the bootstrap over deals

from catsack.bots import make_bot
from catsack.bots.base import Bot, BotSpecError, play_game
from catsack.game import Game
from catsack.moves import PLACE, Move, parse_move
from catsack.view import View


class Halves(Bot):
    """Places as ``placer`` and bids as ``bidder`` (both told of every game and table)."""

    def __init__(self, placer: Bot, bidder: Bot) -> None:
        self.placer = placer
        self.bidder = bidder

    def reset(self, seat: int, seats: int) -> None:
        self.placer.reset(seat, seats)
        self.bidder.reset(seat, seats)

    def meet(self, players: Sequence[str | None]) -> None:
        self.placer.meet(players)
        self.bidder.meet(players)

    def choose(self, view: View) -> Move:
        return (self.placer if view.legal[0].kind == PLACE else self.bidder).choose(view)


@dataclass(frozen=True)
class Seat:
    """One game of the player in one seat."""

    deal: int
    score: int
    win: float
    rows: int
    worth: int
    price: int
    bids: int
    jumps: int  # bids more than one mouse over the high bid (R12)


def play(player: Callable[[], Bot], against: str, seats: int, deals: int, seed: int) -> list[Seat]:
    """The player in every seat of each deal against ``seats - 1`` of ``against``."""
    out = []
    for d in range(deals):
        for seat in range(seats):
            bots = [player() if s == seat else make_bot(against, seed=1000 * d + s) for s in range(seats)]
            g = play_game(Game.new(seats, seed=seed + d), bots, hide_kinds=True)
            bought = [r for r in g.rounds if r.buyer == seat]
            winners = g.winners()
            out.append(
                Seat(
                    deal=d,
                    score=g.scores()[seat],
                    win=1.0 / len(winners) if seat in winners else 0.0,
                    rows=len(bought),
                    worth=sum(c.points for r in bought for c in r.won),  # what each buyer kept (R16, R17)
                    price=sum(r.price or 0 for r in bought),
                    **steps(g.view(seat).history, seat),
                )
            )
    return out


def steps(history: Sequence[tuple[int, str]], seat: int) -> dict[str, int]:
    """``seat``'s bids in a finished game's history, and how many raised the high bid by more than one mouse."""
    bids = jumps = 0
    high = 0
    for s, text in history:
        if text.startswith("place"):  # another player's card may show as HIDDEN_PLACE (R23)
            high = 0  # a new round's row (R10): no bid yet
        elif text.startswith("bid "):
            amount = parse_move(text).amount
            if s == seat:
                bids += 1
                jumps += amount - high > 1
            high = amount
    return {"bids": bids, "jumps": jumps}


def line(name: str, games: list[Seat], base: list[Seat]) -> str:
    """One player's figures, paired over ``base`` (the same deals and seats, in the same order)."""
    per_deal: dict[int, list[float]] = {}
    for a, b in zip(games, base, strict=True):
        per_deal.setdefault(a.deal, []).append(a.score - b.score)
    m, lo, hi = es.boot_mean(list(per_deal.values()))
    n = len(games)
    return (
        f"{name}: win share {sum(g.win for g in games) / n:.3f}; paired score {m:+.1f} [{lo:+.1f}, {hi:+.1f}] a "
        f"game; rows bought {sum(g.rows for g in games) / n:.2f} a game, holding {sum(g.worth for g in games) / n:.1f} "
        f"points for {sum(g.price for g in games) / n:.1f} mice; {sum(g.jumps for g in games)} of its "
        f"{sum(g.bids for g in games)} bids more than one mouse over the high bid"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bot", help="the bot whose halves are measured")
    ap.add_argument("--against", required=True, help="the opponents' spec (n - 1 copies)")
    ap.add_argument("--base", default="heuristic", help="the bot whose other half it is mixed with")
    ap.add_argument("--seats", type=int, default=4, choices=(3, 4, 5))
    ap.add_argument("--deals", type=int, default=16)
    ap.add_argument("--seed", type=int, default=9100)
    args = ap.parse_args(argv)
    if args.deals < 1:
        ap.error("--deals must be at least 1")
    if args.bot == args.base:
        ap.error(f"the bot and --base are both {args.bot!r}: its halves would be itself")
    specs = (args.bot, args.base, args.against)
    try:
        for spec in specs:
            make_bot(spec)
    except BotSpecError as exc:
        ap.error(str(exc))

    def bot() -> Bot:
        return make_bot(args.bot, seed=1)

    def base() -> Bot:
        return make_bot(args.base, seed=1)

    players: dict[str, Callable[[], Bot]] = {
        args.base: base,
        args.bot: bot,
        f"{args.bot} bidding, {args.base} placing": lambda: Halves(base(), bot()),
        f"{args.base} bidding, {args.bot} placing": lambda: Halves(bot(), base()),
    }
    print(f"against {args.seats - 1} x {args.against}, {args.deals} deals, every seat, kinds hidden:")
    played: dict[str, list[Seat]] = {}
    for name, player in players.items():
        played[name] = play(player, args.against, args.seats, args.deals, args.seed)
        print(line(name, played[name], played[args.base]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
