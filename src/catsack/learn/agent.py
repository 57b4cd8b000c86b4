"""The learned ``expert``: a network that reads the table, and a short search at the table that uses it.

At each decision with a choice the bot (:class:`ExpertAgent`) reads its view (R23) and the players' public
history (:func:`catsack.learn.tablenet.table_features`: each player's face-down cards so far, its bids against
what the rows turned out to hold, its jumps and purchases, and at a continuing table the same over the
sitting's earlier games), and its network (:class:`~catsack.learn.tablenet.TableNet`, trained against a
league by :mod:`catsack.learn.league_train`) gives four heads: Q of each abstract action, the value of the
position, a belief over every row card hidden from it, and a model of how another player, read from that
player's own view, would act.

Then it searches (:func:`search`): the ``top`` actions best in Q are each played out in ``worlds`` hidden
worlds dealt from the belief head (each face-down row card drawn from the belief given its owner's history,
restricted to the cards of its set nobody has seen, R7, R23; the rest of each hand uniform), all of them side
by side on the compiled engine: every other player moves by the network's model of it (the behaviour head,
from its own view of that world: what it could know), the bot's own later decisions greedily by Q, to the end
of the round (of a later round with ``rounds``), where the value head (or, after round 9, the game's result,
R20-R22) scores the bot's seat. The
move played is the best mean, the Q head's estimate counting as ``prior`` worlds. The search's noise is the
spread of its worlds; :func:`search` can also play the worlds with other opponent models (the league's
personas, the bot's own policy for everyone), and the analysis shows the spread across them too.

With ``open=classic`` the classic expert (:class:`catsack.bots.expert.ExpertBot`, the hand-built search)
plays round 1, where no earlier round has shown anything of the players to read (R10: every card is placed face
down), and the network the rest of the game.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.bots.expert import ExpertBot
from catsack.bots.personas import NUM_UNIFORMS
from catsack.cards import CARDS, Card
from catsack.envs.encoding import move_to_action
from catsack.envs.vector_numba import NumbaVectorGame
from catsack.learn.blas import single_thread_blas
from catsack.learn.fast_features import NUM_ABSTRACT, abstract_legal, abstract_to_move, nearest_abstract
from catsack.learn.history import Sitting, history_sums, round_notes
from catsack.learn.league import draw_trait_table
from catsack.learn.mlp import MARGIN_WEIGHT, mixed_return
from catsack.learn.reading import WORLDS as READ_WORLDS
from catsack.learn.reading import read_players
from catsack.learn.tablenet import Heads, TableNet, TableWeights, input_size, load_table, softmax, table_features
from catsack.moves import Move, parse_move
from catsack.setup import Setup
from catsack.view import HIDDEN_PLACE, View

__all__ = [
    "DEFAULT_WEIGHTS",
    "MIX",
    "OPENINGS",
    "OPPONENTS",
    "READ",
    "AgentOptions",
    "Appraisal",
    "ExpertAgent",
    "SearchResult",
    "appraise",
    "deal_worlds",
    "margin_weight",
    "parse_agent",
    "search",
]

DEFAULT_WEIGHTS: Final = "expert-v5"
WORLDS: Final = 24  # hidden worlds per candidate action
TOP: Final = 3  # candidate actions searched (best in Q first)
ROUNDS: Final = 1  # rounds played out before the value head scores a world
PRIOR: Final = 6.0  # the Q head's estimate counts as this many worlds
OPPONENTS: Final = ("model", "persona", "self")
MIX: Final = "mix"  # half the worlds with the behaviour head, half with the league's personas
READ: Final = "read"  # each player's model drawn from what its bids so far fit (catsack.learn.reading)
CHOICES: Final = (*OPPONENTS, MIX, READ)
OPENINGS: Final = ("net", "classic")  # who plays round 1: the network's search, or the classic expert

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class SearchResult:
    """What the search found for each candidate move: its mean return over the worlds (win share plus a small
    margin term), the standard error of that mean, its mean margin at the end of the round in points, the
    margin's standard error, and the Q head's estimate; ``worlds`` per candidate."""

    moves: tuple[Move, ...]
    returns: tuple[float, ...]
    return_se: tuple[float, ...]
    margins: tuple[float, ...]
    margin_se: tuple[float, ...]
    q: tuple[float, ...]
    worlds: int

    def best(self, prior: float = PRIOR) -> Move:
        """The move of the best mean return, the Q head's estimate counting as ``prior`` worlds."""
        w = self.worlds
        scores = [(w * r + prior * q) / (w + prior) for r, q in zip(self.returns, self.q, strict=True)]
        return self.moves[int(np.argmax(scores))]


