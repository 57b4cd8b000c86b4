"""``bench/population.py``: alpha-Rank's stationary distribution and the population table from a cache."""

from __future__ import annotations

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
