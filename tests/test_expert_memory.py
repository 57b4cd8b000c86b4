"""``expert:memory=1``: what a table's earlier games showed, read from public facts only (R14, R23)."""

from __future__ import annotations

import json
import time
from types import SimpleNamespace

import pytest

from catsack.bots.base import BotSpecError, make_bot, play_game
from catsack.bots.expert import ExpertBot
from catsack.bots.expert.memory import PSEUDO_COUNT, TableMemory, remembers
from catsack.bots.expert.spec import DUMP_PRIOR, parse_spec
from catsack.bots.heuristic import HeuristicBot
from catsack.cards import Card
from catsack.game import Game
from catsack.moves import PLACE, Move
from catsack.server.tables.live import LiveTable, Player
from catsack.view import View


class FirstCard(HeuristicBot):
    """The heuristic bot, except that in round 1 it places ``card`` if it holds it (R10)."""

    def __init__(self, card: int) -> None:
        super().__init__()
        self.card = card

    def choose(self, view: View) -> Move:
        move = Move(PLACE, self.card)
        if not view.rounds and view.phase == "placement" and move in view.legal:
            return move
        return super().choose(view)


def _finished(seats: int, cards: list[int], seed: int, start: int = 0) -> Game:
    """A game whose seats place ``cards[s]`` in round 1 where they hold it, then play as heuristic bots."""
    game = Game.new(seats, seed=seed, start=start)
    return play_game(game, [FirstCard(c) for c in cards])


def _holds(game: Game, seat: int, card: int) -> bool:
    first = game.view(seat).rounds[0]
    return dict(zip(first.owners, first.row, strict=True))[seat] == card


def test_memory_is_an_expert_option_on_by_default_that_the_levels_leave_off() -> None:
    assert parse_spec("").memory and parse_spec("memory=1").memory and not parse_spec("memory=0").memory
    assert not any(parse_spec(level).memory for level in ("easy", "normal", "strong"))
    assert not parse_spec("memory=1+strong").memory  # a level after it sets the level's model
    with pytest.raises(BotSpecError, match="memory=0\\|1"):
        parse_spec("memory=2")


def test_nothing_is_recalled_before_a_game_was_read() -> None:
    memory = TableMemory()
    memory.meet([None] * 4)
    assert memory.recall(0.6, 0.0, 0.1, 0.0) is None


def test_round_one_leads_behind_a_start_player_who_led_are_counted_at_five_seats() -> None:
    # the start player (seat 0) leads its +15; the two places behind it place their +15 as well (dmc's way)
    cards = [Card.P15, Card.P15, Card.P15, Card.LARGE_DOG, Card.M8]
    for seed in range(40):
        game = _finished(5, cards, seed)
        if all(_holds(game, s, c) for s, c in enumerate(cards)):
            break
    else:
        pytest.fail("no deal in which every seat held its round-1 card")
    memory = TableMemory()
    memory.meet([None] * 5)
    memory.read(game.view(4), [None] * 5)  # seat 4's view: seats 0-3 are of unknown kind to it
    assert (memory.starts, memory.start_leads) == (1, 1)
    assert (memory.follows, memory.follow_leads) == (2, 2)
    assert memory.players == 4
    recalled = memory.recall(0.6, 0.0, DUMP_PRIOR, 0.0)
    assert recalled is not None and recalled.games == 1
    assert recalled.lead1 == pytest.approx((PSEUDO_COUNT * 0.6 + 1) / (PSEUDO_COUNT + 1))
    assert recalled.always == pytest.approx(2 / (PSEUDO_COUNT + 2))


def test_the_seats_whose_kind_the_table_shows_are_not_read() -> None:
    cards = [Card.P3, Card.LARGE_DOG, Card.M8, Card.M5]
    game = _finished(4, cards, seed=3)
    memory = TableMemory()
    players = ["heuristic", None, "heuristic", None]
    memory.meet(players)
    memory.read(game.view(3), players)  # only seat 1 is unknown to seat 3
    assert memory.players == 1 and memory.starts == 0 and memory.follows == 0