def deal_worlds(
    view: View, belief: F32, rng: np.random.Generator, count: int
) -> tuple[list[Setup], list[dict[int, int]]]:
    """``count`` deals consistent with ``view``: each face-down row card drawn from ``belief`` (probabilities per
    row position and card) among the cards of its owner's set that the view has not shown, the owner's removed
    card uniform among the rest (R7), with three seats the dummy's unseen cards shuffled (R8). Returns the setups
    and, per world, the card each seat's hidden placement stands for."""
    n = view.seats
    me = view.seat
    assert me is not None and view.removed is not None
    placed: list[set[int]] = [set() for _ in range(n)]
    hidden_at: dict[int, int] = {}
    for s, text in view.history:
        if text.startswith("place ") and text != HIDDEN_PLACE:
            placed[s].add(int(parse_move(text).card))
    for p, rc in enumerate(view.row):
        if rc.card is None and rc.owner is not None:
            hidden_at[rc.owner] = p
    seen_dummy: list[int] = []
    if n == 3:
        seen_dummy = [int(r.row[0]) for r in view.rounds]
        if not view.is_over and view.row and view.row[0].card is not None:
            seen_dummy.append(int(view.row[0].card))
    setups: list[Setup] = []
    hidden: list[dict[int, int]] = []
    for _ in range(count):
        removed: list[Card] = []
        cards: dict[int, int] = {}
        for j in range(n):
            if j == me:
                removed.append(view.removed)
                continue
            pool = [c for c in range(10) if c not in placed[j]]
            if j in hidden_at:
                w = belief[hidden_at[j], pool].astype(np.float64)
                total = w.sum()
                w = w / total if total > 0 else np.full(len(pool), 1.0 / len(pool))
                c = pool[int(rng.choice(len(pool), p=w))]
                pool.remove(c)
                cards[j] = c
            removed.append(CARDS[pool[int(rng.integers(len(pool)))]])
        dummy: tuple[Card, ...] = ()
        if n == 3:
            rest = [c for c in range(10) if c not in seen_dummy]
            rng.shuffle(rest)
            dummy = tuple(CARDS[c] for c in [*seen_dummy, *rest[: 9 - len(seen_dummy)]])
        setups.append(Setup(n, view.first_start, tuple(removed), dummy))
        hidden.append(cards)
    return setups, hidden


