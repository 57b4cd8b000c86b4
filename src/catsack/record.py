"""``catsack/1`` game records: read, write, replay, redact (docs/records.md; rules in docs/rules.md).

Records are read from and written to text streams the caller owns; this
module opens no files. A record is JSON: setup plus moves, so it fixes a game
completely. Unknown keys are kept in :attr:`Record.extra` and written back.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from catsack.cards import Card, parse_card
from catsack.errors import CatsackError, RecordError
from catsack.game import Game
from catsack.moves import parse_move
from catsack.setup import SEAT_COUNTS, Setup
from catsack.view import HIDDEN_PLACE

__all__ = [
    "FORMAT",
    "MAX_NAME_CHARS",
    "MAX_RECORD_BYTES",
    "Record",
    "cards_of",
    "dumps_record",
    "loads_record",
    "read_record",
    "record_from_game",
    "record_from_obj",
    "redact",
    "write_record",
]

FORMAT = "catsack/1"
_KNOWN_KEYS = frozenset({"format", "seats", "players", "start", "removed", "dummy", "moves", "redacted_for"})
_MAX_MOVES = 2000  # far above any real game (at most ~9 * (5 + 2 * 108) moves); guards memory
#: Largest record text accepted, in bytes of UTF-8 (a whole 5-seat game is about 6 KiB). Readers
#: stop reading past it, so a huge file (or ``/dev/zero``) is refused without being read whole.
MAX_RECORD_BYTES = 256 * 1024
#: Longest player name in a record: names are for display, and a narrative repeats them on every line.
MAX_NAME_CHARS = 64


@dataclass
class Record:
    """A parsed record. ``removed``/``dummy`` entries are ``None`` only in redacted records."""

    seats: int
    start: int
    removed: list[Card | None]
    moves: list[str]
    dummy: list[Card | None] = field(default_factory=list)
    players: list[str] | None = None
    redacted_for: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    source: str | None = None

    @property
    def is_redacted(self) -> bool:
        return self.redacted_for is not None

    def setup(self) -> Setup:
        """The record's setup; raises :class:`~catsack.errors.RecordError` if it breaks R4–R9 or is redacted."""
        if self.is_redacted:
            raise self._error("a redacted record hides part of the setup and cannot be replayed")
        try:
            return Setup(
                self.seats,
                self.start,
                tuple(c for c in self.removed if c is not None),
                tuple(c for c in self.dummy if c is not None),
            )
        except CatsackError as exc:
            raise self._error(f"bad setup: {exc}") from exc

    def to_game(self, *, upto: int | None = None, events: bool = False) -> Game:
        """Replay the record (or its first ``upto`` moves) into a :class:`~catsack.game.Game`.

        An illegal move raises :class:`~catsack.errors.RecordError` naming the move number
        (1-based), the seat and the reason.
        """
        game = Game(self.setup(), events=events)
        for i, text in enumerate(self.moves[:upto]):
            seat = game.to_move
            try:
                game.play(text)
            except CatsackError as exc:
                reason = getattr(exc, "reason", None) or str(exc)
                who = "no seat (the game is over)" if seat is None else f"seat {seat}"
                raise RecordError(
                    f"{self.source or '<record>'}: move {i + 1} ({who}): {text!r}: {reason}",
                    source=self.source,
                    move_number=i + 1,
                    seat=seat,
                    reason=reason,
                ) from exc
        return game

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"format": FORMAT, "seats": self.seats}
        if self.players is not None:
            out["players"] = list(self.players)
        out["start"] = self.start
        out["removed"] = [None if c is None else c.token for c in self.removed]
        if self.seats == 3:
            out["dummy"] = [None if c is None else c.token for c in self.dummy]
        if self.redacted_for is not None:
            out["redacted_for"] = self.redacted_for
        out["moves"] = list(self.moves)
        for k, v in self.extra.items():
            out.setdefault(k, v)
        return out

    def _error(self, reason: str) -> RecordError:
        return RecordError(f"{self.source or '<record>'}: {reason}", source=self.source, reason=reason)


