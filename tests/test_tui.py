"""``catsack play``: the Textual app driven by key presses through Textual's pilot (no pytest plugin).

Each app test runs ``asyncio.run`` on an ``app.run_test(size=(80, 24))`` session.
The snapshot file is made by ``tests/data/tui/regenerate.py``, never by a test.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("textual")

from catsack.game import Game
from catsack.i18n import move_words, number, translations
from catsack.locales import LANGUAGES
from catsack.moves import Move
from catsack.record import loads_record
from catsack.tui import controller as controller_module
from catsack.tui import render
from catsack.tui.app import (
    ConfirmQuitScreen,
    EndScreen,
    GameScreen,
    HintScreen,
    PlayApp,
    RulesScreen,
    screen_text,
    terminal_language,
)
from catsack.tui.controller import (
    InputError,
    PlayController,
    UniformFallbackBot,
    default_bot_spec,
    parse_bot_list,
)
from catsack.tui.storage import games_dir, save_record

SNAPSHOT = Path(__file__).parent / "data" / "tui" / "main_80x24.txt"
SNAPSHOT_SEED = 11


def fallback_controller(
    tmp: Path | None, *, seats: int = 4, human: int = 0, seed: int = 4, show_money: bool = False
) -> PlayController:
    """A table whose bots are the local uniform fallback (independent of the bots package)."""
    game = Game.new(seats, seed=seed, events=True)
    names = ["You", "Ann", "Ben", "Cat", "Dan"][:seats]
    names[0], names[human] = names[human], names[0]
    bots: dict[int, Any] = {s: UniformFallbackBot(seed=seed + s) for s in range(seats) if s != human}
    return PlayController(game, names, human, bots, show_money, seed, {s: "fallback" for s in bots}, data_dir=tmp)


def run_app(app: PlayApp, body: Callable[[Any], Awaitable[None]], size: tuple[int, int] = (80, 24)) -> None:
    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await body(pilot)

    asyncio.run(main())


async def settle(pilot: Any, ctl: PlayController) -> None:
    """Wait until the bots have moved and it is the human's turn (or the game is over)."""
    for _ in range(200):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        if ctl.is_human_turn or ctl.is_over:
            return
    raise AssertionError("the bots never handed the turn back")


def message(app: PlayApp) -> str:
    return str(app.screen.query_one("#message").render())


# ---------------------------------------------------------------------- controller (no UI)


def test_bot_list_parsing() -> None:
    assert parse_bot_list(None, 3) == [None, None, None]
    assert parse_bot_list("random", 2) == ["random", "random"]
    assert parse_bot_list("random, heuristic ,ismcts:normal", 3) == ["random", "heuristic", "ismcts:normal"]
    with pytest.raises(InputError, match="names 2 bots but this table has 3"):
        parse_bot_list("random,random", 3)
    with pytest.raises(InputError, match="empty entry"):
        parse_bot_list("random,,random", 3)


def test_controller_options_are_checked(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="3, 4 or 5"):
        PlayController.new(seats=6)
    with pytest.raises(InputError, match="--seat must be from 1 to 4 for 4 seats, not 5"):
        PlayController.new(seats=4, seat=4)
    with pytest.raises(ValueError, match="unknown bot kind 'nope'"):
        PlayController.new(seats=3, bots="nope", data_dir=tmp_path)


def test_human_input_errors_name_the_legal_range(tmp_path: Path) -> None:
    """R12: a bid above the seat's money or not above the high bid is refused with the range."""
    ctl = fallback_controller(tmp_path, seed=4)
    assert ctl.game.to_move == 0
    with pytest.raises(InputError, match="place a card first"):
        ctl.play_human("pass")
    with pytest.raises(InputError, match="not a"):
        ctl.play_human("place +99")
    hand = ctl.view().hand
    ctl.play_human(Move.parse(f"place {hand[0]}"))
    with pytest.raises(InputError, match="turn, not yours"):
        ctl.play_human(f"place {hand[1]}")
    while not ctl.is_human_turn:
        seat = ctl.bot_to_move()
        assert seat is not None
        ctl.play_bot(seat, ctl.bots[seat].choose(ctl.game.view(seat)))
    if ctl.view().phase == "bidding" and ctl.view().legal[0].is_bid:
        with pytest.raises(InputError, match=r"bids go from \d+ to 15"):
            ctl.play_human("bid 16")


