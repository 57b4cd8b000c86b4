"""Names that look alike: the comparison key that tells a guest's name from an account's or a
tablemate's when they would read the same on screen.

:func:`skeleton` follows the idea of the confusables *skeleton* of Unicode's UTS #39
(section 4): two names are confusable when their skeletons are equal. Its data is the
``confusable_homoglyphs`` package's copy of Unicode's ``confusables.txt`` (the library Django's
registration apps use against look-alike user names): every character of another script, or a
common one such as a digit, that has a single Latin look-alike is replaced by it ("А" Cyrillic
and "Α" Greek become "A", "1" becomes "l"), then the text is NFKC-normalised, case-folded and its
white space collapsed. So "Ann", "ann", "Аnn" (Cyrillic A) and "ΑNN" (Greek capital alpha) have
one skeleton.

It differs from UTS #39's skeleton in one way, on purpose: the target is always Latin
(UTS #39 maps to one prototype per set, which is not always a Latin letter), so that a name
written in Latin letters, by far the most common here, is its own skeleton apart from case.
"""

from __future__ import annotations

import functools
import unicodedata

__all__ = ["skeleton"]


@functools.cache
def _latin(ch: str) -> str:
    """``ch``'s single Latin look-alike, or ``ch`` itself (a Latin letter, or one without such a twin)."""
    from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

    found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"])
    if not found:
        return ch
    twins = [h["c"] for h in found[0]["homoglyphs"] if len(h["c"]) == 1]
    return twins[0] if twins else ch


def skeleton(name: str) -> str:
    """The key under which look-alike names are equal (NFKC, Latin look-alikes, case-folded)."""
    text = unicodedata.normalize("NFKC", name)
    folded = "".join(_latin(ch) for ch in text)
    return " ".join(unicodedata.normalize("NFKC", folded).casefold().split())