def _fail(source: str | None, reason: str) -> RecordError:
    return RecordError(f"{source or '<record>'}: {reason}", source=source, reason=reason)


def _card_list(value: object, key: str, source: str | None, allow_hidden: bool) -> list[Card | None]:
    if not isinstance(value, list):
        raise _fail(source, f"'{key}' must be a list of card tokens, not {type(value).__name__}")
    out: list[Card | None] = []
    for i, tok in enumerate(value):
        if tok is None and allow_hidden:
            out.append(None)
            continue
        try:
            out.append(parse_card(tok))
        except CatsackError:
            raise _fail(source, f"'{key}'[{i}] is not a card token: {tok!r}") from None
    return out


def record_from_obj(obj: object, source: str | None = None) -> Record:
    """Validate a decoded JSON value as a record (structure only; moves are checked on replay)."""
    if not isinstance(obj, dict):
        raise _fail(source, f"a record must be a JSON object, not {type(obj).__name__}")
    if "format" not in obj:
        raise _fail(source, f'not a catsack record: no "format" key (a record begins {{"format": "{FORMAT}", …}})')
    fmt = obj["format"]
    if fmt != FORMAT:
        raise _fail(source, f"'format' must be {FORMAT!r}, not {fmt!r}")
    players = obj.get("players")
    if players is not None and (not isinstance(players, list) or not all(isinstance(p, str) for p in players)):
        raise _fail(source, "'players' must be a list of names")
    for i, name in enumerate(players or ()):
        _check_name(name, i, source)
    seats = obj.get("seats", len(players) if players is not None else None)
    if type(seats) is not int or seats not in SEAT_COUNTS:
        raise _fail(source, f"'seats' must be 3, 4 or 5 (R4), not {seats!r}")
    if players is not None and len(players) != seats:
        raise _fail(source, f"'players' names {len(players)} players but 'seats' is {seats}")
    start = obj.get("start")
    if type(start) is not int or not 0 <= start < seats:
        raise _fail(source, f"'start' must be a seat from 0 to {seats - 1}, not {start!r}")
    redacted_for = obj.get("redacted_for")
    if redacted_for is not None and (type(redacted_for) is not int or not 0 <= redacted_for < seats):
        raise _fail(source, f"'redacted_for' must be a seat from 0 to {seats - 1}, not {redacted_for!r}")
    hidden_ok = redacted_for is not None
    removed = _card_list(obj.get("removed"), "removed", source, hidden_ok)
    if len(removed) != seats:
        raise _fail(source, f"'removed' must list one card per seat ({seats}), got {len(removed)}")
    dummy: list[Card | None] = []
    if seats == 3:
        if "dummy" not in obj:
            raise _fail(source, "a 3-seat record needs 'dummy', the dummy deck's 9 cards top first (R8)")
        dummy = _card_list(obj["dummy"], "dummy", source, hidden_ok)
        if len(dummy) != 9:
            raise _fail(source, f"'dummy' must list 9 cards (R8), got {len(dummy)}")
    elif "dummy" in obj and obj["dummy"] not in (None, []):
        raise _fail(source, f"only a 3-seat record has a 'dummy' deck, but this one has {seats} seats")
    moves = obj.get("moves", [])
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise _fail(source, "'moves' must be a list of move texts such as 'place +11', 'bid 3', 'pass'")
    if len(moves) > _MAX_MOVES:
        raise _fail(source, f"'moves' has {len(moves)} entries, more than any game can have")
    for i, m in enumerate(moves):
        if hidden_ok and m == HIDDEN_PLACE:
            continue
        try:
            parse_move(m)
        except CatsackError as exc:
            raise RecordError(
                f"{source or '<record>'}: move {i + 1}: {exc}", source=source, move_number=i + 1, reason=str(exc)
            ) from None
    extra = {k: v for k, v in obj.items() if k not in _KNOWN_KEYS}
    return Record(seats, start, removed, list(moves), dummy, players, redacted_for, extra, source)