def test_bot_failure_is_logged_and_replaced(tmp_path: Path) -> None:
    ctl = fallback_controller(tmp_path, human=3)
    seat = ctl.bot_to_move()
    assert seat == ctl.game.to_move
    lines = ctl.play_bot(seat, Move.parse("bid 99"))
    assert "illegal move bid 99" in lines[0].text
    assert len(ctl.game.moves) == 1


def test_games_dir_and_save_never_overwrite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATSACK_DATA_DIR", str(tmp_path / "x"))
    assert games_dir() == tmp_path / "x"
    monkeypatch.delenv("CATSACK_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert games_dir() == tmp_path / "xdg" / "catsack" / "games"
    ctl = fallback_controller(tmp_path)
    ctl.play_human(f"place {ctl.view().hand[0]}")
    from catsack.record import record_from_game

    rec = record_from_game(ctl.game)
    a = save_record(rec, directory=tmp_path / "g", stem="same")
    b = save_record(rec, directory=tmp_path / "g", stem="same")
    assert a != b and a.exists() and b.exists()


# ---------------------------------------------------------------------- the app


@pytest.mark.slow
def test_whole_game_by_key_presses(tmp_path: Path) -> None:
    """A seeded game from deal to end screen, every human move made with keys (R10–R22)."""
    ctl = fallback_controller(tmp_path, seats=4, human=1, seed=21)
    app = PlayApp(ctl, delay=0)
    choose = random.Random(4)

    async def body(pilot: Any) -> None:
        presses = 0
        while not ctl.is_over:
            await settle(pilot, ctl)
            if ctl.is_over:
                break
            view = ctl.view()
            before = len(ctl.game.moves)
            if view.phase == "placement":
                keys = [str(choose.randint(1, len(view.hand)))] + ["right"] * choose.randint(0, 2) + ["enter"]
            elif view.phase == "last choice":
                keys = [choose.choice(["enter", "p"])]
            elif view.legal[0].is_bid and choose.random() < 0.4:
                lo = view.legal[0].amount
                keys = choose.choice([["enter"], ["plus", "enter"], [*str(lo), "enter"], ["plus", "minus", "enter"]])
            else:
                keys = ["p"]
            await pilot.press(*keys)
            presses += len(keys)
            assert len(ctl.game.moves) > before, (keys, view.phase, message(app))
        await settle(pilot, ctl)
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        text = screen_text(app)
        assert "Game over" in text and "rank" in text and "Replay: catsack replay" in text
        assert presses >= 9
        await pilot.press("escape")  # back to the final board, then to the results again
        assert isinstance(app.screen, GameScreen)
        await pilot.press("r")
        assert isinstance(app.screen, EndScreen)
        await pilot.press("q")

    run_app(app, body)
    assert app.return_value == ctl.saved_path
    assert ctl.saved_path is not None and ctl.saved_path.parent == tmp_path
    record = loads_record(ctl.saved_path.read_text(encoding="utf-8"))
    replayed = record.to_game()
    assert replayed.is_over and replayed.moves == ctl.game.moves
    assert record.players == ctl.names and record.extra["seed"] == 21 and record.extra["human_seat"] == 1


def test_illegal_inputs_give_messages(tmp_path: Path) -> None:
    """Out-of-range bids and moves out of turn are explained; the game goes on (R12)."""
    ctl = fallback_controller(tmp_path, seats=4, human=0, seed=4)
    assert ctl.game.to_move == 0
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await pilot.press("p")
        assert "place a card first" in message(app)
        await pilot.press("0")  # no card 0
        assert "no card 0" in message(app)
        await pilot.press("1", "enter")
        await settle(pilot, ctl)
        view = ctl.view()
        assert view.phase == "bidding" and view.to_move == 0
        moves = len(ctl.game.moves)
        await pilot.press("9", "9", "enter")
        assert "cannot bid 99" in message(app) and "from 1 to 15" in message(app)
        await pilot.press("minus")  # below the lowest legal bid
        assert "range from 1 to 15" in message(app)
        assert len(ctl.game.moves) == moves
        await pilot.press("1", "2", "backspace", "enter")  # "12" then erase: bid 1
        assert ctl.game.moves[moves].text == "bid 1"

    run_app(app, body)


def test_moving_out_of_turn_is_refused(tmp_path: Path) -> None:
    ctl = fallback_controller(tmp_path, seats=5, human=2, seed=5)
    assert ctl.game.to_move != 2
    app = PlayApp(ctl, delay=30)  # the first bot is still "thinking" while we press keys

    async def body(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("1", "enter", "p", "plus")
        assert "turn, not yours" in message(app)
        assert ctl.game.moves == ()
        assert "Waiting for" in screen_text(app)

    run_app(app, body)


def test_resize_keeps_the_board_usable(tmp_path: Path) -> None:
    ctl = fallback_controller(tmp_path, seats=5, human=0, seed=2)
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await settle(pilot, ctl)
        for size in ((60, 20), (120, 40), (80, 24)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            text = screen_text(app).splitlines()
            assert len(text) == size[1] and all(len(line) <= size[0] for line in text)
            assert any(line.startswith("Your hand:") for line in text)
        await pilot.press("enter")
        assert len(ctl.game.moves) >= 1

    run_app(app, body)


def test_hint_without_analysis_shows_beliefs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(controller_module, "_import_analysis", lambda: None)
    ctl = fallback_controller(tmp_path, seats=4, human=3, seed=8)
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await settle(pilot, ctl)  # three cards lie face down before seat 3 places
        await pilot.press("h")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, HintScreen)
        text = screen_text(app)
        assert "No suggestion available" in text
        assert "#1 Cat:" in text and "%" in text
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen)

    run_app(app, body)


def fake_analysis(view: Any, *, level: str = "strong", seed: int | None = None, players: Any = None) -> Any:
    """The first two legal moves, valued within each other's noise (the real payload is built from it)."""
    from catsack.advice.analysis import Analysis
    from catsack.advice.explain import position_facts
    from catsack.belief import card_beliefs

    assert level == "strong" and view.seat == 0
    assert players is not None and len(players) == 3 and players[0] is None  # the person's kind is unknown
    first, second = view.legal[0].text, view.legal[1].text
    beliefs = card_beliefs(view)
    values, noise = {first: 3.5, second: 3.2}, {first: 0.4, second: 0.5}
    return Analysis(view.legal[0], values, beliefs, {first: 60, second: 40}, 100, noise, position_facts(view, beliefs))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_hint_shows_the_analysis_suggestion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str) -> None:
    """The hint shows what the browser's hint panel shows: values with their noise (±), the moves as good as
    the best (≈), and the analysis's sentences, all in the player's language."""
    from catsack.advice import analysis

    t = translations(lang)
    fake = SimpleNamespace(analyse_view=fake_analysis, hint_payload=analysis.hint_payload)
    monkeypatch.setattr(controller_module, "_import_analysis", lambda: fake)
    ctl = fallback_controller(tmp_path, seats=3, human=0, seed=1)
    ctl.lang = lang
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await settle(pilot, ctl)
        legal = ctl.view().legal
        payload = analysis.hint_payload(fake_analysis(ctl.view(), players=[None, "fallback", "fallback"]))
        await pilot.press("h")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, HintScreen)
        lines = app.screen.lines
        first, second = move_words(legal[0].text, t), move_words(legal[1].text, t)
        suggestion = t.gettext("Suggestion (strong bot): {move}").format(move=first)
        assert suggestion in lines
        assert payload["sentences"][lang] and all(s in lines for s in payload["sentences"][lang])
        value, spread = number(3.5, lang, signed=True), "±" + number(0.4, lang)
        assert any(line.split() == [*first.split(), value, spread] for line in lines)
        assert any(
            line.split() == [*second.split(), number(3.2, lang, signed=True), "±" + number(0.5, lang), "≈"]
            for line in lines
        )
        assert render.noise_note(lang) in lines
        text = screen_text(app)
        assert suggestion in text and spread in text and "≈" in text

    run_app(app, body, size=(120, 40))


