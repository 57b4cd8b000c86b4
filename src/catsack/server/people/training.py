"""Learn from your mistakes: training positions from analysed games, and their answers.

Every decision a finished analysis classed a ``mistake`` or ``blunder`` becomes a position to retry
("what would you do here?"): the deciding seat's own view at that moment (R23: the seat's view only,
its hand and its own face-down card included, nothing of the others'), the moves the analysis valued
as the choices, and the analysis's verdict and sentences as the answer. Positions come from two
sources:

- ``own``: the games of a player with an account, collected from the analyses stored for the seats
  the account held (:func:`harvest`), whenever the player opens the training page;
- ``pool``: games of bots, mined by ``catsack training-pool`` (:func:`mine_pool`): a seat of
  ``expert:easy`` (a level that makes mistakes of a set size) among ``heuristic`` bots, analysed as
  the server analyses games.

An answer is *solved* when the move is as good as the best one within the search's noise
(:func:`catsack.advice.analysis.equally_good`); how often players solve a position rates its
difficulty (:func:`catsack.server.storage.training_store.difficulty`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, select

from catsack.advice.analysis import Analysis, analyse_record, equally_good, judge
from catsack.advice.explain import DOG_RISK_PERCENT, explain, render_all
from catsack.cards import POINTS, Card
from catsack.game import Game
from catsack.moves import Move
from catsack.record import record_from_game
from catsack.server.storage.analysis_store import analyses_t
from catsack.server.storage.training_store import TrainingStore

__all__ = ["CLASSES", "POOL_BOTS", "answer", "harvest", "mine_pool", "position_view", "theme_of"]

#: The classes of decisions that become positions.
CLASSES = ("mistake", "blunder")
#: The pool's tables: the seat whose mistakes are mined first, then the others.
POOL_BOTS = ("expert:easy", "heuristic")


def theme_of(decision: dict[str, Any]) -> str:
    """The position's theme: ``placing``, ``opening`` (the first bid of a round), ``passing`` (whether to
    raise or drop out), ``last`` (the last choice, R15) or ``dogs`` (a dog in the row decides it, R16)."""
    phase = decision.get("phase")
    if phase == "placement":
        return "placing"
    if phase == "last choice":
        return "last"
    facts = decision.get("facts") or {}
    own = facts.get("own")
    dog_risk = own is not None and POINTS[Card.parse(own)] > 0 and facts.get("p_large", 0) >= DOG_RISK_PERCENT
    if facts.get("dogs_up") or dog_risk:
        return "dogs"
    return "opening" if not facts.get("high") else "passing"


def position_view(game: Game, seat: int, ply: int, money_visible: bool) -> dict[str, Any]:
    """``seat``'s own view before move ``ply`` of ``game`` (R23), as the replay's frames show it."""
    replay = Game(game.setup)
    for move in game.moves[:ply]:
        replay.play(move)
    view = replay.view(seat, show_money=money_visible).to_dict()
    view.pop("history", None)
    view.pop("legal", None)  # the choices are the analysed moves
    return view


def _store_decisions(
    store: TrainingStore,
    *,
    source: str,
    name: str,
    game: Game,
    seat: int,
    decisions: list[dict[str, Any]],
    user_id: int | None,
    names: list[str],
    money_visible: bool,
) -> int:
    have = store.has(name, seat)
    added = 0
    for d in decisions:
        if d.get("class") not in CLASSES or int(d["ply"]) in have or len(d.get("values", {})) < 2:
            continue
        view = position_view(game, seat, int(d["ply"]), money_visible)
        added += store.add(
            source=source,
            game=name,
            seat=seat,
            ply=int(d["ply"]),
            user_id=user_id,
            theme=theme_of(d),
            cls=str(d["class"]),
            view=view,
            names=names,
            decision=d,
        )
    return added


def harvest(
    engine: Engine,
    games: list[tuple[str, int]],
    user_id: int,
    load: Callable[[str], tuple[Game, list[str], bool] | None],
) -> int:
    """Store the mistakes of the account's seats (``games``: table id, seat) that a finished analysis
    found; ``load`` gives a table's game, seat names and whether money was shown. Positions stored
    already are kept; the number added is returned."""
    store = TrainingStore(engine)
    added = 0
    for table_id, seat in games:
        with engine.connect() as conn:
            rows = conn.execute(
                select(analyses_t.c.result).where(
                    analyses_t.c.table_id == table_id, analyses_t.c.seat == seat, analyses_t.c.status == "done"
                )
            ).all()
        have = store.has(table_id, seat)
        found = [d for (text,) in rows for d in (json.loads(text).get("decisions", []) if text else [])]
        if not any(d.get("class") in CLASSES and int(d["ply"]) not in have for d in found):
            continue  # nothing new: the game is not replayed
        loaded = load(table_id)
        if loaded is None:
            continue
        game, names, money_visible = loaded
        for decisions in (found,):
            added += _store_decisions(
                store,
                source="own",
                name=table_id,
                game=game,
                seat=seat,
                decisions=decisions,
                user_id=user_id,
                names=names,
                money_visible=money_visible,
            )
    return added


def mine_pool(
    engine: Engine,
    *,
    games: int,
    seed: int,
    level: str = "expert",
    seats: tuple[int, ...] = (3, 4, 5),
    progress: Callable[[str], None] | None = None,
) -> int:
    """Play ``games`` bot games (``expert:easy`` in seat 0, ``heuristic`` bots beside it), analyse seat 0 at
    ``level`` and store its mistakes and blunders in the pool. Reproducible for a seed; a game mined
    already (same seed and number) adds nothing. Returns the number of positions added."""
    from catsack.bots.base import make_bot

    store = TrainingStore(engine)
    added = 0
    for k in range(games):
        n = seats[k % len(seats)]
        name = f"pool-{seed}-{k}"
        if store.has(name, 0):  # mined already (only its mistakes are stored: a game without any is redone)
            continue
        specs = [POOL_BOTS[0]] + [POOL_BOTS[1]] * (n - 1)
        bots = [make_bot(spec, seed=seed * 100 + k * 10 + s) for s, spec in enumerate(specs)]
        for s, b in enumerate(bots):
            b.reset(s, n)
            b.meet(specs)
        game = Game.new(n, seed=seed * 1000 + k)
        while not game.is_over:
            mover = game.to_move
            assert mover is not None
            game.play(bots[mover].choose(game.view(mover)))
        record = record_from_game(game, agents=specs)
        decisions = [d.to_dict() for d in analyse_record(record, 0, level=level, seed=seed * 1000 + k)]
        names = [f"{spec} {i + 1}" for i, spec in enumerate(specs)]
        got = _store_decisions(
            store,
            source="pool",
            name=name,
            game=game,
            seat=0,
            decisions=decisions,
            user_id=None,
            names=names,
            money_visible=False,
        )
        added += got
        if progress is not None:
            progress(f"game {k + 1}/{games} ({n} seats): {got} positions")
    return added


def answer(decision: dict[str, Any], move: str) -> dict[str, Any]:
    """The verdict on ``move`` at a stored decision: solved (as good as the best within the noise) or
    not, what it lost, the noise, and the sentences in every language; ``ValueError`` if ``move`` is
    not one of the position's choices."""
    a = Analysis.from_dict(decision)
    if move not in a.values:
        raise ValueError(f"{move[:30]!r} is not one of this position's moves ({', '.join(a.values)})")
    played = Move.parse(move)
    v = judge(a.values, a.noise, a.best.text, played.text)
    equal = equally_good(a)
    sentences = explain(a, played)
    return {
        "move": played.text,
        "solved": played.text in equal,
        "best": a.best.text,
        "equal": equal,
        "lost": v.lost,
        "margin": v.noise,
        "class": v.cls,
        "values": a.values,
        "noise": a.noise,
        "played": decision.get("played"),
        "explain": [s.to_dict() for s in sentences],
        "sentences": render_all(sentences),
    }
