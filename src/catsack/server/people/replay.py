"""Replay data: a game's frames move by move, from one perspective, for the replay page.

A perspective is a seat (that seat's view at every ply, exactly what it was
shown while playing: R23) or ``"all"`` (every card: placed cards face up or
down, each seat's hand and removed card, the 3-seat dummy deck). ``"all"`` is
only ever built for finished games and full records a person uploaded; the
routes decide who may ask for what.

Frames are :meth:`catsack.view.View.to_dict` dicts without their ``history``
(the payload carries the perspective's move list once), so the page draws them
with the same components as live play.
"""

from __future__ import annotations

from typing import Any

from catsack.cards import CARDS
from catsack.game import Game
from catsack.record import Record
from catsack.view import round_to_dict

__all__ = ["ALL", "FORMAT", "Perspective", "available_perspectives", "everything_frame", "replay_payload"]

FORMAT = "catsack-replay/1"
#: The perspective that shows every card.
ALL = "all"

Perspective = int | str


def everything_frame(game: Game) -> dict[str, Any]:
    """The public view with every hidden card filled in: for finished games only (R23 hides it before)."""
    frame = game.public_view(show_money=True).to_dict()
    frame.pop("history", None)
    row, owners, up = game.row, game.row_owners, game.face_up
    frame["row"] = [
        {"owner": owners[i], "card": row[i].token, "face_up": i < up or game.is_over} for i in range(len(row))
    ]
    setup = game.setup
    frame["hands"] = [[c.token for c in game.hand(s)] for s in range(game.seats)]
    frame["removed_all"] = [c.token for c in setup.removed]
    if game.seats == 3:
        # R8: the dummy's round-r card leads round r's row; what is left is the deck, top first.
        left = [] if game.is_over else list(setup.dummy[game.round :])
        frame["dummy_deck"] = [c.token for c in left]
        frame["dummy_removed"] = next(c.token for c in CARDS if c not in setup.dummy)
    return frame


def _seat_frame(game: Game, seat: int, money_visible: bool) -> dict[str, Any]:
    frame = game.view(seat, show_money=money_visible).to_dict()
    frame.pop("history", None)
    return frame


def available_perspectives(seats: int, *, full: bool, only: int | None = None) -> list[Perspective]:
    """The perspectives a requester may open: ``only`` its own seat, else every seat, plus ``"all"`` if ``full``."""
    if only is not None:
        return [only]
    out: list[Perspective] = [ALL] if full else []
    return out + list(range(seats))


def replay_payload(
    game: Game,
    perspective: Perspective,
    *,
    names: list[str],
    money_visible: bool,
    perspectives: list[Perspective],
    table: str | None = None,
    title: str = "",
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every frame of ``game`` (ply 0 to the end) from ``perspective``, with the move list, the
    round list, the rounds' results and a per-round score chart.

    ``game`` must hold the whole game (a full record's replay, or a redacted record filled in
    consistently by :func:`catsack.advice.analysis.game_for_seat`): a seat's frames use nothing
    but that seat's views, so whatever was filled in never shows.
    """
    everything = perspective == ALL
    replay = Game(game.setup)
    frames: list[dict[str, Any]] = []

    def frame_now() -> dict[str, Any]:
        if everything:
            return everything_frame(replay)
        assert isinstance(perspective, int)
        return _seat_frame(replay, perspective, money_visible)

    frames.append(frame_now())
    for move in game.moves:
        replay.play(move)
        frames.append(frame_now())
    final_view = replay.public_view() if everything else replay.view(int(perspective))
    if everything:
        moves = [[seat, text] for seat, text in _seats_of(game)]
    else:
        moves = [[s, t] for s, t in final_view.history]
    round_starts: list[int] = []
    for ply, f in enumerate(frames):
        if f["phase"] != "over" and len(round_starts) < f["round"]:
            round_starts.append(ply)
    chart = _chart(frames)
    return {
        "format": FORMAT,
        "table": table,
        "title": title,
        "seats": game.seats,
        "names": names,
        "perspective": perspective,
        "perspectives": perspectives,
        "over": game.is_over,
        "plies": len(frames) - 1,
        "moves": moves,
        "round_starts": round_starts,
        "rounds": [round_to_dict(r) for r in final_view.rounds],
        "chart": chart,
        "frames": frames,
        **(extra or {}),
    }


def _seats_of(game: Game) -> list[tuple[int, str]]:
    replay = Game(game.setup)
    out = []
    for move in game.moves:
        seat = replay.to_move
        assert seat is not None
        out.append((seat, move.text))
        replay.play(move)
    return out


def _chart(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each seat's cats, money and score (cats + mice, R21) at the start and after every round,
    read from the perspective's own frames: money the perspective may not see stays ``null``."""
    out: list[dict[str, Any]] = []
    seen = -1
    for f in frames:
        done = len(f["rounds"])
        if done == seen:
            continue
        seen = done
        money = f["money"]
        cats = f["cat_points"]
        out.append(
            {
                "round": done,
                "cats": list(cats),
                "money": list(money),
                "score": [None if m is None else c + m for c, m in zip(cats, money, strict=True)],
            }
        )
    return out


def record_game(record: Record) -> tuple[Game, int | None]:
    """The whole game of a record and the only seat it may be shown to (``None``: a full record).

    A redacted record is filled in consistently for its seat (what it hides never shows in
    that seat's frames). Raises :class:`catsack.errors.CatsackError` subclasses with the
    loader's message for a bad record.
    """
    if record.is_redacted:
        from catsack.advice.analysis import game_for_seat

        seat = record.redacted_for
        assert seat is not None
        return game_for_seat(record, seat), seat
    return record.to_game(), None
