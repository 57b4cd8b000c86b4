"""The external bot protocol catsack-bot/1: messages, the example bot, and every failure path.

Misbehaving bots are tiny scripts written into tmp_path and run with the
interpreter running the tests; time limits are kept short (0.3 s).
"""

from __future__ import annotations

import ast
import json
import logging
import random
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from catsack.bots.base import BotSpecError, make_bot
from catsack.game import Game
from catsack.moves import PASS_MOVE, parse_move
from catsack.protocol import PROTOCOL, ProtocolError
from catsack.protocol.external import ExternalBot
from catsack.protocol.messages import (
    check_hello,
    decode,
    encode,
    fallback_move,
    move_request,
    new_game_message,
    parse_move_answer,
)

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "external_bot.py"
LOGGER = "catsack.protocol.external"

# The start of every scripted bot: read lines, answer hello, hand each message to on_message.
PRELUDE = """\
import json, sys, time
def send(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        send({"type": "hello", "protocol": "catsack-bot/1", "name": "scripted"})
    elif msg["type"] == "move":
"""


def script(tmp_path: Path, on_move: str, name: str = "bot.py", prelude: str = PRELUDE) -> str:
    """Write a bot whose answer to a move request is ``on_move`` (Python, ``msg`` in scope); return its command."""
    path = tmp_path / name
    path.write_text(prelude + textwrap.indent(textwrap.dedent(on_move), " " * 8))
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def command(path: Path) -> str:
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}"


def play_with(bot: ExternalBot, seed: int = 5, seat: int = 0) -> Game:
    """Play a 4-seat game with ``bot`` at ``seat`` and random moves elsewhere."""
    rng = random.Random(seed)
    game = Game.new(4, seed=seed)
    bot.reset(seat, 4)
    while not game.is_over:
        mover = game.to_move
        assert mover is not None
        view = game.view(mover)
        game.play(bot.choose(view) if mover == seat else rng.choice(view.legal))
    bot.game_over(game.view(seat), game.ranking())
    return game


def first_decision(game: Game, seat: int) -> None:
    """Advance ``game`` with first legal moves until ``seat`` is to move."""
    while game.to_move != seat:
        game.play(game.legal_moves()[0])


# ---------------------------------------------------------------- messages


def test_encode_decode_round_trip() -> None:
    msg = {"type": "move", "id": 3, "move": "bid 2"}
    line = encode(msg)
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert decode(line) == msg


@pytest.mark.parametrize(
    ("line", "why"),
    [("not json", "not JSON"), ("[1, 2]", "JSON object"), ('{"move": "pass"}', "'type'"), ("x" * 70000, "longer")],
)
def test_decode_rejects_non_messages(line: str, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        decode(line)


def test_hello_checks_protocol_version_and_name() -> None:
    assert check_hello({"type": "hello", "protocol": PROTOCOL, "name": " Bob "}) == "Bob"
    with pytest.raises(ProtocolError, match="catsack-bot/2"):
        check_hello({"type": "hello", "protocol": "catsack-bot/2", "name": "x"})
    with pytest.raises(ProtocolError, match="name"):
        check_hello({"type": "hello", "protocol": PROTOCOL})
    with pytest.raises(ProtocolError, match="expected a 'hello'"):
        check_hello({"type": "move", "protocol": PROTOCOL, "name": "x"})


def test_move_answers_are_parsed_and_checked_against_the_legal_moves() -> None:
    game = Game.new(4, seed=1)
    legal = game.legal_moves()  # placement (R10)
    assert parse_move_answer({"type": "move", "id": 1, "move": legal[0].text}, legal) == legal[0]
    with pytest.raises(ProtocolError, match="malformed move"):
        parse_move_answer({"type": "move", "id": 1, "move": "place +99"}, legal)
    with pytest.raises(ProtocolError, match="illegal move 'pass'"):
        parse_move_answer({"type": "move", "id": 1, "move": "pass"}, legal)
    with pytest.raises(ProtocolError, match="string 'move'"):
        parse_move_answer({"type": "move", "id": 1, "move": 3}, legal)


def test_fallback_is_pass_when_legal_else_the_last_legal_move() -> None:
    game = Game.new(4, seed=2)
    placing = game.legal_moves()
    assert fallback_move(placing) == placing[-1]  # R10: the card latest in +15 ... -8 R LD SD
    while game.phase == "placement":
        game.play(game.legal_moves()[0])
    assert fallback_move(game.legal_moves()) == PASS_MOVE  # R12: passing is always possible
    with pytest.raises(ValueError, match="no legal move"):
        fallback_move(())


def test_new_game_and_request_carry_only_the_seats_knowledge() -> None:
    game = Game.new(4, seed=3)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    msg = new_game_message(1, view, players=["a", "b", "c", "d"], seed=9)
    assert msg["hand"] == [c.token for c in game.hand(seat)]
    assert msg["removed"] == game.removed(seat).token  # R7: the owner knows it, R23: nobody else
    assert msg["players"] == ["a", "b", "c", "d"] and msg["seed"] == 9 and msg["seat"] == seat
    req = move_request(7, 1, view, 0.5)
    assert req["legal"] == [m.text for m in game.legal_moves()]
    assert req["view"] == view.to_dict()
    json.dumps(req)  # JSON-ready
    with pytest.raises(ValueError, match="seat's view"):
        new_game_message(1, game.public_view())


# ---------------------------------------------------------------- the example bot


def test_example_bot_uses_only_the_standard_library() -> None:
    tree = ast.parse(EXAMPLE.read_text())
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "catsack" not in imported
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}


