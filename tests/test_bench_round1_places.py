"""``bench/round1_places.py``: round 1 only, each place after the start player counted."""

from __future__ import annotations

from bench_modules import load_bench
from catsack.game import Game


def test_round_one_is_played_from_the_start_player_on_and_every_place_is_counted() -> None:
    """Every seat places one card (R10) and the start player speaks first (R12): place 0 is the start
    player's spec, and the cards counted are that deal's cards in each place's hand."""
    probe = load_bench("round1_places")
    for seats in (3, 4, 5):
        placed, said = probe.play("random", "heuristic", seats, 2, 0)
        assert sorted(placed) == list(range(seats))
        assert 0 in said  # the start player opens the auction
        g = Game.new(seats, seed=2 * 1000)
        for place, card in placed.items():
            seat = (g.start_player + place) % seats
            assert probe.CARDS.index(card) in g.view(seat).hand


def test_kinds_can_be_hidden_from_the_bots() -> None:
    """``--hide-kinds`` presents every seat as a person (``Bot.meet`` gets ``None`` for each); bots that read
    no kinds play the same round."""
    probe = load_bench("round1_places")
    assert probe.play("random", "heuristic", 4, 2, 1, True) == probe.play("random", "heuristic", 4, 2, 1)
