"""How far a searching bot's model of the table is from the real table, decision by decision.

    .venv/bin/python bench/expert_strength.py mixed --games 200 --seed 2 --save mixed.json
    .venv/bin/python bench/model_check.py mixed.json --spec expert:strong --round 2 --positions 12 --reps 4

Takes decisions of one spec in games saved by ``bench/expert_strength.py --save``: per saved game, the
spec's first decision of the given round and phase (``bidding``: its first bid or pass; ``placement``).
For each, it searches the position as that bot does (the bot met the table, ``Bot.meet``) and then,
for every move the search tried, plays the move on the game's true deal and the rest of the round
with the real bots of the table (``--reps`` times, fresh seeds shared by all the moves), and measures
the seat's *real gain*: its score's change from the decision to the round's end (R21: cat points kept
plus mice) minus the table's mean change. The *regret* of a decision is the real gain of the best of
those moves minus the real gain of the move the bot picked; the search's own margins say how much it
expected between them. The mean real gain of the moves picked is printed too: unlike the regret it
is not biased, and it compares two versions of a bot on the same positions.

A model that is right about the other players picks moves whose real gain is close to the best one's;
a large regret on moves the search rated alike points to a wrong model of some player. It showed
that in round 2 the searching levels passed rows that the heuristic bot then bought
for a few mice (docs/bots.md, *Bid habits by kind*).

``--analysis`` checks the post-game analysis instead of the bot's pick: the same positions are
analysed as ``catsack analyse`` does (:func:`catsack.advice.analysis.analyse_view`, the table met), and for
every move it valued it prints the value with its noise beside the real gain. It counts the *false
alarms*: moves the analysis classes an inaccuracy or worse (a gap beyond the noise and at least 3 points)
whose real gain is within ``--tolerance`` points of the best real gain.

    .venv/bin/python bench/model_check.py mixed.json --spec expert --round 1 --positions 8 --analysis

By default only the round is played out, so a move's effect on later rounds (a start player's turn,
R17; a purse emptied for round 2, R12) is not counted; the bot itself looks further (its leaf value).
``--rounds K`` plays K rounds out (9: to the game's end).

``--compare NEW`` compares two versions of a bot on the same positions without playing every move: at
each position it plays out only the move ``--spec`` picks and the one ``NEW`` picks (the same seeds for
both, so equal picks give equal gains), and prints the paired difference of their real gains with a
bootstrap 95% CI over positions. ``--later SPEC`` plays the seat's own later decisions with a cheaper
bot (in either mode), since with ``--rounds`` above 1 they are most of the cost:

    .venv/bin/python bench/model_check.py h.json --spec expert:iters=1500 --compare expert:iters=1500+money=1 \
        --round 1 --rounds 9 --later expert:strong --positions 16 --reps 3

``--max-mice M`` takes only decisions of a seat holding at most M mice: whether a poor seat places well
(docs/bots.md, *Known weaknesses*):

    .venv/bin/python bench/model_check.py h.json --spec expert --phase placement --round 2 --max-mice 4 \
        --rounds 9 --later expert:iters=300 --reps 3

Figures are per decision, mean over positions.
The best of several noisy means is biased upwards, so a regret is above 0 even for a perfect model:
compare runs on the same positions with the same ``--reps`` (every run plays the same seeds).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from catsack.bots.base import Bot, make_bot
from catsack.game import Game
from catsack.moves import Move, parse_move
from catsack.tournament import TournamentConfig

sys.path.insert(0, str(Path(__file__).resolve().parent))
from round_gain import _replay, load_saved  # a sibling script: the one replay and loader of saved games


def _table(specs: list[str], seed: int) -> list[Bot]:
    bots = [make_bot(spec, seed=seed * 100 + s) for s, spec in enumerate(specs)]
    for s, b in enumerate(bots):
        b.reset(s, len(specs))
        b.meet(specs)
    return bots


def position(
    config: TournamentConfig, saved: dict[str, object], spec: str, rnd: int, phase: str, max_mice: int | None = None
) -> tuple[Game, list[str], list[str]] | None:
    """The saved game up to ``spec``'s first decision of round ``rnd`` in ``phase`` (with a choice; with
    ``max_mice``, holding at most that many mice), the moves played before it, and the table's specs; None if
    there is no such decision."""
    game, moves = _replay(config, saved)
    entries = saved["entries"]
    assert isinstance(entries, list)
    specs = [config.bots[e] for e in entries]
    before: list[str] = []
    for text in moves:
        if game.round > rnd:
            return None
        s = game.to_move
        if (
            game.round == rnd
            and s is not None
            and specs[s] == spec
            and game.phase == phase
            and len(game.legal_moves()) > 1
            and (max_mice is None or game.money[s] <= max_mice)
        ):
            return game, before, specs
        game.play(parse_move(text))
        before.append(text)
    return None


def decisions(
    args: argparse.Namespace, config: TournamentConfig, games: list[dict[str, object]]
) -> Iterator[tuple[dict[str, object], Game, list[str], list[str], int]]:
    """Each saved game's decision of ``args.spec`` (:func:`position`): the saved game, the position, the
    moves before it, the table's specs and the deciding seat."""
    for saved in games:
        found = position(config, saved, args.spec, args.round, args.phase, args.max_mice)
        if found is None:
            continue
        game, before, specs = found
        seat = game.to_move
        assert seat is not None
        yield saved, game, before, specs, seat