async def snapshot_text(tmp: Path | None = None) -> str:
    """The main screen at the human's first bid of round 3 in a fixed game (also used by regenerate.py)."""
    ctl = fallback_controller(tmp, seats=4, human=0, seed=SNAPSHOT_SEED)
    app = PlayApp(ctl, delay=0)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, ctl)
        # Place the first card and pass until round 3's bidding, so piles and payouts show.
        while not (ctl.view().round >= 3 and ctl.view().phase == "bidding"):
            await pilot.press("enter" if ctl.view().phase == "placement" else "p")
            await settle(pilot, ctl)
        return screen_text(app) + "\n"


def test_main_screen_snapshot(tmp_path: Path) -> None:
    """The 80x24 board as text, compared with the stored file (regenerate: tests/data/tui/regenerate.py)."""
    got = asyncio.run(snapshot_text(tmp_path))
    want = SNAPSHOT.read_text(encoding="utf-8")
    assert got == want, "screen changed; if intended, run .venv/bin/python tests/data/tui/regenerate.py\n" + got


def test_default_opponents_come_from_the_registry(tmp_path: Path) -> None:
    """No --bots: heuristic bots when the bots package has them, else the local uniform fallback."""
    ctl = PlayController.new(seats=3, seat=2, seed=1, data_dir=tmp_path)
    want = default_bot_spec() or UniformFallbackBot.name
    assert ctl.specs == {0: want, 1: want} and ctl.names[2] == "You"
    ctl.close()


