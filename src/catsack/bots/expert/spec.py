"""The expert's spec (``expert:...``): its levels, its options and the vocabularies they name.

The lowest of the expert's modules: :mod:`~catsack.bots.expert.players`, :mod:`~catsack.bots.expert.search`
and :mod:`~catsack.bots.expert.bot` read it, and it imports none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from catsack.bots.base import BotSpecError
from catsack.bots.expert.leaf import DEFAULT_LEAF, LEAVES

OPPONENT_NOISE = 2.5  # bids=fixed: std dev (points) of a modelled player's estimate about its honest value
TREE_DEPTH = 9  # own decisions searched per iteration (9: all of a round's); later ones follow its policy
#: Prior shares of the styles per ``lead=`` option: ``read`` reads every player, ``all`` assumes the lead
#: style for everyone who is not random (the model before styles were read), ``0`` leaves the lead style out.
#: The fourth share, the ``dump`` style's, is set by ``dump=X`` (:data:`DUMP_PRIOR`), which scales the others.
STYLE_PRIORS: dict[str, tuple[float, float, float, float]] = {
    "read": (0.25, 0.6, 0.15, 0.0),
    "all": (0.0, 0.5, 0.5, 0.0),
    "0": (0.5, 0.0, 0.5, 0.0),
}
#: Who leads a round in which the start player is as rich as anyone (round 1, R5), per the searcher's
#: ``leaders=`` option. ``start`` (the levels' below ``expert``): only the start player leads, and every
#: other ``lead`` player dumps. ``first`` (``expert``'s default): a ``lead`` start player leads; else every
#: ``lead`` player leads except those who see that another one speaks before them
#: (:func:`catsack.bots.expert.players.leaders_of`). Search bots on the ``start`` model lead their +15 and
#: bid 15 at their first turn whenever the start player is a heuristic or random bot, even behind another
#: search bot: the first of them to speak buys the row with the other's +15 (``bench/round_gain.py --round1``).
LEADERS = ("first", "start")


class Level(NamedTuple):
    """A level below ``expert``: the same search and opponent model at a smaller budget, and its mistakes."""

    iterations: int  # per decision
    mistake: float  # points: the spread of its deliberate mistakes (bot.pick_with_mistakes; 0: none)
    leaders: str = "start"  # round 1's model of who leads (LEADERS): ``start``, simpler than expert's


#: The prior chance that a player of unknown kind bluffs where it can (``expert:bluff=X``; the model is
#: :data:`catsack.bots.expert.players.BLUFF_GAP`'s). The levels below ``expert`` model no bluffs (``bluff=0``),
#: so the lobby's Easy, Normal and Strong play as they did before the bluff model.
BLUFF_PRIOR = 0.25
#: ``expert:money=S``: the multiple of the purse's fitted value beyond its points
#: (:data:`catsack.bots.expert.leaf.MONEY_GAIN`) that the hand-made leaf adds to each seat's expected
#: score; 0 (the default) counts a mouse as one point (R21) and nothing more.
MONEY_SCALE = 0.0
#: ``expert:future=K``: the hand-made leaf adds to each seat's expected score ``K`` times its share of the
#: money (R12: the rich buy the later rows) of the cat points still in the players' hands
#: (:func:`catsack.bots.expert.leaf.future_shares`). 0.6 was chosen on seed 101 between 0.3 and 0.6 (kinds
#: hidden, paired against ``future=0``: win share +0.25 against three dog-dumpers, +0.03 against three
#: heuristic bots) and measured on seeds 1 and 2 (``bench/expert_strength.py``). The levels
#: below ``expert`` leave it out.
FUTURE_SCALE = 0.6
#: ``expert:fread=X``: the ``future`` term follows the evidence that good cats are still to come: in each
#: decision its scale is ``future`` times ``min(1, D / X)``, D the mean share of the ``dump`` style the
#: search reads for the other seats (:func:`catsack.bots.expert.players.styles`, from the placements of
#: finished rounds, R14; 0 in round 1, and for seats of a known kind that does not dump). A table that
#: hides its worst cards first keeps its good ones for the last rows (where ``future`` pays); players
#: who lead their good cats leave little to come. 0.4 was set from ``bench/style_read.py``'s reads before
#: any strength run; kinds hidden, paired against ``fread=0`` (the full scale always) on seed 1, it won
#: 0.464 of the 400-game row against three ``ismcts:strong`` against 0.405 (paired +0.059 [+0.009,
#: +0.109]), +0.062 of the games against three heuristic bots and -0.078 against three dog-dumpers (64
#: games each; 0.375 of those, above the fair share): the mice the term keeps in rounds 1 and 2, before
#: a dumper can be read, buy the last rows. 0: off.
FUTURE_READ = 0.4
#: ``expert:cheap=K``: when the search's pick is a bid, the lowest bid it tried whose mean margin is within
#: ``K`` standard errors of the pick's (and that it tried in at least :data:`CHEAP_VISITS` of the pick's
#: iterations) is played instead: a cheap opening keeps the mice and can still be raised once passes turn
#: up more of the row (R12, R14), which the search's values of equal-looking bids do not weigh. 0 (the
#: default): the most-tried move, as always.
CHEAP_SE = 0.0
CHEAP_VISITS = 0.1
#: ``expert:dump=X``: the prior share of the ``dump`` style for a player of unknown kind (a person, an unknown
#: bot, or anyone at a table whose kinds are hidden): a player who hides the card that hurts the buyer most
#: whatever its money (:data:`catsack.bots.expert.players.DUMP_WEIGHTS`), read like the other styles from its
#: placements in finished rounds (R14), so a player seen dumping its bad cards is expected to hide its next
#: ones too. The other styles' shares are scaled by ``1 - X``. The levels below ``expert`` leave it out. 0.1 was
#: chosen on seed 101 (kinds hidden, paired against ``dump=0``: +10.4 points a game against three dog-dumpers,
#: +0.2 against three heuristic bots) and measured on seeds 1 and 2 (docs/bots.md, *Dog-dumpers*).
DUMP_PRIOR = 0.1

#: ``expert:dump1=X``: the ``dump`` style's prior share in round 1, before any player has shown how it places.
#: There one style (``rule``, ``lead`` or ``any``) is drawn for all the players of unknown kind (tables are
#: often of one kind), and the ``dump`` style apart for each of them, so a world with one dumper is not a
#: table of dumpers. Off: on seed 101 (kinds hidden, paired against ``dump1=0``) 0.1 gained -1.0 points a game
#: against three dog-dumpers and -1.1 against three heuristic bots (docs/bots.md, *Dog-dumpers*).
DUMP1_PRIOR = 0.0
#: ``expert:lead1=X``: in round 1, the share of the ``lead`` style in the one style drawn for the players of
#: unknown kind (:class:`catsack.bots.expert.worlds.StyleDraw`), ``rule`` and ``any`` scaled to the rest;
#: ``None`` (the default) keeps ``lead=read``'s 0.6. Round 1 is the only round in which a player's style
#: cannot have been read yet, and the one in which it matters most who leads (R5, R12: everyone holds 15
#: mice). Right behind the start player, a low share makes the expert hide a good cat and expect to buy a
#: row of the others' good cats for 15, which loses the cat to a start player who leads (``leaders=first``,
#: :data:`LEADERS`). Off: with 0.75 it dumps there and, with the kinds hidden on the measuring deals
#: (seed 1), scores +0.92 points a game more against three ``ismcts:strong`` (400 games) but -5.94 against
#: three dog-dumpers (64 games, interval below zero).
LEAD1_SHARE: float | None = None

#: ``expert:always=X``: at five seats, the chance that a player of unknown kind drawn ``lead`` in round 1 leads
#: from the first two places after the start player whoever leads before it, as ``dmc`` does there
#: (:data:`catsack.bots.expert.players.ALWAYS`), drawn per player and world (:func:`.players.seat_always`).
#: 0: such players lead only as :data:`.players.UNKNOWN_AWARE` has it.
ALWAYS_SHARE = 0.0


def with_lead(prior: Sequence[float], share: float) -> tuple[float, float, float, float]:
    """The style shares ``prior`` (:data:`STYLE_PRIORS`, no ``dump`` share yet) with the ``lead`` style's share
    set to ``share`` and ``rule`` and ``any`` scaled to the rest, keeping their ratio."""
    others = prior[0] + prior[2]
    keep = (1.0 - share) / others if others > 0 else 0.0
    return (prior[0] * keep, share, prior[2] * keep, prior[3])


def with_dump(prior: Sequence[float], share: float) -> tuple[float, float, float, float]:
    """The style shares ``prior`` (:data:`STYLE_PRIORS`) with the ``dump`` style's share set to ``share``."""
    keep = 1.0 - share
    return (prior[0] * keep, prior[1] * keep, prior[2] * keep, share)


