"""catsack: the rules of *Felix: The Cat in the Sack* and tools to play and study it.

The rules core (this package's top-level modules ``cards``, ``moves``,
``setup``, ``game``, ``events``, ``view``, ``belief``, ``record`` and
``narrative``) uses only the standard library and does no I/O of its own.
"""

from catsack.cards import Card
from catsack.errors import CatsackError, IllegalMoveError, ParseError, RecordError, SetupError
from catsack.game import Game, RoundResult
from catsack.moves import Move
from catsack.setup import Setup
from catsack.view import View

__all__ = [
    "Card",
    "CatsackError",
    "Game",
    "IllegalMoveError",
    "Move",
    "ParseError",
    "RecordError",
    "RoundResult",
    "Setup",
    "SetupError",
    "View",
]
__version__ = "0.2.0"
