"""Records are capped where they are read: size, name length, printable names;
``catsack replay`` never crashes on what a record or a file name holds; a bot program that writes
endless lines is cut off; a record without ``format`` says what it is missing.
"""

from __future__ import annotations

import io
import json
import logging
import os
import resource
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from catsack.cli import app
from catsack.errors import RecordError
from catsack.game import Game
from catsack.protocol.external import ExternalBot, _capped_lines
from catsack.protocol.messages import MAX_LINE
from catsack.record import MAX_NAME_CHARS, MAX_RECORD_BYTES, dumps_record, loads_record, read_record, record_from_game

DATA = Path(__file__).parent / "data"


def record_obj(players: list[str] | None = None) -> dict[str, Any]:
    game = Game.new(4, seed=3)
    while not game.is_over:
        game.play(game.legal_moves()[0])
    obj: dict[str, Any] = json.loads(dumps_record(record_from_game(game, players or ["Ann", "Ben", "Cat", "Dan"])))
    return obj


def test_papercut11_missing_format_names_the_key() -> None:
    obj = record_obj()
    del obj["format"]
    with pytest.raises(RecordError) as info:
        loads_record(json.dumps(obj), source="game.json")
    msg = str(info.value)
    assert msg.startswith('game.json: not a catsack record: no "format" key') and '"format": "catsack/1"' in msg
    assert "None" not in msg
    obj["format"] = "catsack/2"
    with pytest.raises(RecordError, match="'format' must be 'catsack/1', not 'catsack/2'"):
        loads_record(json.dumps(obj))


def test_names_are_capped_and_printable() -> None:
    assert loads_record(json.dumps(record_obj(["A" * MAX_NAME_CHARS, "Bé", "猫", "D e"]))).players is not None
    for bad, why in (
        ("x" * (MAX_NAME_CHARS + 1), f"at most {MAX_NAME_CHARS}"),
        ("\ud800", "U+D800"),
        ("a\x00b", "U+0000"),
        ("\x1b[2J", "U+001B"),
    ):
        text = json.dumps(record_obj(["Ann", bad, "Cat", "Dan"]))  # json.dumps escapes the surrogate: valid JSON
        with pytest.raises(RecordError, match=r"'players'\[1\]") as info:
            loads_record(text)
        assert why in str(info.value)


def test_size_cap_on_text_bytes_and_streams() -> None:
    obj = record_obj()
    obj["comment"] = "x" * MAX_RECORD_BYTES
    big = json.dumps(obj)
    with pytest.raises(RecordError, match=f"larger than {MAX_RECORD_BYTES} bytes"):
        loads_record(big)
    with pytest.raises(RecordError, match="larger than"):
        loads_record(big.encode())
    with pytest.raises(RecordError, match="larger than"):
        loads_record("é" * (MAX_RECORD_BYTES // 2 + 1))  # few characters, too many bytes

    class Endless(io.RawIOBase):
        """/dev/zero as a stream that counts what was read from it."""

        read_total = 0

        def readable(self) -> bool:
            return True

        def readinto(self, b: Any) -> int:
            n = len(b)
            b[:n] = b"\0" * n
            Endless.read_total += n
            return n

    with pytest.raises(RecordError, match="larger than"):
        read_record(io.BufferedReader(Endless()), source="zero")
    assert Endless.read_total < 2 * MAX_RECORD_BYTES
    assert read_record(io.StringIO(dumps_record(record_from_game(Game.new(3, seed=1))))).seats == 3
    with pytest.raises(RecordError, match="not UTF-8"):
        read_record(io.BytesIO(b'{"format": "\xff"}'), source="b")


def _replay(*args: str, stdin: str | bytes | None = None) -> Any:
    return CliRunner().invoke(app, ["replay", *args], input=stdin)


def test_replay_dev_zero_is_refused_without_reading_it_whole() -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    t0 = time.process_time()  # CPU time: reading up to the cap costs little however busy the machine
    result = _replay("/dev/zero")
    assert result.exit_code == 2
    assert f"/dev/zero: larger than {MAX_RECORD_BYTES} bytes" in result.stderr
    assert time.process_time() - t0 < 5


def test_replay_with_surrogates_and_long_names_never_crashes(tmp_path: Path) -> None:
    obj = record_obj(["Ann", "\ud800", "Cat", "Dan"])
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(obj))  # ASCII JSON with a \ud800 escape, as a browser or tool may write
    result = _replay(str(path))
    assert result.exit_code == 2 and "U+D800" in result.stderr and "Traceback" not in result.output
    big = record_obj(["x" * 2_000_000] * 4)  # five 2 MiB names made 3.5 GB of output before
    path2 = tmp_path / "big.json"
    path2.write_text(json.dumps(big))
    result = _replay(str(path2))
    assert result.exit_code == 2 and "larger than" in result.stderr and len(result.output) < 1000
    result = _replay("-", stdin=b'{"seats": 4}')
    assert result.exit_code == 2 and 'no "format" key' in result.stderr


def test_replay_file_name_with_surrogate_escape_prints(tmp_path: Path) -> None:
    """A real process, with a file name that is not UTF-8 (it reaches Python as a lone surrogate)."""
    name = os.fsencode(str(tmp_path)) + b"/bad\xff.json"
    with open(name, "wb") as f:
        f.write(b"{}")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    proc = subprocess.run(
        [sys.executable, "-m", "catsack.cli", "replay", name], capture_output=True, env=env, timeout=60
    )
    assert proc.returncode == 2, proc.stderr
    assert b"Traceback" not in proc.stderr and b"bad\\udcff.json" in proc.stderr


def test_capped_lines_drop_the_rest_of_a_long_line() -> None:
    stream = io.StringIO("x" * (3 * MAX_LINE) + "\n" + '{"type": "ok"}\n')
    lines = list(_capped_lines(stream))
    assert len(lines) == 2 and len(lines[0]) == MAX_LINE + 1 and lines[1] == '{"type": "ok"}\n'


def test_a_bot_that_writes_an_endless_line_gets_a_fallback(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The program writes 50 MB without a newline: memory stays bounded and the move is a fallback."""
    path = tmp_path / "flood.py"
    path.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'protocol': 'catsack-bot/1', 'name': 'flood'}), flush=True)\n"
        "    elif msg['type'] == 'move':\n"
        "        chunk = 'x' * 65536\n"
        "        for _ in range(800):\n"
        "            sys.stdout.write(chunk)\n"
        "        sys.stdout.write('\\n')\n"
        "        print(json.dumps({'type': 'move', 'id': msg['id'], 'move': 'pass'}), flush=True)\n"
    )
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    bot = ExternalBot(f"{shlex.quote(sys.executable)} {shlex.quote(str(path))}", seed=1, time_limit=30.0)
    game = Game.new(4, seed=4)
    try:
        bot.reset(0, 4)
        while game.to_move != 0:
            game.play(game.legal_moves()[0])
        with caplog.at_level(logging.WARNING, logger="catsack.protocol.external"):
            bot.choose(game.view(0))
        assert "longer than the limit" in caplog.text
    finally:
        bot.close()
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 20_000  # 50 MB never held at once