#: The levels below ``expert`` (``expert:easy``, ``expert:normal``, ``expert:strong``), the ones people pick
#: at a table (the lobby's Easy, Normal and Strong). A budget alone does not order them: in one table of
#: expert, 2,000, 400 and 50 iterations (96 duplicate games, ``--seed 11``) the win shares were 0.25, 0.32,
#: 0.21 and 0.22, since the model of the other players, not the budget, makes the expert's strength. So
#: Easy and Normal also make mistakes of a set size (the search's own estimate of their cost: about 0.14,
#: 0.36, 0.77 and 1.4 points per decision at spreads 0.5, 1, 2 and 4). Strong makes none: a spread of 0.6
#: put it below the heuristic bot in the mixed table. The levels keep the simpler model of who leads
#: round 1 (``leaders=start``); ``expert`` reads it player by player (``leaders=first``). Over both orders
#: round the table the mixed table is in order, expert 0.412, Strong 0.360, heuristic 0.210, random 0.018,
#: and so is the table of levels, 0.430, 0.365, 0.140, 0.065 (``bench/expert_strength.py mixed --games 400
#: --seed 2`` and ``levels --games 200 --seed 1``; docs/bots.md). The ``ismcts`` levels they replaced stay
#: as benchmark opponents.
LEVELS: dict[str, Level] = {"easy": Level(150, 4.0), "normal": Level(600, 1.5), "strong": Level(2000, 0.0)}


