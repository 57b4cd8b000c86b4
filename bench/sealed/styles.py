"""Hand-written held-out styles: players unlike any in the training league, deciding from their view only.

Each departs from the heuristic bot's row estimate and bid limit (:mod:`catsack.bots.heuristic`, R12,
R13, R16) in a way the league's parametric space (:mod:`catsack.bots.personas`) has no parameter for:

=========== ==================================================================================
``grudge``  plays against the score leader: pushes up the price while the leader holds the high
            bid (up to 6 points over its own limit, never while it would be left alone with the
            row), and dumps its worst card whenever the leader is a likely buyer
``jumper``  opens every auction it enters with a jump to 60% of its limit, then raises a mouse at
            a time only up to 2 below its limit; places the card that changes the row least
``tilt``    plays its standing: 8 points or more behind the best other score it gambles (5 over
            its limit, places as a buyer), 8 or more ahead it sits tight (4 under, places as a
            seller), in between it plays the heuristic's rule
``counter`` believes that rich players hide good cards and poor ones bad: each face-down card
            of a player richer than the table's mean counts 3 points more, of a poorer one 3
            less; bids in steps of 2
``turncoat`` the heuristic's rule in the first game of a sitting, ``grudge`` and ``jumper``
            together from the second game on (the same bot object kept from game to game)
=========== ==================================================================================

The second set (:data:`SECOND`), written down after the first set's ``jumper`` had shaped the league's
``open`` trait and before any training with it, departs in ways neither space has a parameter for:

=========== ==================================================================================
``herd``    trusts the others' bids: while someone else holds the high bid it keeps raising a
            mouse over it up to 4 points over its own limit ("they know something"), never
            when it would be left alone with the row against one other player only
``sniper``  raises a mouse at a time, only up to 3 below its limit, while two or more others are
            in; once only one other is in it bids its whole limit at once
``rhythm``  plays in a two-round beat: in even rounds it passes at once (R13's payout) and hides its
            worst card; in odd rounds it bids 3 over its limit and places as a buyer
``drifter`` the heuristic's rule in a sitting's first game, ``herd`` and ``sniper`` together from
            the second game on
=========== ==================================================================================

The third set (:data:`THIRD`), written down before any training with the hard pool's ``value`` rank, plays
with errors of judgement rather than of nerve, which the league's personas (all of them exact estimators of
the row, R16) never make:

=========== ==================================================================================
``surface`` judges a row by the cards it can see (face up, and its own): what a buyer would keep of
            those (R16), the face-down cards of others counted as nothing
``dogblind`` forgets the dogs: every card it cannot see counts the mean cat value of the cards it
            has not seen (dogs and rabbits 0), and a face-up dog changes nothing (R16 ignored)
``anchor``  prices rows by the market: once a row has been bought this game, it bids for any row
            it values above zero up to the last price paid plus 2 mice, whatever the row holds
``echo``    the heuristic's rule in a sitting's first game, ``surface`` and ``anchor`` together
            from the second game on
=========== ==================================================================================

The fourth set (:data:`FOURTH`), written down before any training that follows the third set's measurement,
misjudges what it owns and counts instead of adding, and fights the last rival for a row:

=========== ==================================================================================
``endow``   overrates its own card in the row: a cat of its own worth more than 0 counts once more
            on top of the row's estimate, one worth less than 0 counts nothing (R16 otherwise)
``headcount`` counts cards instead of adding them: each card it can see counts 4 if a cat worth more
            than 0, -4 if a cat worth less or a dog, 0 if a rabbit; others' face-down cards nothing
``spoiler`` makes the last rival pay: when only one other player is still in and holds the high
            bid, it raises a mouse at a time up to 3 over its own limit
``relay``   the heuristic's rule in a sitting's first game, ``endow`` and ``spoiler`` together
            from the second game on
=========== ==================================================================================

The fifth set (:data:`FIFTH`), written down after the fourth set had been played and before any candidate was
measured on it, follows a neighbour, distrusts what it cannot see, or spends because it is the richest:

=========== ==================================================================================
``copycat`` follows the player before it: while that player is still in the auction it raises a mouse
            at a time up to 3 over its own limit; once that player has passed, the heuristic's rule
``skeptic`` expects 3 points less than the heuristic's estimate from each face-down card of another
            player in the row
``rich``    while it holds more mice than every other player, raises a mouse at a time up to 4 over
            its limit; otherwise the heuristic's rule
``turn``    the heuristic's rule in a sitting's first game, ``copycat`` and ``rich`` together from the
            second game on
=========== ==================================================================================

The sixth set (:data:`SIXTH`), written down after the fifth set had been played and before any training that
follows it, lets the auction's own past drive its bids: what it has already bid, whether it just bought, who
just bought:

=========== ==================================================================================
``escalate`` throws good money after bad: each bid it has already made in this auction raises its
            limit by 1, up to 4 over the heuristic's limit
``hot``     believes in streaks: in the round after it bought a row it bids up to 3 over its limit;
            after two or more rounds in a row without buying, 2 under it
``spite``   chases the last buyer: while the player who bought the previous round's row (not itself)
            holds the high bid, it raises a mouse at a time up to 4 over its limit
``swing``   the heuristic's rule in a sitting's first game, ``escalate`` and ``hot`` together from the
            second game on
=========== ==================================================================================

The seventh set (:data:`SEVENTH`), written down after the sixth set had been played and before any training that
follows it, rations its buying, takes fright at jumps, or cashes out at the end:

=========== ==================================================================================
``quota``   buys three rows a game at most: once it has bought three, it passes at once (R13's
            payout) and places its worst card; until then the heuristic's rule
``nerve``   takes fright at jumps: in an auction where another player has raised the high bid by
            two mice or more, it passes at its next turn; otherwise the heuristic's rule
``cashout`` from round 7 on, passes at once and places its worst card; before that the heuristic's rule
``pivot``   the heuristic's rule in a sitting's first game, ``nerve`` and ``cashout`` together from the
            second game on
=========== ==================================================================================

The eighth set (:data:`EIGHTH`), written down before any figure of the seventh set was read and before the
training that followed, bears grudges, collects, or spares the last-placed player:

=========== ==================================================================================
``revenge`` bears a grudge against every player who bought a row it had bid for earlier in the game
            (R17; bids are public): while one of them holds the high bid, it raises a mouse at a
            time up to 3 over its limit
``collector`` collects: each cat it can see in the row of a value it already holds counts 3 points
            more than its worth (R16 otherwise)
``kind``    spares the last-placed player: while the other player with the lowest score holds the
            high bid, it passes; otherwise the heuristic's rule
``cycle``   the heuristic's rule in a sitting's first game, ``revenge`` and ``collector`` together from
            the second game on
=========== ==================================================================================

The ninth set (:data:`NINTH`), written down before any figure of the eighth set was read and before the
training that followed, reads the others' bids as tells, never opens an auction, or spends its good cards early:

=========== ==================================================================================
``tells``   takes the others' bids for tells about their own face-down cards: each face-down card
            in the row of another player who has bid in this auction and is still in counts 3 points
            more, of one who has passed 3 points less (R12, R13; bids and passes are public, R23)
``patient`` never opens an auction: while no other player has bid in it, it passes (R13's payout);
            once one has, the heuristic's rule
``front``   spends its good cards early: in rounds 1 to 4 it places its best card, from round 5 on
            its worst, whatever it means to buy and as start player too (R11: its card shown);
            bids by the heuristic's rule
``tide``    the heuristic's rule in a sitting's first game, ``tells`` and ``front`` together from
            the second game on
=========== ==================================================================================

The tenth set (:data:`TENTH`), written down before any figure of the ninth set was read and before the
training that followed, cuts an auction short, calls jumps for bluffs, or fears dogs (``priceout`` was found, after
the set had been played, to be close kin of the personas' ``jump`` trait, which bids what no rival can top):

=========== ==================================================================================
``priceout`` ends an auction in one bid: once its limit reaches one mouse more than the richest
            other player still in holds, it bids that at once if it can (R12: none of them can
            beat it; money is public, R24); otherwise the heuristic's rule
``callout`` takes a jump for a bluff: while a player who raised the high bid by two mice or more
            in this auction holds it, it raises a mouse at a time up to 4 over its limit
``dogfear`` fears dogs: each dog it can see in the row (face up, or its own) takes 5 points off the
            heuristic's estimate, whatever R16 would make of it
``spring``  the heuristic's rule in a sitting's first game, ``priceout`` and ``dogfear`` together
            from the second game on
=========== ==================================================================================

The eleventh set (:data:`ELEVENTH`), written down after the tenth set had been played and before any candidate
was measured on it, prices the payout twice, buys only big rows, or spares the next player:

=========== ==================================================================================
``payout``  counts the mouse card it would take for passing (R13) twice: its limit is the
            heuristic's less that payout once more
``picky``   buys only big rows: passes at once on a row it values under 8 points; on one it values
            at 8 or more, bids up to 2 over its limit (R15's last choice as every style makes it)
``ally``    never bids against the next player clockwise: while that player holds the high bid,
            it passes (R13); otherwise the heuristic's rule
``shift``   the heuristic's rule in a sitting's first game, ``payout`` and ``picky`` together from
            the second game on
=========== ==================================================================================

The twelfth set (:data:`TWELFTH`), written down after the eleventh set had been played and before the training
that followed, misreads the dogs, counts no cards, or spends early:

=========== ==================================================================================
``swapdog`` misreads R16 with the dogs' sizes swapped: a large dog it can see counts as a small one
            and back (the heuristic's estimate otherwise)
``nocount`` counts no cards: each face-down card of another player may be any card of a whole set,
            as if none had been played (R23 lets it know better); the cards it sees as they are
``sprint``  spends early: in rounds 1 to 3 it bids up to 3 over its limit; from round 4 on the
            heuristic's rule
``swerve``  the heuristic's rule in a sitting's first game, ``swapdog`` and ``sprint`` together
            from the second game on
=========== ==================================================================================

The thirteenth set (:data:`THIRTEENTH`), written down after the twelfth set had been played and before any
training that follows it, keeps its dogs back, turns careful after a bad buy, or prices a row at first sight:

=========== ==================================================================================
``kennel``  keeps its dogs back for the end: places a dog only when its hand holds nothing else
            (R10), otherwise the heuristic's choice among its other cards; bids by the heuristic's
            rule
``burnt``   once bitten, twice shy: once it has bought a row this game whose kept cats were worth
            less than it paid (R16, R17), it stops 3 under its limit for the rest of the game
``glance``  prices a row at first sight: a card of another player that a pass has turned up (R14)
            stays to it what it was when the row's first card was shown (R11), any card of its
            owner's set not yet seen (R23)
``flip``    the heuristic's rule in a sitting's first game, ``kennel`` and ``burnt`` together from
            the second game on
=========== ==================================================================================

None was fitted to anything; they are deterministic given their view (no random draws).
"""

