"""Friends: follows (one-way), blocks, challenges to a new table, and who is online.

- **Follow** another account to see whether it is online and its games in play (public facts
  only: table, whose turn; never a card, R23). One-way, like lichess: no approval needed.
- **Block** an account: it can no longer follow you (its follow ends), challenge you, sit down at a
  table where you sit (join, quick play, "Play again") or chat at one; its pending challenges to you
  are declined. A tournament keeps you apart where its pairing allows (``tournaments.swiss``).
- **Challenge** one or more accounts to a new table (real-time or turn-based; bots in the other
  seats). Each invitee accepts or declines on their My games page; when all have accepted, the
  table is made with everyone seated under their account (:func:`start_challenge`). A decline
  ends the challenge. Unanswered challenges expire after :data:`CHALLENGE_DAYS` days.
- **Online**: an account seen within :data:`ONLINE_SECONDS` (any page of the site asks for the
  My games badge every few seconds while it is open, and that request marks the account seen).

The tables are registered on the store's ``metadata`` (revision ``0008``). The methods are
synchronous, like :class:`~catsack.server.storage.store.Store`'s: the server calls them in a worker thread.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    and_,
    delete,
    insert,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from catsack.server.people.accounts import Account, AccountError, name_key, seat_users_t, users_t
from catsack.server.storage.store import metadata

__all__ = [
    "CHALLENGE_DAYS",
    "MAX_INVITEES",
    "ONLINE_SECONDS",
    "Challenge",
    "Friends",
]

#: An account seen this recently is shown as online.
ONLINE_SECONDS = 120.0
#: Unanswered challenges expire after this many days.
CHALLENGE_DAYS = 7
#: Most people one challenge invites (a table has at most five seats, one of them the challenger's).
MAX_INVITEES = 4
#: Pending challenges one account may have out at once.
MAX_PENDING = 20
#: Most follows one account may hold.
MAX_FOLLOWS = 500

follows_t = Table(
    "follows",
    metadata,
    Column("follower_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("followed_id", Integer, ForeignKey("users.id"), primary_key=True, index=True),
    Column("created", Float, nullable=False),
)

blocks_t = Table(
    "blocks",
    metadata,
    Column("blocker_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("blocked_id", Integer, ForeignKey("users.id"), primary_key=True, index=True),
    Column("created", Float, nullable=False),
)

challenges_t = Table(
    "challenges",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("from_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    # JSON: seats, bots (seat -> level), turn_based or turn_seconds, rated, name; the invitees' seats
    Column("options", Text, nullable=False),
    Column("status", String(12), nullable=False),  # pending | starting | accepted | declined | cancelled
    Column("table_id", String(32), nullable=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

invites_t = Table(
    "challenge_invites",
    metadata,
    Column("challenge_id", String(16), ForeignKey("challenges.id"), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True, index=True),
    Column("answer", String(8), nullable=True),  # accepted | declined | NULL (not yet)
    Column("answered", Float, nullable=True),
)

user_seen_t = Table(
    "user_seen",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("seen", Float, nullable=False),
)


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge as its challenger and invitees see it."""

    id: str
    from_id: int
    from_name: str
    options: dict[str, Any]
    status: str
    table_id: str | None
    created: float
    expires: float
    #: (account id, name, answer) of every invitee, in seat order.
    invitees: tuple[tuple[int, str, str | None], ...]

    def public(self, viewer: int) -> dict[str, Any]:
        mine = next((a for i, _n, a in self.invitees if i == viewer), None)
        return {
            "id": self.id,
            "from": self.from_name,
            "mine": self.from_id == viewer,
            "status": self.status,
            "table": self.table_id,
            "answer": mine,
            "invitees": [{"name": n, "answer": a} for _i, n, a in self.invitees],
            "seats": self.options.get("seats"),
            "bots": self.options.get("bots", {}),
            "turn_based": self.options.get("turn_based"),
            "turn_seconds": self.options.get("turn_seconds"),
            "rated": bool(self.options.get("rated")),
            "name": self.options.get("name"),
            "expires": self.expires,
        }