def test_quitting_mid_game_asks_then_saves_the_record(tmp_path: Path) -> None:
    """Q mid-game asks first; n keeps playing, y saves and quits."""
    ctl = fallback_controller(tmp_path, seats=4, human=0, seed=4)
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await pilot.press("3", "enter")
        await settle(pilot, ctl)
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuitScreen)
        assert "Quit this game?" in screen_text(app) and "--resume" in screen_text(app)
        await pilot.press("n")
        assert isinstance(app.screen, GameScreen) and app.is_running and ctl.saved_path is None
        await pilot.press("q", "escape")
        assert isinstance(app.screen, GameScreen) and ctl.saved_path is None
        await pilot.press("q", "y")

    run_app(app, body)
    assert app.return_value is not None and app.return_value.exists()
    record = loads_record(app.return_value.read_text(encoding="utf-8"))
    assert record.moves[0] == f"place {Game.new(4, seed=4).hand(0)[2]}" and not record.to_game().is_over


def test_play_command_rejects_bad_options() -> None:
    from typer.testing import CliRunner

    from catsack.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["play", "--seats", "3", "--seat", "4"])
    assert res.exit_code == 2 and "--seat must be from 1 to 3" in res.output
    res = runner.invoke(app, ["play", "--bots", "nope"])
    assert res.exit_code == 2 and "unknown bot kind 'nope'" in res.output
    res = runner.invoke(app, ["play", "--help"])
    assert res.exit_code == 0 and "--show-money" in res.output


# ---------------------------------------------------------------------- leaving, names, turns, the end screen


def _bots_play_human_too(ctl: PlayController, until: int | None = None) -> list[str]:
    """Play on with the human's moves chosen like a bot's; return every log line."""
    choose = random.Random(3)
    lines: list[str] = []
    while not ctl.is_over and (until is None or len(ctl.game.moves) < until):
        if ctl.is_human_turn:
            got = ctl.play_human(choose.choice(ctl.view().legal))
        else:
            seat = ctl.bot_to_move()
            assert seat is not None
            got = ctl.play_bot(seat, ctl.bots[seat].choose(ctl.game.view(seat)))
        lines += [line.text for line in got]
    return lines


