"""Round 1 at five seats among ``dmc`` agents (R5, R10-R12): the expert reads the kinds at the table.

``dmc`` leads round 1 from the start player's seat and from the first two places behind it, whoever
leads before it (``expert.players.ALWAYS``): as start player the expert buys the row of their +15s at
once, and behind a ``dmc`` start player it keeps its good cats out of the row that player buys for 15.
"""

from __future__ import annotations

from catsack.bots.base import make_bot
from catsack.game import Game
from catsack.moves import BID, BIDS, PLACE, Move

SEATS = 5
GOOD = (0, 1)  # card indexes of the +15 and the +11 (R1)


def _round_one(
    place: int, seed: int, expert: str = "expert:iters=1500", hidden: bool = False
) -> list[tuple[int, Move]]:
    """Round 1 of a 5-seat game, the ``expert`` spec ``place`` seats after a start player, ``dmc`` everywhere
    else (with ``hidden``, every seat met as a person): the expert's moves, each with the high bid before it."""
    g = Game.new(SEATS, seed=seed)
    me = (g.start_player + place) % SEATS
    specs: list[str | None] = ["dmc"] * SEATS
    specs[me] = expert
    bots = [make_bot(str(spec), seed=seed * 10 + s) for s, spec in enumerate(specs)]
    for s, bot in enumerate(bots):
        bot.reset(s, SEATS)
        bot.meet([None] * SEATS if hidden else specs)
    mine: list[tuple[int, Move]] = []
    while g.round == 1:
        who = g.to_move
        assert who is not None
        move = bots[who].choose(g.view(who))
        if who == me:
            mine.append((g.high_bid, move))
        g.play(move)
    return mine


def test_as_start_player_among_dmc_the_expert_leads_and_bids_fifteen_at_once() -> None:
    for seed in (11, 12):
        (_, placed), (high, first_bid), *_ = _round_one(0, seed)
        assert placed.kind == PLACE and placed.arg in GOOD
        assert high == 0 and first_bid == BIDS[15]  # no one can top it (R12)


def test_with_the_kinds_hidden_always_makes_the_start_player_bid_fifteen_at_once() -> None:
    """``expert:always=X``: with the kinds hidden the table's players may lead from the places behind the start
    player, as ``dmc`` does, so the expert as start player buys its row at once (at full budget with
    ``always=0.5`` on 12 of 12 deals, the default opening with 1 to 7 on 12 of 12: docs/bots.md)."""
    for seed in (11, 12):
        (_, placed), (high, first_bid), *_ = _round_one(0, seed, "expert:iters=1500+always=0.5", hidden=True)
        assert placed.kind == PLACE and placed.arg in GOOD
        assert high == 0 and first_bid == BIDS[15]


def test_behind_a_dmc_start_player_the_expert_keeps_its_good_cats() -> None:
    for seed in (11, 12):
        moves = _round_one(1, seed)
        placed = moves[0][1]
        assert placed.kind == PLACE and placed.arg not in GOOD
        assert all(m.kind != BID for _, m in moves[1:])  # the start player bid 15: nothing left to bid


def test_only_the_shipped_dmc_network_is_met_as_the_dmc_kind() -> None:
    """The ``dmc`` kind's priors were measured on the shipped self-play network; the exploiter (it opens
    round 1 with its +8 and bids 7) and other weights are met as unknown players."""
    from catsack.bots.expert.players import ALWAYS, MEASURED_DMC, UNKNOWN_AWARE, kind_of, known_kind, seat_awareness
    from catsack.learn.dmc_bot import DEFAULT_DMC

    assert DEFAULT_DMC in MEASURED_DMC
    assert kind_of("dmc") == kind_of(f"dmc:{DEFAULT_DMC}") == "dmc" and known_kind("dmc")
    assert kind_of("dmc:exploit-v1") == "dmc:exploit-v1" and not known_kind("dmc:exploit-v1")
    assert kind_of("ismcts:strong") == "ismcts"
    five = seat_awareness(["dmc", "dmc:exploit-v1", "dmc:dmc-v1", None, "classic"])
    assert five == [ALWAYS, UNKNOWN_AWARE, ALWAYS, UNKNOWN_AWARE, 1.0]


def test_dmc_is_met_as_a_kind_only_at_the_numbers_of_seats_its_priors_were_measured_at() -> None:
    """At three seats (where ``dmc`` start players bid 15 at once on 29 of 48 deals) a ``dmc`` seat is met as
    an unknown player, as before the kind was known; at four and five as the ``dmc`` kind."""
    from catsack.bots.expert.players import met_as

    assert met_as(["dmc", "expert", "heuristic"]) == [None, "expert", "heuristic"]
    assert met_as(["dmc", "expert", "dmc:exploit-v1", "ismcts:strong"]) == [
        "dmc",
        "expert",
        "dmc:exploit-v1",
        "ismcts:strong",
    ]
    assert met_as(["dmc", None, "dmc", "dmc", "random"]) == ["dmc", None, "dmc", "dmc", "random"]
