"""Belief sampling: complete hidden states consistent with one seat's view.

Search bots, analysis and the OpenSpiel adapter need whole games while
knowing only a view. :func:`sample_game` deals, uniformly among the deals
that fit the view, every card the view hides (other seats' hands, removed
cards and face-down row cards; with 3 seats the dummy's unseen cards), then
replays the public history, so the result shows the viewer exactly the same
view. :func:`card_beliefs` gives the marginal probability of each token for
every face-down row card.
"""

from __future__ import annotations

import random
from collections import Counter

from catsack.cards import CARDS, Card
from catsack.errors import CatsackError
from catsack.game import Game
from catsack.moves import PLACES, parse_move
from catsack.setup import Setup
from catsack.view import HIDDEN_PLACE, View

__all__ = ["BeliefError", "card_beliefs", "sample_game"]


class BeliefError(CatsackError):
    """A view that no deal can explain (corrupted or hand-made)."""


def _known_placed(view: View) -> list[list[Card]]:
    placed: list[list[Card]] = [[] for _ in range(view.seats)]
    for seat, text in view.history:
        if text.startswith("place ") and text != HIDDEN_PLACE:
            placed[seat].append(parse_move(text).card)
    return placed


def _dummy_seen(view: View) -> list[Card]:
    seen = [r.row[0] for r in view.rounds]
    if not view.is_over and view.row and view.row[0].card is not None:
        seen.append(view.row[0].card)
    return seen


def sample_game(view: View, rng: random.Random) -> Game:
    """A full game consistent with ``view``, hidden cards dealt uniformly at random.

    ``sample_game(v, rng).view(v.seat, show_money=v.money_visible) == v``.
    """
    n = view.seats
    placed = _known_placed(view)
    hidden_places: dict[int, Card] = {}
    removed: list[Card] = []
    for j in range(n):
        if j == view.seat:
            if view.removed is None:
                raise BeliefError("a seat's view must name its removed card")
            removed.append(view.removed)
            continue
        pool = list(CARDS)
        for c in placed[j]:
            if c not in pool:
                raise BeliefError(f"seat {j} is shown placing {c} twice")
            pool.remove(c)
        rng.shuffle(pool)
        if any(s == j and t == HIDDEN_PLACE for s, t in view.history):
            hidden_places[j] = pool.pop()
        removed.append(pool.pop())
    dummy: tuple[Card, ...] = ()
    if n == 3:
        seen = _dummy_seen(view)
        rest = [c for c in CARDS if c not in seen]
        rng.shuffle(rest)
        dummy = tuple(seen + rest[: 9 - len(seen)])
    try:
        game = Game(Setup(n, view.first_start, tuple(removed), dummy))
        for seat, text in view.history:
            game.play(PLACES[hidden_places[seat]] if text == HIDDEN_PLACE else text)
    except CatsackError as exc:
        raise BeliefError(f"the view's history cannot be replayed: {exc}") from exc
    return game


def card_beliefs(view: View) -> list[dict[str, float] | None]:
    """For each row position: ``None`` if the viewer sees the card, else P(token).

    Exact, not sampled: a face-down card of seat j is uniform over the cards
    of j's set that the viewer has not seen (R23 hides which one is missing);
    the dummy's face-down card is uniform over its set's unseen cards.
    """
    out: list[dict[str, float] | None] = []
    placed = _known_placed(view)
    for rc in view.row:
        if rc.card is not None:
            out.append(None)
            continue
        if rc.owner is None:
            unseen = [c for c in CARDS if c not in _dummy_seen(view)]
        else:
            counts = Counter(placed[rc.owner])
            unseen = [c for c in CARDS if not counts[c]]
        p = 1.0 / len(unseen)
        out.append({c.token: p for c in unseen})
    return out
