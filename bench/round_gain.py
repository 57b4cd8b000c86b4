"""Where each bot's points come from, round by round, in games saved by ``bench/expert_strength.py``.

    .venv/bin/python bench/expert_strength.py strong --games 400 --save strong.json
    .venv/bin/python bench/round_gain.py strong.json [MORE.json ...]

Replays every saved game (the deal from the table's seed, as the tournament dealt it, then the
moves) and, for every round, measures each seat's *relative gain*: how much its score (R21: cat
points kept plus mice) changed over the round, minus the table's mean change. Per spec of the table
it prints the mean relative gain per game in each round, with a bootstrap 95% CI over deals for the
whole game, and round 1's gain split by the seat's place in the row (R10: position 0 is the start
player's card, or with 3 seats the dummy's, turned up first, R11). Positive numbers are points
taken from the others. The parts of one split run (``--part``) can be given together; they must
share the table, the seed and the seating. ``--paired`` reads the games of the paired table instead
(``bench/expert_strength.py --paired SPEC --save``: the same deals with ``SPEC`` in the first bot's seats).

``--auctions`` also lists, per spec, the rows it bought (price, kept cat points after R16's dogs, and
their difference) and the mice it was paid for passing (R13); and per pair of the buyer's spec and the
runner-up's (the last player to pass before the buyer, R15), the rows bought, their mean price and
kept points: where the searching bots' rows cost more than they keep.

``--purse`` splits each spec's placements (R10) by the mice it held when the round began: how often it
placed a good cat (+8, +11, +15), and where those cats went, into its own won pile or another's (R17),
with the mean price of the rows that took them: whether a poor seat gives its good cats away.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, NamedTuple

from catsack.cards import POINTS
from catsack.game import Game
from catsack.moves import parse_move
from catsack.tournament import TournamentConfig
from catsack.tournament.schedule import SEATINGS
from catsack.tournament.stats import bootstrap_ratio_ci


def _replay(config: TournamentConfig, saved: dict[str, object]) -> tuple[Game, list[str]]:
    """A saved game's deal, as the tournament dealt it, and its moves (texts) to replay on it."""
    moves = saved["moves"]
    if not isinstance(moves, list):
        raise SystemExit("a saved game has no moves: save with bench/expert_strength.py --save")
    return Game(config.setup(int(saved["deal"]))), moves  # type: ignore[call-overload]


def game_gains(config: TournamentConfig, saved: dict[str, object]) -> tuple[list[list[float]], list[int]]:
    """Per round, each seat's relative gain; and each seat's place in round 1's row."""
    game, moves = _replay(config, saved)
    n = config.seats
    lead = 1 if n == 3 else 0  # R10: with 3 seats the dummy's card comes first
    first_places = [lead + (s - game.start_player) % n for s in range(n)]
    before = game.scores()
    gains: list[list[float]] = []
    for text in moves:
        round_now = game.round
        game.play(parse_move(text))
        if game.round != round_now or game.is_over:
            after = game.scores()
            delta = [a - b for a, b in zip(after, before, strict=True)]
            mean = sum(delta) / n
            gains.append([d - mean for d in delta])
            before = after
    return gains, first_places


def round1_moves(config: TournamentConfig, saved: dict[str, object]) -> tuple[list[tuple[int, str]], int]:
    """Round 1's moves of a saved game as (seat, move text), and its start player."""
    game, moves = _replay(config, saved)
    start = game.start_player
    out: list[tuple[int, str]] = []
    for text in moves:
        if game.round > 1 or game.is_over:
            break
        seat = game.to_move
        assert seat is not None
        out.append((seat, text))
        game.play(parse_move(text))
    return out, start


