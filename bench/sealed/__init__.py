"""The sealed held-out opponents: measured against, never trained or tuned on.

Written down before any training of the learned ``expert``: hand-written styles that play unlike
anything in the training league (:mod:`sealed.styles`) and parameter draws of the league's own
opponent space taken from a seed that no training or tuning code uses (:mod:`sealed.draws`).
Nothing under ``src/`` and no training or tuning script imports this package
(``tests/test_sealed.py`` checks); only the held-out benchmark (``bench/held_out.py``) does.
"""

from __future__ import annotations

import sys
from pathlib import Path


def register() -> None:
    """Make ``sealed:NAME`` a bot kind in this process (``catsack.bots.base.BOT_KINDS``), this package importable."""
    from catsack.bots.base import BOT_KINDS

    here = str(Path(__file__).resolve().parent.parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    BOT_KINDS["sealed"] = "sealed.styles:SealedBot"
