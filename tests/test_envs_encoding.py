"""The shared action encoding and observation tensors (catsack.envs.encoding), built from views only."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy", reason="numpy is in the catsack[rl] extra")

from catsack.envs.encoding import (  # noqa: E402
    NUM_ACTIONS,
    PASS_ACTION,
    ActionError,
    Field,
    action_mask,
    action_to_move,
    encode_observation,
    encode_rounds,
    final_rewards,
    legal_actions,
    lowest_legal_action,
    move_to_action,
    observation_layout,
    observation_size,
    render_text,
    reward_range,
    rounds_layout,
    rounds_size,
)
from catsack.game import Game  # noqa: E402
from catsack.moves import PASS_MOVE, Move, bid, place  # noqa: E402
from repository import FROM_SDIST, ROOT, repository_file  # noqa: E402

DOCS = "docs/envs.md"


def _random_positions(seats: int, games: int, seed: int) -> list[Game]:
    """Snapshots (clones) of random games at every ply, including the final position."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        g = Game.new(seats, rng=rng)
        while not g.is_over:
            out.append(g.clone())
            ms = g.legal_moves()
            g.play(ms[int(rng.random() * len(ms))])
        out.append(g)
    return out


def test_action_table_round_trips_all_119_actions() -> None:
    assert NUM_ACTIONS == 119
    assert action_to_move(0) == place("+15") and action_to_move(9) == place("SD")
    assert action_to_move(PASS_ACTION) == PASS_MOVE
    assert action_to_move(11) == bid(1) and action_to_move(118) == bid(108)
    for a in range(NUM_ACTIONS):
        assert move_to_action(action_to_move(a)) == a
        assert move_to_action(Move.parse(action_to_move(a).text)) == a
    assert action_to_move(np.int64(12)) == bid(2)


@pytest.mark.parametrize("bad", [-1, 119, 1000, 1.5, "3", None, True])
def test_non_actions_raise_a_clear_error(bad: object) -> None:
    with pytest.raises(ActionError, match="not an action"):
        action_to_move(bad)  # type: ignore[arg-type]


def test_bids_above_all_money_have_no_action() -> None:
    with pytest.raises(ActionError, match="R12"):
        move_to_action(bid(109))


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_mask_and_legal_actions_match_the_view(seats: int) -> None:
    for g in _random_positions(seats, 3, seed=seats):
        for s in range(seats):
            v = g.view(s)
            acts = legal_actions(v)
            assert acts == sorted(acts)
            assert sorted(action_to_move(a).text for a in acts) == sorted(m.text for m in v.legal)
            mask = action_mask(v)
            assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
            assert list(np.flatnonzero(mask)) == acts
            if acts:
                assert lowest_legal_action(v) == acts[0]
            else:
                with pytest.raises(ActionError):
                    lowest_legal_action(v)


def test_mask_is_a_fresh_array() -> None:
    v = Game.new(4, seed=1).view(0)
    m = action_mask(v)
    m[:] = 0
    assert action_mask(v).sum() == 9  # R7: nine cards in hand, all placeable


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_layout_is_contiguous_and_sized(seats: int) -> None:
    for fields, size in ((observation_layout(seats), observation_size(seats)), (rounds_layout(seats), None)):
        pos = 0
        for f in fields:
            assert isinstance(f, Field) and f.start == pos and f.size > 0
            pos += f.size
        if size is not None:
            assert pos == size
        else:
            assert pos * 9 == rounds_size(seats)
    assert {3: 183, 4: 203, 5: 250}[seats] == observation_size(seats)


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_observations_are_fixed_length_floats_in_unit_range(seats: int) -> None:
    size = observation_size(seats)
    for g in _random_positions(seats, 3, seed=10 + seats):
        for s in range(seats):
            v = g.view(s)
            obs = encode_observation(v)
            assert obs.dtype == np.float32 and obs.shape == (size,)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            rounds = encode_rounds(v)
            assert rounds.shape == (rounds_size(seats),) and rounds.min() >= 0.0 and rounds.max() <= 1.0


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_r23_tensors_do_not_change_when_hidden_cards_are_redealt(seats: int) -> None:
    """R23: the tensors are functions of the view, so re-dealing what the seat cannot see changes nothing."""
    rng = random.Random(99)
    for g in _random_positions(seats, 2, seed=20 + seats)[::3]:
        for s in range(seats):
            before = encode_observation(g.view(s)), encode_rounds(g.view(s))
            other = g.clone()
            other.redeal(s, rng)
            after = encode_observation(other.view(s)), encode_rounds(other.view(s))
            assert np.array_equal(before[0], after[0]) and np.array_equal(before[1], after[1])