def print_round1(config: TournamentConfig, games: list[dict[str, object]]) -> None:
    """Per spec, round 1's placements by place in the row (R10) and its start players' openings: the led
    card (shown first, R11; with 3 seats the start player's card comes second) and the first auction move."""
    bots = config.bots
    n = config.seats
    placed: dict[str, dict[int, Counter[str]]] = {s: defaultdict(Counter) for s in dict.fromkeys(bots)}
    openings: dict[str, Counter[str]] = {s: Counter() for s in dict.fromkeys(bots)}
    for saved in games:
        moves, start = round1_moves(config, saved)
        entries = saved["entries"]
        assert isinstance(entries, list)
        for seat, text in moves[:n]:
            place = (seat - start) % n
            placed[bots[entries[seat]]][place][text.removeprefix("place ")] += 1
        led = moves[0][1].removeprefix("place ")
        opening = next((text for _, text in moves[n:]), "-")
        openings[bots[entries[start]]][f"{led} -> {opening}"] += 1
    print("round 1 placements by the seat's place after the start player (0: the start player):")
    for spec, by_place in placed.items():
        cells = "  |  ".join(
            f"{p}: " + ", ".join(f"{card} {k}" for card, k in c.most_common(4)) for p, c in sorted(by_place.items())
        )
        print(f"  {spec:<24}{cells}")
    print("round 1 openings by start players (card led -> first auction move):")
    for spec, c in openings.items():
        if c:
            print(f"  {spec:<24}" + ", ".join(f"{what} {k}" for what, k in c.most_common(6)))


class Auctions(NamedTuple):
    """Per spec: the rows it bought as (price, kept cat points), the mice it was paid for passing and its
    seat-games; per (buyer, runner-up) pair of specs, their rows."""

    bought: dict[str, list[tuple[int, int]]]
    paid: dict[str, int]
    seat_games: dict[str, int]
    pairs: dict[tuple[str, str], list[tuple[int, int]]]


def auctions(config: TournamentConfig, games: list[dict[str, object]]) -> Auctions:
    """Every finished round of the saved games, by the specs of its buyer and runner-up (R13, R15-R17)."""
    bots = config.bots
    out = Auctions({s: [] for s in dict.fromkeys(bots)}, defaultdict(int), defaultdict(int), defaultdict(list))
    for saved in games:
        game, moves = _replay(config, saved)
        for text in moves:
            game.play(parse_move(text))
        entries = saved["entries"]
        assert isinstance(entries, list)
        spec_of = [bots[e] for e in entries]
        for spec in spec_of:
            out.seat_games[spec] += 1
        for r in game.view(0).rounds:
            for seat, mice in r.payouts:
                out.paid[spec_of[seat]] += mice
            if r.buyer is None or r.price is None:
                continue
            row = (r.price, sum(POINTS[c] for c in r.won))
            out.bought[spec_of[r.buyer]].append(row)
            if r.payouts:
                out.pairs[spec_of[r.buyer], spec_of[r.payouts[-1][0]]].append(row)
    return out


