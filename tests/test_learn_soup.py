"""python -m catsack.learn.soup: the mean of table weights trained from the same start, and what it refuses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from catsack.learn.agent import margin_weight
from catsack.learn.soup import main, soup
from catsack.learn.tablenet import load_table, save_table


def test_a_soup_is_the_mean_layer_by_layer_and_keeps_the_return(tmp_path: Path) -> None:
    v2, v3 = load_table("expert-v2"), load_table("expert-v3")
    out = tmp_path / "soup.npz"
    assert main([str(out), "expert-v2", "expert-v3"]) == 0
    made = load_table(out)
    assert sorted(made.nets) == sorted(v3.nets) == [3, 4, 5]
    for seats in made.nets:
        for mine, a, b in zip(made.nets[seats].weights, v2.nets[seats].weights, v3.nets[seats].weights, strict=True):
            assert np.allclose(mine, (a + b) / 2, atol=2e-3)  # stored as float16
            assert not np.allclose(mine, a, atol=2e-3)
    assert margin_weight(made) == margin_weight(v3)
    assert [p["file"] for p in made.meta["soup"]] == ["expert-v2", "expert-v3"]
    same = soup([v3, v3])  # a soup of one network twice is that network
    assert all(np.array_equal(w, x) for w, x in zip(same[4].weights, v3.nets[4].weights, strict=True))


def test_parts_trained_for_other_returns_make_a_soup_for_the_mean_return(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The return is linear in the margin weight (win share plus the weight times the margin), so the mean of
    heads trained with 0.1 and 0.5 estimates the return with 0.3, and the soup's search must score finished
    games so."""
    v3 = load_table("expert-v3")
    heavier = tmp_path / "heavier.npz"
    save_table(heavier, v3.nets, {"config": {"margin_weight": 0.5}})
    out = tmp_path / "a.npz"
    assert main([str(out), "expert-v3", str(heavier)]) == 0
    assert "margin weight 0.3, the mean of 0.1, 0.5" in capsys.readouterr().out
    made = load_table(out)
    assert margin_weight(made) == pytest.approx(0.3)
    assert {k: v for k, v in made.meta["config"].items() if k != "margin_weight"} == v3.meta["config"]  # file 1's
    assert margin_weight(load_table("expert-v5")) == 0.35
    assert margin_weight(load_table("expert-v4")) == 0.1


def test_weights_that_cannot_be_averaged_are_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v3 = load_table("expert-v3")
    four = tmp_path / "four.npz"
    save_table(four, {4: v3.nets[4]}, {})
    assert main([str(tmp_path / "a.npz"), "expert-v3", str(four)]) == 2
    assert "file 2 has networks for seats [4], file 1 for [3, 4, 5]" in capsys.readouterr().err
    assert main([str(tmp_path / "a.npz"), "expert-v3", str(tmp_path / "missing.npz")]) == 2
    assert "missing.npz" in capsys.readouterr().err
    with pytest.raises(ValueError, match="two weights files or more"):
        soup([v3])
    with pytest.raises(SystemExit):
        main([str(tmp_path / "a.txt"), "expert-v3", "expert-v2"])
    assert "must end in .npz" in capsys.readouterr().err
    assert not (tmp_path / "a.npz").exists()