def _block(seats: int, name: str, obs: np.ndarray) -> np.ndarray:
    f = next(f for f in observation_layout(seats) if f.name == name)
    return obs[f.start : f.start + f.size]


def test_blocks_say_what_the_docs_say() -> None:
    g = Game.from_setup(4, 2, ["+3", "LD", "-8", "R"])  # seat 2 starts (R9)
    g.play("place +11")  # seat 2
    g.play("place SD")  # seat 3
    obs = encode_observation(g.view(3))
    assert list(_block(4, "removed", obs)).index(1.0) == 7  # seat 3 lost its rabbit
    assert _block(4, "hand", obs)[9] == 0 and _block(4, "hand", obs).sum() == 8
    # Row slot 0 is seat 2's card: relative seat 3 for viewer 3, face down, unknown to seat 3.
    assert list(_block(4, "row[0].owner", obs)) == [0, 0, 0, 1, 0]
    assert _block(4, "row[0].hidden", obs)[0] == 1 and _block(4, "row[0].face_up", obs).sum() == 0
    # Slot 1 is the viewer's own face-down small dog.
    assert list(_block(4, "row[1].owner", obs)) == [1, 0, 0, 0, 0]
    assert list(_block(4, "row[1].own_face_down", obs)).index(1.0) == 9
    assert _block(4, "row[2].owner", obs).sum() == 0  # empty slot
    assert list(_block(4, "start", obs)) == [0, 0, 0, 1]
    assert list(_block(4, "to_move", obs)) == [0, 1, 0, 0]  # seat 0 places next
    assert list(_block(4, "money_known", obs)) == [1, 0, 0, 0]  # R24: others' money hidden
    assert _block(4, "money", obs)[0] == pytest.approx(15 / 87)
    assert list(_block(4, "phase", obs)) == [1, 0, 0, 0]
    g.play("place +15")
    g.play("place -5")  # all placed: R11 turns up the start player's card
    obs = encode_observation(g.view(3))
    assert list(_block(4, "row[0].face_up", obs)).index(1.0) == 1
    assert _block(4, "row[0].hidden", obs)[0] == 0
    assert list(_block(4, "phase", obs)) == [0, 1, 0, 0]
    assert list(_block(4, "mouse_card_mice", obs)) == pytest.approx([2 / 6, 4 / 6, 1.0])
    # Showing money (R24 option) fills the other seats' entries.
    shown = encode_observation(g.view(3, show_money=True))
    assert list(_block(4, "money_known", shown)) == [1, 1, 1, 1]


def test_public_view_has_no_observation() -> None:
    with pytest.raises(ValueError, match="public view"):
        encode_observation(Game.new(4, seed=1).public_view())


def test_docs_tables_match_the_layout() -> None:
    text = repository_file(DOCS).read_text(encoding="utf-8")
    for fields in (observation_layout(4), rounds_layout(4)):
        for f in fields:
            idx = str(f.start) if f.size == 1 else f"{f.start}..{f.start + f.size - 1}"
            row = f"| {idx} | {f.size} | `{f.name}` | {f.meaning} |"
            assert row in text, f"docs/envs.md lacks or has a stale row: {row}"
    for n in (3, 4, 5):
        assert f"**{observation_size(n)}** ({n} seats)" in text


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_final_rewards_r21_r22(seats: int) -> None:
    for g in _random_positions(seats, 6, seed=30 + seats):
        if not g.is_over:
            continue
        v = g.public_view()
        margin = final_rewards(v, "margin")
        assert sum(margin) == pytest.approx(0.0)
        assert margin == pytest.approx([s - sum(g.scores()) / seats for s in g.scores()])
        rank = final_rewards(v, "rank")
        assert sum(rank) == pytest.approx(0.0) and all(-1 <= r <= 1 for r in rank)
        best = max(range(seats), key=lambda s: (g.scores()[s], g.cat_points()[s]))
        assert rank[best] == max(rank)
        win = final_rewards(v, "win")
        assert sum(win) == pytest.approx(1.0)
        assert [s for s in range(seats) if win[s] > 0] == list(g.winners())
        low, high = reward_range(seats, "margin")
        assert all(low <= m <= high for m in margin)


