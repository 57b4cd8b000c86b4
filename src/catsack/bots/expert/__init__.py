"""The ``expert`` bot: information-set search in which every player decides from its own view.

It searches from one seat's view (R23) like :mod:`catsack.bots.ismcts`, and
fixes the three reasons that bot misjudges strong play:

**1. An honest opponent model.** Each iteration deals a hidden world
consistent with the searcher's view. Opponents are not tree nodes that learn,
over many worlds, what the searcher's fixed face-down card is; they are
players whose policy reads *their own view of the sampled world*: the row's
face-up cards, their own face-down card, and for every other face-down card
(the searcher's included) the uniform belief over the cards its owner has not
been seen to play (exactly :func:`catsack.belief.card_beliefs`, valued in
closed form by :func:`catsack.bots.heuristic.mask_row_value`, dogs included,
R16). From that honest estimate each one bids as an English-auction bidder up
to its estimate minus the payout for passing (R12, R13, the heuristic's
limit), shifted and spread per player by its bidding habits as read from its
bids in finished rounds (:func:`bid_habits`: every card is turned up by then,
R14, so the honest limit it had at each bid is public; heuristic bots read as
the rule itself, ``ismcts:strong`` as the rule with a spread near 6 points,
random bots as anything; before any round has ended, a heuristic or random
bot's habits start from those of its kind, which the table shows,
:func:`seat_habits`). A seat known to hold the random bot bids by that bot's
own rule when its style is drawn ``any`` (a coin, then a small raise:
:func:`catsack.bots.random_bot.auction_move`). It buys in the last choice (R15) when the
visible row is worth more than 1. How it places and whether it bids what no
one can top depend on its *style*, read per player from the finished rounds
(:func:`styles`: every placed card is turned up by the end of its round,
R14): ``rule`` places like the heuristic (buyers favour good cats, sellers
dump negative cats and the large dog) and raises a step at a time; ``lead``
bids at once the most money any other player still in holds once its limit
reaches it, since no one can top that (:func:`lock_bid`, R12), and in round 1,
where everyone holds 15 mice (R5), has the start player lead its best cats
and the others dump, since the start player who wants the row wins it
outright (``ismcts:strong`` does; a step-at-a-time model made the expert
give away its +15 in most round-1 rows it did not lead); ``any`` places any
card in hand alike; ``dump`` (a player of unknown kind, from round 2 on:
``dump=X``) hides its worst cards whatever its money. So an opening ``bid 1`` on a junk row is not free:
opponents pass when their own information says the row is bad, and the
opener pays for the row. The tree branches only on what the searcher
observes: its own decisions (UCB1) and the opponents' public bids and passes;
an opponent's face-down placement is one ``place ?`` edge. The searcher's
own decisions beyond :data:`TREE_DEPTH` per iteration (``depth=D``) follow
the same honest policy with its own information; searching all of them (the
default) measured best (48 duplicate games against 3 ``ismcts:iters=250``,
expert at 400 iterations: win share 0.35 at depth 9, 0.29 at depth 2, 0.27
at depth 1; see ``docs/bots.md``).

*Inference from bids.* The face-down row cards of a sampled world are drawn
by rejection (:data:`MAX_TRIES` draws, the likeliest kept if none is
accepted), weighted by the placement model and by the likelihood of every
bid and pass already made this round under the same honest bidder model in
that world: an opponent who kept raising probably placed a good card face
down, one who passed at once probably did not. The players' styles are
drawn with the cards (:class:`StyleDraw`, ``styles=draw``): each player's
from its shares, and in round 1, before anyone has shown a style, one for the
whole table. A bid that could have been a jump to the bid no one could top
weighs the drawn style too (:data:`LOCK_JUMP`), so a start player who shows
its +15 and opens with 1 makes a step-raising table likelier, and in that
world the others keep raising a step at a time. Cards of this round already
face up weigh the draw as well (a start player who led its small dog is no
``lead`` player). (``styles=mix`` mixes the styles by their shares in
every world instead; with the earlier prior ``lead=all``, on the same
deals, 5 players against 4 heuristic bots: 0.900 drawn, 0.550 mixed.) The
drawn cards are swapped in from their owners' hands or removed cards, so the
world stays consistent. Without this inference (``infer=0``) the same test
gave 0.15 instead of 0.29.

*Who sits at the table.* A bot that has met the table (:meth:`catsack.bots.base.Bot.meet`: each seat's
bot spec, or ``None`` for a person, as the lobby shows it) starts each player of a known kind from that
kind's style shares (:data:`catsack.bots.expert.players.KIND_STYLES`; a kind measured only at some
numbers of seats is met as an unknown player at the others, :func:`catsack.bots.expert.players.met_as`),
and in round 1 only the players of unknown kind share one drawn style. With ``kinds=read`` it also reads
from the bids of finished rounds which players of unknown kind bid by the heuristic's or the random bot's
rule (:mod:`.kinds`).

**2. A whole-game horizon.** Iterations play to the end of the current round
(every later round starts with fresh placements), then a leaf value gives the
searcher's probability of winning the game from there. ``leaf=hand`` (the
default, :class:`HandValue`): the seats' scores (R21) turned into win
probabilities by a softmax whose temperature grows with the rounds left,
fitted on self-play games by ``bench/expert_fit.py``. ``leaf=learned``
(:class:`catsack.learn.leaf.LearnedValue`): the win head of :mod:`catsack.learn`'s value model
on the searcher's own view. In round 9 the leaf is the real end of the game.
``future=K`` (0.6 by default; the levels 0) adds to each seat's expected score
K times its share of all the seats' money of the cat points still in the
players' hands (:func:`~catsack.bots.expert.leaf.future_shares`): every card in
a hand goes into a later row, and the rich buy them (R12). ``money=S`` (off by
default) adds a fitted value of each seat's purse beyond its points instead
(:data:`~catsack.bots.expert.leaf.MONEY_GAIN`).

**3. Reward that reflects winning.** The searcher's reward is its win share
(R22: ties split; at a leaf, the win probability) plus its score margin over
the table average divided by :data:`TIE_SCALE`, so margin only breaks
near-ties between moves.

*Budget.* ``expert`` runs :data:`ITERATIONS` iterations per decision: 7,000,
6,000 and 5,000 with 3, 4 and 5 seats (p95 CPU time per decision 0.40 to 0.48 s on
one core of the reference machine (docs/benchmarks.md), ``bench/expert.py``; the target is 0.5 s).
The levels below it, ``expert:easy``, ``expert:normal`` and ``expert:strong``,
run :data:`LEVELS`' iterations; Easy and Normal also make mistakes of a set size
(``mistake=X`` points, :func:`pick_with_mistakes`).
Options, joined with ``+`` (tables separate specs with commas):
``expert:iters=N``, ``expert:time=S`` (seconds, not reproducible),
``leaf=hand|learned``, ``depth=D``, ``infer=0|1`` (weight worlds by bids), ``intent=read|fixed``
(each player's placement intent read from its past placements, or always assumed), ``bids=read|fixed``
(each player's bidding habits read, or the honest rule with :data:`OPPONENT_NOISE` points of noise for
everyone; ``noise=X`` sets that noise), ``lock=0|1`` (the bid no one can top, modelled and considered),
``lead=read|all|0`` (the styles' prior, :data:`STYLE_PRIORS`: each player's style read, the lead style
for everyone, or none), ``styles=draw|mix`` (the styles drawn per world, or mixed in every world),
``leaders=first|start`` (who leads round 1: read player by player, ``expert``'s default, or only the start
player, the levels' model; an option after a level's name overrides the level's), ``money=S`` (the hand
leaf's value of a purse beyond its points, 0 by default), ``future=K`` (the hand leaf's money share of the
cats still in hands, :data:`~catsack.bots.expert.spec.FUTURE_SCALE`), ``fread=X`` (that share scaled by
the ``dump`` style read for the other seats, full from ``X`` on: :data:`~catsack.bots.expert.spec.FUTURE_READ`,
0.4 by default; 0 keeps the full scale), ``cheap=K`` (the lowest bid within ``K``
standard errors of the search's pick, :func:`~catsack.bots.expert.bot.cheapest_tied`; 0 by default),
``dump=X`` (the prior share of the ``dump`` style, a player who hides the card that hurts the buyer most,
for each player of unknown kind from round 2 on: :data:`~catsack.bots.expert.spec.DUMP_PRIOR`), ``dump1=X``
(the same in round 1, drawn per player; 0 by default), ``lead1=X`` (the ``lead`` style's share in round 1's
prior for players of unknown kind; by default ``lead=read``'s), ``always=X`` (at five seats, the chance
that a player of unknown kind leads round 1 from the two places behind the start player, as ``dmc`` does;
0 by default: :data:`~catsack.bots.expert.spec.ALWAYS_SHARE`), ``kinds=met|read`` (the kinds as the table
shows them, or also read from play: :mod:`.kinds`), ``memory=0|1`` (a bot kept from game to game at one
table reads from each finished game who led round 1 and who dumped, and sets ``lead1``, ``always`` and
``dump`` for the next: :mod:`.memory`; on by default, off for the levels). With a seed the bot and :func:`search` are
deterministic.
"""

from __future__ import annotations

from catsack.bots.expert.bot import ExpertBot, pick_with_mistakes
from catsack.bots.expert.leaf import HandValue, LeafValue, softmax_win
from catsack.bots.expert.search import ITERATIONS, search
from catsack.bots.expert.spec import LEVELS, Level, Options, parse_spec

__all__ = [
    "ITERATIONS",
    "LEVELS",
    "ExpertBot",
    "HandValue",
    "LeafValue",
    "Level",
    "Options",
    "parse_spec",
    "pick_with_mistakes",
    "search",
    "softmax_win",
]
