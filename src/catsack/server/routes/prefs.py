"""The kinds of notice an account chooses, as the mail and push routes take them: one request model."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["KindPrefs"]


class KindPrefs(BaseModel):
    """Which kinds of notice (:data:`catsack.server.people.outbox.KINDS`) the account wants; a kind left
    out stays as it is."""

    model_config = ConfigDict(extra="forbid")

    turn: bool | None = None
    invite: bool | None = None
    tournament: bool | None = None
    friend: bool | None = None
    clock: bool | None = None
    seat: bool | None = None

    def chosen(self) -> dict[str, Any]:
        """What the request says, without what it leaves out."""
        return {k: v for k, v in self.model_dump().items() if v is not None}