from __future__ import annotations

import math

from catsack.bots.base import Bot, BotSpecError, forced_move
from catsack.bots.heuristic import (
    bid_limit,
    kept_value,
    mask_row_value,
    plans_to_buy,
    public_tables,
    row_masks,
    row_worth,
    seat_money,
    unseen_cards,
    values_with_each_card,
)
from catsack.cards import Card
from catsack.moves import BID, PASS_MOVE, PLACE, Move, bid
from catsack.view import View

from .table import grudges, jumped, jumpers, last_placed, leader, standing, this_round

__all__ = [
    "EIGHTH",
    "ELEVENTH",
    "FIFTH",
    "FIRST",
    "FOURTH",
    "NINTH",
    "SECOND",
    "SEVENTH",
    "SIXTH",
    "STYLES",
    "TENTH",
    "THIRD",
    "THIRTEENTH",
    "TWELFTH",
    "SealedBot",
]

FIRST = ("grudge", "jumper", "tilt", "counter", "turncoat")
SECOND = ("herd", "sniper", "rhythm", "drifter")
THIRD = ("surface", "dogblind", "anchor", "echo")
FOURTH = ("endow", "headcount", "spoiler", "relay")
FIFTH = ("copycat", "skeptic", "rich", "turn")
SIXTH = ("escalate", "hot", "spite", "swing")
SEVENTH = ("quota", "nerve", "cashout", "pivot")
EIGHTH = ("revenge", "collector", "kind", "cycle")
NINTH = ("tells", "patient", "front", "tide")
TENTH = ("priceout", "callout", "dogfear", "spring")
ELEVENTH = ("payout", "picky", "ally", "shift")
TWELFTH = ("swapdog", "nocount", "sprint", "swerve")
THIRTEENTH = ("kennel", "burnt", "glance", "flip")
STYLES = (
    FIRST + SECOND + THIRD + FOURTH + FIFTH + SIXTH + SEVENTH + EIGHTH + NINTH + TENTH + ELEVENTH + TWELFTH + THIRTEENTH
)
GRUDGE_OVER = 6.0
JUMP_SHARE = 0.6
JUMP_AFTER = 2.0
TILT_GAP = 8
TILT_GAMBLE = 5.0
TILT_TIGHT = 4.0
COUNTER_SHIFT = 3.0
HERD_OVER = 4.0
SNIPER_UNDER = 3.0
RHYTHM_OVER = 3.0
ANCHOR_OVER = 2
#: The sitting opponents: the heuristic's rule in a sitting's first game, this mode from the second on.
SITTING_MODES = {
    "turncoat": "turned",
    "drifter": "drifted",
    "echo": "echoed",
    "relay": "relayed",
    "turn": "followed",
    "swing": "swung",
    "pivot": "pivoted",
    "cycle": "cycled",
    "tide": "ebbed",
    "spring": "sprung",
    "shift": "shifted",
    "swerve": "swerved",
    "flip": "flipped",
}
HEADCOUNT_POINTS = 4.0
SPOILER_OVER = 3.0
COPYCAT_OVER = 3.0
SKEPTIC_SHIFT = 3.0
RICH_OVER = 4.0
ESCALATE_STEP = 1.0
ESCALATE_MOST = 4.0
HOT_OVER = 3.0
COLD_UNDER = 2.0
COLD_ROUNDS = 2
SPITE_OVER = 4.0
QUOTA_ROWS = 3
CASHOUT_ROUND = 7
REVENGE_OVER = 3.0
COLLECTOR_BONUS = 3.0
TELLS_SHIFT = 3.0
FRONT_ROUNDS = 4
CALLOUT_OVER = 4.0
DOGFEAR_SHIFT = 5.0
PICKY_FLOOR = 8.0
PICKY_OVER = 2.0
SPRINT_ROUNDS = 3
SPRINT_OVER = 3.0
BURNT_UNDER = 3.0
#: Every card of one player's set (R1: each set holds the same ten cards), as a bit mask of card indices.
WHOLE_SET = (1 << len(Card)) - 1


