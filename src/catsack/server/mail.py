"""E-mail (placeholder until the queue lands)."""

from __future__ import annotations

from typing import Any


async def notify_turn(hub: Any, table: Any) -> None:
    """Queue a "your turn" mail for the seat now to move (off without SMTP settings)."""
    return None