def search(
    view: View,
    net: TableNet,
    rng: np.random.Generator,
    *,
    sitting: Sitting | None = None,
    worlds: int = WORLDS,
    top: int = TOP,
    opponents: str = "model",
    consider: Iterable[Move] = (),
    rounds: int = ROUNDS,
    margin_weight: float = MARGIN_WEIGHT,
) -> SearchResult:
    """Play the ``top`` abstract actions best in Q (and the moves of ``consider``) out to the end of the round
    (of the ``rounds``-th round from this one) in ``worlds`` worlds each (see the module docs); ``opponents`` is
    how the other players move there: ``model`` (the behaviour head), ``persona`` (a persona of the league drawn
    per world), ``self`` (the Q head, greedy), ``mix`` (every other world ``model``, the rest ``persona``),
    ``read`` (each player's model per world drawn from its posterior, :func:`catsack.learn.reading.read_players`).
    ``margin_weight`` is the margin term of a finished game's return: the one the network was trained for
    (:func:`margin_weight`)."""
    if opponents not in CHOICES:
        raise ValueError(f"opponents must be one of {', '.join(CHOICES)}, not {opponents!r}")
    me = view.seat
    if me is None or view.to_move != me or not view.legal:
        raise ValueError(f"search needs the view of the seat to move (seat {me}, to move {view.to_move})")
    sitting = sitting or Sitting(view.seats)
    heads = net.heads(table_features(view, sitting)[None, :])
    q = heads.q[0]
    cands = _candidates(view, q, top, consider)
    setups, hidden = deal_worlds(view, softmax(heads.belief[0]), rng, worlds)
    lanes = _Lanes.of(view, sitting, [setups[w] for _ in cands for w in range(worlds)], len(cands), hidden)
    first = np.repeat(np.asarray([move_to_action(m) for m in cands], np.int64), worlds)
    traits: F64 | None = None
    personas = np.ones((len(lanes), view.seats), np.bool_)
    if opponents in ("persona", MIX):
        traits = draw_trait_table(rng, (len(lanes), view.seats))
        if opponents == MIX:
            personas[np.arange(len(lanes)) % worlds % 2 == 0] = False
    elif opponents == READ:
        few = min(worlds, READ_WORLDS)
        reading = read_players(view, net, setups[:few], hidden[:few], rng, sitting=sitting)
        traits, personas = reading.assign(rng, len(lanes))
    lanes.play_out(net, me, first, rng, opponents == "self", traits, personas, rounds)
    ret, margin = lanes.returns(net, me, margin_weight)
    R = ret.reshape(len(cands), worlds)
    M = margin.reshape(len(cands), worlds)
    se = R.std(axis=1, ddof=1) / math.sqrt(worlds) if worlds > 1 else np.zeros(len(cands))
    mse = M.std(axis=1, ddof=1) / math.sqrt(worlds) if worlds > 1 else np.zeros(len(cands))
    return SearchResult(
        tuple(cands),
        tuple(float(v) for v in R.mean(axis=1)),
        tuple(float(v) for v in se),
        tuple(float(v) for v in M.mean(axis=1)),
        tuple(float(v) for v in mse),
        tuple(float(q[nearest_abstract(view, m)]) for m in cands),
        worlds,
    )


def _candidates(view: View, q: F32, top: int, consider: Iterable[Move]) -> list[Move]:
    """The ``top`` legal abstract actions best in ``q`` as moves, then the legal moves of ``consider``."""
    legal = abstract_legal(view)
    order = [int(a) for a in np.argsort(-np.where(legal, q, -np.inf)) if legal[a]]
    cands = [abstract_to_move(view, a) for a in order[:top]]
    return cands + [m for m in dict.fromkeys(consider) if m in view.legal and m not in cands]


