"""A newcomer's first commands: serve, demo, help texts, missing extras, the tournament plot.

Each test failed before its fix.
"""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from catsack.cli import app

runner = CliRunner()


def _help(*command: str) -> str:
    res = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "100"}, terminal_width=100)
    assert res.exit_code == 0, res.output
    return res.output


# ---------------------------------------------------------------------- 2: serve on a taken port


def test_serve_on_a_taken_port_fails_once_before_opening_the_database(tmp_path: Path) -> None:
    """One clear error naming the address; nothing printed as serving, no database file."""
    pytest.importorskip("uvicorn")
    busy = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    db = tmp_path / "catsack.db"
    try:
        res = runner.invoke(
            app,
            ["serve", "--host", "127.0.0.1", "--port", str(port), "--database-url", f"sqlite:///{db}"],
        )
    finally:
        busy.close()
    assert res.exit_code == 2, res.output
    assert f"cannot listen on 127.0.0.1:{port}" in res.output and "already in use" in res.output
    assert "serving at" not in res.output and "server ready" not in res.output
    assert not db.exists()
    assert res.output.count("\n") == 1  # one line, no traceback


def test_listen_socket_names_an_unknown_host() -> None:
    from catsack.commands.serve import listen_socket

    with pytest.raises(OSError, match=r"cannot listen on 192\.0\.2\.1:\d+: this machine has no address"):
        listen_socket("192.0.2.1", 8765)  # TEST-NET-1: never a local address
    sock = listen_socket("127.0.0.1", 0)
    sock.close()


# ---------------------------------------------------------------------- 9: demo pace


def test_demo_is_paced_on_a_terminal_and_instant_with_delay_0(monkeypatch: pytest.MonkeyPatch) -> None:
    """A readable default pace on a terminal, --delay to change it, --delay 0 instant."""
    import catsack.cli as cli

    sleeps: list[float] = []
    monkeypatch.setattr(cli.time, "sleep", sleeps.append)
    monkeypatch.setattr(cli, "_stdout_is_terminal", lambda: True)
    res = runner.invoke(app, ["demo", "--seed", "3", "--bots", "random"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert len(sleeps) >= len(lines) // 2 and min(sleeps) >= 0.2 and max(sleeps) <= 2.0
    assert sum(sleeps) > 20  # a whole game takes a while to watch
    sleeps.clear()
    res = runner.invoke(app, ["demo", "--seed", "3", "--bots", "random", "--delay", "0.05"])
    assert res.exit_code == 0 and sleeps and max(sleeps) <= 0.1 + 1e-9 and min(sleeps) == pytest.approx(0.05)
    sleeps.clear()
    res = runner.invoke(app, ["demo", "--seed", "3", "--bots", "random", "--delay", "0"])
    assert res.exit_code == 0 and sleeps == [] and res.output.splitlines() == lines


def test_demo_into_a_pipe_is_instant(monkeypatch: pytest.MonkeyPatch) -> None:
    import catsack.cli as cli

    sleeps: list[float] = []
    monkeypatch.setattr(cli.time, "sleep", sleeps.append)
    res = runner.invoke(app, ["demo", "--seed", "3", "--bots", "random"])
    assert res.exit_code == 0 and "Game over" in res.output and sleeps == []
    assert "--delay" in _help("demo")


# ---------------------------------------------------------------------- 10: help texts


def test_serve_help_shows_defaults_and_environment() -> None:
    """Before the fix, "Address to listen on ." lost its bracketed defaults to markup."""
    text = " ".join(_help("serve").split())
    for default in ("127.0.0.1", "8000", "sqlite:///catsack.db", "none", "0.8"):
        assert re.search(rf"Default:? {re.escape(default)}\b", text), default
    for env in ("CATSACK_HOST", "CATSACK_PORT", "CATSACK_DATABASE_URL", "CATSACK_REDIS_URL", "CATSACK_BOT_DELAY"):
        assert env in text
    assert " ." not in text


@pytest.mark.parametrize(
    ("command", "flag"),
    [(["play"], "--show-money"), (["tournament"], "--quiet"), (["serve"], "--help"), (["demo"], "--help")],
)
def test_boolean_flags_show_no_value(command: list[str], flag: str) -> None:
    """Flags were listed as taking a value (``--show-money <bool>``)."""
    out = _help(*command)
    assert "<bool>" not in out and "BOOLEAN" not in out
    line = next(line for line in out.splitlines() if flag in line)
    assert re.search(re.escape(flag) + r"\s{2,}\S", line), line  # the flag is followed by its help text


def test_seat_help_says_what_a_seat_is() -> None:
    text = " ".join(_help("play").split())
    assert "left of nobody" not in text
    assert "clockwise" in text and "start player" in text


# ---------------------------------------------------------------------- 11: a missing extra is named


def test_openspiel_bot_without_pyspiel_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """A missing pyspiel ("No module named 'pyspiel'") becomes a hint to install catsack[openspiel]."""
    from catsack.bots.base import BotSpecError, make_bot

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    for name in [m for m in sys.modules if m.startswith(("catsack.envs.openspiel", "open_spiel"))]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(BotSpecError, match=re.escape("pip install 'catsack[openspiel]'")):
        make_bot("openspiel-ismcts")


# ---------------------------------------------------------------------- 12: tournament plot


def _result(specs: list[str], games: int) -> Any:
    from catsack.tournament import TournamentConfig, run_tournament

    return run_tournament(TournamentConfig(specs, games=games, seed=5), resamples=50)


@pytest.mark.slow
def test_plot_labels_keep_the_pool_count_and_clear_the_frame(tmp_path: Path) -> None:
    """Pooled specs lost their "(x3)" and the reference label sat on the axes' top edge."""
    pytest.importorskip("matplotlib")
    from catsack.tournament.plot import draw_win_shares

    result = _result(["heuristic", "random", "random", "random"], 8)
    fig = draw_win_shares(result)
    try:
        ax = fig.axes[0]
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert sorted(labels) == ["heuristic", "random (x3)"]
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        frame = ax.get_window_extent(renderer)
        texts = [*ax.texts, ax.title, ax.xaxis.label, *ax.get_yticklabels(), *ax.get_xticklabels()]
        for spine in ax.spines.values():
            edge = spine.get_window_extent(renderer)
            for text in texts:
                if text.get_text():
                    assert not text.get_window_extent(renderer).overlaps(edge), (text.get_text(), spine)
        page = fig.bbox
        for text in texts:
            box = text.get_window_extent(renderer)
            assert page.x0 <= box.x0 and box.x1 <= page.x1 and page.y0 <= box.y0 and box.y1 <= page.y1, text
        assert "1/4" in ax.get_xlabel() or any("1/4" in t.get_text() for t in ax.texts)
        assert frame.width > 0
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