def _check_name(name: str, i: int, source: str | None) -> None:
    if len(name) > MAX_NAME_CHARS:
        raise _fail(source, f"'players'[{i}] is {len(name)} characters long; a name has at most {MAX_NAME_CHARS}")
    bad = next((ch for ch in name if not ch.isprintable()), None)
    if bad is not None:  # control characters, NUL, and lone surrogates (which no text file can even hold)
        raise _fail(source, f"'players'[{i}] holds a character that is not printable text (U+{ord(bad):04X})")


def _check_size(size: int, source: str | None) -> None:
    if size > MAX_RECORD_BYTES:
        raise _fail(source, f"larger than {MAX_RECORD_BYTES} bytes, the most a record may be; not read")


def loads_record(text: str | bytes, source: str | None = None) -> Record:
    """Parse a record from JSON text of at most :data:`MAX_RECORD_BYTES` bytes."""
    _check_size(len(text), source)  # characters: a lower bound of the bytes, and free
    if isinstance(text, str):
        _check_size(len(text.encode("utf-8", "surrogatepass")), source)
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:  # includes JSONDecodeError and int digit limits
        raise _fail(source, f"not valid JSON: {exc}") from None
    return record_from_obj(obj, source)


def read_record(stream: IO[str] | IO[bytes], source: str | None = None) -> Record:
    """Read one record from a stream the caller owns (text, or bytes in UTF-8), reading at most
    :data:`MAX_RECORD_BYTES` + 1 characters: a longer stream is refused unread."""
    if source is None:
        source = getattr(stream, "name", None)
    data = stream.read(MAX_RECORD_BYTES + 1)
    _check_size(len(data), source)
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(source, f"not UTF-8 text (byte {exc.start})") from None
    return loads_record(data, source)


def dumps_record(record: Record, *, indent: int | None = 2) -> str:
    return json.dumps(record.to_dict(), indent=indent, ensure_ascii=False)


def write_record(record: Record, stream: IO[str], *, indent: int | None = 2) -> None:
    """Write ``record`` as JSON (plus a newline) to a text stream the caller owns."""
    stream.write(dumps_record(record, indent=indent))
    stream.write("\n")


def record_from_game(game: Game, players: Iterable[str] | None = None, **extra: Any) -> Record:
    """The full record of ``game`` so far; ``extra`` keys (dates, ratings…) are kept."""
    st = game.setup
    return Record(
        seats=st.seats,
        start=st.start,
        removed=list(st.removed),
        moves=[m.text for m in game.moves],
        dummy=list(st.dummy),
        players=None if players is None else list(players),
        extra=dict(extra),
    )


def redact(game: Game, seat: int, players: Iterable[str] | None = None, **extra: Any) -> Record:
    """A record for sharing with ``seat``'s knowledge only (R23).

    Other seats' removed cards become ``null``, placements the seat never saw
    become ``"place ?"``, and with 3 seats the dummy's unseen cards ``null``.
    The result is what ``seat`` could write down at the table.
    """
    view = game.view(seat)
    st = game.setup
    removed: list[Card | None] = [c if i == seat else None for i, c in enumerate(st.removed)]
    dummy: list[Card | None] = []
    if st.seats == 3:
        seen = len(view.rounds) + (1 if (not view.is_over and view.row and view.row[0].face_up) else 0)
        dummy = [c if i < seen else None for i, c in enumerate(st.dummy)]
    return Record(
        seats=st.seats,
        start=st.start,
        removed=removed,
        moves=[text for _, text in view.history],
        dummy=dummy,
        players=None if players is None else list(players),
        redacted_for=seat,
        extra=dict(extra),
    )


def cards_of(tokens: Iterable[str]) -> list[Card]:
    """Parse a list of tokens (helper for callers building records by hand)."""
    return [parse_card(t) for t in tokens]