def print_auctions(config: TournamentConfig, games: list[dict[str, object]]) -> None:
    """Per spec, its purchases and pass payouts; per (buyer, runner-up) pair of specs, their rows."""
    a = auctions(config, games)
    print("rows bought per spec (price and kept cat points per row, R16/R17) and mice paid for passing (R13):")
    print(f"  {'spec':<24}{'rows/game':>10}{'price':>8}{'kept':>8}{'kept-price':>12}{'pass mice/game':>16}")
    for spec, rows in a.bought.items():
        k = a.seat_games[spec]
        if rows:
            price = sum(p for p, _ in rows) / len(rows)
            kept = sum(v for _, v in rows) / len(rows)
            cells = f"{len(rows) / k:>10.2f}{price:>8.2f}{kept:>8.2f}{kept - price:>+12.2f}"
        else:
            cells = f"{0:>10.2f}{'-':>8}{'-':>8}{'-':>12}"
        print(f"  {spec:<24}{cells}{a.paid[spec] / k:>16.2f}")
    print("rows by buyer and runner-up (the last to pass before the buyer, R15): rows, price, kept, kept-price:")
    for (buyer, second), rows in sorted(a.pairs.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        price = sum(p for p, _ in rows) / len(rows)
        kept = sum(v for _, v in rows) / len(rows)
        print(f"  {buyer:<24}<- {second:<24}{len(rows):>6}{price:>8.2f}{kept:>8.2f}{kept - price:>+8.2f}")


#: The purse buckets of ``--purse``: (lowest, highest) mice held when the round began.
PURSES: tuple[tuple[int, int], ...] = ((0, 4), (5, 9), (10, 14), (15, 19), (20, 999))
GOOD_CAT = 8  # ``--purse``: a placed cat worth at least this many points is a good cat


class Placements(NamedTuple):
    """Per spec and purse bucket (:data:`PURSES`): placements, good cats placed, and of those the ones its
    own won pile took, the ones another seat's took (each with the row's price), and the rest (chased by a
    dog, R16, or in a void round, R19)."""

    placed: dict[str, list[int]]
    good: dict[str, list[int]]
    kept: dict[str, list[list[int]]]
    given: dict[str, list[list[int]]]
    lost: dict[str, list[int]]


def bucket(mice: int) -> int:
    """The index in :data:`PURSES` of a purse of ``mice``."""
    return next(i for i, (lo, hi) in enumerate(PURSES) if lo <= mice <= hi)


def purse_placements(config: TournamentConfig, games: list[dict[str, object]]) -> Placements:
    """Every placement of the saved games by its spec and the placer's mice at the round's start (R10, R17)."""
    specs = list(dict.fromkeys(config.bots))
    k = len(PURSES)
    out = Placements(
        {s: [0] * k for s in specs},
        {s: [0] * k for s in specs},
        {s: [[] for _ in range(k)] for s in specs},
        {s: [[] for _ in range(k)] for s in specs},
        {s: [0] * k for s in specs},
    )
    for saved in games:
        game, moves = _replay(config, saved)
        purses = [game.money]  # each seat's mice as each round begins
        for text in moves:
            round_now = game.round
            game.play(parse_move(text))
            if game.round != round_now:
                purses.append(game.money)
        entries = saved["entries"]
        assert isinstance(entries, list)
        for r in game.view(0).rounds:
            won = Counter(r.won)
            for card, owner in zip(r.row, r.owners, strict=True):
                if owner is None:  # the dummy's card (3 seats)
                    continue
                spec = config.bots[entries[owner]]
                b = bucket(purses[r.number - 1][owner])
                out.placed[spec][b] += 1
                if POINTS[card] < GOOD_CAT:
                    continue
                out.good[spec][b] += 1
                if r.buyer is not None and r.price is not None and won[card] > 0:
                    won[card] -= 1
                    (out.kept if r.buyer == owner else out.given)[spec][b].append(r.price)
                else:
                    out.lost[spec][b] += 1
    return out


def print_purse(config: TournamentConfig, games: list[dict[str, object]]) -> None:
    """Per spec and purse, the placements, the good cats among them and where those went (``--purse``)."""
    a = purse_placements(config, games)
    print(f"placements by the mice held at the round's start; good cats (>= +{GOOD_CAT}) and where they went:")
    print(f"  {'spec':<24}{'mice':>8}{'placed':>8}{'good':>8}{'own pile':>10}{'price':>7}{'other':>8}{'price':>7}")
    for spec in a.placed:
        for b, (lo, hi) in enumerate(PURSES):
            if not a.placed[spec][b]:
                continue
            kept, given = a.kept[spec][b], a.given[spec][b]
            own = f"{len(kept):>10}{sum(kept) / len(kept) if kept else 0:>7.1f}"
            other = f"{len(given):>8}{sum(given) / len(given) if given else 0:>7.1f}"
            mice = f"{lo}-{hi}" if hi < 999 else f"{lo}+"
            print(f"  {spec:<24}{mice:>8}{a.placed[spec][b]:>8}{a.good[spec][b]:>8}{own}{other}")


def read_saved(f: Path) -> dict[str, Any]:
    """One file written by ``bench/expert_strength.py --save``; ValueError naming the file when it cannot be
    read or holds something else (no games among them)."""
    try:
        data = json.loads(f.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read saved games from {f}: {e}") from None
    if not isinstance(data, dict) or not {"bots", "seed", "games"} <= data.keys() or not data["games"]:
        raise ValueError(f"{f} is not a file of games saved with --save (bench/expert_strength.py)")
    return data


def load_saved(files: list[Path], paired: bool = False) -> tuple[TournamentConfig, list[dict[str, object]]]:
    """The games saved in ``files`` (the parts of one run of ``bench/expert_strength.py --save``) and the
    tournament config that dealt them (with ``paired``, the paired table's games: ``--paired SPEC``);
    ValueError naming a file that cannot be read or holds something else, or files of different runs."""
    loaded = []
    for f in files:
        data = read_saved(f)
        if paired:
            if not data.get("paired_games"):
                raise ValueError(f"{f} holds no paired games: save with bench/expert_strength.py --paired SPEC --save")
            data = {**data, "bots": data["paired_bots"], "games": data["paired_games"]}
        loaded.append(data)
    bots, seed = loaded[0]["bots"], loaded[0]["seed"]
    seating = loaded[0].get("seating", "rotate")  # files saved before --seating hold rotations only
    if any(x["bots"] != bots or x["seed"] != seed or x.get("seating", "rotate") != seating for x in loaded):
        raise ValueError("the files hold different tables, seeds or seatings: give the parts of one run")
    games = [g for x in loaded for g in x["games"]]
    deals = 1 + max(int(g["deal"]) for g in games)
    n = len(bots)
    config = TournamentConfig(bots=tuple(bots), games=n * SEATINGS.get(seating, 1) * deals, seed=seed, seating=seating)
    return config, games


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path, help="games saved with bench/expert_strength.py --save")
    ap.add_argument("--round1", action="store_true", help="also list round 1's placements and openings per spec")
    ap.add_argument(
        "--auctions", action="store_true", help="also list each spec's purchases and pass payouts, and rows by pair"
    )
    ap.add_argument(
        "--purse", action="store_true", help="also split each spec's placements by its mice, and where good cats went"
    )
    ap.add_argument(
        "--paired", action="store_true", help="read the paired table's games (saved with --paired SPEC) instead"
    )
    args = ap.parse_args(argv)
    try:
        config, games = load_saved(args.files, args.paired)
    except ValueError as e:
        ap.error(str(e))
    bots, seed, n = config.bots, config.seed, config.seats
    specs = list(dict.fromkeys(bots))
    # spec -> round -> total gain; spec -> deal -> total gain over the game; round 1 by row place
    per_round: dict[str, dict[int, float]] = {s: defaultdict(float) for s in specs}
    per_deal: dict[str, dict[int, float]] = {s: defaultdict(float) for s in specs}
    deal_games: dict[str, dict[int, int]] = {s: defaultdict(int) for s in specs}
    first: dict[str, dict[int, list[float]]] = {s: defaultdict(list) for s in specs}
    seat_games: dict[str, int] = defaultdict(int)
    rounds = 0
    for saved in games:
        gains, places = game_gains(config, saved)
        rounds = max(rounds, len(gains))
        for seat, entry in enumerate(saved["entries"]):
            spec = bots[entry]
            seat_games[spec] += 1
            deal_games[spec][int(saved["deal"])] += 1
            for r, row in enumerate(gains, start=1):
                per_round[spec][r] += row[seat]
                per_deal[spec][int(saved["deal"])] += row[seat]
            first[spec][places[seat]].append(gains[0][seat])
    print(f"table: {', '.join(bots)}; {len(games)} games, seed {seed}")
    print("mean relative gain per seat-game (points), by round:")
    print(f"  {'spec':<24}" + "".join(f"{r:>7}" for r in range(1, rounds + 1)) + "   game [95% CI]")
    rng = random.Random(0)
    for spec in specs:
        k = seat_games[spec]
        cells = "".join(f"{per_round[spec][r] / k:>+7.2f}" for r in range(1, rounds + 1))
        deals = sorted(per_deal[spec])
        # n x a relative gain is a whole number (n x the change, minus the table's total change)
        gains_n = [round(per_deal[spec][d] * n) for d in deals]
        [(lo, hi)] = bootstrap_ratio_ci([gains_n], [deal_games[spec][d] * n for d in deals], rng)
        total = sum(per_deal[spec].values()) / k
        print(f"  {spec:<24}{cells}   {total:+.2f} [{lo:+.2f}, {hi:+.2f}]")
    print("round 1 by the seat's place in the row (the first place is turned up first, R11):")
    for spec in specs:
        cells = "  ".join(f"{p}: {sum(v) / len(v):+.2f} ({len(v)})" for p, v in sorted(first[spec].items()) if v)
        print(f"  {spec:<24}{cells}")
    if args.round1:
        print_round1(config, games)
    if args.auctions:
        print_auctions(config, games)
    if args.purse:
        print_purse(config, games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