class SealedBot(Bot):
    """One of :data:`STYLES` (spec ``sealed:NAME``, registered only by the held-out benchmark)."""

    def __init__(self, arg: str | None = None, *, seed: int | None = None) -> None:
        name = (arg or "").strip()
        if name not in STYLES:
            raise BotSpecError(f"unknown sealed style {name!r}: use one of {', '.join(STYLES)}")
        self.style = name
        self.games = 0  # games begun with this object (a sitting keeps it)

    def reset(self, seat: int, seats: int) -> None:
        self.games += 1

    def _mode(self) -> str:
        later = SITTING_MODES.get(self.style)
        if later is None:
            return self.style
        return "heuristic" if self.games <= 1 else later

    def choose(self, view: View) -> Move:
        only = forced_move(view)
        if only is not None:
            return only
        if view.legal[0].kind == PLACE:
            return self._place(view)
        return self._auction(view)

    # ------------------------------------------------------------------ placing (R10, R11)

    def _place(self, view: View) -> Move:
        assert view.seat is not None
        mode = self._mode()
        pool = unseen_cards(view, view.seat)
        with_card = values_with_each_card(row_masks(view))
        average = sum(with_card[c] for c in pool) / len(pool)
        legal = _kennel(view.legal) if mode in ("kennel", "flipped") else view.legal
        gain = [(with_card[m.arg] - average, m.arg, m) for m in legal]
        best = max(gain, key=lambda t: (t[0], -t[1]))[2]
        worst = min(gain, key=lambda t: (t[0], t[1]))[2]
        quiet = min(gain, key=lambda t: (abs(t[0]), t[1]))[2]
        if mode in ("front", "ebbed"):  # as start player too, its card shown or not (R11)
            return best if view.round <= FRONT_ROUNDS else worst
        if view.seats > 3 and view.start == view.seat:  # R11: its card is shown at once
            return quiet
        buyer = plans_to_buy(view)
        if mode == "jumper":
            return quiet
        if mode in ("grudge", "turned"):
            lead = leader(view)
            if lead is not None:
                money = seat_money(view)
                if money[lead] >= max(money) - 2:  # the leader is a likely buyer: hurt that row
                    return worst
        if mode == "tilt":
            gap = standing(view)
            if gap <= -TILT_GAP:
                return best
            if gap >= TILT_GAP:
                return worst
        if mode == "rhythm":
            return worst if view.round % 2 == 0 else best
        if _stands_aside(mode, view):
            return worst
        return best if buyer else worst

    # ------------------------------------------------------------------ bidding (R12-R15)

    def _worth(self, view: View) -> float:
        mode = self._mode()
        if mode in ("surface", "echoed"):
            return float(kept_value([rc.card for rc in view.row if rc.card is not None]))
        if mode == "dogblind":
            return _dogblind_worth(view)
        if mode == "headcount":
            return _headcount_worth(view)
        if mode in ("swapdog", "swerved"):  # R16 misread: each mask's dogs exchanged
            return mask_row_value([_swap_dogs(m) for m in row_masks(view, include_unplaced=False)])
        if mode == "nocount":  # R23: what has been played is public; it forgets all of it
            return mask_row_value([WHOLE_SET if rc.card is None else 1 << rc.card for rc in view.row])
        if mode == "glance":  # R14's cards turned up by passes: it keeps the row as R11 first showed it
            return mask_row_value(_glance_masks(view))
        worth = row_worth(view)
        if mode in ("collector", "cycled"):
            return worth + _collector_bonus(view)
        if mode in ("tells", "ebbed"):
            return worth + _tells_shift(view, this_round(view))
        if mode in ("dogfear", "sprung"):  # the dogs it can see: face up (R11) or its own (R23)
            return worth - DOGFEAR_SHIFT * sum(1 for rc in view.row if rc.card is not None and rc.card.is_dog)
        if mode in ("endow", "relayed"):
            return worth + _own_card_bonus(view)
        if mode == "skeptic":  # the others' face-down cards (R10, R23)
            hidden = sum(1 for rc in view.row if rc.card is None and rc.owner not in (None, view.seat))
            return worth - SKEPTIC_SHIFT * hidden
        if self.style != "counter":
            return worth
        assert view.seat is not None
        money = seat_money(view)
        mean = sum(money) / len(money)
        for rc in view.row:
            if rc.card is None and rc.owner is not None and rc.owner != view.seat:
                worth += COUNTER_SHIFT if money[rc.owner] > mean else -COUNTER_SHIFT if money[rc.owner] < mean else 0.0
        return worth

    def _auction(self, view: View) -> Move:
        assert view.seat is not None
        legal = view.legal
        worth = self._worth(view)
        if view.phase == "last choice":  # R15
            return legal[0] if legal[0].kind == BID and worth > 1 else PASS_MOVE
        mode = self._mode()
        limit = bid_limit(view, worth)
        step = 1
        if mode == "counter":
            step = 2
        if mode == "tilt":
            gap = standing(view)
            if gap <= -TILT_GAP:
                limit += TILT_GAMBLE
            elif gap >= TILT_GAP:
                limit -= TILT_TIGHT
        others_in = sum(1 for s, p in enumerate(view.passed) if not p and s != view.seat)
        if mode in ("grudge", "turned"):
            lead = leader(view)
            if lead is not None and view.high_bidder == lead and others_in >= 2:
                limit += GRUDGE_OVER
        if legal[0].kind != BID:
            return PASS_MOVE
        if _stands_aside(mode, view):
            return PASS_MOVE  # R13: out of the round, the payout taken
        if mode in ("nerve", "pivoted") and jumped(this_round(view), view.seat):
            return PASS_MOVE
        if mode == "rhythm":
            if view.round % 2 == 0:
                return PASS_MOVE  # R13: out of the round, the payout taken
            limit += RHYTHM_OVER
        if mode in ("anchor", "echoed") and worth > 0:
            price = next((r.price for r in reversed(view.rounds) if r.price is not None), None)
            if price is not None:
                limit = price + ANCHOR_OVER  # what rows went for (R17's price), whatever this one holds
        if mode in ("herd", "drifted") and view.high_bidder not in (None, view.seat) and others_in >= 2:
            limit = max(limit, min(view.high_bid + 1, limit + HERD_OVER))
        if mode in ("spoiler", "relayed") and others_in == 1 and view.high_bidder not in (None, view.seat):
            limit += SPOILER_OVER  # the last rival for the row (R15: the next pass ends it) pays for it
        if mode in ("copycat", "followed") and not view.passed[(view.seat - 1) % view.seats]:
            limit += COPYCAT_OVER  # the player who spoke before it (R12: clockwise) is still in: follow it
        if mode in ("rich", "followed"):
            money = seat_money(view)  # every payment is public (R24)
            if all(money[view.seat] > m for s, m in enumerate(money) if s != view.seat):
                limit += RICH_OVER
        if mode in ("escalate", "swung"):  # its own bids so far this round (R12: each one a total offer)
            made = sum(1 for s, t in this_round(view) if s == view.seat and t.startswith("bid"))
            limit += min(ESCALATE_STEP * made, ESCALATE_MOST)
        if mode in ("hot", "swung"):
            limit += _streak(view)
        if mode == "spite" and view.rounds:
            last = view.rounds[-1].buyer  # the previous round's buyer (R17), public (R23)
            if last is not None and last != view.seat and view.high_bidder == last:
                limit += SPITE_OVER
        if mode in ("revenge", "cycled") and view.high_bidder in grudges(view):
            limit += REVENGE_OVER
        if mode in ("payout", "shifted"):
            limit -= view.next_payout  # R13's payout for passing now, counted a second time
        if mode in ("picky", "shifted"):
            if worth < PICKY_FLOOR:
                return PASS_MOVE  # R13: a row too small for it
            limit += PICKY_OVER
        if mode == "ally" and view.high_bidder == (view.seat + 1) % view.seats:
            return PASS_MOVE  # R12: the next player clockwise holds the high bid
        if mode == "patient" and not any(s != view.seat and t.startswith("bid") for s, t in this_round(view)):
            return PASS_MOVE  # R13: nobody else has opened this auction
        if mode == "kind" and view.high_bidder == last_placed(view):  # R21's scores, public (R24)
            return PASS_MOVE  # R13: it leaves the row to the player at the bottom
        if mode in ("sprint", "swerved") and view.round <= SPRINT_ROUNDS:
            limit += SPRINT_OVER  # its mice spent early, whatever the rounds to come
        if mode in ("burnt", "flipped") and _burnt(view):
            limit -= BURNT_UNDER  # a row bought at a loss earlier this game (R17, R21): careful from then on
        if mode == "callout" and view.high_bidder in jumpers(this_round(view), view.seat):
            limit += CALLOUT_OVER  # R12: the jump is public; it calls it
        most = legal[-2].amount  # all its money (R12)
        if mode in ("priceout", "sprung"):
            money = seat_money(view)  # every payment is public (R24)
            rivals = [money[s] for s, p in enumerate(view.passed) if not p and s != view.seat]
            shut = max(rivals) + 1 if rivals else 0  # no rival can bid more than it holds (R12)
            if view.high_bid < shut <= min(most, limit):
                return bid(shut)
        if mode in ("sniper", "drifted"):
            if others_in == 1:
                snipe = math.floor(limit)
                if snipe > view.high_bid:
                    return bid(min(snipe, most))
                return PASS_MOVE
            limit -= SNIPER_UNDER
        if mode in ("jumper", "turned"):
            entered = any(s == view.seat and t.startswith("bid") for s, t in this_round(view))
            if not entered:
                jump = math.floor(JUMP_SHARE * limit)
                if jump > view.high_bid and jump <= most:
                    return bid(jump)
            limit -= JUMP_AFTER
        raise_to = view.high_bid + step
        if raise_to > most:
            raise_to = view.high_bid + 1
        if raise_to <= limit and raise_to <= most:
            return bid(raise_to)
        return PASS_MOVE