@dataclass(frozen=True)
class Model:
    """The search's model of the table: every option that shapes the worlds it deals and how its players move.

    The fields are :func:`catsack.bots.expert.search.search`'s model options (documented there); a bare search
    models honest players (``bluff``, ``dump`` 0), the ``expert`` bot passes its own (:meth:`Options.model`)."""

    depth: int = TREE_DEPTH
    infer: bool = True
    read_intent: bool = True
    read_bids: bool = True
    noise: float = OPPONENT_NOISE
    lock: bool = True
    lead: str = "read"
    draw_styles: bool = True
    leaders: str = "first"
    bluff: float = 0.0
    dump: float = 0.0
    dump1: float = 0.0
    lead1: float | None = None
    always: float = 0.0
    future_read: float = 0.0
    read_kinds: bool = False


@dataclass(frozen=True)
class Options:
    """Everything an ``expert:...`` spec sets: the budget, the leaf, the mistakes, and the search's model."""

    iterations: int | None = None  # None (and no seconds): ITERATIONS for the table's seat count
    seconds: float | None = None
    leaf: str = DEFAULT_LEAF
    depth: int = TREE_DEPTH
    infer: bool = True  # weight worlds by the likelihood of this round's bids
    read_intent: bool = True  # read each player's placement intent from its past placements
    read_bids: bool = True  # read each player's bid habits from its past bids (else honest, ``noise``)
    noise: float = OPPONENT_NOISE  # with read_bids off: the spread of every player's bid limit
    lock: bool = True  # model (and consider) the bid that no other player still in can top
    lead: str = "read"  # the styles' prior (STYLE_PRIORS): read each player's, all lead, or no lead style
    draw_styles: bool = True  # draw each player's style per sampled world (else mix them in every world)
    mistake: float = 0.0  # points: the spread of deliberate mistakes (the levels below expert; 0: none)
    leaders: str = "first"  # round 1's model of who leads (players.LEADERS; the levels: ``start``, docs/bots.md)
    bluff: float = BLUFF_PRIOR  # the prior chance that a player of unknown kind bluffs (the levels: 0)
    money: float = MONEY_SCALE  # the hand leaf's purse value beyond its points, times leaf.MONEY_GAIN (0: off)
    future: float = FUTURE_SCALE  # the hand leaf's money share of the cat points still in hands, times K (0: off)
    fread: float = FUTURE_READ  # the dump share read at which ``future`` is full; below it scaled down (0: off)
    cheap: float = CHEAP_SE  # standard errors within which the lowest bid tried replaces the pick (0: off)
    dump: float = DUMP_PRIOR  # the prior share of the dump style for a player of unknown kind (the levels: 0)
    dump1: float = DUMP1_PRIOR  # the same in round 1, drawn per player (the levels: 0)
    lead1: float | None = LEAD1_SHARE  # the lead style's share in round 1's draw (None: lead=read's)
    always: float = ALWAYS_SHARE  # at five seats, a person's chance of leading from places 1-2 whoever leads
    read_kinds: bool = False  # read from play which players of unknown kind bid by a known bot's rule
    memory: bool = True  # keep what a table's earlier games showed (a bot kept from game to game: .memory; levels: off)

    def model(self, recalled: Any = None) -> Model:
        """The search's model these options ask for; ``recalled`` (a table memory's
        :class:`~catsack.bots.expert.memory.Recalled`) overrides the round-1 and dump shares it sets."""
        mem = recalled
        return Model(
            depth=self.depth,
            infer=self.infer,
            read_intent=self.read_intent,
            read_bids=self.read_bids,
            noise=self.noise,
            lock=self.lock,
            lead=self.lead,
            draw_styles=self.draw_styles,
            leaders=self.leaders,
            bluff=self.bluff,
            dump=self.dump if mem is None else mem.dump,
            dump1=self.dump1 if mem is None else mem.dump1,
            lead1=self.lead1 if mem is None else mem.lead1,
            always=self.always if mem is None else mem.always,
            future_read=self.fread,
            read_kinds=self.read_kinds,
        )