def test_example_bot_plays_whole_games_without_faults(caplog: pytest.LogCaptureFixture) -> None:
    bot = make_bot(f"external:{command(EXAMPLE)}", seed=4)
    assert isinstance(bot, ExternalBot)
    assert bot.name == f"external:{command(EXAMPLE)}"
    assert bot.program_name == "example-rules"
    try:
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            for seed, seat in ((1, 0), (2, 3)):
                game = play_with(bot, seed=seed, seat=seat)
                assert game.is_over
        assert bot.faults == 0, bot.last_fault
        assert not caplog.records
    finally:
        bot.close()


def test_example_bot_is_deterministic_for_a_seed() -> None:
    texts = []
    for _ in range(2):
        bot = ExternalBot(command(EXAMPLE), seed=11)
        try:
            texts.append([m.text for m in play_with(bot, seed=8, seat=1).moves])
        finally:
            bot.close()
    assert texts[0] == texts[1]


def test_session_transcript(tmp_path: Path) -> None:
    """A recording bot sees hello, new_game, one request per decision and game_over, in that order."""
    log_path = tmp_path / "seen.jsonl"
    recorder = f"""\
import json, sys
out = open({str(log_path)!r}, "a")
for line in sys.stdin:
    out.write(line); out.flush()
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({{"type": "hello", "protocol": "catsack-bot/1", "name": "rec"}}), flush=True)
    elif msg["type"] == "move":
        print(json.dumps({{"type": "log", "message": "thinking"}}), flush=True)
        print(json.dumps({{"type": "move", "id": msg["id"], "move": msg["legal"][0]}}), flush=True)
"""
    path = tmp_path / "recorder.py"
    path.write_text(recorder)
    bot = ExternalBot(command(path), seed=3)
    bot.players = ["x", "y", "z", "w"]
    try:
        game = play_with(bot, seed=6, seat=2)
    finally:
        bot.close()
    seen = [json.loads(line) for line in log_path.read_text().splitlines()]
    kinds = [m["type"] for m in seen]
    decisions = sum(1 for ply in range(len(game.moves)) if game.seat_of(ply) == 2)
    assert kinds == ["hello", "new_game"] + ["move"] * decisions + ["game_over", "quit"]
    hello, new_game = seen[0], seen[1]
    assert hello["protocol"] == PROTOCOL
    assert new_game["seat"] == 2 and new_game["seats"] == 4 and new_game["seed"] == 3
    assert new_game["players"] == ["x", "y", "z", "w"]
    assert len(new_game["hand"]) == 9 and new_game["removed"] not in new_game["hand"]  # R7
    requests = seen[2:-2]
    assert [r["id"] for r in requests] == list(range(1, decisions + 1))
    assert all(r["view"]["seat"] == 2 and r["legal"] == r["view"]["legal"] for r in requests)
    over = seen[-2]
    assert over["scores"] == list(game.scores()) and over["ranking"] == list(game.ranking())
    assert bot.faults == 0


# ---------------------------------------------------------------- failures


def test_a_bot_that_crashes_gets_fallback_moves_and_is_restarted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cmd = script(tmp_path, "sys.exit(3)")
    bot = ExternalBot(cmd, seed=1)
    game = Game.new(4, seed=1)
    try:
        with caplog.at_level(logging.INFO, logger=LOGGER):
            bot.reset(0, 4)
            first_decision(game, 0)
            view = game.view(0)
            assert bot.choose(view) == fallback_move(view.legal)
            assert "crashed" in caplog.text and "exit code 3" in caplog.text
            assert bot.choose(view) == fallback_move(view.legal)  # no program now: no waiting
            assert bot.faults == 2 and bot.last_fault == "the program is not running"
            assert bot._proc is None
            bot.reset(1, 4)  # the next game starts the program again
            assert "restarted (restart 1 of 3)" in caplog.text
        assert bot._proc is not None
    finally:
        bot.close()


