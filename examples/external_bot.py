#!/usr/bin/env python3
"""A small external bot for catsack, speaking the ``catsack-bot/1`` protocol (docs/bot-protocol.md).

Standard library only, and it does not import catsack: it shows everything a
bot in any language has to do. Play it with

    catsack tournament --bots "external:python3 examples/external_bot.py,heuristic,heuristic,heuristic"

Protocol in short: read one JSON object per line from stdin, write one per
line to stdout (flushing each), never print anything else to stdout; stderr
is free for diagnostics.

Strategy (simple rules): place a random card; in an auction, value the row by
its face-up cards (dogs resolved as in R16) plus a guess for face-down ones,
and raise the bid by one while the row is worth clearly more than the price.
"""

from __future__ import annotations

import json
import random
import sys

PROTOCOL = "catsack-bot/1"
POINTS = {"+15": 15, "+11": 11, "+8": 8, "+5": 5, "+3": 3, "-5": -5, "-8": -8, "R": 0, "LD": 0, "SD": 0}
UNKNOWN_CARD_VALUE = 2.0  # rough mean value of a card nobody has shown yet


def send(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def row_value(row: list[dict]) -> float:
    """What the row looks worth to a buyer: known cards after the dog rule (R16), plus a guess per hidden card."""
    known = [r["card"] for r in row if r["card"] is not None]
    hidden = len(row) - len(known)
    cats = [POINTS[c] for c in known if c not in ("R", "LD", "SD")]
    dogs = [c for c in known if c in ("LD", "SD")]
    if len(dogs) == 1 and cats:
        # A lone large dog chases the best cat, a lone small dog the worst (R16).
        cats.remove(max(cats) if dogs[0] == "LD" else min(cats))
    return sum(cats) + UNKNOWN_CARD_VALUE * hidden


def choose(request: dict, rng: random.Random) -> str:
    legal = request["legal"]
    view = request["view"]
    if view["phase"] == "placement":
        return rng.choice(legal)
    value = row_value(view["row"])
    if view["phase"] == "last choice":
        return "bid 1" if "bid 1" in legal and value > 1 else "pass"
    raise_to = view["high_bid"] + 1
    if f"bid {raise_to}" in legal and value - raise_to > 2 + rng.random() * 2:
        return f"bid {raise_to}"
    return "pass"


def main() -> None:
    rng = random.Random()
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            send({"type": "hello", "protocol": PROTOCOL, "name": "example-rules"})
        elif kind == "new_game":
            rng.seed(message.get("seed"))
        elif kind == "move":
            send({"type": "move", "id": message["id"], "move": choose(message, rng)})
        elif kind == "game_over":
            print(f"game {message['game']} over, scores {message['scores']}", file=sys.stderr)
        elif kind == "quit":
            break
        # Unknown message types are ignored, so newer engines can add informational messages.


if __name__ == "__main__":
    main()
