"""A bot running as a separate program that speaks ``catsack-bot/1`` over stdin/stdout.

``make_bot("external:python3 my_bot.py")`` starts the command (split like a
POSIX shell would, but run without a shell), shakes hands, and then forwards
each decision to the program as a ``move`` request carrying the seat's view
(R23). The program's stderr is passed to Python logging at DEBUG level.

A misbehaving program never stops a game: when it crashes, times out, or
answers with a malformed or illegal move, the bot plays
:func:`~catsack.protocol.messages.fallback_move` instead and logs the reason
at WARNING level on the ``catsack.protocol.external`` logger. A program that
crashed is restarted at the start of the next game (up to ``max_restarts``
times); one that timed out ``max_timeouts`` times in a row is stopped and
restarted the same way.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import shlex
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterator
from typing import IO, Any, Final

from catsack.bots.base import Bot, BotSpecError
from catsack.moves import Move
from catsack.protocol.messages import (
    MAX_LINE,
    ProtocolError,
    check_hello,
    decode,
    encode,
    fallback_move,
    game_over_message,
    hello_message,
    move_request,
    new_game_message,
    parse_move_answer,
    quit_message,
)
from catsack.view import View

__all__ = ["DEFAULT_HANDSHAKE_TIME", "DEFAULT_TIME_LIMIT", "ExternalBot"]

log = logging.getLogger("catsack.protocol.external")

DEFAULT_TIME_LIMIT: Final = 5.0  # seconds per decision
DEFAULT_HANDSHAKE_TIME: Final = 10.0  # seconds for the program to start and answer hello
_EOF: Final = object()  # the reader thread's mark for a closed stdout


def _engine_name() -> str:
    from catsack import __version__

    return f"catsack {__version__}"


def _capped_lines(stream: IO[str]) -> Iterator[str]:
    """The stream's lines, each read with at most ``MAX_LINE + 1`` characters held: the rest of a
    longer line is read and dropped in pieces, so a program that writes without newlines cannot
    fill memory. A cut line is longer than ``MAX_LINE``: decoding refuses it."""
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith("\n"):
            while True:  # skip to the end of this line
                rest = stream.readline(MAX_LINE)
                if not rest or rest.endswith("\n"):
                    break
        yield line


def _read_lines(stream: IO[str], sink: queue.Queue[object]) -> None:
    try:
        for line in _capped_lines(stream):
            sink.put(line)
    except (OSError, ValueError):
        pass
    sink.put(_EOF)


def _log_stderr(stream: IO[str], name: str, tail: deque[str]) -> None:
    try:
        for line in _capped_lines(stream):
            line = line.rstrip("\n")[:1000]  # a log line, not a transcript
            tail.append(line)
            log.debug("%s stderr: %s", name, line)
    except (OSError, ValueError):
        pass


def _kill(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=2)


class _Process:
    """One running bot program: its pipes, reader threads and the lines it sent."""

    def __init__(self, argv: list[str], name: str) -> None:
        self.proc: subprocess.Popen[str] = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
        # Make sure a program is never left running if the bot is dropped without close().
        self._finalizer = weakref.finalize(self, _kill, self.proc)
        self.lines: queue.Queue[object] = queue.Queue()
        self.stderr_tail: deque[str] = deque(maxlen=5)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        threading.Thread(target=_read_lines, args=(self.proc.stdout, self.lines), daemon=True).start()
        threading.Thread(target=_log_stderr, args=(self.proc.stderr, name, self.stderr_tail), daemon=True).start()

    def send(self, message: dict[str, Any]) -> None:
        """Write one message; raises OSError (BrokenPipeError) if the program has gone."""
        stdin = self.proc.stdin
        assert stdin is not None
        stdin.write(encode(message))
        stdin.flush()

    def receive(self, deadline: float) -> object:
        """The next line, ``_EOF`` once stdout closed, or ``None`` when the deadline passes."""
        try:
            return self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None

    def exit_note(self) -> str:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=0.5)
        code = self.proc.poll()
        note = "still running" if code is None else f"exit code {code}"
        if self.stderr_tail:
            note += "; last stderr: " + " | ".join(self.stderr_tail)
        return note

    def stop(self, grace: float = 1.0) -> None:
        """Ask the program to quit, then kill it if it has not exited after ``grace`` seconds."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError, ValueError):
                self.send(quit_message())
            with contextlib.suppress(OSError, ValueError):
                assert self.proc.stdin is not None
                self.proc.stdin.close()
            try:
                self.proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                _kill(self.proc)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):
                    stream.close()
        self._finalizer.detach()