def test_a_bot_that_times_out_gets_a_fallback_and_late_answers_are_ignored(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The first request is answered only once the second one arrives (so always too late, however
    # slow the machine), just before the answer to the second.
    cmd = script(
        tmp_path,
        """\
        if msg["id"] == 1:
            first = msg
            continue
        if msg["id"] == 2:
            send({"type": "move", "id": 1, "move": first["legal"][0]})
        send({"type": "move", "id": msg["id"], "move": msg["legal"][0]})
        """,
    )
    bot = ExternalBot(cmd, seed=1, time_limit=0.3)
    game = Game.new(4, seed=2)
    try:
        bot.reset(0, 4)
        first_decision(game, 0)
        view = game.view(0)
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            assert bot.choose(view) == fallback_move(view.legal)
        assert "no answer to request 1 within 0.3 s" in caplog.text
        game.play(fallback_move(view.legal))
        first_decision(game, 0)
        view = game.view(0)
        bot.time_limit = 30.0  # bounds a failure only: the answers come as soon as request 2 is read
        with caplog.at_level(logging.DEBUG, logger=LOGGER):
            assert bot.choose(view) == view.legal[0]
        assert "ignoring late answer to request 1" in caplog.text
        assert bot.faults == 1
    finally:
        bot.close()


def test_a_bot_that_never_answers_is_stopped_after_repeated_timeouts(tmp_path: Path) -> None:
    cmd = script(tmp_path, "time.sleep(30)")
    bot = ExternalBot(cmd, seed=1, time_limit=0.3, max_timeouts=2)
    game = Game.new(4, seed=3)
    try:
        bot.reset(0, 4)
        first_decision(game, 0)
        view = game.view(0)
        bot.choose(view)
        bot.choose(view)
        assert bot._proc is None  # stopped after 2 timeouts in a row
        assert bot.choose(view) == fallback_move(view.legal)
        assert bot.faults == 3
    finally:
        bot.close()


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ('sys.stdout.write("this is not json\\n"); sys.stdout.flush()', "not JSON"),
        ('send({"type": "move", "id": msg["id"], "move": "bid 999"})', "illegal move 'bid 999'"),
        ('send({"type": "move", "id": msg["id"], "move": "jump"})', "malformed move 'jump'"),
        ('send({"type": "move", "id": msg["id"]})', "string 'move'"),
        ('send({"type": "move", "id": msg["id"] + 5, "move": msg["legal"][0]})', "expected 1"),
        ('send({"type": "bogus", "id": msg["id"]})', "expected a 'move' answer"),
    ],
)
def test_bad_answers_get_fallback_moves_with_the_reason_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, answer: str, reason: str
) -> None:
    bot = ExternalBot(script(tmp_path, answer), seed=1)
    game = Game.new(4, seed=4)
    try:
        bot.reset(0, 4)
        first_decision(game, 0)
        view = game.view(0)
        with caplog.at_level(logging.WARNING, logger=LOGGER):
            move = bot.choose(view)
        assert move == fallback_move(view.legal)
        assert reason in caplog.text and "fallback move" in caplog.text
        assert bot.faults == 1 and reason in (bot.last_fault or "")
        assert bot._proc is not None  # a bad answer does not stop the program
    finally:
        bot.close()


def test_a_whole_game_against_a_bot_that_always_answers_illegally_completes(tmp_path: Path) -> None:
    bot = ExternalBot(script(tmp_path, 'send({"type": "move", "id": msg["id"], "move": "bid 999"})'), seed=1)
    try:
        game = play_with(bot, seed=9, seat=1)
        decisions = sum(1 for ply in range(len(game.moves)) if game.seat_of(ply) == 1)
        assert game.is_over and bot.faults == decisions
    finally:
        bot.close()


@pytest.mark.parametrize(
    ("body", "why", "limit"),
    [
        (
            'print(json.dumps({"type": "hello", "protocol": "catsack-bot/0", "name": "old"}), flush=True)',
            "catsack-bot/0",
            10.0,
        ),
        ('print("hi", flush=True)', "not JSON", 10.0),
        ("sys.exit(1)", "ended during the handshake", 10.0),
        ("sys.stdin.readline()  # waits for a line that never comes", "no 'hello' answer within 0.3 s", 0.3),
    ],
)
def test_a_failed_handshake_is_a_clear_spec_error(tmp_path: Path, body: str, why: str, limit: float) -> None:
    path = tmp_path / "hello.py"
    path.write_text(f"import json, sys\nsys.stdin.readline()\n{body}\n")
    with pytest.raises(BotSpecError, match="failed the handshake") as info:
        ExternalBot(command(path), handshake_time=limit)
    assert why in str(info.value)


def test_bad_command_lines_are_spec_errors(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="needs a command line"):
        make_bot("external:")
    with pytest.raises(BotSpecError, match="cannot start"):
        make_bot(f"external:{tmp_path / 'no-such-program'}")
    with pytest.raises(BotSpecError, match="cannot split"):
        make_bot("external:python3 'unclosed")


def test_moves_in_requests_parse_back() -> None:
    game = Game.new(3, seed=5)
    while not game.is_over:
        mover = game.to_move
        assert mover is not None
        req = move_request(1, 1, game.view(mover), 1.0)
        assert [parse_move(t) for t in req["legal"]] == list(game.legal_moves())
        game.play(game.legal_moves()[-1])
