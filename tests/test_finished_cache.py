"""The game's cache of finished rounds and their public history (R14-R19, R23) under undo, redo and redeal.

``Game`` extends its cached rounds tuple and (seat, move text) history by one
round at each round end, trims them when a round end is undone, and keeps them
across ``redeal`` (which changes only the current round's hidden cards). Along
random games with random undo, redo, redeal and clones, the cache must equal
a from-scratch rebuild: a fresh game replayed from the setup and the moves.
Last, the tournament runner's shortcut for forced moves must not change a game.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import MonkeyPatch

from catsack import Game, Move
from catsack.game import RoundResult
from catsack.moves import PASS_MOVE
from catsack.tournament import TournamentConfig, parse_bots, runner

SEATS = st.sampled_from([3, 4, 5])
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


def rebuilt(game: Game) -> tuple[Game, tuple[RoundResult, ...], tuple[tuple[int, str], ...]]:
    """A fresh replay of ``game``'s setup and moves, its finished rounds and their history."""
    fresh = Game(game.setup)
    finished_plies = 0  # the plies before the current round's first move
    for ply, m in enumerate(game.moves):
        before = fresh.round
        fresh.push(m)
        if fresh.round != before or fresh.is_over:
            finished_plies = ply + 1
    rounds = fresh.rounds  # built in one go: the fresh game had no cache
    # Every placement of a finished round was turned up (R14): the history names every card.
    history = tuple((fresh.seat_of(p), fresh.moves[p].text) for p in range(finished_plies))
    return fresh, rounds, history


def check(game: Game) -> None:
    fresh, rounds, history = rebuilt(game)
    assert game.rounds == rounds
    assert game._finished() == (rounds, history)
    assert len(rounds) == (game.round if game.is_over else game.round - 1)
    # The public view shows the finished rounds' moves first, each card by name (R14, R23).
    assert game.public_view().history[: len(history)] == history
    assert game.public_view().rounds == rounds
    # Whose turn each move was (R10, R12, R15) and the standing bids, read back from the moves.
    assert game.bids == fresh.bids
    assert [game.seat_of(p) for p in range(game.ply)] == [fresh.seat_of(p) for p in range(fresh.ply)]
    # Views read the caches; a fresh replay has none (R23: the same information either way).
    seat = random.Random(game.ply).choice([None, *range(game.seats)])
    assert game.view(seat).to_dict() == fresh.view(seat).to_dict()


@settings(max_examples=40, deadline=None)
@given(SEATS, SEEDS)
@pytest.mark.slow
def test_finished_rounds_cache_equals_a_rebuild_under_undo_redo_redeal(seats: int, seed: int) -> None:
    rng = random.Random(seed)
    g = Game.new(seats, rng=rng)
    redo: list[Move] = []
    for _step in range(260):
        r = rng.random()
        if r < 0.12 and g.ply:  # undo a few moves, often across a round end (R15-R19 undone)
            for _ in range(min(g.ply, 1 + int(rng.random() * 14))):
                redo.append(g.undo())
        elif r < 0.24 and redo:  # redo what was undone: the same rounds come back
            for _ in range(min(len(redo), 1 + int(rng.random() * 14))):
                g.push(redo.pop())
        elif r < 0.28:  # R23: re-deal what some seat cannot see; finished rounds are public and stay
            g.redeal(rng.choice([None, *range(seats)]), rng)
            redo.clear()
        elif r < 0.32:  # a clone shares the cache; both must stay right on their own
            g = g.clone()
        elif not g.is_over:
            legal = g.legal_moves()
            move = PASS_MOVE if PASS_MOVE in legal and rng.random() < 0.4 else rng.choice(legal)
            g.push(move)
            redo.clear()
        # Check on a clone half the time, so that the game's own cache also lags several rounds behind.
        check(g.clone() if rng.random() < 0.5 else g)
    check(g)


def test_runner_plays_forced_moves_without_a_view_and_the_games_stay_the_same(monkeypatch: MonkeyPatch) -> None:
    # The tournament runner skips the view when the seat to move has one legal move and its
    # bot kind answers that with forced_move (no random draw): the games must not change.
    # The random bot draws even for a single placement, so it always gets its view.
    config = TournamentConfig(
        parse_bots("heuristic,random,heuristic,ismcts:iters=20"), games=8, seed=3, keep_moves=True
    )
    views = 0
    make_view = runner.make_view

    def counting(game: Game, seat: int | None) -> object:
        nonlocal views
        views += 1
        return make_view(game, seat)

    monkeypatch.setattr(runner, "make_view", counting)
    fast = runner.play_chunk(config, range(2))
    fast_views = views
    views = 0
    monkeypatch.setattr(runner, "_ANSWERS_FORCED", frozenset())
    slow = runner.play_chunk(config, range(2))
    assert fast == slow
    moves = sum(len(r.moves or ()) for r in slow)
    assert views == moves  # without the shortcut: one view per move
    assert fast_views < views


def test_move_at_reads_the_move_list_without_copying_it_and_refuses_a_missing_ply() -> None:
    game = Game.new(4, seed=5)
    with pytest.raises(IndexError, match="no move number -1"):
        game.move_at(-1)
    rng = random.Random(5)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    moves = game.moves
    assert [game.move_at(p) for p in range(game.ply)] == list(moves)
    assert game.move_at(-1) is game.move_at(game.ply - 1) is game.move_at(-1)  # the same object each time
    with pytest.raises(IndexError, match=f"no move number {game.ply}"):
        game.move_at(game.ply)