def test_you_gets_verbs_that_agree(tmp_path: Path) -> None:
    """With the default name the log said "You places", "You passes", "You's"."""
    ctl = fallback_controller(tmp_path, seats=4, human=0, seed=9)
    assert ctl.names[0] == "You"
    lines = _bots_play_human_too(ctl)
    text = "\n".join(lines)
    bad = re.findall(r"\b[Yy]ou (?:places|bids|passes|buys|starts|wins|takes)\b|\b[Yy]ou's", text)
    assert not bad, bad
    assert any(line.startswith("You place a card face down") for line in lines)
    assert any(re.match(r"You (pass|bid) ", line) for line in lines)
    assert all(not re.search(r"^You (pass and takes|buy .* and takes)", line) for line in lines)
    ctl2 = fallback_controller(tmp_path, seats=4, human=0, seed=9)
    ctl2.names[0] = "Zoe"  # any other name keeps the narrative's third person
    assert any(line.startswith("Zoe places a card") for line in _bots_play_human_too(ctl2, until=4))


def test_second_person_sentences() -> None:
    from catsack.events import GameOver, Passed, Revealed, RoundStarted

    ctl = fallback_controller(None, seats=4, human=1, seed=1)
    ctl.names[1] = "you"
    assert ctl.describe(RoundStarted(2, 1)) == "Round 2: you start."
    assert ctl.describe(Revealed(0, 1, Game.new(4, seed=1).hand(1)[0])).startswith("The first card (yours) is")
    assert ctl.describe(Passed(1, 2, 2)) == "You pass and take 2 mice from the 2-mouse card."
    assert ctl.describe(GameOver((1, 2, 3, 4), (1,))) == "Game over. You win."
    assert ctl.describe(GameOver((1, 2, 3, 4), (0, 1))) == "Game over. You share the victory with Ann."
    ctl.lang = "fr"
    ctl.names[1] = "Vous"  # the word for "you" in the player's language speaks to them too
    assert ctl.describe(RoundStarted(2, 1)) == "Manche 2 : vous commencez."
    assert ctl.describe(Passed(1, 2, 2)) == "Vous passez et prenez 2 souris sur la carte 2 souris."


def test_error_clears_when_the_turn_comes_back(tmp_path: Path) -> None:
    """Before the fix, "It is Ann's turn, not yours" stayed after the turn had come back."""
    ctl = fallback_controller(tmp_path, seats=5, human=2, seed=5)
    assert ctl.game.to_move != 2
    app = PlayApp(ctl, delay=0.4)

    async def body(pilot: Any) -> None:
        await pilot.pause()
        await pilot.press("1")
        assert "turn, not yours" in message(app)
        await settle(pilot, ctl)
        assert ctl.is_human_turn and message(app).strip() == ""

    run_app(app, body)


def test_end_screen_lists_won_piles_sorted(tmp_path: Path) -> None:
    """The end screen listed won piles in the order won (the board sorts them)."""
    ctl = fallback_controller(tmp_path, seats=3, human=0, seed=12)
    _bots_play_human_too(ctl)
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        rows = [line for line in screen_text(app).splitlines() if re.match(r"\s+\d\s", line)]
        assert len(rows) == 3
        from catsack.cards import Card

        for s in range(3):
            pile = ctl.game.won(s)
            row = next(r for r in rows if f" {ctl.label(s)} " in r)
            tokens = row.split(f" {ctl.label(s)} ")[1].split()[3:]
            order = [Card.parse(t.split("×")[0]) for t in tokens if t != "-"]
            assert order == sorted(set(pile)), (row, pile)
        assert any(pile != tuple(sorted(pile)) for pile in (ctl.game.won(s) for s in range(3)))

    run_app(app, body)


def _saved_partial(tmp_path: Path, human: int = 1) -> Path:
    ctl = PlayController.new(seats=4, seat=human, bots="random", seed=17, data_dir=tmp_path)
    _bots_play_human_too(ctl, until=23)
    path = ctl.save()
    ctl.close()
    assert path is not None
    return path


