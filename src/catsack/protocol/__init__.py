"""The external bot protocol ``catsack-bot/1``: JSON lines between the engine and a bot program.

See docs/bot-protocol.md. :mod:`catsack.protocol.messages` builds and checks
the messages; :mod:`catsack.protocol.external` runs a program as a
:class:`~catsack.bots.base.Bot` (spec ``external:<command line>``).
"""

from catsack.protocol.messages import PROTOCOL, ProtocolError, fallback_move

__all__ = ["PROTOCOL", "ProtocolError", "fallback_move"]