def _dogblind_worth(view: View) -> float:
    """The row as ``dogblind`` sees it in the auction (every card placed, R10): the cats it can see at face value,
    dogs as nothing, each face-down card the mean cat value of the cards it has not seen."""
    assert view.seat is not None
    pool = unseen_cards(view, view.seat)
    mean = sum(Card(c).points if Card(c).is_cat else 0 for c in pool) / max(len(pool), 1)
    return sum(mean if rc.card is None else float(rc.card.points) for rc in view.row)


def _swap_dogs(mask: int) -> int:
    """``mask`` with the large and the small dog exchanged (``swapdog``'s reading of R16)."""
    large, small = mask >> Card.LARGE_DOG & 1, mask >> Card.SMALL_DOG & 1
    rest = mask & ~(1 << Card.LARGE_DOG | 1 << Card.SMALL_DOG)
    return rest | small << Card.LARGE_DOG | large << Card.SMALL_DOG


def _kennel(legal: tuple[Move, ...]) -> tuple[Move, ...]:
    """The placements ``kennel`` chooses among (R10: any card of its hand): ``legal`` less its dogs, unless its hand
    holds nothing else."""
    rest = tuple(m for m in legal if not Card(m.arg).is_dog)
    return rest or legal


def _burnt(view: View) -> bool:
    """Whether ``burnt`` has bought a row this game whose kept cats (R16, R17; rabbits 0) were worth less than the
    price it paid: each round's buyer, price and won cards are public (R23)."""
    return any(
        r.buyer == view.seat and r.price is not None and sum(c.points for c in r.won if c.is_cat) < r.price
        for r in view.rounds
    )


