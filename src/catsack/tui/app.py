"""The Textual application for ``catsack play``: a board screen, a hint panel and an end screen.

Widgets hold no game state: after every move the screen asks the
:class:`~catsack.tui.controller.PlayController` for the human seat's view and
redraws each part from it (:mod:`catsack.tui.render`). The only UI state is
input in progress: the selected hand card and the bid being typed.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, RichLog, Static

from catsack.events import GameOver, RoundStarted
from catsack.tui import render
from catsack.tui.controller import InputError, LogLine, PlayController

__all__ = ["ConfirmQuitScreen", "EndScreen", "GameScreen", "HintScreen", "PlayApp", "RulesScreen", "screen_text"]

_FLASH_SECONDS = 1.5


class GameScreen(Screen[None]):
    """The board: status, seats, row, mouse cards, hand, prompt, message, latest event and the log."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("1", "digit(1)", "card/amount", key_display="1-9"),
        *(Binding(str(d), f"digit({d})", "digit", show=False) for d in (2, 3, 4, 5, 6, 7, 8, 9, 0)),
        Binding("left", "cursor(-1)", "card", key_display="←→"),
        Binding("right", "cursor(1)", "card", show=False),
        Binding("enter", "confirm", "place/bid", key_display="⏎"),
        Binding("plus,equals_sign,up", "step(1)", "bid±", key_display="+/-"),
        Binding("minus,down", "step(-1)", "bid -1", show=False),
        Binding("backspace", "erase", "erase digit", show=False),
        Binding("p", "pass_move", "pass"),
        Binding("h", "hint", "hint"),
        Binding("question_mark", "rules", "rules", key_display="?"),
        Binding("r", "results", "results", show=False),
        Binding("q", "quit_game", "quit"),
    ]

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
        names = ctl.names
        self.log_widget.write(Text(f"{len(names)} players: {', '.join(ctl.label(s) for s in range(len(names)))}."))
        if ctl.resumed_from is not None:
            for line in ctl.history():
                self.log_widget.write(Text(("* " if line.highlight else "  ") + line.text))
            self.log_widget.write(Text(f"Resumed from {ctl.resumed_from}.", style="bold"))
        else:
            self.log_widget.write(Text("New to the game? Press ? for how to play."))
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
        self.query_one("#status", Static).update(render.status_text(view, names))
        self.query_one("#players", Static).update(render.players_text(view, ctl.labels(), width))
        self.query_one("#row", Static).update(render.row_text(view, names))
        self.query_one("#mice", Static).update(render.mouse_text(view, names))
        self.query_one("#hand", Static).update(
            render.hand_text(view, self.selected if view.phase == "placement" else None)
        )
        self.query_one("#prompt", Static).update(render.prompt_text(view, names, self.bid_amount()))

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
                move, error = None, f"failed ({exc})"
            lines = ctl.play_bot(seat, move, error)
            round_ended = any(line.round_end for line in lines)
            self.show_lines(lines)
        if ctl.is_over:
            self.finish()
        elif self.query_one("#message", Static).has_class("error"):
            self.say("")  # "It is Ann's turn..." is stale now that the turn is back (papercut 8)

    # ------------------------------------------------------------------ input

    def _my_turn(self) -> bool:
        ctl = self.controller
        if ctl.is_over:
            self.say("The game is over: r shows the results, q quits.", error=True)
            return False
        if not ctl.is_human_turn:
            self.say(f"It is {ctl.names[ctl.game.to_move or 0]}'s turn, not yours: please wait.", error=True)
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
        if view.phase == "placement":
            if not 1 <= d <= len(view.hand):
                self.say(f"There is no card {d} in your hand: use 1-{len(view.hand)}.", error=True)
                return
            self.selected = d - 1
            self.say(f"Selected {view.hand[self.selected]}: Enter places it.")
        elif view.phase == "bidding":
            if not self.typing or len(self.bid_digits) >= 3:
                self.bid_digits = ""
            if d or self.bid_digits:  # no leading zero
                self.bid_digits += str(d)
            self.typing = True
            self.say("")
        else:
            self.say("Nobody bid: Enter buys for 1 mouse, p passes.", error=True)
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
        if view.phase != "bidding" or rng is None:
            self.say("There is no bid to raise or lower now: Enter or p.", error=True)
            return
        lo, hi = rng
        amount = (self.bid_amount() or lo) + step
        if not lo <= amount <= hi:
            self.say(f"Bids range from {lo} to {hi} now.", error=True)
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
                self.say(f"You cannot beat the high bid {view.high_bid}: press p to pass.", error=True)
                return
            self._play(f"bid {amount}")
            self.bid_digits = ""
            self.redraw()

    def action_pass_move(self) -> None:
        if self._my_turn():
            self._play("pass")

    def action_hint(self) -> None:
        self.say("Thinking about a hint...")
        self.run_worker(self._hint(), group="hint", exclusive=True, exit_on_error=False)

    async def _hint(self) -> None:
        ctl = self.controller
        view = ctl.view()
        hint = await asyncio.to_thread(ctl.hint, view)
        self.say("")
        lines = render.hint_lines(hint.best, hint.values, hint.beliefs, view, ctl.names, hint.note)
        self.app.push_screen(HintScreen(lines))

    def action_rules(self) -> None:
        self.app.push_screen(RulesScreen())

    def action_results(self) -> None:
        if self.controller.is_over:
            self.finish()
        else:
            self.say("The results come at the end of round 9.", error=True)

    def action_quit_game(self) -> None:
        if self.controller.is_over:
            self.app.exit(self.controller.saved_path)
            return
        self.app.push_screen(ConfirmQuitScreen(), self._quit_answer)

    def _quit_answer(self, quit_now: bool | None) -> None:
        if quit_now:
            self.controller.save()
            self.app.exit(self.controller.saved_path)

    def finish(self) -> None:
        """Show the end screen (the game was saved by the controller when it ended)."""
        self.redraw()
        if not isinstance(self.app.screen, EndScreen):
            self.app.push_screen(EndScreen(self.controller))


