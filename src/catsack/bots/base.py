"""The bot interface: a bot sees one seat's view (R23) and returns a legal move.

Bots never receive a :class:`~catsack.game.Game`. Those that need hidden
worlds sample them from the view with :mod:`catsack.belief`.

Bots are named by a spec string, ``kind`` or ``kind:arg`` (``random``,
``heuristic``, ``ismcts:strong``, ``expert``, ``style:bluff``,
``external:python3 my_bot.py``). The
registry below is an explicit table of where each kind lives; nothing
registers itself at import time, and each module is imported only when a
bot of its kind is made. Entries may name modules above the bots (the
learned bots of :mod:`catsack.learn`): a table of names, like a package's
entry points, not an import.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from catsack.errors import CatsackError
from catsack.game import Game
from catsack.moves import Move
from catsack.view import View

__all__ = ["BOT_KINDS", "LEARNED_EXPERT", "Bot", "BotSpecError", "forced_move", "load_target", "make_bot", "play_game"]


class BotSpecError(CatsackError):
    """A bot spec that names no known kind or has a bad argument."""


class Bot(ABC):
    """A player that decides from its seat's view only."""

    #: The spec this bot was made from (``ismcts:strong``); used in records and tables.
    name: str = "bot"

    def reset(self, seat: int, seats: int) -> None:  # noqa: B027 - optional hook
        """Called before each game with the bot's seat and the number of seats."""

    def meet(self, players: Sequence[str | None]) -> None:  # noqa: B027 - optional hook
        """Called after :meth:`reset` with what everyone at the table can see of its players: per seat,
        the spec of the bot seated there (``heuristic``, ``expert:strong``), or ``None`` for a person or
        a player of unknown kind. A bot may use it as its prior about how each player plays; it is no
        part of the game's hidden information (R23: the lobby shows every seat's kind)."""

    @abstractmethod
    def choose(self, view: View) -> Move:
        """Return one of ``view.legal`` (the bot's seat is ``view.seat`` and it is to move)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources (processes, files)."""


def forced_move(view: View) -> Move | None:
    """The only legal move of ``view``, ``None`` when there is a choice; raise if there is none.

    Shared opening of every bot's ``choose``: a single legal move needs no thought.
    """
    legal = view.legal
    if not legal:
        raise ValueError(f"seat {view.seat} has no legal move in this view (to move: {view.to_move})")
    return legal[0] if len(legal) == 1 else None


#: kind -> "module:Class". Each class is called as ``Class(arg, seed=seed)``.
BOT_KINDS: dict[str, str] = {
    "random": "catsack.bots.random_bot:RandomBot",
    "heuristic": "catsack.bots.heuristic:HeuristicBot",
    "ismcts": "catsack.bots.ismcts:ISMCTSBot",
    "expert": "catsack.bots.strongest:make_expert",  # the learned expert or the classic one, by the options
    "classic": "catsack.bots.expert:ExpertBot",
    "external": "catsack.protocol.external:ExternalBot",
    "openspiel-ismcts": "catsack.envs.openspiel_bot:OpenSpielISMCTSBot",
    "policy": "catsack.learn.bot:PolicyBot",
    "dmc": "catsack.learn.dmc_bot:DMCBot",
    "style": "catsack.bots.styles:StyleBot",
    "persona": "catsack.bots.personas:PersonaBot",
}
#: The learned expert: what ``expert`` names with no options or only its own
#: (:func:`catsack.bots.strongest.make_expert`; the other options name the classic expert).
LEARNED_EXPERT = "catsack.learn.agent:ExpertAgent"


def load_target(target: str, name: str) -> Any:
    """What a registry entry ``"module:Name"`` names, its module imported only now; raise
    :class:`BotSpecError` saying that ``name`` is not available when the module cannot be imported (an
    optional extra that is not installed)."""
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise BotSpecError(f"{name} is not available: {exc}") from exc
    return getattr(module, attr)


def make_bot(spec: str, *, seed: int | None = None) -> Bot:
    """Make a bot from a spec such as ``ismcts:strong``; raise :class:`BotSpecError` if unknown."""
    if not isinstance(spec, str) or not spec.strip():
        raise BotSpecError(f"a bot spec must be text such as 'heuristic' or 'ismcts:strong', not {spec!r}")
    kind, _, arg = spec.strip().partition(":")
    target = BOT_KINDS.get(kind)
    if target is None:
        raise BotSpecError(f"unknown bot kind {kind!r} in {spec!r} (known: {', '.join(sorted(BOT_KINDS))})")
    bot: Bot = load_target(target, f"bot kind {kind!r}")(arg or None, seed=seed)
    bot.name = spec.strip()
    return bot


def play_game(game: Game, bots: list[Bot], *, hide_kinds: bool = False) -> Game:
    """Play ``game`` to the end with ``bots[i]`` in seat ``i``, each deciding from its own view (R23); every
    bot meets the table (:meth:`Bot.meet`) by every seat's bot name, or with ``hide_kinds`` as a table of
    people (``None`` for every seat)."""
    players: list[str | None] = [None if hide_kinds else bot.name for bot in bots]
    for i, bot in enumerate(bots):
        bot.reset(i, game.seats)
        bot.meet(players)
    while (seat := game.to_move) is not None:
        game.play(bots[seat].choose(game.view(seat)))
    return game