def _glance_masks(view: View) -> list[int]:
    """The row as ``glance`` prices it (:func:`row_masks`, every card placed, R10): a card of another player, or of
    the dummy, that a pass has turned up since the row's first card was shown (R14, R11) counted as any card of its
    owner's set not seen in the finished rounds, as it was before the pass (R23); the first card and its own card as
    they are."""
    seen = public_tables(view)[0]
    masks = row_masks(view, include_unplaced=False)
    for k, rc in enumerate(view.row):
        if k > 0 and rc.face_up and rc.owner != view.seat:
            masks[k] = WHOLE_SET & ~seen[view.seats if rc.owner is None else rc.owner]
    return masks


def _own_card_bonus(view: View) -> float:
    """What ``endow`` adds to the row's estimate for its own card in it: a cat worth more than 0 once more, the
    loss of one worth less than 0 taken back (dogs and rabbits: nothing)."""
    own = [rc.card for rc in view.row if rc.owner == view.seat and rc.card is not None]
    return float(sum(abs(c.points) for c in own if c.is_cat))


def _headcount_worth(view: View) -> float:
    """The row as ``headcount`` counts it: each card it can see (face up, and its own) counts
    :data:`HEADCOUNT_POINTS` if a cat worth more than 0, minus that if a cat worth less or a dog, 0 if a rabbit."""
    total = 0.0
    for rc in view.row:
        card = rc.card
        if card is None or card == Card.RABBIT:
            continue
        total += HEADCOUNT_POINTS if card.is_cat and card.points > 0 else -HEADCOUNT_POINTS
    return total