#: On/off options of a spec: key -> (the Options field, the value that turns it on, the one that turns it off).
SWITCHES: dict[str, tuple[str, str, str]] = {
    "infer": ("infer", "1", "0"),
    "intent": ("read_intent", "read", "fixed"),
    "bids": ("read_bids", "read", "fixed"),
    "lock": ("lock", "1", "0"),
    "styles": ("draw_styles", "draw", "mix"),
    "kinds": ("read_kinds", "read", "met"),
    "memory": ("memory", "1", "0"),
}

#: Number options of a spec: key (the Options field of that name) -> (least, most).
NUMBERS: dict[str, tuple[float, float]] = {
    "mistake": (0.0, 30.0),
    "bluff": (0.0, 0.9),
    "money": (0.0, 3.0),
    "future": (0.0, 2.0),
    "fread": (0.0, 1.0),
    "cheap": (0.0, 5.0),
    "dump": (0.0, 0.5),
    "dump1": (0.0, 0.5),
    "lead1": (0.05, 0.95),
    "always": (0.0, 1.0),
}


def parse_spec(arg: str | None) -> Options:
    """``[easy|normal|strong|iters=N|time=S][+leaf=hand|learned][+depth=D][+infer=0|1][+intent=read|fixed][+bids=read|fixed]
    [+noise=X][+mistake=X][+lock=0|1][+lead=read|all|0][+leaders=first|start][+styles=draw|mix][+kinds=read|met][+memory=0|1][+bluff=X][+money=S][+future=K][+fread=X][+cheap=K][+dump=X][+dump1=X][+lead1=X][+always=X]``;
    empty: the defaults.

    Options are joined with ``+``, since tables list their bot specs comma separated.
    """
    opts = Options()
    given: set[str] = set()  # the numbers the spec names (a default of the hand leaf's terms is no error)
    for part in (arg or "").split("+"):
        text = part.strip()
        if not text or text == "expert":
            continue
        key, sep, value = text.partition("=")
        if not sep and key in LEVELS:
            level = LEVELS[key]
            opts = replace(
                opts,
                iterations=level.iterations,
                seconds=None,
                mistake=level.mistake,
                leaders=level.leaders,
                bluff=0.0,
                dump=0.0,
                dump1=0.0,
                future=0.0,
                read_kinds=False,
                memory=False,
            )
            continue
        try:
            if sep and key == "iters" and int(value) >= 1:
                opts = replace(opts, iterations=int(value), seconds=None)
                continue
            if sep and key == "time" and 0 < float(value) <= 3600:
                opts = replace(opts, iterations=None, seconds=float(value))
                continue
            if sep and key == "depth" and 1 <= int(value) <= 99:
                opts = replace(opts, depth=int(value))
                continue
            switch = SWITCHES.get(key)
            if sep and switch is not None and value in switch[1:]:
                opts = replace(opts, **{switch[0]: value == switch[1]})  # type: ignore[arg-type]  # every switch is a bool field
                continue
            if sep and key == "lead" and value in STYLE_PRIORS:
                opts = replace(opts, lead=value)
                continue
            if sep and key == "leaders" and value in LEADERS:
                opts = replace(opts, leaders=value)
                continue
            bounds = NUMBERS.get(key)
            if sep and bounds is not None and bounds[0] <= float(value) <= bounds[1]:
                opts = replace(opts, **{key: float(value)})  # type: ignore[arg-type]  # every number is a float field
                given.add(key)
                continue
            if sep and key == "noise" and 0 < float(value) <= 30:
                opts = replace(opts, noise=float(value), read_bids=False)
                continue
        except ValueError:
            pass
        if sep and key == "leaf" and value in LEAVES:
            opts = replace(opts, leaf=value)
            continue
        raise BotSpecError(
            f"bad expert option {text!r} in {arg!r}: use a level ({', '.join(LEVELS)}), 'iters=N' (N >= 1), "
            "'time=S' (seconds), "
            f"'depth=D' (1-99), 'infer=0|1', 'intent=read|fixed', 'bids=read|fixed', 'noise=X' (0-30 points, "
            "fixes the bid habits), 'mistake=X' (0-30 points), 'lock=0|1', 'lead=read|all|0', 'leaders=first|start', "
            "'styles=draw|mix', 'bluff=X' (0-0.9), 'money=S' (0-3, the hand leaf's purse value), "
            "'future=K' (0-2, the hand leaf's money share of the cats still in hands), "
            "'fread=X' (0-1, the dump share read at which 'future' is full), "
            "'cheap=K' (0-5 standard errors), 'dump=X' (0-0.5, the dump style's prior share), "
            "'dump1=X' (0-0.5, the same in round 1), 'lead1=X' (0.05-0.95, the lead style's share in round 1), "
            "'always=X' (0-1, at five seats a person's chance of leading from the places behind the start player), "
            "'memory=0|1' (keep what a table's earlier games showed) "
            f"or 'leaf=' one of {', '.join(LEAVES)}, "
            "joined with '+' (e.g. 'expert:iters=800+leaf=learned')"
        )
    for name in ("money", "future", "fread"):
        if name in given and getattr(opts, name) and opts.leaf != "hand":
            raise BotSpecError(
                f"'{name}=...' sets how the hand leaf values the purse; "
                f"it has no effect with 'leaf={opts.leaf}' ({arg!r})"
            )
    return opts


def parse_budget(arg: str | None) -> tuple[int | None, float | None]:
    """The budget part of :func:`parse_spec`: (iterations, seconds)."""
    opts = parse_spec(arg)
    return opts.iterations, opts.seconds
