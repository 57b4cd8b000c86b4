"""Regenerate the expected outcomes of the reference records in this folder.

Usage (from the repository root)::

    .venv/bin/python tests/data/regenerate.py            # rewrite every NAME.expected.json
    .venv/bin/python tests/data/regenerate.py --records  # also re-deal the generated records first

For each record ``NAME.json`` it writes ``NAME.expected.json``: the
``catsack.summary.summarize`` output of the replayed game, or, for an illegal
record, ``{"error": {...}}`` with the move number, seat and reason that
``Record.to_game`` reports. Hand-built records are edited by hand and never
rewritten; the generated ones (``GENERATED`` below) come from a seeded random
policy and are only re-dealt with ``--records``. Review the diff before
committing: the tests trust these files, and README.md lists the values that
were checked by hand.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))

from catsack import Game  # noqa: E402
from catsack.errors import RecordError  # noqa: E402
from catsack.record import dumps_record, loads_record, record_from_game  # noqa: E402
from catsack.summary import summarize  # noqa: E402

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]

# name: (seats, seed, number of moves to keep or None for the whole game, extra keys)
GENERATED: dict[str, tuple[int, int, int | None, dict[str, Any]]] = {
    "3p_random": (3, 11, None, {"date": "2024-05-01"}),
    "4p_random": (4, 12, None, {}),
    "5p_random": (5, 13, None, {"event": "reference", "ratings": [1500, 1500, 1500, 1500, 1500]}),
    "4p_tiebreak": (4, 3, None, {"comment": "two seats tie on score; the higher cat sum wins (R22)"}),
    "4p_shared_victory": (4, 366, None, {"comment": "two seats tie on score and cat sum: shared victory (R22)"}),
    "5p_incomplete": (5, 14, 37, {"comment": "stops in the middle of round 3's auction"}),
}


def policy_game(seats: int, seed: int, stop: int | None = None) -> Game:
    """Deal from ``seed`` and play a seeded policy that passes often and bids low.

    Uniformly random bidding ends most auctions at once with a huge bid; this
    policy gives longer auctions, void rounds and empty mouse cards.
    """
    rng = random.Random(seed)
    game = Game.new(seats, rng=rng)
    while not game.is_over and (stop is None or game.ply < stop):
        moves = game.legal_moves()
        if len(moves) > 1 and moves[-1].is_pass and rng.random() < 0.6:
            game.play(moves[-1])
        else:
            game.play(moves[min(int(rng.random() * 3), len(moves) - 1)])
    return game


def write_generated() -> None:
    for name, (seats, seed, stop, extra) in GENERATED.items():
        game = policy_game(seats, seed, stop)
        record = record_from_game(game, NAMES[:seats], **extra)
        (HERE / f"{name}.json").write_text(dumps_record(record) + "\n", encoding="utf-8")


def expected(path: Path) -> dict[str, Any]:
    record = loads_record(path.read_text(encoding="utf-8"), source=path.name)
    try:
        game = record.to_game()
    except RecordError as exc:
        return {"error": {"move_number": exc.move_number, "seat": exc.seat, "reason": exc.reason}}
    return summarize(game)


def layout(obj: dict[str, Any]) -> str:
    """JSON with one top-level key per line and one round per line, for readable diffs."""

    def compact(value: object) -> str:
        return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)

    lines = []
    for key, value in obj.items():
        if key == "rounds" and value:
            inner = ",\n".join("    " + compact(r) for r in value)
            lines.append(f'  "{key}": [\n{inner}\n  ]')
        else:
            lines.append(f"  {compact(key)}: {compact(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def record_paths() -> list[Path]:
    return sorted(p for p in HERE.glob("*.json") if not p.name.endswith(".expected.json"))


def main(argv: list[str]) -> None:
    if "--records" in argv:
        write_generated()
    for path in record_paths():
        out = path.with_name(path.name.removesuffix(".json") + ".expected.json")
        out.write_text(layout(expected(path)), encoding="utf-8")
        print(f"wrote {out.name}")


if __name__ == "__main__":
    main(sys.argv[1:])