def real_gain(position: Game, move: Move, specs: list[str], seed: int, rounds: int = 1) -> float:
    """The relative gain to the end of ``rounds`` rounds (1: this round's end) of the seat to move in
    ``position`` when it plays ``move`` there and the real bots (``specs``, seeded from ``seed``) play on;
    ``position`` itself is left as it is."""
    game = position.clone()
    seat = game.to_move
    assert seat is not None
    rnd = game.round
    start = game.scores()
    game.play(move)
    bots = _table(specs, seed)
    while not game.is_over and game.round < rnd + rounds:
        s = game.to_move
        assert s is not None
        game.play(bots[s].choose(game.view(s)))
    delta = [a - b for a, b in zip(game.scores(), start, strict=True)]
    return delta[seat] - sum(delta) / len(delta)


def check_analysis(args: argparse.Namespace, config: TournamentConfig, games: list[dict[str, object]]) -> int:
    """Every move the analysis valued, its value and noise beside its real gain; the false alarms."""
    from catsack.advice.analysis import analyse_view, judge

    checked = classed = false_alarms = 0
    seen: set[tuple[str, ...]] = set()
    for saved, game, before, specs, seat in decisions(args, config, games):
        if checked >= args.positions:
            break
        if tuple(before) in seen:
            continue
        seen.add(tuple(before))
        a = analyse_view(game.view(seat), level=args.level, seed=args.seed, players=specs)
        gains = {
            m: sum(real_gain(game, parse_move(m), specs, r) for r in range(args.reps)) / args.reps for m in a.values
        }
        top = max(gains.values())
        checked += 1
        print(f"game {saved['deal']}/{''.join(map(str, saved['entries']))}, seat {seat}, ply {len(before)}:")
        for m, v in sorted(a.values.items(), key=lambda kv: -kv[1]):
            verdict = judge(a.values, a.noise, a.best.text, m)
            alarm = verdict.cls is not None and gains[m] >= top - args.tolerance
            classed += verdict.cls is not None
            false_alarms += alarm
            print(
                f"  {m:9s} value {v:+6.2f} ±{a.noise[m]:.2f}  real {gains[m]:+6.2f}"
                f"  {verdict.cls or ('best' if m == a.best.text else 'equal' if verdict.equal else '')}"
                + ("  <- false alarm" if alarm else "")
            )
    print(
        f"{args.spec}, round {args.round} ({args.phase}), {checked} positions, {args.reps} plays per move: "
        f"{classed} moves classed, {false_alarms} of them within {args.tolerance} points of the best real gain"
    )
    return 0


def _pick(spec: str, game: Game, specs: list[str], seed: int) -> Move:
    """The move ``spec`` picks at ``game`` (its seat to move), having met the table."""
    seat = game.to_move
    assert seat is not None
    bot = make_bot(spec, seed=seed)
    bot.reset(seat, game.seats)
    bot.meet(specs)
    return bot.choose(game.view(seat))


