"""Positions shared by the expert's tests: a heuristic bot at seat 0 among three players of one kind."""

from __future__ import annotations

from catsack.bots import make_bot
from catsack.game import Game


def after_rounds(spec: str, seed: int, rounds: int = 4) -> Game:
    """A 4-seat game of seat 0 a heuristic bot and three ``spec`` players, played up to the first move
    of round ``rounds + 1`` (0: the game's first move)."""
    g = Game.new(4, seed=seed)
    bots = [make_bot("heuristic", seed=seed)] + [make_bot(spec, seed=seed * 10 + s) for s in (1, 2, 3)]
    while g.to_move is not None and g.round <= rounds:
        s = g.to_move
        g.play(bots[s].choose(g.view(s)))
    return g