def test_players_who_dump_raise_the_dump_share_and_lower_round_ones_lead_share() -> None:
    memory = TableMemory()
    memory.meet([None] * 4)
    for seed in range(3):
        game = play_game(
            Game.new(4, seed=seed, start=1),
            [make_bot("heuristic")] + [make_bot("style:dumper", seed=s) for s in (1, 2, 3)],
        )
        memory.read(game.view(0), [None] * 4)
    recalled = memory.recall(0.6, 0.0, DUMP_PRIOR, 0.0)
    assert recalled is not None
    assert recalled.dump > 0.3 and recalled.dump1 > 0.3  # read from 9 dumpers' placements
    assert recalled.lead1 < 0.6  # dumper start players do not lead their +15 or +11


def test_another_table_forgets() -> None:
    memory = TableMemory()
    memory.meet([None] * 4)
    memory.read(_finished(4, [Card.P15] * 4, seed=1).view(0), [None] * 4)
    memory.meet([None, None, None, None])
    assert memory.games == 1  # the same table: kept
    memory.meet([None, "heuristic", None, None])
    assert memory.games == 0 and memory.recall(0.6, 0.0, 0.1, 0.0) is None
    memory.read(_finished(5, [Card.P15] * 5, seed=1).view(0), None)
    memory.meet([None] * 5)
    assert memory.games == 0


def test_the_first_game_of_a_sitting_is_played_as_without_memory_and_the_next_recalls() -> None:
    specs = ["expert:iters=40+memory=1", "expert:iters=40+memory=0"]
    moves = []
    kept = []
    for spec in specs:
        bots = [make_bot(spec, seed=7), make_bot("heuristic"), make_bot("style:dumper", seed=2), make_bot("heuristic")]
        game = play_game(Game.new(4, seed=5), bots, hide_kinds=True)
        moves.append([m.text for m in game.moves])
        kept.append(bots)
    assert moves[0] == moves[1]  # nothing to recall in the first game: every move the same
    bot = kept[0][0]
    assert isinstance(bot, ExpertBot) and bot.recalled is None
    play_game(Game.new(4, seed=6), kept[0], hide_kinds=True)  # the second game of the sitting
    assert bot.memory is not None and bot.memory.games == 1
    assert bot.recalled is not None and bot.recalled.games == 1
    assert not isinstance(kept[1][0], ExpertBot) or kept[1][0].memory is None


def _read_memory() -> TableMemory:
    memory = TableMemory()
    memory.meet([None] * 4)
    for seed in range(2):
        memory.read(_finished(4, [Card.P15, Card.LARGE_DOG, Card.M8, Card.P15], seed=seed).view(2), [None] * 4)
    return memory


def test_a_memory_is_kept_as_plain_json_values_and_read_back() -> None:
    memory = _read_memory()
    again = TableMemory.from_state(json.loads(json.dumps(memory.state())))
    assert again.state() == memory.state()
    assert again.recall(0.6, 0.0, 0.1, 0.0) == memory.recall(0.6, 0.0, 0.1, 0.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"games": "2"}, "'games' must be a whole number"),
        ({"games": True}, "'games' must be a whole number"),
        ({"dumped": -1.0}, "'dumped' must be from 0"),
        ({"starts": 10**9}, "'starts' must be from 0"),
        ({"start_leads": 5, "starts": 1}, "more leads than chances"),
        ({"dumped": 9.0, "players": 1}, "more dumping than players"),
        ({"table": [7, []]}, "'table' must be"),
        ({"table": [4, [1]]}, "'table' must be"),
    ],
)
def test_a_memory_that_cannot_be_read_is_refused_with_what_is_wrong(change: dict[str, object], message: str) -> None:
    state = _read_memory().state() | change
    with pytest.raises(ValueError, match=message):
        TableMemory.from_state(state)
    with pytest.raises(ValueError, match="an object"):
        TableMemory.from_state([1, 2])