class HintScreen(ModalScreen[None]):
    """The strong bot's suggestion and the beliefs over the face-down cards."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape,h,enter,q", "close", "close")
    ]

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="hint-box"):
            yield Static(Text("Hint\n", style="bold") + Text("\n".join(self.lines)), id="hint")
            yield Static(Text("Esc or h closes."), id="hint-keys")

    def action_close(self) -> None:
        self.dismiss()


def terminal_language() -> str:
    """The rules' language for this terminal: German under a German locale, else English."""
    from catsack.rulebook import choose_language

    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var)
        if value:
            return choose_language(None, None, value.split(".")[0].replace("_", "-").split(":")[0])
    return "en"


class RulesScreen(ModalScreen[None]):
    """How to play: the package's rules text (docs/rules.md, or the German one), scrollable."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape,question_mark,q", "close", "back to the game"),
    ]

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
    """Asks before a game in progress is left; the game is saved and can be resumed (papercut 6)."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("y,q", "answer(True)", "quit"),
        Binding("n,escape", "answer(False)", "keep playing"),
    ]

    def compose(self) -> ComposeResult:
        text = Text("Quit this game?\n\n", style="bold")
        text.append("The game so far is saved; continue it later with\n  catsack play --resume FILE\n")
        text.append("(the file is named when catsack play ends).\n\n")
        text.append("y quits, n or Esc keeps playing.")
        yield Static(text, id="confirm-box")

    def action_answer(self, quit_now: bool) -> None:
        self.dismiss(quit_now)


class EndScreen(Screen[None]):
    """Final table (R21, R22: score, cat points, money, ranking with the tie-break) and where the record is."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("q", "quit_game", "quit"),
        Binding("escape,b", "board", "back to board"),
    ]

    def __init__(self, controller: PlayController) -> None:
        super().__init__()
        self.controller = controller

    def compose(self) -> ComposeResult:
        ctl = self.controller
        g = ctl.game
        names = [ctl.label(s) for s in range(g.seats)]
        lines = [ctl.describe(GameOver(g.scores(), g.winners())), ""]
        lines += render.final_table_lines(g, names)
        lines += ["", "Ranking: score first, then cat points break ties (R22); tied seats share a rank."]
        if ctl.saved_path is not None:
            lines += ["", "Saved as:", f"  {ctl.saved_path}", f"Replay: catsack replay {ctl.saved_path}"]
        elif ctl.save_error:
            lines += ["", f"! The game was not saved: {ctl.save_error}"]
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
        self.push_screen(GameScreen(self.controller, self.delay))


def screen_text(app: App[object]) -> str:
    """The current screen as plain text lines (for snapshot tests; styles dropped)."""
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)
