"""The players' public history (catsack.learn.history): sums of what finished rounds showed, the same from a
view as from the compiled tracker, and nothing hidden in it (R23)."""

from __future__ import annotations

import json
import os
import random
import tempfile

import numpy as np
import pytest

from catsack.bots import make_bot
from catsack.bots.personas import NUM_UNIFORMS, draw_traits
from catsack.envs import history_layout as H
from catsack.envs.encoding import action_to_move
from catsack.game import Game
from catsack.learn.history import Sitting, history_block, history_sums, stats
from redeal import redealt_views


def _played(seats: int, seed: int, specs: list[str]) -> tuple[Game, list[Game]]:
    g = Game.new(seats, seed=seed)
    bots = [make_bot(specs[s % len(specs)], seed=seed + s) for s in range(seats)]
    for s, b in enumerate(bots):
        b.reset(s, seats)
    positions = []
    while not g.is_over:
        s = g.to_move
        assert s is not None
        positions.append(g.clone())
        g.play(bots[s].choose(g.view(s)))
    return g, positions


def test_sums_count_what_the_rounds_showed() -> None:
    g, _ = _played(4, 3, ["heuristic", "persona:bluff=1+dump=1", "random"])
    sums = history_sums(g.view(0))
    assert all(h[H.S_ROUNDS] == 9 for h in sums)
    assert sum(h[H.S_BOUGHT] for h in sums) == sum(1 for r in g.rounds if r.buyer is not None)  # R17
    assert sum(h[H.S_PAID] for h in sums) == sum(r.price or 0 for r in g.rounds)
    # every placement but the start player's shown card (R11) was face down
    assert sum(h[H.S_HIDDEN] + h[H.S_SHOWN] for h in sums) == 9 * 4
    for h in sums:
        assert h[H.S_RICH] + h[H.S_POOR] == h[H.S_HIDDEN]
        assert all(-2 <= x <= 2 for x in stats(h))
    dumper = sums[1]  # dumps its worst card whatever its money
    assert dumper[H.S_RICH_BAD] + dumper[H.S_POOR_BAD] >= 2  # of its three bad cards (-5, -8, LD)


def test_the_block_does_not_depend_on_hidden_cards() -> None:
    rng = random.Random(1)
    for seats in (3, 4, 5):
        _, positions = _played(seats, seats, ["persona", "heuristic"])
        sitting = Sitting(seats)
        sitting.add(positions[-1].view(0))
        chosen = [p for p in positions if rng.random() < 0.1]
        for view, other in redealt_views(chosen, rng):
            assert np.array_equal(history_block(view, sitting), history_block(other, sitting))
            assert len(history_block(view)) == H.history_size(seats)


def test_a_sitting_keeps_the_first_rounds_of_each_game() -> None:
    g, _ = _played(4, 7, ["persona"])
    sitting = Sitting(4)
    sitting.add(g.view(2))
    sitting.add(g.view(1))
    assert sitting.games == 2
    assert sitting.sums[0][H.S_ROUNDS] == 2 * H.SITTING_ROUNDS
    with pytest.raises(ValueError, match="sitting of 4 seats"):
        Sitting(4).add(Game.new(3, seed=1).view(0))


def test_a_sitting_is_kept_as_plain_data_and_read_back() -> None:
    g, _ = _played(5, 11, ["persona", "heuristic"])
    sitting = Sitting(5)
    sitting.add(g.view(3))
    state = json.loads(json.dumps(sitting.state()))  # what a server stores with a rematch
    back = Sitting.from_state(state)
    assert (back.seats, back.games, back.sums) == (sitting.seats, sitting.games, sitting.sums)
    assert np.array_equal(history_block(g.view(0), back), history_block(g.view(0), sitting))


@pytest.mark.parametrize(
    ("state", "says"),
    [
        ([1, 2], "mapping"),
        ({"seats": 6, "games": 1, "sums": []}, "seats must be one of"),
        ({"seats": True, "games": 1, "sums": []}, "seats must be one of"),
        ({"seats": 3, "games": -1, "sums": []}, "games must be a count"),
        ({"seats": 3, "games": 1, "sums": [[0.0] * H.NUM_SUMS] * 2}, "one list per seat"),
        ({"seats": 3, "games": 1, "sums": [[0.0] * 3] * 3}, f"{H.NUM_SUMS} numbers"),
        ({"seats": 3, "games": 1, "sums": [[float("nan")] * H.NUM_SUMS] * 3}, "finite numbers"),
        ({"seats": 3, "games": 1, "sums": [["1"] * H.NUM_SUMS] * 3}, "finite numbers"),
    ],
)
def test_a_bad_sitting_state_is_refused_by_name(state: object, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Sitting.from_state(state)


@pytest.mark.slow
@pytest.mark.parametrize("seats", [3, 4, 5])
def test_the_compiled_tracker_gives_the_same_block(seats: int) -> None:
    os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(tempfile.gettempdir(), "catsack-numba-cache"))
    pytest.importorskip("numba", reason="the compiled engine needs numba (the extra 'fast')")
    from catsack.envs.vector_numba import NumbaVectorGame

    games = 8
    rng = np.random.default_rng(seats)
    vg = NumbaVectorGame(games, seats, seed=seats + 10)
    pr = random.Random(seats)
    traits = np.array([[draw_traits(pr).values() for _ in range(seats)] for _ in range(games)])
    notes, sums, kept = vg.history_arrays()
    sitting = np.zeros_like(sums)
    played = np.arange(games) % 3
    size = H.history_size(seats)
    blocks = []
    actions = []
    while not vg.terminated.all():
        x = np.zeros((games, size), np.float32)
        vg.history_features(x, 0, sums, sitting, played)
        a = vg.persona_actions(traits, rng.random((games, NUM_UNIFORMS)))
        blocks.append(x)
        actions.append(a)
        live = ~vg.terminated
        vg.track_history(a, notes, sums, kept, where=live)
        vg.step(a, where=live)
    for k in range(games):
        g = Game(vg.setup(k))
        table = Sitting(seats, [[0.0] * H.NUM_SUMS for _ in range(seats)], int(played[k]))
        for x, a in zip(blocks, actions, strict=False):
            if g.is_over:
                break
            assert np.array_equal(history_block(g.view(g.to_move), table), x[k])  # type: ignore[arg-type]
            g.play(action_to_move(int(a[k])))
        mine = Sitting(seats)
        mine.add(g.view(0))
        assert np.allclose(np.array(mine.sums), kept[k])