class Friends:
    """Follows, blocks, challenges and presence in the server's database (``engine`` is the store's)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._saw: dict[int, float] = {}  # this process's last write of user_seen, per account

    # ------------------------------------------------------------------ presence

    def saw(self, user_id: int, now: float | None = None, every: float = 30.0) -> None:
        """Mark the account seen now (written at most every ``every`` seconds per process)."""
        now = time.time() if now is None else now
        if now - self._saw.get(user_id, 0.0) < every:
            return
        self._saw[user_id] = now
        if len(self._saw) > 100_000:
            self._saw.clear()
        with self.engine.begin() as conn:
            if not conn.execute(update(user_seen_t).where(user_seen_t.c.user_id == user_id).values(seen=now)).rowcount:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(user_seen_t).values(user_id=user_id, seen=now))
                except IntegrityError:  # another process inserted it first
                    conn.execute(update(user_seen_t).where(user_seen_t.c.user_id == user_id).values(seen=now))

    def last_seen(self, user_ids: Sequence[int]) -> dict[int, float]:
        if not user_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(select(user_seen_t).where(user_seen_t.c.user_id.in_(list(user_ids)))).all()
        return {r.user_id: r.seen for r in rows}

    # ------------------------------------------------------------------ lookups

    def _account(self, name: str) -> Account:
        if not isinstance(name, str) or not 1 <= len(name) <= 64:
            raise AccountError("unknown_player", "no such player", 404, params={"name": str(name)[:64]})
        with self.engine.connect() as conn:
            r = conn.execute(
                select(users_t.c.id, users_t.c.name, users_t.c.created).where(
                    users_t.c.name_key == name_key(name), users_t.c.deleted.is_(False)
                )
            ).first()
        if r is None:
            raise AccountError("unknown_player", f"no player is called {name!r}", 404, params={"name": name})
        return Account(r.id, r.name, r.created)

    def search(self, query: str, limit: int = 20) -> list[Account]:
        """Accounts whose name starts with ``query`` (case-insensitive), then those containing it."""
        key = name_key(query.strip())[:24]
        if not key:
            return []
        escaped = key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(users_t.c.id, users_t.c.name, users_t.c.created)
                .where(users_t.c.deleted.is_(False), users_t.c.name_key.like(f"%{escaped}%", escape="\\"))
                .order_by(users_t.c.name_key)
                .limit(200)
            ).all()
        found = [Account(r.id, r.name, r.created) for r in rows]
        found.sort(key=lambda a: (not name_key(a.name).startswith(key), name_key(a.name)))
        return found[:limit]

    # ------------------------------------------------------------------ blocks

    def is_blocked(self, blocker_id: int, blocked_id: int) -> bool:
        with self.engine.connect() as conn:
            return (
                conn.execute(
                    select(blocks_t.c.created).where(
                        blocks_t.c.blocker_id == blocker_id, blocks_t.c.blocked_id == blocked_id
                    )
                ).first()
                is not None
            )

    def block(self, blocker: Account, name: str) -> Account:
        """Block ``name``: its follow of ``blocker`` ends and its pending challenges to ``blocker`` are declined."""
        other = self._account(name)
        if other.id == blocker.id:
            raise AccountError("bad_request", "you cannot block yourself", 422)
        now = time.time()
        with self.engine.begin() as conn:
            exists = conn.execute(
                select(blocks_t.c.created).where(blocks_t.c.blocker_id == blocker.id, blocks_t.c.blocked_id == other.id)
            ).first()
            if exists is None:
                conn.execute(insert(blocks_t).values(blocker_id=blocker.id, blocked_id=other.id, created=now))
            conn.execute(
                delete(follows_t).where(follows_t.c.follower_id == other.id, follows_t.c.followed_id == blocker.id)
            )
            pending = select(challenges_t.c.id).where(
                challenges_t.c.from_id == other.id, challenges_t.c.status == "pending"
            )
            mine = [
                r.challenge_id
                for r in conn.execute(
                    select(invites_t.c.challenge_id).where(
                        invites_t.c.user_id == blocker.id, invites_t.c.challenge_id.in_(pending)
                    )
                )
            ]
            if mine:
                conn.execute(
                    update(invites_t)
                    .where(invites_t.c.user_id == blocker.id, invites_t.c.challenge_id.in_(mine))
                    .values(answer="declined", answered=now)
                )
                conn.execute(
                    update(challenges_t)
                    .where(challenges_t.c.id.in_(mine), challenges_t.c.status == "pending")
                    .values(status="declined")
                )
        return other

    def unblock(self, blocker: Account, name: str) -> None:
        other = self._account(name)
        with self.engine.begin() as conn:
            conn.execute(delete(blocks_t).where(blocks_t.c.blocker_id == blocker.id, blocks_t.c.blocked_id == other.id))

    def blocked(self, blocker_id: int) -> list[Account]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(users_t.c.id, users_t.c.name, users_t.c.created)
                .select_from(blocks_t.join(users_t, users_t.c.id == blocks_t.c.blocked_id))
                .where(blocks_t.c.blocker_id == blocker_id)
                .order_by(users_t.c.name_key)
            ).all()
        return [Account(r.id, r.name, r.created) for r in rows]

    def blocked_from_table(self, table_id: str, user_id: int) -> bool:
        """Whether an account seated at ``table_id`` blocks ``user_id``: then that account may not sit
        there (the table is the blocker's too)."""
        with self.engine.connect() as conn:
            blockers = select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id)
            return (
                conn.execute(
                    select(blocks_t.c.created)
                    .where(blocks_t.c.blocked_id == user_id, blocks_t.c.blocker_id.in_(blockers))
                    .limit(1)
                ).first()
                is not None
            )

    def blocked_at_table(self, table_id: str, seat: int) -> bool:
        """Whether the account at ``seat`` of ``table_id`` is blocked by an account seated at that table."""
        with self.engine.connect() as conn:
            speaker = conn.execute(
                select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id, seat_users_t.c.seat == seat)
            ).scalar()
            if speaker is None:
                return False
            others = select(seat_users_t.c.user_id).where(
                seat_users_t.c.table_id == table_id, seat_users_t.c.seat != seat
            )
            return (
                conn.execute(
                    select(blocks_t.c.created).where(
                        blocks_t.c.blocked_id == speaker, blocks_t.c.blocker_id.in_(others)
                    )
                ).first()
                is not None
            )

    # ------------------------------------------------------------------ follows

    def follow(self, follower: Account, name: str) -> tuple[Account, bool]:
        """Follow ``name``; the account and whether this is a new follow (a refollow sends no mail)."""
        other = self._account(name)
        if other.id == follower.id:
            raise AccountError("bad_request", "you cannot follow yourself", 422)
        if self.is_blocked(other.id, follower.id):
            # The same answer as for any refusal of this kind: the blocked account learns only that it cannot.
            raise AccountError("blocked", f"{other.name} cannot be followed", 403, params={"name": other.name})
        with self.engine.begin() as conn:
            held = conn.execute(
                select(follows_t.c.followed_id).where(follows_t.c.follower_id == follower.id).limit(MAX_FOLLOWS + 1)
            ).all()
            if other.id in {r.followed_id for r in held}:
                return other, False
            if len(held) >= MAX_FOLLOWS:
                raise AccountError("too_many", f"you follow {MAX_FOLLOWS} players already", 409)
            try:
                with conn.begin_nested():
                    conn.execute(
                        insert(follows_t).values(follower_id=follower.id, followed_id=other.id, created=time.time())
                    )
            except IntegrityError:
                return other, False
        return other, True

    def unfollow(self, follower: Account, name: str) -> None:
        other = self._account(name)
        with self.engine.begin() as conn:
            conn.execute(
                delete(follows_t).where(follows_t.c.follower_id == follower.id, follows_t.c.followed_id == other.id)
            )

    def following(self, follower_id: int) -> list[Account]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(users_t.c.id, users_t.c.name, users_t.c.created)
                .select_from(follows_t.join(users_t, users_t.c.id == follows_t.c.followed_id))
                .where(follows_t.c.follower_id == follower_id, users_t.c.deleted.is_(False))
                .order_by(users_t.c.name_key)
            ).all()
        return [Account(r.id, r.name, r.created) for r in rows]

    def followers(self, followed_id: int) -> int:
        with self.engine.connect() as conn:
            return len(
                conn.execute(select(follows_t.c.follower_id).where(follows_t.c.followed_id == followed_id)).all()
            )

    # ------------------------------------------------------------------ challenges

    def challenge(self, challenger: Account, names: Sequence[str], options: dict[str, Any]) -> Challenge:
        """A new challenge of ``challenger`` to the accounts ``names`` (seats 1… in that order)."""
        if not 1 <= len(names) <= MAX_INVITEES:
            raise AccountError("bad_request", f"a challenge invites 1 to {MAX_INVITEES} players", 422)
        invitees: list[Account] = []
        for name in names:
            other = self._account(name)
            if other.id == challenger.id or other in invitees:
                raise AccountError("bad_request", f"{other.name} is invited twice", 422, params={"name": other.name})
            if self.is_blocked(other.id, challenger.id):
                raise AccountError("blocked", f"{other.name} cannot be challenged", 403, params={"name": other.name})
            invitees.append(other)
        now = time.time()
        challenge_id = secrets.token_urlsafe(9)
        with self.engine.begin() as conn:
            pending = conn.execute(
                select(challenges_t.c.id).where(
                    challenges_t.c.from_id == challenger.id,
                    challenges_t.c.status == "pending",
                    challenges_t.c.expires > now,
                )
            ).all()
            if len(pending) >= MAX_PENDING:
                raise AccountError("too_many", f"you have {MAX_PENDING} challenges waiting for an answer", 409)
            # The invitees' order as typed is their seats' order; the invites table keeps no order.
            stored = {**options, "invitees": [a.id for a in invitees]}
            conn.execute(
                insert(challenges_t).values(
                    id=challenge_id,
                    from_id=challenger.id,
                    options=json.dumps(stored),
                    status="pending",
                    table_id=None,
                    created=now,
                    expires=now + CHALLENGE_DAYS * 86400,
                )
            )
            conn.execute(
                insert(invites_t),
                [{"challenge_id": challenge_id, "user_id": a.id, "answer": None, "answered": None} for a in invitees],
            )
        found = self.get(challenge_id)
        assert found is not None
        return found

    def get(self, challenge_id: str) -> Challenge | None:
        found = self._load([challenge_id])
        return found[0] if found else None

    def _load(self, ids: Sequence[str]) -> list[Challenge]:
        if not ids:
            return []
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(challenges_t, users_t.c.name)
                .select_from(challenges_t.join(users_t, users_t.c.id == challenges_t.c.from_id))
                .where(challenges_t.c.id.in_(list(ids)))
                .order_by(challenges_t.c.created.desc())
            ).all()
            invited = conn.execute(
                select(invites_t, users_t.c.name)
                .select_from(invites_t.join(users_t, users_t.c.id == invites_t.c.user_id))
                .where(invites_t.c.challenge_id.in_(list(ids)))
            ).all()
        now = time.time()
        out = []
        for r in rows:
            options = json.loads(r.options)
            order = {int(uid): i for i, uid in enumerate(options.get("invitees", []))}
            mine = sorted(
                ((i.user_id, i.name, i.answer) for i in invited if i.challenge_id == r.id),
                key=lambda x: order.get(x[0], 99),
            )
            status = "expired" if r.status == "pending" and r.expires <= now else r.status
            out.append(
                Challenge(r.id, r.from_id, r.name, options, status, r.table_id, r.created, r.expires, tuple(mine))
            )
        return out

    def open_challenges(self, user_id: int, *, days: float = 3.0) -> list[Challenge]:
        """Challenges of this account, sent or received: those waiting, and those answered lately."""
        since = time.time() - days * 86400
        with self.engine.connect() as conn:
            sent = select(challenges_t.c.id).where(challenges_t.c.from_id == user_id)
            received = select(invites_t.c.challenge_id).where(invites_t.c.user_id == user_id)
            ids = [
                r.id
                for r in conn.execute(
                    select(challenges_t.c.id)
                    .where(
                        or_(challenges_t.c.id.in_(sent), challenges_t.c.id.in_(received)),
                        or_(challenges_t.c.status == "pending", challenges_t.c.created > since),
                    )
                    .order_by(challenges_t.c.created.desc())
                    .limit(100)
                )
            ]
        return self._load(ids)

    def waiting_for(self, user_id: int) -> int:
        """How many challenges wait for this account's answer."""
        now = time.time()
        with self.engine.connect() as conn:
            return len(
                conn.execute(
                    select(invites_t.c.challenge_id)
                    .select_from(invites_t.join(challenges_t, challenges_t.c.id == invites_t.c.challenge_id))
                    .where(
                        invites_t.c.user_id == user_id,
                        invites_t.c.answer.is_(None),
                        challenges_t.c.status == "pending",
                        challenges_t.c.expires > now,
                    )
                ).all()
            )

    def answer(self, challenge_id: str, account: Account, accept: bool) -> tuple[Challenge, bool]:
        """Record ``account``'s answer; the challenge and whether this answer completed it (every
        invitee accepted: the caller starts the table, see :func:`start_challenge`)."""
        now = time.time()
        with self.engine.begin() as conn:
            row = conn.execute(select(challenges_t).where(challenges_t.c.id == challenge_id)).first()
            if row is None or row.status != "pending" or row.expires <= now:
                raise AccountError("challenge_closed", "this challenge is no longer open", 409)
            res = conn.execute(
                update(invites_t)
                .where(
                    invites_t.c.challenge_id == challenge_id,
                    invites_t.c.user_id == account.id,
                    invites_t.c.answer.is_(None),
                )
                .values(answer="accepted" if accept else "declined", answered=now)
            )
            if not res.rowcount:
                raise AccountError("not_invited", "you have no open invitation to this challenge", 404)
            complete = False
            if not accept:
                conn.execute(
                    update(challenges_t)
                    .where(challenges_t.c.id == challenge_id, challenges_t.c.status == "pending")
                    .values(status="declined")
                )
            else:
                answers = [
                    r.answer
                    for r in conn.execute(select(invites_t.c.answer).where(invites_t.c.challenge_id == challenge_id))
                ]
                if all(a == "accepted" for a in answers):
                    # Exactly one answer moves the challenge on, whichever process it reached.
                    complete = bool(
                        conn.execute(
                            update(challenges_t)
                            .where(challenges_t.c.id == challenge_id, challenges_t.c.status == "pending")
                            .values(status="starting")
                        ).rowcount
                    )
        found = self.get(challenge_id)
        assert found is not None
        return found, complete

    def cancel(self, challenge_id: str, account: Account) -> None:
        with self.engine.begin() as conn:
            res = conn.execute(
                update(challenges_t)
                .where(
                    challenges_t.c.id == challenge_id,
                    challenges_t.c.from_id == account.id,
                    challenges_t.c.status == "pending",
                )
                .values(status="cancelled")
            )
        if not res.rowcount:
            raise AccountError("challenge_closed", "this challenge is no longer open", 409)

    def started(self, challenge_id: str, table_id: str | None) -> None:
        """The table of a challenge every invitee accepted was made (``None``: making it failed)."""
        with self.engine.begin() as conn:
            conn.execute(
                update(challenges_t)
                .where(challenges_t.c.id == challenge_id, challenges_t.c.status == "starting")
                .values(status="accepted" if table_id else "failed", table_id=table_id)
            )


def blocked_pairs(engine: Engine, user_ids: Sequence[int]) -> set[frozenset[int]]:
    """The pairs of these accounts where one blocks the other."""
    ids = list(user_ids)
    if not ids:
        return set()
    with engine.connect() as conn:
        rows = conn.execute(
            select(blocks_t.c.blocker_id, blocks_t.c.blocked_id).where(
                and_(blocks_t.c.blocker_id.in_(ids), blocks_t.c.blocked_id.in_(ids))
            )
        ).all()
    return {frozenset((r.blocker_id, r.blocked_id)) for r in rows}


def any_blocked(engine: Engine, user_ids: Sequence[int]) -> bool:
    """Whether any of these accounts blocks another of them."""
    ids = list(user_ids)
    with engine.connect() as conn:
        return (
            conn.execute(
                select(blocks_t.c.created).where(and_(blocks_t.c.blocker_id.in_(ids), blocks_t.c.blocked_id.in_(ids)))
            ).first()
            is not None
        )