class ExternalBot(Bot):
    """A bot program speaking ``catsack-bot/1``; spec ``external:<command line>``.

    ``time_limit`` is the time per decision in seconds; the tournament sets it
    from ``--move-time``. ``faults`` counts the fallback moves played so far.
    """

    def __init__(
        self,
        arg: str | None,
        *,
        seed: int | None = None,
        time_limit: float = DEFAULT_TIME_LIMIT,
        handshake_time: float = DEFAULT_HANDSHAKE_TIME,
        max_restarts: int = 3,
        max_timeouts: int = 3,
    ) -> None:
        if not arg or not arg.strip():
            raise BotSpecError("an external bot needs a command line: 'external:python3 my_bot.py'")
        try:
            argv = shlex.split(arg)
        except ValueError as exc:
            raise BotSpecError(f"cannot split the external bot's command line {arg!r}: {exc}") from None
        self.command = arg
        self.argv = argv
        self.name = f"external:{arg}"
        self.seed = seed
        self.time_limit = time_limit
        self.handshake_time = handshake_time
        self.max_restarts = max_restarts
        self.max_timeouts = max_timeouts
        #: Names of the players by seat, sent in ``new_game`` when the runner sets them.
        self.players: list[str] | None = None
        #: The name the program gave in its ``hello`` answer.
        self.program_name = ""
        self.faults = 0
        self.last_fault: str | None = None
        self._restarts = 0
        self._timeouts_in_a_row = 0
        self._next_id = 0
        self._game = 0
        self._seat: int | None = None
        self._in_game = False
        self._proc: _Process | None = None
        # A program that cannot start or shake hands is a configuration error: say so at once.
        self._proc = self._start()

    # ------------------------------------------------------------ process life

    def _start(self) -> _Process:
        try:
            proc = _Process(self.argv, self.name)
        except OSError as exc:
            raise BotSpecError(f"cannot start external bot {self.command!r}: {exc.strerror or exc}") from None
        try:
            proc.send(hello_message(_engine_name()))
            deadline = time.monotonic() + self.handshake_time
            while True:
                line = proc.receive(deadline)
                if line is None:
                    raise ProtocolError(f"no 'hello' answer within {self.handshake_time:g} s")
                if line is _EOF:
                    raise ProtocolError(f"the program ended during the handshake ({proc.exit_note()})")
                assert isinstance(line, str)
                if not line.strip():
                    continue
                message = decode(line)
                if message["type"] == "log":
                    self._log_message(message)
                    continue
                self.program_name = check_hello(message)
                return proc
        except (ProtocolError, OSError) as exc:
            proc.stop(grace=0.2)
            raise BotSpecError(f"external bot {self.command!r} failed the handshake: {exc}") from None

    def _lost(self, why: str) -> None:
        """The program can no longer play this game: stop it, a restart may come at the next game."""
        if self._proc is not None:
            self._proc.stop(grace=0.2)
            self._proc = None
        self._in_game = False
        log.warning("%s: %s", self.name, why)

    def reset(self, seat: int, seats: int) -> None:
        self._seat = seat
        self._in_game = False
        self._timeouts_in_a_row = 0
        self._game += 1
        if self._proc is None and self._restarts < self.max_restarts:
            self._restarts += 1
            try:
                self._proc = self._start()
                log.info("%s: restarted (restart %d of %d)", self.name, self._restarts, self.max_restarts)
            except BotSpecError as exc:
                log.warning("%s: restart failed: %s", self.name, exc)

    def close(self) -> None:
        if self._proc is not None:
            self._proc.stop()
            self._proc = None

    # ------------------------------------------------------------ playing

    def _fault(self, legal: tuple[Move, ...], reason: str) -> Move:
        move = fallback_move(legal)
        self.faults += 1
        self.last_fault = reason
        log.warning("%s: %s; playing fallback move %r", self.name, reason, move.text)
        return move

    def _log_message(self, message: dict[str, Any]) -> None:
        log.info("%s says: %s", self.name, message.get("message", message))

    def choose(self, view: View) -> Move:
        legal = view.legal
        if not legal:
            raise ValueError(f"{self.name}: asked to move with a view that has no legal moves")
        proc = self._proc
        if proc is None:
            return self._fault(legal, "the program is not running")
        try:
            if not self._in_game:
                proc.send(new_game_message(self._game, view, players=self.players, seed=self.seed))
                self._in_game = True
            self._next_id += 1
            request_id = self._next_id
            proc.send(move_request(request_id, self._game, view, self.time_limit))
        except (OSError, ValueError) as exc:
            self._lost(f"crashed ({exc.__class__.__name__}; {proc.exit_note()})")
            return self._fault(legal, "the program crashed")
        deadline = time.monotonic() + self.time_limit
        while True:
            line = proc.receive(deadline)
            if line is None:
                self._timeouts_in_a_row += 1
                if self._timeouts_in_a_row >= self.max_timeouts:
                    self._lost(f"timed out {self._timeouts_in_a_row} times in a row: stopped")
                return self._fault(legal, f"no answer to request {request_id} within {self.time_limit:g} s")
            if line is _EOF:
                self._lost(f"crashed ({proc.exit_note()})")
                return self._fault(legal, "the program crashed")
            assert isinstance(line, str)
            if not line.strip():
                continue
            try:
                message = decode(line)
                if message["type"] == "log":
                    self._log_message(message)
                    continue
                answer_id = message.get("id")
                if message["type"] == "move" and answer_id != request_id:
                    if isinstance(answer_id, int) and answer_id < request_id:
                        # A late answer to a request that already timed out.
                        log.debug("%s: ignoring late answer to request %s", self.name, answer_id)
                        continue
                    raise ProtocolError(f"answer names request {answer_id!r}, expected {request_id}")
                move = parse_move_answer(message, legal)
            except ProtocolError as exc:
                self._timeouts_in_a_row = 0
                return self._fault(legal, f"bad answer to request {request_id}: {exc}")
            self._timeouts_in_a_row = 0
            return move

    def game_over(self, view: View, ranking: tuple[int, ...]) -> None:
        """Tell the program how the game ended (informational; no answer expected)."""
        if self._proc is None or not self._in_game:
            return
        try:
            self._proc.send(game_over_message(self._game, view, ranking))
        except (OSError, ValueError) as exc:
            self._lost(f"crashed at game over ({exc.__class__.__name__})")
        self._in_game = False

    def __repr__(self) -> str:
        state = "running" if self._proc is not None else "stopped"
        return f"<ExternalBot {self.command!r} {state} faults={self.faults}>"