@dataclass
class _Lanes:
    """The search's worlds side by side on the compiled engine, each at the view's position, with the players'
    public history (this game's sums and round notes, the sitting's) that the network reads as they play on."""

    vg: NumbaVectorGame
    sums: F64
    notes: I64
    kept: F64
    sit: F64
    games: I64
    round: int

    @classmethod
    def of(cls, view: View, sitting: Sitting, setups: list[Setup], copies: int, hidden: list[dict[int, int]]) -> _Lanes:
        """``setups`` (``copies`` runs of the worlds) replayed to ``view``'s position: each hidden placement
        becomes the card its world deals there (``hidden``)."""
        vg = NumbaVectorGame.from_setups(setups)
        assert isinstance(vg, NumbaVectorGame)
        lanes = len(setups)
        for s, text in view.history:
            if text == HIDDEN_PLACE:
                acts = np.array([world[s] for _ in range(copies) for world in hidden], np.int64)
            else:
                acts = np.full(lanes, move_to_action(parse_move(text)), np.int64)
            vg.step(acts)
        now = np.asarray(history_sums(view), np.float64)
        sums = np.broadcast_to(now, (lanes, *now.shape)).copy()
        notes = np.broadcast_to(np.asarray(round_notes(view), np.int64), (lanes, view.seats, 5)).copy()
        sit = np.broadcast_to(np.asarray(sitting.sums, np.float64), sums.shape).copy()
        games = np.full(lanes, sitting.games, np.int64)
        return cls(vg, sums, notes, np.zeros_like(sums), sit, games, view.round)

    def __len__(self) -> int:
        return len(self.games)

    def features(self, x: F32, seats: int | None = None) -> None:
        """Fill ``x`` with every lane's table features (for the player to move, or for ``seats``)."""
        self.vg.table_features(x, self.sums, self.sit, self.games, seats=seats)

    def play_out(self, net: TableNet, me: int, first: I64, rng: np.random.Generator, greedy: bool,
                 traits: F64 | None, personas: npt.NDArray[np.bool_], rounds: int = ROUNDS) -> None:  # fmt: skip
        """Play every lane to the end of its round (of the ``rounds``-th round from it): ``first`` is the bot's move
        in each; then the bot plays greedily in Q and the others by the behaviour head (sampled), by Q too when
        ``greedy``, or, where ``personas`` (lanes by seats) holds for the player to move, by its persona of
        ``traits`` where given."""
        vg = self.vg
        lanes = len(self)
        x_all = np.zeros((lanes, input_size(net.seats)), np.float32)
        active = np.ones(lanes, np.bool_)
        step = 0
        while active.any():
            mask, counts = vg.abstract_mask()
            abstract = np.argmax(mask, axis=1)
            if step > 0:
                self.features(x_all)
                choice = np.flatnonzero(active & (counts > 1))
                if len(choice):
                    abstract[choice] = _choose(net.heads(x_all[choice]), mask[choice], vg.to_move[choice] == me,
                                               rng, greedy)  # fmt: skip
            actions = vg.abstract_to_actions(abstract) if step > 0 else first
            if traits is not None and step > 0:
                mover = np.clip(vg.to_move, 0, personas.shape[1] - 1)
                theirs = active & personas[np.arange(lanes), mover] & (vg.to_move != me)
                if theirs.any():
                    u = rng.random((lanes, NUM_UNIFORMS))
                    actions = np.where(theirs, vg.persona_actions(traits, u, where=theirs), actions)
            vg.track_history(actions, self.notes, self.sums, self.kept, where=active)
            vg.step(actions, where=active)
            step += 1
            active &= ~vg.terminated & (vg.round < self.round + rounds)

    def returns(self, net: TableNet, me: int, weight: float = MARGIN_WEIGHT) -> tuple[F64, F64]:
        """Each lane's return for seat ``me`` (win share and margin after the game's end, R20-R22, else the value
        head at the round's end) and its margin in points over the table's mean."""
        vg = self.vg
        over = vg.terminated
        scores = vg.scores().astype(np.float64)
        margin = scores[:, me] - scores.mean(axis=1)
        ret = np.zeros(len(self), np.float64)
        if over.any():
            key = scores * 4096 + vg.cat_points()
            best = key == key.max(axis=1, keepdims=True)
            win = best[:, me] / best.sum(axis=1)
            ret[over] = mixed_return(win, margin, weight)[over]
        if (~over).any():
            x_all = np.zeros((len(self), input_size(net.seats)), np.float32)
            self.features(x_all, seats=me)
            idx = np.flatnonzero(~over)
            ret[idx] = net.heads(x_all[idx]).value
        return ret, margin


def _choose(out: Heads, mask: npt.NDArray[np.bool_], mine: npt.NDArray[np.bool_], rng: np.random.Generator,
            greedy: bool) -> I64:  # fmt: skip
    """Abstract actions for lanes with a choice: greedy in Q for the bot's own (``mine``) and, when ``greedy``,
    for all; otherwise the others' sampled from the behaviour head."""
    best: I64 = np.argmax(np.where(mask, out.q, -np.inf), axis=1)
    if greedy:
        return best
    p = np.where(mask, softmax(np.where(mask, out.behaviour, -1e9)), 0.0)
    c = np.cumsum(p, axis=1)
    u = rng.random(len(mask))[:, None] * c[:, -1:]
    pick = np.minimum(np.argmax(c > u, axis=1), NUM_ABSTRACT - 1)
    return np.where(mine, best, pick)


