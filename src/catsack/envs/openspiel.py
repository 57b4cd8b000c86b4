"""The OpenSpiel game ``python_catsack``: explicit setup chance, views as observations.

>>> from catsack.envs.openspiel import register
>>> import pyspiel
>>> register()
'python_catsack'
>>> game = pyspiel.load_game("python_catsack", {"players": 4})
>>> state = game.new_initial_state()
>>> state.is_chance_node()
True

Nothing registers on import: call :func:`register` first (it is idempotent).

Chance (R7–R9) is explicit, in this order: the start player (outcome =
seat, uniform), then the card removed from each seat's set, seat 0 first
(outcome = card index 0..9, uniform), then with 3 players the dummy deck
top first (each outcome a card index, uniform over the set's cards not yet
drawn; the one never drawn is the dummy's removed card). After that the game
is deterministic; player actions are those of :mod:`catsack.envs.encoding`.

Information-state strings and tensors, observation strings and tensors are
all computed from the player's view (R23). The information-state string is
an exact perfect-recall key (the viewer's seat, the first start player, the
viewer's removed card, the dummy cards seen and every move as the viewer saw
it); the information-state tensor is the observation tensor followed by
:func:`~catsack.envs.encoding.encode_rounds`. Returns are the score margins
over the table average (R21), so they sum to 0.

``state.resample_from_infostate(player, sampler)`` deals a world consistent
with the player's information with :func:`catsack.belief.sample_game`
(``sampler()`` gives the seed), as OpenSpiel's ISMCTS expects.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

import numpy as np
import pyspiel  # type: ignore[import-untyped,import-not-found,unused-ignore]

from catsack.belief import sample_game
from catsack.cards import CARDS, TOKENS
from catsack.envs.encoding import (
    NUM_ACTIONS,
    action_to_move,
    game_rewards,
    legal_actions_of,
    move_to_action,
    observation_offsets,
    observation_size,
    render_text,
    reward_range,
    rounds_size,
    shared_rounds_vector,
)
from catsack.envs.observer import Observer
from catsack.game import ROUNDS, Game
from catsack.setup import TOTAL_MONEY, Setup
from catsack.view import View

__all__ = ["GAME_NAME", "CatsackGame", "CatsackState", "register", "state_from_game"]

GAME_NAME: Final = "python_catsack"
_DEFAULT_PLAYERS: Final = 4
_DUMMY_CARDS: Final = 9  # R8: the dummy deck is a set less its removed card

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Felix: The Cat in the Sack (catsack)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": _DEFAULT_PLAYERS},
)


def register() -> str:
    """Register ``python_catsack`` with pyspiel (once; later calls do nothing) and return its name."""
    if GAME_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, CatsackGame)
    return GAME_NAME


def _game_info(n: int) -> Any:
    low, high = reward_range(n, "margin")
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_ACTIONS,
        max_chance_outcomes=10,
        num_players=n,
        min_utility=low,
        max_utility=high,
        utility_sum=0.0,
        # Per round: n placements, at most one bid per mouse in play (bids rise, R12), n passes.
        max_game_length=ROUNDS * (2 * n + TOTAL_MONEY[n]),
    )


class CatsackGame(pyspiel.Game):  # type: ignore[misc]
    """The pyspiel game; ``players`` (3–5) is its one parameter (R4)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        n = params.get("players", _DEFAULT_PLAYERS)
        if type(n) is not int or n not in (3, 4, 5):
            raise ValueError(f"python_catsack: players must be 3, 4 or 5 (R4), not {n!r}")
        # GameInfo is built from the real parameter, never from the default.
        super().__init__(_GAME_TYPE, _game_info(n), params)
        self.seats = n

    def new_initial_state(self) -> CatsackState:
        return CatsackState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> CatsackObserver:
        return CatsackObserver(self.seats, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class _Box:
    """Holds the engine game and its Observer; copying the state clones both and drops cached views."""

    __slots__ = ("game", "observer", "views")

    def __init__(self, game: Game | None, observer: Observer | None = None) -> None:
        self.game = game
        self.views: dict[int, View] = {}
        # Made on the first tensor request, then kept in step with every move (see Observer).
        self.observer = observer

    def __deepcopy__(self, memo: dict[int, Any]) -> _Box:
        if self.game is None:
            return _Box(None)
        game = self.game.clone()
        return _Box(game, None if self.observer is None else self.observer.clone(game))

    def __reduce__(self) -> tuple[type[_Box], tuple[Game | None]]:
        return (_Box, (self.game,))  # pickled states (serialization) leave the caches behind

    def observe_into(self, player: int, out: np.ndarray[Any, Any]) -> None:
        """Write ``player``'s observation vector (``encode_observation`` of their view) into ``out``."""
        assert self.game is not None
        if self.observer is None:
            self.observer = Observer(self.game)
        self.observer.observe_into(player, out)


class CatsackState(pyspiel.State):  # type: ignore[misc]
    """A full game state (all hidden cards included); players see it only through views."""

    def __init__(self, game: CatsackGame) -> None:
        super().__init__(game)
        self._n: int = game.seats
        self._start = -1
        self._removed: list[int] = []
        self._dummy: list[int] = []
        self._box = _Box(None)

    # ------------------------------------------------------------------ chance (R7–R9)

    def current_player(self) -> int:
        g = self._box.game
        if g is None:
            return int(pyspiel.PlayerId.CHANCE)
        if g.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return g.to_move  # type: ignore[return-value]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self._start < 0:
            return [(s, 1.0 / self._n) for s in range(self._n)]
        if len(self._removed) < self._n:
            return [(c, 0.1) for c in range(10)]
        rest = [c for c in range(10) if c not in self._dummy]
        return [(c, 1.0 / len(rest)) for c in rest]

    def _legal_actions(self, player: int) -> list[int]:
        g = self._box.game
        if g is None or g.is_over or player != g.to_move:
            return []
        return legal_actions_of(g.legal_moves())

    def _apply_action(self, action: int) -> None:
        g = self._box.game
        if g is None:
            self._apply_chance(int(action))
            return
        box = self._box
        if box.views:
            box.views = {}
        g.play(action_to_move(action))
        if box.observer is not None:
            box.observer.sync()

    def _apply_chance(self, a: int) -> None:
        if a not in [o for o, _ in self.chance_outcomes()]:
            raise ValueError(f"python_catsack: {a} is not a chance outcome here")
        if self._start < 0:
            self._start = a
        elif len(self._removed) < self._n:
            self._removed.append(a)
        else:
            self._dummy.append(a)
        if len(self._removed) == self._n and (self._n != 3 or len(self._dummy) == _DUMMY_CARDS):
            setup = Setup(
                self._n, self._start, tuple(CARDS[c] for c in self._removed), tuple(CARDS[c] for c in self._dummy)
            )
            self._box = _Box(Game(setup))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self._start < 0:
                return f"start seat {action}"
            if len(self._removed) < self._n:
                return f"seat {len(self._removed)} removes {TOKENS[action]}"
            return f"dummy deck {TOKENS[action]}"
        return action_to_move(action).text

    # ------------------------------------------------------------------ end and returns

    def is_terminal(self) -> bool:
        g = self._box.game
        return g is not None and g.is_over

    def returns(self) -> list[float]:
        g = self._box.game
        if g is None or not g.is_over:
            return [0.0] * self._n
        return list(game_rewards(g, "margin"))

    def __str__(self) -> str:
        g = self._box.game
        start = "?" if self._start < 0 else str(self._start)
        removed = " ".join(TOKENS[c] for c in self._removed)
        dummy = " ".join(TOKENS[c] for c in self._dummy)
        head = f"seats {self._n}; start {start}; removed [{removed}]" + (f"; dummy [{dummy}]" if self._n == 3 else "")
        if g is None:
            return head
        return head + "\nmoves: " + ", ".join(m.text for m in g.moves)

    # ------------------------------------------------------------------ views and resampling

    @property
    def game(self) -> Game | None:
        """The engine game once the setup is dealt (full information: not for players)."""
        return self._box.game

    def view(self, player: int) -> View | None:
        """``player``'s view (R23), or ``None`` during the setup chance nodes."""
        box = self._box
        if box.game is None:
            return None
        v = box.views.get(player)
        if v is None:
            v = box.views[player] = box.game.view(player)
        return v

    def position_key(self, player: int) -> tuple[object, int, int] | None:
        """Names this state's position for ``player`` (``None`` while dealing); the box is never shared."""
        g = self._box.game
        return None if g is None else (self._box, g.ply, player)

    def write_tensors(self, player: int, obs: np.ndarray[Any, Any], rounds: np.ndarray[Any, Any] | None) -> bool:
        """Write ``player``'s observation (and finished rounds) tensors; ``False`` during the setup."""
        box = self._box
        g = box.game
        if g is None:
            return False
        box.observe_into(player, obs)
        if rounds is not None:
            rounds[:] = shared_rounds_vector(g.rounds, player, self._n)  # public rounds (R14, R17)
        return True

    def known_setup(self, player: int) -> tuple[int, int | None]:
        """During setup: (start seat or -1, the player's removed card if already dealt)."""
        return self._start, (self._removed[player] if player < len(self._removed) else None)

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> CatsackState:
        """A state with the same information state for ``player_id``; hidden cards dealt afresh."""
        seed = int(probability_sampler() * 2.0**53)
        return self.resample(player_id, random.Random(seed))

    def resample(self, player: int, rng: random.Random) -> CatsackState:
        """Like :meth:`resample_from_infostate`, drawing from ``rng``."""
        os_game = self.get_game()
        view = self.view(player)
        if view is not None:
            return state_from_game(os_game, sample_game(view, rng))
        # Still dealing: keep what the player saw (start, own removed card), redraw the rest.
        state: CatsackState = os_game.new_initial_state()
        if self._start >= 0:
            state.apply_action(self._start)
        for seat, card in enumerate(self._removed):
            state.apply_action(card if seat == player else int(rng.random() * 10))
        for _ in self._dummy:
            state.apply_action(rng.choice([o for o, _ in state.chance_outcomes()]))
        return state


def state_from_game(os_game: CatsackGame, game: Game) -> CatsackState:
    """The OpenSpiel state reached by dealing ``game``'s setup and playing its moves."""
    state: CatsackState = os_game.new_initial_state()
    setup = game.setup
    state.apply_action(setup.start)
    for card in setup.removed:
        state.apply_action(int(card))
    for card in setup.dummy:
        state.apply_action(int(card))
    for move in game.moves:
        state.apply_action(move_to_action(move))
    return state


def info_state_string(view: View) -> str:
    """The exact perfect-recall key of a seat's view (see the module docstring)."""
    seen = [TOKENS[r.row[0]] for r in view.rounds] if view.seats == 3 else []
    if view.seats == 3 and not view.is_over and view.row and view.row[0].card is not None:
        seen.append(TOKENS[view.row[0].card])
    removed = "?" if view.removed is None else TOKENS[view.removed]
    moves = " ".join(f"{s}:{text.replace(' ', '_')}" for s, text in view.history)
    head = f"p{view.seat} n{view.seats} start{view.first_start} removed{removed}"
    return head + (f" dummy[{' '.join(seen)}]" if view.seats == 3 else "") + f" | {moves}"


class CatsackObserver:
    """pyspiel's Python observer: strings and tensors from one player's view (R23)."""

    def __init__(self, seats: int, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"python_catsack observers take no parameters, got {params!r}")
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("python_catsack observes one player's view: public info and that player's private info")
        self.perfect_recall: bool = bool(iig_obs_type.perfect_recall)
        self.seats = seats
        size = observation_size(seats)
        extra = rounds_size(seats) if self.perfect_recall else 0
        self.tensor = np.zeros(size + extra, np.float32)
        self.dict = {"observation": self.tensor[:size]}
        if self.perfect_recall:
            self.dict["rounds"] = self.tensor[size:]
        self._filled: tuple[object, int, int] | None = None  # what the tensor holds now, see set_from

    def set_from(self, state: CatsackState, player: int) -> None:
        # pyspiel often asks twice for the same tensor (its size, then its values): answer from the last fill.
        key = state.position_key(player)
        if key is not None and key == self._filled:
            return
        self._filled = key
        if state.write_tensors(player, self.dict["observation"], self.dict.get("rounds")):
            return
        self.tensor.fill(0.0)  # still dealing: all the player knows is their removed card (R7)
        _start, removed = state.known_setup(player)
        if removed is not None:
            self.dict["observation"][observation_offsets(self.seats).removed + removed] = 1.0

    def string_from(self, state: CatsackState, player: int) -> str:
        view = state.view(player)
        if view is None:
            start, removed = state.known_setup(player)
            return (
                f"p{player} n{self.seats} setup{len(state.history())} start{'?' if start < 0 else start} "
                f"removed{'?' if removed is None else TOKENS[removed]}"
            )
        if self.perfect_recall:
            return info_state_string(view)
        return render_text(view)
