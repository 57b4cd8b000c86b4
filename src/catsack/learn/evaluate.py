"""Reference positions for the shipped weights: the values and moves a test checks they still give.

    python -m catsack.learn.evaluate --out tests/data/learn_fixture.json

The positions are prefixes of games among heuristic bots (fixed seeds, 3, 4
and 5 seats), stored as ``catsack/1`` records with the seat that looks; for
each, the fixture keeps the value model's win share and margin and the
policy's move. Regenerate it whenever the shipped weights change. Strength
is measured with ``catsack tournament`` on duplicate deals (docs/learning.md).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from catsack.bots.base import make_bot
from catsack.game import Game
from catsack.learn.model import DEFAULT_WEIGHTS, load_policy_model, load_value_model
from catsack.record import record_from_game, record_from_obj

__all__ = ["fixture", "fixture_positions", "main"]

_PLIES = (3, 17, 41, 66, 90)


def fixture_positions() -> list[tuple[dict[str, Any], int]]:
    """(record of a game prefix, seat) pairs: a few plies of heuristic games for each seat count."""
    out: list[tuple[dict[str, Any], int]] = []
    for seats in (3, 4, 5):
        game = Game.new(seats, seed=seats * 101)
        bots = [make_bot("heuristic", seed=s) for s in range(seats)]
        plies: list[int] = []
        while (s := game.to_move) is not None:
            game.play(bots[s].choose(game.view(s)))
        moves = game.moves
        plies = [p for p in _PLIES if p < len(moves)]
        for k, p in enumerate(plies):
            prefix = Game(game.setup)
            for m in moves[:p]:
                prefix.play(m)
            out.append((record_from_game(prefix).to_dict(), k % seats))
    return out


def fixture(name: str | None = None) -> dict[str, Any]:
    """The fixture's content for the weights ``name`` (shipped by default)."""
    value = load_value_model(name)
    policy = load_policy_model(name)
    rows = []
    for record, seat in fixture_positions():
        game = record_from_obj(record).to_game()
        view = game.view(seat)
        row: dict[str, Any] = {
            "record": record,
            "seat": seat,
            "win": round(value.evaluate(view, "win"), 5),
            "margin": round(value.evaluate(view, "margin"), 4),
        }
        if game.to_move is not None:
            mover = game.view(game.to_move)
            row["to_move"] = game.to_move
            row["policy_move"] = policy.choose(mover, random.Random(0)).text
        rows.append(row)
    return {"weights": name or DEFAULT_WEIGHTS, "positions": rows}


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m catsack.learn.evaluate", description=__doc__.split("\n\n")[0])
    p.add_argument("--weights", default=None, help="weights name or .npz path (default: the shipped ones)")
    p.add_argument("--out", default="-", help="fixture JSON file ('-': stdout)")
    args = p.parse_args(argv)
    text = json.dumps(fixture(args.weights), indent=1) + "\n"
    if args.out == "-":
        print(text, end="")
    else:
        Path(args.out).write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
