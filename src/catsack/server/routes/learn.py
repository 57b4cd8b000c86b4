"""The guided first game: ``GET /learn`` and ``POST /api/learn``.

A learner plays seat 1 against three heuristic bots on one fixed deal. The heuristic
bot decides from its view alone and draws no random numbers, so the deal plus the
learner's moves fix the whole game: when the learner follows the coach's suggested
moves (``SCRIPT``), every moment the coach explains happens in the first four rounds —
a first reveal (R11), a pass paid from the lowest mouse card (R13), a reveal after
each pass (R14), a purchase and the refill (R17, R18), a lone dog chasing a cat and
two dogs cancelling (R16), and a round in which nobody bids (R15). The learner may
also play other moves: the coach then explains whatever happens, from public events.

The deal was found by ``scripts/find_learn_deal.py``; a test replays it with the core.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, field_validator

from catsack.cards import Card
from catsack.server.routes.deps import hub_of
from catsack.server.routes.pages import page
from catsack.server.tables.live import TableError
from catsack.setup import Setup

__all__ = ["BOTS", "LEARNER", "REMOVED", "SCRIPT", "START", "LearnStart", "Learning", "learn_setup", "router"]

router = APIRouter()

LEARNER = 0
BOT = "heuristic"
BOTS = {1: BOT, 2: BOT, 3: BOT}
# Found by scripts/find_learn_deal.py --seed 16 (deal 329): every moment by round 4; the learner's
# moves are mostly the heuristic bot's own choices, and under R15 the learner buys for 1 mouse only
# a row worth it, as the coach would advise.
REMOVED = ("+3", "R", "R", "-5")
START = 0
SCRIPT = (
    "place SD", "pass",
    "place LD", "bid 1", "pass",
    "place +11", "pass",
    "place +15", "bid 1",
    "place -5", "pass",
    "place +8", "bid 3", "pass",
    "place +5", "pass",
    "place R", "pass",
    "place -8", "pass",
)  # fmt: skip
NAME_MAX = 32
TABLE_NAME = "Guided game"


def learn_setup() -> Setup:
    """The guided game's deal: 4 seats, the learner starts (R9), one card removed per set (R7)."""
    return Setup(4, START, tuple(Card.parse(t) for t in REMOVED))


class LearnStart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(..., description=f"the learner's name (1 to {NAME_MAX} characters)")
    table: str = Field(
        TABLE_NAME, description=f"the table's name, in the learner's language (1 to {NAME_MAX} characters)"
    )

    @field_validator("name", "table")
    @classmethod
    def _text(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v or len(v) > NAME_MAX or not v.isprintable():
            raise ValueError(f"must be 1 to {NAME_MAX} printable characters")
        return v


class Learning(BaseModel):
    table: str
    seat: int
    token: str = Field(description="the learner's secret seat token")
    script: list[str] = Field(description="the learner's suggested moves, in order")


@router.get("/learn", include_in_schema=False)
async def learn_page() -> Response:
    return page("learn.html")


@router.post("/api/learn", status_code=201, response_model=Learning)
async def start_learning(request: Request, body: LearnStart) -> Learning:
    """A new guided game: the fixed deal, three heuristic bots, the learner in seat 1."""
    hub = hub_of(request)
    table = await hub.create(
        4, dict(BOTS), name=body.table, money_visible=False, turn_seconds=None, hints=False, setup=learn_setup()
    )
    try:
        seat, token = await hub.join(table, body.name, LEARNER)
    except TableError:
        hub.evict(table)
        raise
    return Learning(table=table.id, seat=seat, token=token, script=list(SCRIPT))