def compare(args: argparse.Namespace, config: TournamentConfig, games: list[dict[str, object]]) -> int:
    """``--compare NEW``: at each position, the move ``--spec`` picks and the one NEW picks, both played out on
    the true deal for ``--rounds`` rounds with the table's real bots (the seat's later decisions by ``--later``,
    else its saved spec); the paired difference of their real gains, with a bootstrap 95% CI over positions."""
    import random

    diffs: list[float] = []
    olds: list[float] = []
    news: list[float] = []
    differ = 0
    for saved, game, _, specs, seat in decisions(args, config, games):
        if len(diffs) >= args.positions:
            break
        old = _pick(args.spec, game, specs, args.seed)
        new = _pick(args.compare, game, specs, args.seed)
        table = list(specs)
        if args.later:
            table[seat] = args.later
        g_old = sum(real_gain(game, old, table, r, args.rounds) for r in range(args.reps)) / args.reps
        differ += new != old
        g_new = (
            g_old
            if new == old
            else sum(real_gain(game, new, table, r, args.rounds) for r in range(args.reps)) / args.reps
        )
        diffs.append(g_new - g_old)
        olds.append(g_old)
        news.append(g_new)
        print(
            f"game {saved['deal']}/{''.join(map(str, saved['entries']))}, seat {seat}, mice {game.money[seat]}: "
            f"{args.spec} {old} (real {g_old:+.2f}), {args.compare} {new} (real {g_new:+.2f})"
        )
    if not diffs:
        print(f"no decision of {args.spec} in round {args.round} ({args.phase}) in {args.file}")
        return 1
    k = len(diffs)
    rng = random.Random(0)
    means = sorted(sum(rng.choices(diffs, k=k)) / k for _ in range(2000))
    print(
        f"round {args.round} ({args.phase}), {k} positions, {args.reps} plays per move over {args.rounds} round(s): "
        f"real gain of the moves picked, {args.spec} {sum(olds) / k:+.2f}, {args.compare} {sum(news) / k:+.2f}; "
        f"paired difference ({args.compare} minus {args.spec}) {sum(diffs) / k:+.2f} "
        f"[{means[49]:+.2f}, {means[1949]:+.2f}]; the picks differ at {differ} positions"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", type=Path, help="games saved with bench/expert_strength.py --save")
    ap.add_argument("--spec", required=True, help="whose decisions to check (a spec of the saved table)")
    ap.add_argument("--round", type=int, default=2, help="the round of the decisions (1-9)")
    ap.add_argument("--phase", choices=("bidding", "placement"), default="bidding")
    ap.add_argument("--positions", type=int, default=12, help="decisions to check (one per saved game)")
    ap.add_argument("--reps", type=int, default=4, help="plays of the rest of the round per move")
    ap.add_argument("--seed", type=int, default=1, help="the searching bot's seed")
    ap.add_argument("--analysis", action="store_true", help="check the analysis's values and classes instead")
    ap.add_argument("--tolerance", type=float, default=1.0, help="--analysis: points of real gain counted equal")
    ap.add_argument("--level", default="expert", help="--analysis: the analysis level (catsack analyse --level)")
    ap.add_argument("--compare", metavar="SPEC", help="compare --spec's picks with SPEC's on the same positions")
    ap.add_argument("--rounds", type=int, default=1, help="rounds played out per move (1: to the round's end)")
    ap.add_argument("--later", metavar="SPEC", help="the seat's own later decisions in the play-outs (default: --spec)")
    ap.add_argument("--max-mice", type=int, metavar="M", help="only decisions of a seat holding at most M mice")
    args = ap.parse_args(argv)
    try:
        config, games = load_saved([args.file])
    except ValueError as e:
        ap.error(str(e))
    if args.spec not in config.bots:
        ap.error(f"{args.spec!r} is not at the saved table ({', '.join(config.bots)})")
    if not 1 <= args.round <= 9 or args.positions < 1 or args.reps < 1:
        ap.error("--round must be 1-9, --positions and --reps at least 1")
    if args.analysis:
        return check_analysis(args, config, games)
    if args.compare:
        return compare(args, config, games)
    regrets: list[float] = []
    expected: list[float] = []
    picked_gains: list[float] = []
    for saved, game, _, specs, seat in decisions(args, config, games):
        if len(regrets) >= args.positions:
            break
        bot = make_bot(args.spec, seed=args.seed)
        bot.reset(seat, game.seats)
        bot.meet(specs)
        picked = bot.choose(game.view(seat))
        stats = getattr(bot, "last", None)
        moves = list(stats.moves) if stats is not None else list(game.legal_moves())
        margins = dict(zip(stats.moves, stats.margins, strict=True)) if stats is not None else {}
        table = list(specs)
        if args.later:
            table[seat] = args.later
        gains = {m: sum(real_gain(game, m, table, r, args.rounds) for r in range(args.reps)) / args.reps for m in moves}
        best = max(moves, key=lambda m: gains[m])
        regret = gains[best] - gains[picked]
        seen = margins.get(best, 0.0) - margins.get(picked, 0.0)
        regrets.append(regret)
        expected.append(seen)
        picked_gains.append(gains[picked])
        order = "".join(specs[(game.start_player + k) % game.seats].split(":")[-1][:1] for k in range(game.seats))
        print(
            f"game {saved['deal']}/{''.join(map(str, saved['entries']))} ({order}), mice {game.money[seat]}: "
            f"picked {picked} "
            f"(real {gains[picked]:+.2f}), best {best} (real {gains[best]:+.2f}, search {seen:+.2f}): "
            f"regret {regret:.2f}"
        )
    if not regrets:
        print(f"no decision of {args.spec} in round {args.round} ({args.phase}) in {args.file}")
        return 1
    k = len(regrets)
    print(
        f"{args.spec}, round {args.round} ({args.phase}), {k} decisions, {args.reps} plays per move: "
        f"mean regret {sum(regrets) / k:.2f} points (the search saw {sum(expected) / k:+.2f} between the same moves); "
        f"real gain of the moves picked {sum(picked_gains) / k:+.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
