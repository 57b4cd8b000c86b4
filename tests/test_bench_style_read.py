"""``bench/style_read.py``: each other seat's style read round by round, as the expert reads it with the
kinds hidden."""

from __future__ import annotations

import pytest

from bench_modules import load_bench
from catsack.bots.expert.players import DUMP, STYLE_KEYS


def test_every_round_from_two_on_is_read_for_every_other_seat() -> None:
    """Nine rounds (R7, R10): rounds 2-9 read at their start, for the three other seats; the shares
    are a distribution with every style kept in (none ruled out for good)."""
    probe = load_bench("style_read")
    read, kinds = probe.play("style:dumper", 900, 0.1)
    assert sorted(read) == sorted(kinds) == list(range(2, 10))
    for odds in kinds.values():  # the chances of the heuristic's and the random bot's rule, read from bids
        assert len(odds) == 3 and all(0.0 <= rule + coin <= 1.0 for rule, coin in odds)
    for shares in read.values():
        assert len(shares) == 3
        for st in shares:
            assert len(st) == len(STYLE_KEYS) and sum(st) == pytest.approx(1.0) and min(st) > 0.0
    # a dog-dumper's first rounds of placements (R14: turned up) move its reading toward the style
    assert sum(st[DUMP] for st in read[5]) / 3 > 0.1


def test_the_dump_prior_sets_where_the_reading_starts() -> None:
    """The same games (the same public evidence) read with a larger ``dump`` share in the prior give a
    larger reading of the style."""
    probe = load_bench("style_read")
    low = probe.play("heuristic", 901, 0.05)[0]
    high = probe.play("heuristic", 901, 0.4)[0]
    assert sum(st[DUMP] for st in high[2]) > sum(st[DUMP] for st in low[2])