def test_final_rewards_refuse_unfinished_games_and_unknown_modes() -> None:
    v = Game.new(4, seed=2).view(0)
    with pytest.raises(ValueError, match="finished game"):
        final_rewards(v)
    with pytest.raises(ValueError, match="margin, rank, win"):
        final_rewards(v, "points")


def test_render_text_shows_only_the_view() -> None:
    g = Game.from_setup(4, 0, ["+3", "LD", "-8", "R"])
    g.play("place +15")
    g.play("place -5")
    text = render_text(g.view(1))
    assert "[0:??]" in text and "[1:-5*]" in text and "removed LD" in text
    assert "+15" not in text.split("Row:")[1].split("\n")[0]  # seat 0's card stays hidden (R23)
    assert re.search(r"seat 0: money \?", text)  # R24


def test_importing_envs_imports_no_optional_library_and_registers_nothing() -> None:
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")
    code = (
        "import sys, catsack.envs, catsack.envs.encoding\n"
        "assert not {'gymnasium', 'pettingzoo', 'pyspiel'} & set(sys.modules), sorted(sys.modules)\n"
        "import gymnasium, catsack.envs.gymnasium, catsack.envs.pettingzoo\n"
        "assert 'catsack/Felix-v0' not in gymnasium.registry\n"
        "try:\n"
        "    import pyspiel\n"
        "except ImportError:\n"
        "    pass\n"
        "else:\n"
        "    import catsack.envs.openspiel\n"
        "    assert 'python_catsack' not in pyspiel.registered_names()\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def _doc_examples() -> list[str]:
    return re.findall(r"```python\n(.*?)```", repository_file(DOCS).read_text(encoding="utf-8"), flags=re.S)


def _doc_example_count() -> int:
    """How many examples docs/envs.md has; from an sdist, which has no docs/, one (and it skips)."""
    return 1 if FROM_SDIST and not (ROOT / DOCS).exists() else len(_doc_examples())


@pytest.mark.parametrize("index", range(_doc_example_count()))
@pytest.mark.slow
def test_docs_examples_run(index: int, capsys: pytest.CaptureFixture[str]) -> None:
    code = _doc_examples()[index]
    for module in ("gymnasium", "pettingzoo", "pyspiel"):
        if f"import {module}" in code or f"envs.{module}" in code:
            pytest.importorskip(module)
    if "openspiel" in code:
        pytest.importorskip("pyspiel")
    exec(compile(code, f"docs/envs.md example {index}", "exec"), {"__name__": "__docs__"})
    assert capsys.readouterr().out.strip()  # every example prints its result


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_cached_blocks_match_a_fresh_encoding(seats: int) -> None:
    # Won piles and finished rounds are encoded once per rounds tuple and viewer; a view rebuilt
    # field by field (no shared objects) must encode the same, and callers may write into results.
    import dataclasses

    for g in _random_positions(seats, 2, seed=seats)[::5]:
        for seat in range(seats):
            view = g.view(seat)
            fresh = dataclasses.replace(view, won=tuple(tuple(w) for w in view.won), rounds=tuple(list(view.rounds)))
            assert (encode_observation(view) == encode_observation(fresh)).all()
            first = encode_rounds(view)
            assert (first == encode_rounds(fresh)).all()
            first[:] = 7.0
            assert (encode_rounds(view) == encode_rounds(fresh)).all()
            if any(view.won):
                piles = _block(seats, "won", encode_observation(view))
                assert piles.sum() == pytest.approx(sum(map(len, view.won)) / (seats + 1 if seats == 3 else seats))
