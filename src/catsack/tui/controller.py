"""The game behind the terminal UI: one :class:`~catsack.game.Game`, one human seat, bots for the rest.

The controller is the only owner of game state. The UI asks it for the human
seat's view (R23; other seats' money only with the R24 option), hands it the
human's input as move text, and lets it play the bots' moves; every move
returns the plain-words log lines of what it caused (R10–R22 events narrated
by :func:`catsack.narrative.describe_event`). Everything it says is in the player's
language (``lang``, one of :data:`catsack.locales.LANGUAGES`: the messages of
:mod:`catsack.i18n`). Nothing here imports Textual.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from catsack.bots.base import Bot, make_bot
from catsack.errors import CatsackError
from catsack.events import Bought, DogChase, DogsCancel, Event, GameOver, Passed, Revealed, RoundStarted, RoundVoid
from catsack.game import Game
from catsack.i18n import translations
from catsack.locales import DEFAULT_LANGUAGE
from catsack.moves import Move, parse_move
from catsack.narrative import Translations, card_label, is_you, narrate_event
from catsack.record import read_record, record_from_game
from catsack.tui.storage import replace_record, save_record
from catsack.view import View

__all__ = [
    "BOT_NAMES",
    "Hint",
    "InputError",
    "LogLine",
    "PlayController",
    "UniformFallbackBot",
    "default_bot_spec",
    "parse_bot_list",
]

BOT_NAMES = ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay")

# Events worth a highlight: what turns cards up, pays mice or moves cards (R11, R13, R14, R16–R19).
_HIGHLIGHT = (Revealed, Passed, DogChase, DogsCancel, Bought, RoundVoid, GameOver)


class InputError(ValueError):
    """Human input that cannot be played now; the message says why and what is allowed."""


@dataclass(frozen=True, slots=True)
class LogLine:
    """One narrated event; ``highlight`` marks reveals, payouts, dog chases and purchases."""

    text: str
    highlight: bool = False
    round_end: bool = False


@dataclass(frozen=True, slots=True)
class Hint:
    """What the hint key shows: a suggestion (when the analysis API is there) and row beliefs.

    ``noise`` is each value's standard error, ``equal`` the moves as good as the best within it (the best
    first), ``sentences`` the analysis's sentences per language (:func:`catsack.advice.explain.render_all`),
    as the browser's hint panel shows them.
    """

    best: str | None
    values: dict[str, float]
    beliefs: list[dict[str, float] | None]
    note: str = ""
    noise: dict[str, float] = field(default_factory=dict)
    equal: list[str] = field(default_factory=list)
    sentences: dict[str, list[str]] = field(default_factory=dict)


class UniformFallbackBot(Bot):
    """Stand-in opponent choosing uniformly from ``view.legal``; used only when no registry bot loads."""

    name = "fallback-uniform"

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View) -> Move:
        return self._rng.choice(view.legal)


def _bot_kind_available(kind: str) -> bool:
    from catsack.bots.base import BOT_KINDS

    target = BOT_KINDS.get(kind)
    if target is None:
        return False
    try:
        return importlib.util.find_spec(target.partition(":")[0]) is not None
    except (ImportError, ValueError):
        return False


def default_bot_spec() -> str | None:
    """The opponents used when none are named: ``heuristic``, else ``random``, else ``None`` (fallback)."""
    for kind in ("heuristic", "random"):
        if _bot_kind_available(kind):
            return kind
    return None


def parse_bot_list(text: str | None, opponents: int) -> list[str | None]:
    """Split ``--bots`` (comma-separated specs) into one spec per opponent; ``None`` means the default.

    One spec is repeated for every opponent; otherwise exactly ``opponents`` are needed.
    """
    if text is None or not text.strip():
        return [None] * opponents
    specs: list[str | None] = [s.strip() for s in text.split(",")]
    if any(not s for s in specs):
        raise InputError(f"--bots has an empty entry: {text!r} (write specs such as 'heuristic,expert:normal')")
    if len(specs) == 1:
        return [specs[0]] * opponents
    if len(specs) != opponents:
        raise InputError(f"--bots names {len(specs)} bots but this table has {opponents} opponents (or name just one)")
    return list(specs)


def _bot_seed(seed: int, seat: int) -> int:
    # Distinct, reproducible seeds per seat, independent of the deal's stream.
    return (seed * 7919 + 104729 * (seat + 1)) % (2**31)


@dataclass
class PlayController:
    """Owns the game; the UI only reads views from it and sends it the human's moves."""

    game: Game
    names: list[str]
    human: int
    bots: dict[int, Bot]
    show_money: bool = False
    seed: int | None = None
    specs: dict[int, str] = field(default_factory=dict)
    saved_path: Path | None = None
    save_error: str | None = None
    data_dir: Path | None = None
    resumed_from: Path | None = None
    resumed_moves: int = 0  # moves already in the resumed file: nothing new to save until one more
    resume_in_place: bool = False  # the resumed file is catsack play's own: the game goes on in that file
    lang: str = DEFAULT_LANGUAGE  # the player's language (catsack.locales.LANGUAGES)

    @property
    def t(self) -> Translations:
        """The messages in the player's language."""
        return translations(self.lang)

    @classmethod
    def new(
        cls,
        *,
        seats: int = 4,
        seat: int = 0,
        bots: Sequence[str | None] | str | None = None,
        seed: int | None = None,
        name: str | None = None,
        show_money: bool = False,
        data_dir: Path | None = None,
        lang: str = DEFAULT_LANGUAGE,
    ) -> PlayController:
        """Deal a game (R4–R9) and make the opponents; raises ``ValueError`` subclasses on bad options.
        Without a ``name`` the player is called "You" in ``lang``, and the log speaks to them."""
        if seats not in (3, 4, 5):
            raise InputError(f"--seats must be 3, 4 or 5 (R4), not {seats}")
        if not 0 <= seat < seats:
            # The message speaks of --seat, counted from 1 as people count seats (R4); ``seat`` is an index.
            raise InputError(f"--seat must be from 1 to {seats} for {seats} seats, not {seat + 1}")
        name = (name or "").strip() or translations(lang).gettext("You")
        if seed is None:
            # A concrete seed is recorded so the game can be dealt again.
            seed = random.SystemRandom().randrange(2**31)
        specs = parse_bot_list(bots, seats - 1) if bots is None or isinstance(bots, str) else list(bots)
        if len(specs) != seats - 1:
            raise InputError(f"{len(specs)} bots given for {seats - 1} opponents")
        game = Game.new(seats, seed=seed, events=True)
        others = [n for n in BOT_NAMES if n.lower() != name.lower()]
        names: list[str] = []
        made: dict[int, Bot] = {}
        used: dict[int, str] = {}
        default = default_bot_spec()
        k = 0
        try:
            for s in range(seats):
                if s == seat:
                    names.append(name)
                    continue
                spec = specs[k] if specs[k] is not None else default
                k += 1
                bot: Bot = (
                    UniformFallbackBot(seed=_bot_seed(seed, s))
                    if spec is None
                    else make_bot(spec, seed=_bot_seed(seed, s))
                )
                bot.reset(s, seats)
                made[s] = bot
                used[s] = bot.name
                names.append(others[len(names) - (1 if len(names) > seat else 0)])
        except BaseException:
            for b in made.values():
                b.close()
            raise
        for b in made.values():
            b.meet([used.get(s) for s in range(seats)])  # the bots' specs are public; the person's seat is None
        return cls(game, names, seat, made, show_money, seed, used, data_dir=data_dir, lang=lang)

    @classmethod
    def resume(
        cls,
        path: Path,
        *,
        seat: int | None = None,
        bots: Sequence[str | None] | str | None = None,
        show_money: bool = False,
        data_dir: Path | None = None,
        lang: str = DEFAULT_LANGUAGE,
    ) -> PlayController:
        """Continue a game saved by ``catsack play`` (or any unfinished ``catsack/1`` record).

        The record says whose seat was human (``human_seat``), who the opponents were
        (``agents``) and the seed; ``seat`` and ``bots`` stand in where it does not, or
        replace them. Raises :class:`InputError` naming the file and what is wrong.
        """
        try:
            with Path(path).open("rb") as stream:  # read through the record size cap (/dev/zero is refused)
                record = read_record(stream, source=str(path))
            game = record.to_game(events=True)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
        except CatsackError as exc:
            raise InputError(str(exc)) from None
        if game.is_over:
            raise InputError(f"the game in {path} is already over; `catsack replay {path}` shows it")
        extra = record.extra
        human = extra.get("human_seat") if seat is None else seat
        if not isinstance(human, int) or not 0 <= human < game.seats:
            raise InputError(
                f"{path} does not say which seat was yours: add --seat (1 to {game.seats})"
                if human is None
                else f"--seat must be from 1 to {game.seats} for this {game.seats}-seat game, not {human + 1}"
                if isinstance(human, int)
                else f"{path} names no seat as yours ({human!r}): add --seat (1 to {game.seats})"
            )
        seed = extra.get("seed")
        if not isinstance(seed, int):
            seed = random.SystemRandom().randrange(2**31)
        names = (
            list(record.players)
            if record.players
            else [translations(lang).gettext("You") if s == human else BOT_NAMES[s] for s in range(game.seats)]
        )
        opponents = [s for s in range(game.seats) if s != human]
        if bots is not None:
            specs = parse_bot_list(bots, len(opponents)) if isinstance(bots, str) else list(bots)
        else:
            agents = extra.get("agents")
            saved = agents if isinstance(agents, list) and len(agents) == game.seats else [None] * game.seats
            specs = [saved[s] if isinstance(saved[s], str) else None for s in opponents]
        if len(specs) != len(opponents):
            raise InputError(f"{len(specs)} bots given for {len(opponents)} opponents")
        default = default_bot_spec()
        made: dict[int, Bot] = {}
        used: dict[int, str] = {}
        try:
            for s, spec in zip(opponents, specs, strict=True):
                if spec is None or spec == "bot":
                    spec = default
                bot: Bot = (
                    UniformFallbackBot(seed=_bot_seed(seed, s))
                    if spec is None or spec == UniformFallbackBot.name
                    else make_bot(spec, seed=_bot_seed(seed, s))
                )
                bot.reset(s, game.seats)
                made[s] = bot
                used[s] = bot.name
        except BaseException:
            for b in made.values():
                b.close()
            raise
        for b in made.values():
            b.meet([used.get(s) for s in range(game.seats)])
        show = show_money or extra.get("show_money") is True
        ctl = cls(game, names, human, made, show, seed, used, data_dir=data_dir, lang=lang)
        ctl.resumed_from = Path(path)
        ctl.resumed_moves = len(game.moves)
        ctl.resume_in_place = extra.get("source") == "catsack play"  # one file per game, not one per sitting
        return ctl

    # ------------------------------------------------------------------ reading

    def view(self) -> View:
        """The human seat's view (R23, R24)."""
        return self.game.view(self.human, show_money=self.show_money)

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def is_human_turn(self) -> bool:
        return self.game.to_move == self.human

    def bot_to_move(self) -> int | None:
        """The bot seat to move now, or ``None`` (the human's turn or the game is over)."""
        s = self.game.to_move
        return s if s is not None and s in self.bots else None

    def describe(self, event: Event) -> str:
        """One event in words; a human named "You" (in the player's language) is spoken to ("You place")."""
        return narrate_event(event, self.names, self.t)

    def history(self) -> list[LogLine]:
        """The log of the game so far (for a resumed game): every event since the deal, in words."""
        lines = [LogLine(self.describe(RoundStarted(1, self.game.setup.start)))]
        for events in self.game.event_log():
            lines += [self._line(ev) for ev in events]
        return lines

    def label(self, seat: int) -> str:
        """A seat's display name: the human's carries "(you)", a bot's its spec ("Ann (heuristic)")."""
        name = self.names[seat]
        if seat == self.human:
            return name if is_you(name, self.t) else self.t.gettext("{name} (you)").format(name=name)
        spec = self.specs.get(seat)
        return f"{name} ({spec})" if spec else name

    def labels(self) -> list[str]:
        """:meth:`label` of every seat."""
        return [self.label(s) for s in range(self.game.seats)]

    # ------------------------------------------------------------------ moving

    def play_human(self, text: str | Move) -> list[LogLine]:
        """Play the human's move; raise :class:`InputError` with a readable reason if it is not legal now."""
        t = self.t
        if self.game.is_over:
            raise InputError(t.gettext("The game is over."))
        to_move = self.game.to_move
        if to_move != self.human:
            raise InputError(
                t.gettext("It is {name}'s turn, not yours: please wait.").format(name=self.names[to_move or 0])
            )
        try:
            move = text if isinstance(text, Move) else parse_move(text)
        except CatsackError as exc:
            raise InputError(str(exc)) from None
        if move not in self.game.legal_moves():
            raise InputError(self._explain(move))
        return self._apply(move)

    def _explain(self, move: Move) -> str:
        """Why ``move`` is not legal now, and what is (R10, R12, R15)."""
        t = self.t
        view = self.view()
        bids = [m.amount for m in view.legal if m.is_bid]
        if move.is_bid:
            if view.phase == "last choice":
                return t.gettext("Nobody bid: you may only buy the row for 1 mouse or pass, not bid {n}.").format(
                    n=move.amount
                )
            if not bids:
                return t.ngettext(
                    "You cannot bid {n}: your {money} mouse does not beat the high bid {high}; press p to pass.",
                    "You cannot bid {n}: your {money} mice do not beat the high bid {high}; press p to pass.",
                    view.my_money or 0,
                ).format(n=move.amount, money=view.my_money, high=view.high_bid)
            return t.ngettext(
                "You cannot bid {n}: bids go from {low} to {top} now (above the high bid {high}, at most your "
                "{money} mouse).",
                "You cannot bid {n}: bids go from {low} to {top} now (above the high bid {high}, at most your "
                "{money} mice).",
                view.my_money or 0,
            ).format(n=move.amount, low=min(bids), top=max(bids), high=view.high_bid, money=view.my_money)
        if move.is_place:
            if view.phase != "placement":
                return t.gettext("All cards of this round are placed; bid or pass now.")
            return t.gettext("{card} is not in your hand.").format(card=card_label(str(move.card), t))
        return t.gettext("You cannot pass now: place a card first.")

    def bot_choose(self, seat: int) -> Move:
        """Ask ``seat``'s bot for a move from its own view (safe to call from a worker thread)."""
        view = self.game.view(seat, show_money=self.show_money)
        return self.bots[seat].choose(view)

    def play_bot(self, seat: int, move: Move | None, error: str | None = None) -> list[LogLine]:
        """Play a bot's chosen move; a failing or illegal bot plays a uniform legal move instead (logged)."""
        if self.game.to_move != seat:
            return []
        lines: list[LogLine] = []
        legal = self.game.legal_moves()
        if move is None or move not in legal:
            t, name = self.t, self.names[seat]
            if error is not None:
                said = t.gettext("({name}'s bot failed ({error}); it plays a random legal move instead.)")
            else:
                said = t.gettext("({name}'s bot chose the illegal move {move}; it plays a random legal move instead.)")
            lines.append(LogLine(said.format(name=name, error=error, move=move), True))
            move = random.Random(len(self.game.moves)).choice(legal)
        return lines + self._apply(move)

    def _apply(self, move: Move) -> list[LogLine]:
        self.game.play(move)
        events: tuple[Event, ...] = self.game.last_events()
        lines = [self._line(ev) for ev in events]
        if self.game.is_over:
            self.save()
        return lines

    def _line(self, ev: Event) -> LogLine:
        return LogLine(self.describe(ev), isinstance(ev, _HIGHLIGHT), isinstance(ev, Bought | RoundVoid))

    # ------------------------------------------------------------------ hints

    def hint(self, view: View | None = None) -> Hint:
        """The strong analysis of the human's view, or the exact beliefs alone when it is unavailable.

        ``view`` lets a worker thread analyse a view taken on the UI thread.
        """
        from catsack.belief import card_beliefs

        if view is None:
            view = self.view()
        analysis = _import_analysis()
        t = self.t
        if analysis is None:
            note = t.gettext("No suggestion available: the analysis module is not installed.")
            return Hint(None, {}, card_beliefs(view), note)
        if view.to_move != self.human:
            return Hint(None, {}, card_beliefs(view), t.gettext("Suggestions are given on your turn; beliefs only."))
        try:
            players = [None if s == self.human else self.specs.get(s) for s in range(self.game.seats)]
            result = analysis.analyse_view(view, seed=self.seed, players=players)  # the top level, as the server's
            payload = analysis.hint_payload(result)  # what the browser's hint panel shows, sentences included
        except Exception as exc:  # the analysis is optional help: never let it end the game
            note = t.gettext("No suggestion available: the analysis failed ({error}).").format(error=exc)
            return Hint(None, {}, card_beliefs(view), note)
        return Hint(
            str(result.best),
            dict(result.values),
            list(result.beliefs),
            noise=dict(payload["noise"]),
            equal=list(payload["equal"]),
            sentences={lang: list(lines) for lang, lines in payload["sentences"].items()},
        )

    # ------------------------------------------------------------------ saving

    def record_extra(self) -> dict[str, object]:
        agents = ["human" if s == self.human else self.specs.get(s, "bot") for s in range(self.game.seats)]
        return {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "seed": self.seed,
            "agents": agents,
            "human_seat": self.human,
            "show_money": self.show_money,
            "source": "catsack play",
            **(
                {"resumed_from": str(self.resumed_from)}
                if self.resumed_from is not None and not self.resume_in_place
                else {}
            ),
        }

    def save(self) -> Path | None:
        """Save the game so far as a ``catsack/1`` record once; on failure keep the error text."""
        if self.saved_path is not None or len(self.game.moves) <= self.resumed_moves:
            return self.saved_path
        record = record_from_game(self.game, self.names, **self.record_extra())
        stem = datetime.now().strftime("game-%Y%m%d-%H%M%S") + f"-seed{self.seed}"
        try:
            if self.resume_in_place and self.resumed_from is not None:
                self.saved_path = replace_record(record, self.resumed_from)
            else:
                self.saved_path = save_record(record, directory=self.data_dir, stem=stem)
            self.save_error = None
        except OSError as exc:
            self.save_error = self.t.gettext("could not save the game: {error}").format(error=exc)
        return self.saved_path

    def close(self) -> None:
        for bot in self.bots.values():
            with contextlib.suppress(Exception):  # closing is best effort at exit
                bot.close()


def _import_analysis() -> Any:
    """The analysis module, or ``None`` while it is not installed (the bots helper builds it)."""
    try:
        if importlib.util.find_spec("catsack.advice.analysis") is None:
            return None
        return importlib.import_module("catsack.advice.analysis")
    except ImportError:
        return None