def margin_weight(weights: TableWeights) -> float:
    """The margin term of the return ``weights`` were trained for (``league_train --margin-weight``; weights
    trained before it existed: :data:`catsack.learn.mlp.MARGIN_WEIGHT`)."""
    config = weights.meta.get("config")
    value = config.get("margin_weight", MARGIN_WEIGHT) if isinstance(config, dict) else MARGIN_WEIGHT
    return float(value)


@cache
def _weights(name: str) -> TableWeights:
    single_thread_blas()
    return load_table(name)


@dataclass(frozen=True)
class AgentOptions:
    """The ``expert`` spec's options (:func:`parse_agent`)."""

    weights: str = DEFAULT_WEIGHTS
    worlds: int = WORLDS
    top: int = TOP
    search: bool = True
    opponents: str = "model"
    rounds: int = ROUNDS
    open: str = "net"


def parse_agent(arg: str | None) -> AgentOptions:
    """``expert[:worlds=W][+top=K][+rounds=R][+search=0|1][+opponents=O][+open=P][+weights=NAME]`` -> its
    options."""
    out = AgentOptions()
    for part in (arg or "").split("+"):
        text = part.strip()
        if not text:
            continue
        key, sep, value = text.partition("=")
        if sep and key == "worlds" and value.isdigit() and 2 <= int(value) <= 4096:
            out = replace(out, worlds=int(value))
        elif sep and key == "top" and value.isdigit() and 1 <= int(value) <= 16:
            out = replace(out, top=int(value))
        elif sep and key == "rounds" and value.isdigit() and 1 <= int(value) <= 9:  # a game has nine rounds (R20)
            out = replace(out, rounds=int(value))
        elif sep and key == "search" and value in ("0", "1"):
            out = replace(out, search=value == "1")
        elif sep and key == "opponents" and value in CHOICES:
            out = replace(out, opponents=value)
        elif sep and key == "open" and value in OPENINGS:
            out = replace(out, open=value)
        elif sep and key == "weights" and value:
            out = replace(out, weights=value)
        else:
            raise BotSpecError(
                f"bad expert option {text!r} in {arg!r}: use 'worlds=W' (2-4096), 'top=K' (1-16), 'rounds=R' (1-9), "
                f"'search=0|1', 'opponents=O' ({', '.join(CHOICES)}), 'open=P' ({', '.join(OPENINGS)}) or "
                "'weights=NAME', joined with '+'"
            )
    return out


