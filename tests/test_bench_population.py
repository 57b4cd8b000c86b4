"""``bench/population.py``: alpha-Rank's stationary distribution and the population table from a cache."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from bench_modules import load_bench

population = load_bench("population")


def test_a_dominant_agent_takes_the_mass() -> None:
    # agent 0 invades both others and neither invades it
    d = np.array([[0.0, 1.0, 1.0], [-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    pi = population.alpha_rank(d, alpha=10.0, pop=50)
    assert pi.sum() == pytest.approx(1.0)
    assert pi[0] > 0.99


def test_a_neutral_population_is_uniform_and_a_cycle_is_shared() -> None:
    assert population.alpha_rank(np.zeros((4, 4)), alpha=10.0, pop=50) == pytest.approx([0.25] * 4)
    rps = np.array([[0.0, 1.0, -1.0], [-1.0, 0.0, 1.0], [1.0, -1.0, 0.0]])  # each beats the next
    assert population.alpha_rank(rps, alpha=10.0, pop=50) == pytest.approx([1 / 3] * 3, abs=1e-6)


def test_the_table_ranks_from_the_cache() -> None:
    agents = ["a", "b", "c"]
    cache = {}
    for m in agents:
        for r in agents:
            if m != r:  # "a" wins every table it sits at, as mutant or resident
                share = 0.9 if m == "a" else 0.05 if r == "a" else 1 / 3
                resident = (1 - share) / 2
                cache[population.key(3, m, r, False)] = {"mutant": share, "resident": resident, "games": 3}
    text = population.table(cache, 3, agents, False, 10.0, 50)
    assert text.splitlines()[2].startswith("| 1 | `a` |")


def test_pairs_played_at_once_give_what_one_at_a_time_gives(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = [("random", "heuristic"), ("heuristic", "random"), ("heuristic", "style:early")]
    results = []
    for jobs in (1, 2):
        args = argparse.Namespace(jobs=jobs, deals=1, seed=3)
        cache: dict[str, dict[str, float]] = {}
        path = tmp_path / f"pop{jobs}.json"
        population.play_pairs(cache, path, 3, pairs, args, False)
        assert json.loads(path.read_text()) == cache  # saved as each pair ended
        results.append({k: (v["mutant"], v["resident"], v["games"]) for k, v in cache.items()})
    assert results[0] == results[1]
    assert set(results[0]) == {population.key(3, a, b, False) for a, b in pairs}
    assert all(games == 3 for _, _, games in results[0].values())
    assert "[3/3] 3 seats" in capsys.readouterr().err


def test_pairs_come_agent_by_agent_so_a_stopped_run_leaves_a_whole_table() -> None:
    agents = ["a", "b", "c", "d"]
    cache = {population.key(4, "b", "a", False): {"mutant": 0.25, "resident": 0.25, "games": 4}}
    todo = population.pairs_to_play(cache, 4, agents, False)
    assert len(todo) == 4 * 3 - 1 and ("b", "a") not in todo
    for k in range(2, 5):  # the first pairs of the list complete the table of the first k agents
        first = {(a, b) for a in agents[:k] for b in agents[:k] if a != b} - {("b", "a")}
        assert set(todo[: len(first)]) == first