def _streak(view: View) -> float:
    """What ``hot`` adds to its limit: :data:`HOT_OVER` in the round after it bought a row (R17), minus
    :data:`COLD_UNDER` after :data:`COLD_ROUNDS` or more rounds in a row without buying, else 0."""
    rounds = view.rounds
    if rounds and rounds[-1].buyer == view.seat:
        return HOT_OVER
    if len(rounds) >= COLD_ROUNDS and all(r.buyer != view.seat for r in rounds[-COLD_ROUNDS:]):
        return -COLD_UNDER
    return 0.0


def _stands_aside(mode: str, view: View) -> bool:
    """Whether ``quota`` (:data:`QUOTA_ROWS` rows bought, R17) or ``cashout`` (round :data:`CASHOUT_ROUND` on)
    sits this round out."""
    if mode == "quota":
        return sum(1 for r in view.rounds if r.buyer == view.seat) >= QUOTA_ROWS
    return mode in ("cashout", "pivoted") and view.round >= CASHOUT_ROUND


def _collector_bonus(view: View) -> float:
    """What ``collector`` adds to the row's estimate: :data:`COLLECTOR_BONUS` for each cat it can see in the row
    (face up, or its own) of a value it already holds (its won pile, R17)."""
    assert view.seat is not None
    held = {c.points for c in view.won[view.seat] if c.is_cat}
    seen = [rc.card for rc in view.row if rc.card is not None]
    return COLLECTOR_BONUS * sum(1 for c in seen if c.is_cat and c.points in held)


def _tells_shift(view: View, moves: list[tuple[int, str]]) -> float:
    """What ``tells`` adds to the row's estimate: :data:`TELLS_SHIFT` for each face-down card (R10) of another
    player who has bid in this round's ``moves`` and is still in (R12), minus that for each of one who has passed
    (R13: out of the round)."""
    passers = {s for s, text in moves if text == "pass"}
    bidders = {s for s, text in moves if text.startswith("bid")} - passers
    shift = 0.0
    for rc in view.row:
        if rc.card is None and rc.owner is not None and rc.owner != view.seat:
            shift += TELLS_SHIFT if rc.owner in bidders else -TELLS_SHIFT if rc.owner in passers else 0.0
    return shift