class ExpertAgent(Bot):
    """The learned ``expert``: the table network's Q, refined by a short search with its belief and opponent model."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        self.options = parse_agent(arg)
        try:
            self.weights = _weights(self.options.weights)
        except ValueError as exc:
            raise BotSpecError(f"expert: {exc}") from exc
        self.margin_weight = margin_weight(self.weights)  # the return the network was trained for
        self.rng = np.random.default_rng(seed)
        self.sitting: Sitting | None = None
        self.seen: View | None = None  # the last view of this game (read into the sitting at the next reset)
        self.last: SearchResult | None = None
        self.players: tuple[str | None, ...] | None = None
        #: ``open=classic``: the classic expert that plays round 1 (it keeps its own table memory in a sitting)
        self.opening = ExpertBot(seed=seed) if self.options.open == "classic" else None

    def reset(self, seat: int, seats: int) -> None:
        try:
            self.weights.net(seats)
        except ValueError as exc:
            raise BotSpecError(f"expert: {exc}") from exc
        if self.opening is not None:
            self.opening.seen = self.seen  # the game just played, as this seat last saw it, for its memory
            self.opening.reset(seat, seats)
        if self.sitting is None or self.sitting.seats != seats:
            self.sitting = Sitting(seats)
        elif self.seen is not None and self.seen.seats == seats:
            self.sitting.add(self.seen)  # the game just played, as this seat last saw it
        self.seen = None

    def meet(self, players: Sequence[str | None]) -> None:
        """A table of other players forgets what the last one showed."""
        if self.players is not None and self.players != tuple(players):
            self.sitting = Sitting(len(players))
        self.players = tuple(players)
        if self.opening is not None:
            self.opening.meet(players)

    def remember(self, sitting: Sitting) -> None:
        """Read ``sitting`` as this table's earlier games from now on: a server makes a new bot for each decision
        and keeps the sitting with a rematch (:meth:`Sitting.state`). Call it after :meth:`reset`; a sitting of
        another seat count is refused."""
        if self.sitting is not None and sitting.seats != self.sitting.seats:
            raise ValueError(f"a sitting of {sitting.seats} seats at a table of {self.sitting.seats}")
        self.sitting = sitting

    def think(self, view: View) -> None:
        """Search ``view`` as a decision with a choice would be searched, the result unused: a server plays a forced
        move (one legal option) no sooner than a chosen one, so the time it takes tells nothing (R23, R24)."""
        if (opening := self._opening(view)) is not None:
            opening.think(view)
        elif self.options.search:
            self._search(view)

    def choose(self, view: View) -> Move:
        self.seen = view
        if (opening := self._opening(view)) is not None:
            return opening.choose(view)
        only = forced_move(view)
        if only is not None:
            return only
        legal = abstract_legal(view)
        if not self.options.search or int(legal.sum()) == 1:
            q = self.weights.net(view.seats).q(table_features(view, self._sitting(view))[None, :])[0]
            return abstract_to_move(view, int(np.argmax(np.where(legal, q, -np.inf))))
        self.last = self._search(view)
        return self.last.best()

    def _opening(self, view: View) -> ExpertBot | None:
        """The classic expert where it decides ``view`` (``open=classic``, round 1), else ``None``."""
        return self.opening if view.round == 1 else None

    def _sitting(self, view: View) -> Sitting | None:
        return self.sitting if self.sitting is not None and self.sitting.seats == view.seats else None

    def _search(self, view: View) -> SearchResult:
        o = self.options
        net = self.weights.net(view.seats)
        sitting = self._sitting(view)
        return search(
            view,
            net,
            self.rng,
            sitting=sitting,
            worlds=o.worlds,
            top=o.top,
            opponents=o.opponents,
            rounds=o.rounds,
            margin_weight=self.margin_weight,
        )


@dataclass(frozen=True)
class Appraisal:
    """Every candidate move valued under each opponent model (:data:`OPPONENTS`): its mean margin at the end of
    the round in points over all of them, and a noise that holds the search's own (the standard error of the
    mean over its worlds) and the spread between the models; ``by_model`` keeps each model's means."""

    moves: tuple[Move, ...]
    values: tuple[float, ...]
    noise: tuple[float, ...]
    worlds: int
    by_model: dict[str, tuple[float, ...]]


def appraise(
    view: View,
    net: TableNet,
    rng: np.random.Generator,
    *,
    sitting: Sitting | None = None,
    worlds: int = WORLDS,
    consider: Iterable[Move] = (),
) -> Appraisal:
    """Value every legal abstract action (and the moves of ``consider``) under each opponent model: the
    analysis's view of a decision. A move whose value rests on reading the others (the models disagree about
    it) gets a wide noise, so it is not shown as certain."""
    results = [
        search(view, net, rng, sitting=sitting, worlds=worlds, top=16, opponents=o, consider=consider)
        for o in OPPONENTS
    ]
    moves = results[0].moves
    for r in results[1:]:
        if r.moves != moves:  # the same view and network give the same candidates
            raise AssertionError("the opponent models were asked about different moves")
    means = np.array([r.margins for r in results])
    errors = np.array([r.margin_se for r in results])
    k = len(results)
    within = np.sqrt((errors**2).sum(axis=0)) / k  # the standard error of the mean of k independent means
    between = means.std(axis=0)  # how far the models disagree
    return Appraisal(
        moves,
        tuple(float(v) for v in means.mean(axis=0)),
        tuple(float(v) for v in np.hypot(within, between)),
        worlds * k,
        {o: tuple(float(v) for v in r.margins) for o, r in zip(OPPONENTS, results, strict=True)},
    )