def test_remembers_names_the_expert_specs_that_keep_a_memory() -> None:
    assert remembers("expert:memory=1") and remembers(" expert : memory=1 ") and remembers("classic")
    assert not remembers("expert") and not remembers("expert:worlds=8")  # the learned expert keeps its own history
    assert not remembers("expert:memory=0") and not remembers("expert:strong") and not remembers("heuristic")
    assert not remembers("expert:bogus=1")


def test_a_bot_given_a_memory_recalls_it_and_one_without_memory_ignores_it() -> None:
    memory = _read_memory()
    bot = ExpertBot("iters=20+memory=1", seed=1)
    bot.reset(0, 4)
    bot.meet([None] * 4)
    assert bot.recalled is None
    bot.remember(memory)
    assert bot.recalled == memory.recall(0.6, 0.0, DUMP_PRIOR, 0.0)
    other = ExpertBot("iters=20+memory=0", seed=1)
    other.reset(0, 4)
    other.meet([None] * 4)
    other.remember(memory)
    assert other.memory is None and other.recalled is None


class _Finished(SimpleNamespace):
    """A finished server table as :func:`catsack.server.people.rematch.carried_memory` reads it: its options, seats,
    kinds and game, with the server's own :class:`~catsack.server.tables.live.LiveTable` rules for whom a memory
    speaks of."""

    people = LiveTable.people
    memory_for = LiveTable.memory_for


def _table(game: Game, kinds: list[str | None], options: dict[str, object], people: list[str]) -> _Finished:
    names = iter(people)
    players = [Player("bot", bot=k) if k else Player("human", name=next(names)) for k in kinds]
    return _Finished(options=options, kinds=kinds, game=game, players=players)


def test_a_rematch_carries_what_each_remembering_bot_read_at_the_finished_table() -> None:
    from catsack.server.people.rematch import carried_memory

    game = _finished(4, [Card.P15, Card.LARGE_DOG, Card.M8, Card.P15], seed=1)
    kinds: list[str | None] = [None, "expert:memory=1", "heuristic", "expert:memory=0"]
    bots = {1: "expert:memory=1", 2: "heuristic", 3: "expert:memory=0"}
    carried = carried_memory(_table(game, kinds, {}, ["ann"]), bots)  # type: ignore[arg-type]
    assert list(carried) == ["1"]  # the one bot that keeps a memory
    first = TableMemory.from_state(carried["1"])
    assert first.games == 1 and first.players == 1  # seat 0, the person, is the one player of unknown kind
    kept = {"memory": carried, "memory_people": ["ann"]}  # as the rematch keeps it
    again = carried_memory(_table(game, kinds, kept, ["ann"]), bots)  # type: ignore[arg-type]
    assert TableMemory.from_state(again["1"]).games == 2  # the same person's table before counts too
    other = carried_memory(_table(game, kinds, kept, ["bob"]), bots)  # type: ignore[arg-type]
    assert TableMemory.from_state(other["1"]).games == 1  # another person: what ann showed is not bob's
    bad = {"memory": {"1": {"games": -1}}, "memory_people": ["ann"]}
    assert TableMemory.from_state(carried_memory(_table(game, kinds, bad, ["ann"]), bots)["1"]).games == 1  # type: ignore[arg-type]


def test_a_rematch_table_gives_its_bots_the_memory_only_while_the_same_people_play() -> None:
    game = Game.new(4, seed=2)
    kinds: list[str | None] = [None, "expert:memory=1", None, "heuristic"]
    state = _read_memory().state()
    kept = {"memory": {"1": state}, "memory_people": ["ann", "bob"]}
    assert _table(game, kinds, kept, ["bob", "ann"]).memory_for(1) == state  # the seats' order does not matter
    assert _table(game, kinds, kept, ["ann", "cy"]).memory_for(1) is None  # cy took bob's seat
    assert _table(game, kinds, kept, ["bob", "ann"]).memory_for(3) is None  # no memory kept for that seat
    assert _table(game, kinds, {"memory": "x", "memory_people": ["ann", "bob"]}, ["ann", "bob"]).memory_for(1) is None
    taken = _table(game, kinds, kept, ["ann", "bob"])
    taken.players[2] = Player("bot", name="bob", bot="expert:easy", replaced=True)  # a bot took over bob's seat
    assert taken.memory_for(1) == state  # bob still played this table: the memory is still of ann and bob


