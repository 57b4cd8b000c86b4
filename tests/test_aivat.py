"""Tournament tables with the kinds hidden, and AIVAT's corrections (catsack.tournament.aivat)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import pytest

from catsack.bots.heuristic import HeuristicBot
from catsack.bots.random_bot import RandomBot
from catsack.game import Game
from catsack.tournament import TournamentConfig, run_tournament
from catsack.tournament.aivat import by_spec, correct_game, correct_games, random_policy
from catsack.tournament.runner import play_game


@pytest.mark.parametrize("hidden", [False, True])
def test_hide_kinds_presents_every_seat_as_a_person(hidden: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str | None, ...]] = []

    def meet(self: HeuristicBot, players: Sequence[str | None]) -> None:
        seen.append(tuple(players))

    monkeypatch.setattr(HeuristicBot, "meet", meet)
    config = TournamentConfig(("heuristic", "random", "style:bluff"), games=3, seed=2, hide_kinds=hidden)
    play_game(config, 0, 1)
    assert seen == [(None, None, None) if hidden else ("style:bluff", "heuristic", "random")]


def test_random_policy_is_the_random_bots() -> None:
    rng = random.Random(3)
    g = Game.new(4, seed=8)
    checked = 0
    while not g.is_over and checked < 6:
        s = g.to_move
        assert s is not None
        legal = g.legal_moves()
        if len(legal) > 1 and g.phase != "placement":
            dist = dict(random_policy(legal, g.phase, g.high_bid))
            assert sum(dist.values()) == pytest.approx(1.0)
            view = g.view(s)
            draws = Counter(RandomBot(seed=k).choose(view) for k in range(4000))
            for move in set(draws) | set(dist):
                assert draws[move] / 4000 == pytest.approx(dist.get(move, 0.0), abs=0.03), move
            checked += 1
        g.play(legal[rng.randrange(len(legal))])
    assert checked == 6


def test_corrections_add_up_to_nothing_and_follow_known_policies_only() -> None:
    config = TournamentConfig(("style:liar", "random", "heuristic", "style:bluff"), games=8, seed=4, keep_moves=True)
    games = run_tournament(config).games
    corrected = correct_games(config, games)
    assert any(a.terms for a in corrected)
    for a in corrected:
        # win shares and the value's win chances both add up to 1 over the seats (R22), so the terms cancel
        assert sum(a.correction) == pytest.approx(0.0, abs=1e-9)
        assert sum(a.corrected) == pytest.approx(1.0)
    heuristic_only = TournamentConfig(("heuristic",) * 4, games=4, seed=4, keep_moves=True)
    for a in correct_games(heuristic_only, run_tournament(heuristic_only).games):
        assert a.terms == 0  # deterministic players: only the deal's term, which a full rotation cancels


def test_a_move_outside_the_known_policy_is_refused() -> None:
    config = TournamentConfig(("random", "heuristic", "heuristic"), games=3, seed=1, keep_moves=True)
    res = run_tournament(config).games[0]
    other = TournamentConfig(("style:saver", "heuristic", "heuristic"), games=3, seed=1, keep_moves=True)
    with pytest.raises(ValueError, match="outside its known policy"):
        correct_game(other, res)  # the random bot's moves are not the saver's


def test_aivat_keeps_the_mean_and_narrows_a_table_of_bluffers() -> None:
    config = TournamentConfig(("style:bluff", "style:liar") * 2, games=40, seed=6, keep_moves=True)
    corrected = correct_games(config, run_tournament(config).games)
    raw, fixed, _ = by_spec(config, corrected)["style:bluff"]
    assert abs(fixed.mean - raw.mean) < 0.05  # unbiased up to noise on these 10 deals
    assert fixed.deal_variance < raw.deal_variance  # (measured: 1.7 times smaller)
