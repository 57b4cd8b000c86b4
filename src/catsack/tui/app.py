"""The Textual application for ``catsack play``: a board screen, a hint panel and an end screen.

Widgets hold no game state: after every move the screen asks the
:class:`~catsack.tui.controller.PlayController` for the human seat's view and
redraws each part from it (:mod:`catsack.tui.render`). The only UI state is
input in progress: the selected hand card and the bid being typed.

Everything is said in the controller's language (``catsack play --lang``, else the terminal's locale:
:func:`terminal_language`), keys' descriptions in the footer too (:func:`in_language`).
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, RichLog, Static

from catsack.events import GameOver, RoundStarted
from catsack.i18n import translations
from catsack.locales import DEFAULT_LANGUAGE, negotiate
from catsack.narrative import ENGLISH, Translations, card_label
from catsack.tui import render
from catsack.tui.controller import InputError, LogLine, PlayController

__all__ = [
    "ConfirmQuitScreen",
    "EndScreen",
    "GameScreen",
    "HintScreen",
    "PlayApp",
    "RulesScreen",
    "in_language",
    "screen_text",
    "terminal_language",
]

_FLASH_SECONDS = 1.5
_BindingList = list[Binding | tuple[str, str] | tuple[str, str, str]]
S = TypeVar("S", bound=Screen[Any])


@functools.cache
def in_language(screen: type[S], lang: str) -> type[S]:
    """``screen`` with its keys described in ``lang`` (Textual reads a screen's bindings from its class)."""
    if lang == DEFAULT_LANGUAGE:
        return screen
    keys: _BindingList = screen.bindings(translations(lang))  # type: ignore[attr-defined]
    return type(screen.__name__, (screen,), {"BINDINGS": keys, "__doc__": screen.__doc__})


class GameScreen(Screen[None]):
    """The board: status, seats, row, mouse cards, hand, prompt, message, latest event and the log."""

    @staticmethod
    def bindings(t: Translations) -> _BindingList:
        return [
            Binding("1", "digit(1)", t.gettext("card/amount"), key_display="1-9"),
            *(Binding(str(d), f"digit({d})", "digit", show=False) for d in (2, 3, 4, 5, 6, 7, 8, 9, 0)),
            Binding("left", "cursor(-1)", t.gettext("card"), key_display="←→"),
            Binding("right", "cursor(1)", "card", show=False),
            Binding("enter", "confirm", t.gettext("place/bid"), key_display="⏎"),
            Binding("plus,equals_sign,up", "step(1)", t.gettext("bid±"), key_display="+/-"),
            Binding("minus,down", "step(-1)", "bid -1", show=False),
            Binding("backspace", "erase", "erase digit", show=False),
            Binding("p", "pass_move", t.gettext("pass")),
            Binding("h", "hint", t.gettext("hint")),
            Binding("question_mark", "rules", t.gettext("rules"), key_display="?"),
            Binding("r", "results", "results", show=False),
            Binding("q", "quit_game", t.gettext("quit")),
        ]

    BINDINGS: ClassVar[_BindingList] = bindings(ENGLISH)

    def __init__(self, controller: PlayController, delay: float) -> None:
        super().__init__()
        self.controller = controller
        self.delay = delay
        self.selected = 0
        self.bid_digits = ""  # the bid being entered; "" means "the lowest legal bid"
        self.typing = False  # digits append while typing; after +/- the next digit starts afresh
        self._flash_timer: object | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        yield Static(id="players")
        yield Static(id="row")
        yield Static(id="mice")
        yield Static(id="hand")
        yield Static(id="prompt")
        yield Static(id="message")
        yield Static(id="banner")
        log = RichLog(id="log", wrap=True, markup=False, highlight=False, min_width=20)
        log.can_focus = False  # arrows and Enter belong to the game, not to scrolling
        yield log
        yield Footer(compact=True)

    def on_mount(self) -> None:
        ctl = self.controller
        t = ctl.t
        names = ctl.names
        labels = ", ".join(ctl.label(s) for s in range(len(names)))
        self.log_widget.write(Text(t.gettext("{n} players: {names}.").format(n=len(names), names=labels)))
        if ctl.resumed_from is not None:
            for line in ctl.history():
                self.log_widget.write(Text(("* " if line.highlight else "  ") + line.text))
            self.log_widget.write(Text(t.gettext("Resumed from {file}.").format(file=ctl.resumed_from), style="bold"))
        else:
            self.log_widget.write(Text(t.gettext("New to the game? Press ? for how to play.")))
            self.log_widget.write(Text(ctl.describe(RoundStarted(1, ctl.game.setup.start))))
        self.redraw()
        self.kick_bots()

    # ------------------------------------------------------------------ drawing

    @property
    def log_widget(self) -> RichLog:
        return self.query_one("#log", RichLog)

    def bid_amount(self) -> int | None:
        rng = render.bid_range(self.controller.view())
        if self.bid_digits:
            return int(self.bid_digits)
        return None if rng is None else rng[0]

    def redraw(self) -> None:
        """Redraw every part from a fresh view of the human seat."""
        ctl = self.controller
        view = ctl.view()
        names = ctl.names
        if view.hand:
            self.selected = min(self.selected, len(view.hand) - 1)
        width = max(40, self.size.width or 80)
        lang = ctl.lang
        self.query_one("#status", Static).update(render.status_text(view, names, lang))
        self.query_one("#players", Static).update(render.players_text(view, ctl.labels(), width, lang))
        self.query_one("#row", Static).update(render.row_text(view, names, lang))
        self.query_one("#mice", Static).update(render.mouse_text(view, names, lang))
        self.query_one("#hand", Static).update(
            render.hand_text(view, self.selected if view.phase == "placement" else None, lang)
        )
        self.query_one("#prompt", Static).update(render.prompt_text(view, names, self.bid_amount(), lang))

    def on_resize(self) -> None:
        self.redraw()

    def say(self, text: str, *, error: bool = False) -> None:
        msg = self.query_one("#message", Static)
        msg.update(Text(("! " if error else "") + text))
        msg.set_class(error, "error")

    def show_lines(self, lines: list[LogLine]) -> None:
        log = self.log_widget
        latest: LogLine | None = None
        for line in lines:
            # "*" marks the important events without relying on colour.
            log.write(Text(("* " if line.highlight else "  ") + line.text, style="bold" if line.highlight else ""))
            if line.highlight:
                latest = line
        if latest is not None:
            banner = self.query_one("#banner", Static)
            banner.update(Text("» " + latest.text))
            banner.add_class("flash")
            self.set_timer(_FLASH_SECONDS, lambda: banner.remove_class("flash"))
        self.redraw()

    # ------------------------------------------------------------------ bots

    def kick_bots(self) -> None:
        """Let the bots move until it is the human's turn or the game ends (paced by ``delay``)."""
        if self.controller.is_over:
            self.finish()
            return
        if self.controller.bot_to_move() is not None:
            self.run_worker(self._bot_loop(), group="bots", exclusive=True, exit_on_error=False)

    async def _bot_loop(self) -> None:
        ctl = self.controller
        round_ended = False
        while (seat := ctl.bot_to_move()) is not None:
            pause = self.delay * (2 if round_ended else 1)
            if pause > 0:
                await asyncio.sleep(pause)
            view = ctl.game.view(seat, show_money=ctl.show_money)  # computed here, on the UI thread
            error = None
            try:
                move = await asyncio.to_thread(ctl.bots[seat].choose, view)
            except Exception as exc:  # a broken bot must not end the human's game
                move, error = None, str(exc)
            lines = ctl.play_bot(seat, move, error)
            round_ended = any(line.round_end for line in lines)
            self.show_lines(lines)
        if ctl.is_over:
            self.finish()
        elif self.query_one("#message", Static).has_class("error"):
            self.say("")  # "It is Ann's turn..." is stale now that the turn is back

    # ------------------------------------------------------------------ input

    def _my_turn(self) -> bool:
        ctl = self.controller
        if ctl.is_over:
            self.say(ctl.t.gettext("The game is over: r shows the results, q quits."), error=True)
            return False
        if not ctl.is_human_turn:
            waiting = ctl.t.gettext("It is {name}'s turn, not yours: please wait.")
            self.say(waiting.format(name=ctl.names[ctl.game.to_move or 0]), error=True)
            return False
        return True

    def _play(self, move_text: str) -> None:
        try:
            lines = self.controller.play_human(move_text)
        except InputError as exc:
            self.say(str(exc), error=True)
            self.redraw()
            return
        self.bid_digits = ""
        self.typing = False
        self.say("")
        self.show_lines(lines)
        self.kick_bots()

    def action_digit(self, d: int) -> None:
        if not self._my_turn():
            return
        view = self.controller.view()
        t = self.controller.t
        if view.phase == "placement":
            if not 1 <= d <= len(view.hand):
                self.say(
                    t.gettext("There is no card {n} in your hand: use 1-{last}.").format(n=d, last=len(view.hand)),
                    error=True,
                )
                return
            self.selected = d - 1
            card = card_label(view.hand[self.selected].token, t)
            self.say(t.gettext("Selected {card}: Enter places it.").format(card=card))
        elif view.phase == "bidding":
            if not self.typing or len(self.bid_digits) >= 3:
                self.bid_digits = ""
            if d or self.bid_digits:  # no leading zero
                self.bid_digits += str(d)
            self.typing = True
            self.say("")
        else:
            self.say(t.gettext("Nobody bid: Enter buys for 1 mouse, p passes."), error=True)
        self.redraw()

    def action_erase(self) -> None:
        self.bid_digits = self.bid_digits[:-1]
        self.redraw()

    def action_cursor(self, step: int) -> None:
        if not self._my_turn():
            return
        view = self.controller.view()
        if view.phase != "placement":
            self.action_step(step)
            return
        self.selected = (self.selected + step) % len(view.hand)
        self.redraw()

    def action_step(self, step: int) -> None:
        if not self._my_turn():
            return
        view = self.controller.view()
        if view.phase == "placement":
            self.action_cursor(step)
            return
        rng = render.bid_range(view)
        t = self.controller.t
        if view.phase != "bidding" or rng is None:
            self.say(t.gettext("There is no bid to raise or lower now: Enter or p."), error=True)
            return
        lo, hi = rng
        amount = (self.bid_amount() or lo) + step
        if not lo <= amount <= hi:
            self.say(t.gettext("Bids range from {low} to {high} now.").format(low=lo, high=hi), error=True)
            amount = max(lo, min(hi, amount))
        else:
            self.say("")
        self.bid_digits = str(amount)
        self.typing = False
        self.redraw()

    def action_confirm(self) -> None:
        ctl = self.controller
        if ctl.is_over:
            self.finish()
            return
        if not self._my_turn():
            return
        view = ctl.view()
        if view.phase == "placement":
            self._play(f"place {view.hand[self.selected]}")
        elif view.phase == "last choice":
            self._play("bid 1")
        else:
            amount = self.bid_amount()
            if amount is None:
                cannot = ctl.t.gettext("You cannot beat the high bid {high}: press p to pass.")
                self.say(cannot.format(high=view.high_bid), error=True)
                return
            self._play(f"bid {amount}")
            self.bid_digits = ""
            self.redraw()

    def action_pass_move(self) -> None:
        if self._my_turn():
            self._play("pass")

    def action_hint(self) -> None:
        self.say(self.controller.t.gettext("Thinking about a hint..."))
        self.run_worker(self._hint(), group="hint", exclusive=True, exit_on_error=False)

    async def _hint(self) -> None:
        ctl = self.controller
        view = ctl.view()
        hint = await asyncio.to_thread(ctl.hint, view)
        self.say("")
        lines = render.hint_lines(
            hint.best,
            hint.values,
            hint.beliefs,
            view,
            ctl.names,
            hint.note,
            noise=hint.noise,
            equal=hint.equal,
            sentences=hint.sentences,
            lang=ctl.lang,
        )
        self.app.push_screen(in_language(HintScreen, ctl.lang)(lines, ctl.lang))

    def action_rules(self) -> None:
        self.app.push_screen(in_language(RulesScreen, self.controller.lang)(self.controller.lang))

    def action_results(self) -> None:
        if self.controller.is_over:
            self.finish()
        else:
            self.say(self.controller.t.gettext("The results come at the end of round 9."), error=True)

    def action_quit_game(self) -> None:
        if self.controller.is_over:
            self.app.exit(self.controller.saved_path)
            return
        self.app.push_screen(
            in_language(ConfirmQuitScreen, self.controller.lang)(self.controller.lang), self._quit_answer
        )

    def _quit_answer(self, quit_now: bool | None) -> None:
        if quit_now:
            self.controller.save()
            self.app.exit(self.controller.saved_path)

    def finish(self) -> None:
        """Show the end screen (the game was saved by the controller when it ended)."""
        self.redraw()
        if not isinstance(self.app.screen, EndScreen):
            self.app.push_screen(in_language(EndScreen, self.controller.lang)(self.controller))


class HintScreen(ModalScreen[None]):
    """The strong bot's suggestion and the beliefs over the face-down cards."""

    @staticmethod
    def bindings(t: Translations) -> _BindingList:
        return [Binding("escape,h,enter,q", "close", t.gettext("close"))]

    BINDINGS: ClassVar[_BindingList] = bindings(ENGLISH)

    def __init__(self, lines: list[str], lang: str = DEFAULT_LANGUAGE) -> None:
        super().__init__()
        self.lines = lines
        self.lang = lang

    def compose(self) -> ComposeResult:
        t = translations(self.lang)
        with VerticalScroll(id="hint-box"):
            yield Static(Text(t.gettext("Hint") + "\n", style="bold") + Text("\n".join(self.lines)), id="hint")
            yield Static(Text(t.gettext("Esc or h closes.")), id="hint-keys")

    def action_close(self) -> None:
        self.dismiss()


def terminal_language(environ: Mapping[str, str] | None = None) -> str:
    """The terminal's language among :data:`catsack.locales.LANGUAGES`, as gettext reads the environment:
    ``LANGUAGE`` (a list: ``fr:de``) first, then ``LC_ALL``, ``LC_MESSAGES``, ``LANG``; English for the C
    locale or none."""
    env = os.environ if environ is None else environ
    locale = next((env[var] for var in ("LC_ALL", "LC_MESSAGES", "LANG") if env.get(var)), "")
    if locale.split(".")[0] in ("C", "POSIX"):
        return DEFAULT_LANGUAGE
    wanted = [tag.split(".")[0].split("@")[0] for tag in env.get("LANGUAGE", "").split(":") if tag]
    wanted.append(locale.split(".")[0].split("@")[0])
    return negotiate(None, None, ", ".join(tag.replace("_", "-") for tag in wanted if tag))


class RulesScreen(ModalScreen[None]):
    """How to play: the package's rules text in the player's language (docs/rules.md and its translations),
    scrollable."""

    @staticmethod
    def bindings(t: Translations) -> _BindingList:
        return [Binding("escape,question_mark,q", "close", t.gettext("back to the game"))]

    BINDINGS: ClassVar[_BindingList] = bindings(ENGLISH)

    def __init__(self, lang: str | None = None) -> None:
        super().__init__()
        self.lang = lang or terminal_language()

    def compose(self) -> ComposeResult:
        from rich.markdown import Markdown

        from catsack.rulebook.page import plain_markdown

        # Rich's markdown in a scroller: drawn at once, where Textual's Markdown widget takes seconds.
        with VerticalScroll(id="rules-box"):
            yield Static(Markdown(plain_markdown(self.lang)), id="rules-text")
        yield Footer(compact=True)

    def action_close(self) -> None:
        self.dismiss()


class ConfirmQuitScreen(ModalScreen[bool]):
    """Asks before a game in progress is left; the game is saved and can be resumed."""

    @staticmethod
    def bindings(t: Translations) -> _BindingList:
        return [
            Binding("y,q", "answer(True)", t.gettext("quit")),
            Binding("n,escape", "answer(False)", t.gettext("keep playing")),
        ]

    BINDINGS: ClassVar[_BindingList] = bindings(ENGLISH)

    def __init__(self, lang: str = DEFAULT_LANGUAGE) -> None:
        super().__init__()
        self.lang = lang

    def compose(self) -> ComposeResult:
        t = translations(self.lang)
        text = Text(t.gettext("Quit this game?") + "\n\n", style="bold")
        text.append(t.gettext("The game so far is saved; continue it later with") + "\n  catsack play --resume FILE\n")
        text.append(t.gettext("(the file is named when catsack play ends).") + "\n\n")
        text.append(t.gettext("y quits, n or Esc keeps playing."))
        yield Static(text, id="confirm-box")

    def action_answer(self, quit_now: bool) -> None:
        self.dismiss(quit_now)


class EndScreen(Screen[None]):
    """Final table (R21, R22: score, cat points, money, ranking with the tie-break) and where the record is."""

    @staticmethod
    def bindings(t: Translations) -> _BindingList:
        return [Binding("q", "quit_game", t.gettext("quit")), Binding("escape,b", "board", t.gettext("back to board"))]

    BINDINGS: ClassVar[_BindingList] = bindings(ENGLISH)

    def __init__(self, controller: PlayController) -> None:
        super().__init__()
        self.controller = controller

    def compose(self) -> ComposeResult:
        ctl = self.controller
        t = ctl.t
        g = ctl.game
        names = [ctl.label(s) for s in range(g.seats)]
        lines = [ctl.describe(GameOver(g.scores(), g.winners())), ""]
        lines += render.final_table_lines(g, names, ctl.lang)
        lines += ["", t.gettext("Ranking: score first, then cat points break ties; tied seats share a rank.")]
        if ctl.saved_path is not None:
            lines += ["", t.gettext("Saved as:"), f"  {ctl.saved_path}"]
            lines.append(t.gettext("Replay: {command}").format(command=f"catsack replay {ctl.saved_path}"))
        elif ctl.save_error:
            lines += ["", "! " + t.gettext("The game was not saved: {error}").format(error=ctl.save_error)]
        with VerticalScroll(id="end-box"):
            yield Static(Text("\n".join(lines)), id="results")
        yield Footer(compact=True)

    def action_board(self) -> None:
        self.app.pop_screen()

    def action_quit_game(self) -> None:
        self.app.exit(self.controller.saved_path)


class PlayApp(App[Path | None]):
    """``catsack play``: the human seat against bots; ``exit`` returns the saved record's path."""

    CSS_PATH = "play.tcss"
    TITLE = "catsack"
    ENABLE_COMMAND_PALETTE = False  # its key would crowd the footer at 80 columns

    def __init__(self, controller: PlayController, *, delay: float = 0.6) -> None:
        super().__init__()
        self.controller = controller
        self.delay = max(0.0, delay)

    def on_mount(self) -> None:
        self.push_screen(in_language(GameScreen, self.controller.lang)(self.controller, self.delay))


def screen_text(app: App[object]) -> str:
    """The current screen as plain text lines (for snapshot tests; styles dropped)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)