@pytest.mark.slow
def test_resume_a_saved_game(tmp_path: Path) -> None:
    """A game left with q goes on from its file: same seat, names, opponents; and
    it is saved in that same file, so one game leaves one record."""
    path = _saved_partial(tmp_path)
    first = loads_record(path.read_text(encoding="utf-8"))
    ctl = PlayController.resume(path, data_dir=tmp_path / "again")
    assert ctl.human == 1 and ctl.names == first.players and ctl.seed == 17
    assert ctl.specs == {0: "random", 2: "random", 3: "random"}
    assert [m.text for m in ctl.game.moves] == list(first.moves)
    assert ctl.save() is None  # nothing new yet: no second copy
    history = [line.text for line in ctl.history()]
    assert history[0].startswith("Round 1:") and any("You place" in h for h in history)
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await settle(pilot, ctl)
        assert f"Resumed from {path}" in screen_text(app) or "Resumed from" in screen_text(app)
        while not ctl.is_over:
            view = ctl.view()
            await pilot.press("enter" if view.phase != "bidding" or not view.legal[0].is_bid else "p")
            await settle(pilot, ctl)
        await pilot.pause()
        await pilot.press("q")

    run_app(app, body)
    assert ctl.saved_path == path and not (tmp_path / "again").exists()
    assert sorted(tmp_path.glob("*.json")) == [path]  # no second file, no temporary left behind
    done = loads_record(path.read_text(encoding="utf-8"))
    assert done.to_game().is_over and list(done.moves[: len(first.moves)]) == list(first.moves)
    assert "resumed_from" not in done.extra and done.extra["source"] == "catsack play"


def test_resume_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        PlayController.resume(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match=r"bad\.json"):
        PlayController.resume(bad)
    path = _saved_partial(tmp_path)
    rec = loads_record(path.read_text(encoding="utf-8"))
    over = tmp_path / "over.json"
    game = rec.to_game()
    while not game.is_over:
        game.play(game.legal_moves()[-1])
    from catsack.record import dumps_record, record_from_game

    over.write_text(dumps_record(record_from_game(game)), encoding="utf-8")
    with pytest.raises(InputError, match="already over"):
        PlayController.resume(over)
    anon = tmp_path / "anon.json"
    anon.write_text(dumps_record(record_from_game(rec.to_game())), encoding="utf-8")
    with pytest.raises(InputError, match="which seat was yours: add --seat"):
        PlayController.resume(anon)
    ctl = PlayController.resume(anon, seat=3, bots="random")
    assert ctl.human == 3 and ctl.names[3] == "You"
    ctl.close()


def test_play_command_resume_option(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from catsack.cli import app

    res = CliRunner().invoke(app, ["play", "--resume", str(tmp_path / "nope.json")])
    assert res.exit_code == 2 and "cannot read" in res.output
    res = CliRunner().invoke(app, ["play", "--help"])
    assert "--resume FILE" in res.output


def test_rules_screen_from_the_board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """? shows how to play (the package's rules text, in the player's language); Esc goes back. The player's
    language is the terminal's unless catsack play --lang says otherwise."""
    assert terminal_language({"LC_ALL": "de_DE.UTF-8"}) == "de"
    assert terminal_language({"LC_ALL": "C", "LANG": "en_GB.UTF-8", "LANGUAGE": "fr"}) == "en"
    assert terminal_language({"LANG": "fr_CA.UTF-8"}) == "fr"
    assert terminal_language({"LANG": "it_IT.UTF-8", "LANGUAGE": "it:fr:de"}) == "fr"
    assert terminal_language({"LANG": "it_IT.UTF-8"}) == terminal_language({}) == "en"
    ctl = fallback_controller(tmp_path, seats=4, human=0, seed=4)
    app = PlayApp(ctl, delay=0)

    async def body(pilot: Any) -> None:
        await pilot.pause()
        assert "Press ? for how to play" in screen_text(app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        text = screen_text(app)
        assert "How to play" in text and "R1 Pet cards" in text
        await pilot.press("escape")
        assert isinstance(app.screen, GameScreen) and not ctl.game.moves

    run_app(app, body, size=(100, 40))


def test_terminal_rules_text_lists_the_engines_dog_examples() -> None:
    from catsack.rulebook import dog_examples, source
    from catsack.rulebook.page import plain_markdown

    for lang in LANGUAGES:
        text = plain_markdown(lang)
        assert "](" not in text and ".svg" not in text  # no pictures or links left for a terminal
        for ex in dog_examples(source(lang)):
            row = " ".join(map(str, ex.row))
            kept = " ".join(map(str, ex.kept)) or "-"
            assert f"- `{row}` → `{kept}`: " in text
