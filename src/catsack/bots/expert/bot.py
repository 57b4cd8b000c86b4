"""The ``expert`` bot, its levels (``expert:easy|normal|strong``) and its spec's options."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from catsack.bots.base import Bot, forced_move, load_target
from catsack.bots.expert.leaf import LEAVES, HandValue, LeafValue
from catsack.bots.expert.memory import Recalled, TableMemory
from catsack.bots.expert.players import LEAD
from catsack.bots.expert.search import search
from catsack.bots.expert.spec import CHEAP_VISITS, STYLE_PRIORS, parse_spec
from catsack.bots.ismcts import RootStats
from catsack.moves import BID, Move
from catsack.view import View

#: Moves the search tried less than this share of its iterations are never picked as a mistake.
MISTAKE_VISITS = 0.02


class ExpertBot(Bot):
    """Search with honest opponents, a whole-game leaf value and a win-share reward; ``expert``."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None, leaf: LeafValue | None = None) -> None:
        #: everything the spec set (:class:`~catsack.bots.expert.spec.Options`); the search's model is its part
        self.options = opts = parse_spec(arg)
        # the budget, apart: a server's thinking process sets a wall-clock budget and a floor of iterations
        self.iterations, self.seconds = opts.iterations, opts.seconds
        self.min_iterations = 0  # with ``seconds``: iterations searched however soon the time is up (search())
        self.mistake, self.cheap = opts.mistake, opts.cheap
        # expert:memory=1: what the table's earlier games showed (a sitting: this object kept from game to game)
        self.memory = TableMemory() if opts.memory else None
        self.recalled: Recalled | None = None  # what the memory set for this game
        self.seen: View | None = None  # the last view of this game (read into the memory at the next reset)
        self.rng = random.Random(seed)
        if leaf is None:
            if opts.leaf == "hand":
                leaf = HandValue(opts.money, opts.future)
            else:
                leaf = load_target(LEAVES[opts.leaf], f"the leaf value {opts.leaf!r}")()
        self.leaf = leaf
        self.last: RootStats | None = None
        self.players: tuple[str | None, ...] | None = None  # the table as met (Bot.meet), for the style priors

    def reset(self, seat: int, seats: int) -> None:
        if self.memory is not None and self.seen is not None:
            self.memory.read(self.seen, self.players)  # the game just played, as this seat last saw it
        self.seen = None
        self.players = None
        self.recall()

    def meet(self, players: Sequence[str | None]) -> None:
        self.players = tuple(players)
        if self.memory is not None:
            self.memory.meet(self.players)  # another table forgets what this one showed
            self.recall()

    def remember(self, memory: TableMemory) -> None:
        """Play the next games with ``memory`` (what the table's earlier games showed, kept elsewhere: a server keeps
        it with a rematch), if this bot keeps a memory (``memory=1``); call it after :meth:`meet`."""
        if self.memory is None:
            return
        self.memory = memory
        if self.players is not None:
            memory.meet(self.players)
        self.recall()

    def recall(self) -> None:
        """Set :attr:`recalled` from the memory (``None``: the bot's own options)."""
        if self.memory is None:
            return
        o = self.options
        lead1 = STYLE_PRIORS["read"][LEAD] if o.lead1 is None else o.lead1
        self.recalled = self.memory.recall(lead1, o.always, o.dump, o.dump1)

    def choose(self, view: View) -> Move:
        if self.memory is not None:
            self.seen = view
        only = forced_move(view)
        if only is not None:
            return only
        self.last = self._search(view)
        move = pick_with_mistakes(self.last, self.rng, self.mistake)
        return cheapest_tied(self.last, move, self.cheap) if self.cheap > 0 else move

    def think(self, view: View) -> None:
        """Search ``view`` as a decision with a choice would be searched, the result unused: a forced move is then
        played no sooner than a chosen one, so the time it takes tells nothing (R23, R24)."""
        self._search(view)

    def _search(self, view: View) -> RootStats:
        return search(
            view,
            self.rng,
            iterations=self.iterations,
            seconds=self.seconds,
            leaf=self.leaf,
            players=self.players,
            min_iterations=self.min_iterations,
            model=self.options.model(self.recalled),
        )


def cheapest_tied(stats: RootStats, pick: Move, k: float) -> Move:
    """``pick``, or if it is a bid the lowest bid the search tried whose mean margin is within ``k``
    standard errors of ``pick``'s (the errors of both means combined) and that it tried at least
    :data:`CHEAP_VISITS` times as often (``expert:cheap=K``)."""
    if pick.kind != BID or not stats.spreads:
        return pick
    i = stats.moves.index(pick)
    best = pick
    for j, move in enumerate(stats.moves):
        if move.kind != BID or move.arg >= best.arg or stats.visits[j] < CHEAP_VISITS * stats.visits[i]:
            continue
        if stats.margins[i] - stats.margins[j] <= k * math.hypot(stats.error(i), stats.error(j)):
            best = move
    return best


def pick_with_mistakes(stats: RootStats, rng: random.Random, spread: float) -> Move:
    """The search's move, or with ``spread`` > 0 a deliberate mistake: a move drawn among those tried in at
    least :data:`MISTAKE_VISITS` of the iterations, weighted ``exp(-loss / spread)``, the loss being its
    mean margin's shortfall in points from the best of them. ``expert:easy`` and ``expert:normal`` play so."""
    if spread <= 0:
        return stats.best
    least = max(2, MISTAKE_VISITS * sum(stats.visits))
    pool = [i for i, n in enumerate(stats.visits) if n >= least]
    if len(pool) < 2:
        return stats.best
    top = max(stats.margins[i] for i in pool)
    weights = [math.exp((stats.margins[i] - top) / spread) for i in pool]
    return stats.moves[rng.choices(pool, weights)[0]]