def test_the_thinking_process_plays_with_the_memory_it_is_given_or_without_a_bad_one() -> None:
    from catsack.server.tables.think_worker import bot_move

    game = Game.new(4, seed=3)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    state = _read_memory().state()
    for memory in (state, {"games": "many"}, None):
        text = bot_move("expert:iters=20+memory=1", 1, seat, 4, [None] * 4, view, time.time() + 5.0, 20, memory)
        assert Move.parse(text) in view.legal


def test_a_rematch_carries_the_learned_experts_sitting_while_the_same_people_play() -> None:
    from catsack.learn.history import Sitting
    from catsack.server.people.rematch import carried_memory

    game = _finished(4, [Card.P15, Card.LARGE_DOG, Card.M8, Card.P15], seed=1)
    kinds: list[str | None] = [None, "expert", "heuristic", "expert:worlds=8"]
    bots = {1: "expert", 2: "heuristic", 3: "expert:worlds=8"}
    carried = carried_memory(_table(game, kinds, {}, ["ann"]), bots)  # type: ignore[arg-type]
    assert sorted(carried) == ["1", "3"]
    first = Sitting.from_state(carried["1"]["sitting"])
    mine = Sitting(4)
    mine.add(game.view(1))  # the game as seat 1 saw it at its end: public facts only (R14, R23)
    assert (first.games, first.sums) == (1, mine.sums)
    kept = {"memory": carried, "memory_people": ["ann"]}
    again = carried_memory(_table(game, kinds, kept, ["ann"]), bots)  # type: ignore[arg-type]
    assert Sitting.from_state(again["1"]["sitting"]).games == 2
    other = carried_memory(_table(game, kinds, kept, ["bob"]), bots)  # type: ignore[arg-type]
    assert Sitting.from_state(other["1"]["sitting"]).games == 1  # another person's table starts over
    bad = {"memory": {"1": {"sitting": {"games": 3}}}, "memory_people": ["ann"]}
    assert Sitting.from_state(carried_memory(_table(game, kinds, bad, ["ann"]), bots)["1"]["sitting"]).games == 1  # type: ignore[arg-type]


def test_the_thinking_process_gives_the_learned_expert_its_sitting(monkeypatch: pytest.MonkeyPatch) -> None:
    from catsack.learn.agent import ExpertAgent
    from catsack.learn.history import Sitting
    from catsack.server.tables.think_worker import bot_move

    given: list[Sitting] = []
    remember = ExpertAgent.remember

    def spy(self: ExpertAgent, sitting: Sitting) -> None:
        given.append(sitting)
        remember(self, sitting)

    monkeypatch.setattr(ExpertAgent, "remember", spy)
    finished = _finished(4, [Card.P15, Card.LARGE_DOG, Card.M8, Card.P15], seed=1)
    sitting = Sitting(4)
    sitting.add(finished.view(0))
    game = Game.new(4, seed=3)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    for memory in ({"sitting": sitting.state()}, {"sitting": {"seats": 3}}, {"games": 1}, None):
        text = bot_move("expert", 1, seat, 4, [None] * 4, view, time.time() + 5.0, 20, memory)
        assert Move.parse(text) in view.legal
    assert [(s.games, s.sums) for s in given] == [(1, sitting.sums)]  # the bad ones were left out
    bot = ExpertAgent(None, seed=1)
    bot.reset(0, 5)
    with pytest.raises(ValueError, match="sitting of 4 seats at a table of 5"):
        bot.remember(sitting)
