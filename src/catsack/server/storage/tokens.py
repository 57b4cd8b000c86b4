"""Secret tokens as the database keeps them: seat links, sessions, mail links and password resets.

A token is shown to its holder once and stored only as :func:`hash_token` of it, so a copy of the
database opens no seat, session or mailed link.
"""

from __future__ import annotations

import hashlib

__all__ = ["hash_token"]


def hash_token(token: str) -> str:
    """The stored form of ``token``: its SHA-256 in hex (a token that is not valid UTF-8 still hashes)."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()
