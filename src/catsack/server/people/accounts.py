"""Accounts: registration, argon2id password hashes, login sessions and the seats bound to an account.

Playing as a guest needs none of this: a seat token stays the way into a seat.
An account adds a name that follows a person from game to game: the seats it
joined are bound to it (``seat_users``), so another device of the same account
can take such a seat over, and its finished games can be downloaded.

Passwords are hashed with argon2id (``argon2-cffi``'s defaults, RFC 9106's
second recommended profile). Sessions are random tokens kept in an HttpOnly,
SameSite=Lax cookie; the database stores only their SHA-256. Logging in with
an unknown name verifies the password against a fixed dummy hash, so an
unknown name and a wrong password cost the same time and get the same answer.

The tables are registered on the store's ``metadata`` (revision ``0003`` adds
them to an older database). The methods are synchronous, like
:class:`~catsack.server.storage.store.Store`'s: the server calls them in a worker thread.
"""

from __future__ import annotations

import secrets
import time
import unicodedata
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Engine,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from catsack.server.storage.names import skeleton
from catsack.server.storage.store import chat_t, metadata, seats_t, tables_t
from catsack.server.storage.tokens import hash_token
from catsack.server.storage.training_store import attempts_t
from catsack.server.tables.live import TableError
from catsack.server.tournaments.model import entries_t

__all__ = [
    "NAME_MAX",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "RESERVED_NAMES",
    "Account",
    "AccountError",
    "Accounts",
    "OperatorError",
    "change_seat_token",
    "check_name",
    "check_password",
    "operator_ids",
]

NAME_MIN = 3
NAME_MAX = 24
PASSWORD_MIN = 8
PASSWORD_MAX = 256
#: The limits a refused name or password names, for clients that word the refusal themselves.
_NAME_RANGE = {"min": NAME_MIN, "max": NAME_MAX}
_PASSWORD_RANGE = {"min": PASSWORD_MIN, "max": PASSWORD_MAX}
#: Seconds a login session lasts.
SESSION_SECONDS = 30 * 24 * 3600
#: Names nobody may register: bot levels (a person called "heuristic" would pass for a bot), roles.
RESERVED_NAMES = frozenset(
    {
        "random",
        "heuristic",
        "ismcts",
        "expert",
        "policy",
        "bot",
        "bots",
        "guest",
        "admin",
        "administrator",
        "root",
        "system",
        "catsack",
        "moderator",
        "deleted",
        "deleted-player",
        "anonymous",
        "spectator",
    }
)
DELETED_NAME = "deleted player"

users_t = Table(
    "users",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(NAME_MAX), nullable=False),
    # The name's comparison key (case-folded, NFKC): "Ann" and "ann" are one account.
    Column("name_key", String(64), nullable=False, unique=True),
    # The name's look-alike key (catsack.server.storage.names.skeleton; revision 0013): "Аnn" with a Cyrillic A
    # reads as "Ann", and a guest may take neither.
    Column("name_skeleton", String(64), nullable=True, index=True),
    Column("password_hash", String(255), nullable=False),
    Column("created", Float, nullable=False),
    Column("deleted", Boolean, nullable=False, default=False),
)

sessions_t = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

seat_users_t = Table(
    "seat_users",  # which account sits at a seat (guests have no row)
    metadata,
    Column("table_id", String(32), ForeignKey("tables.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
)


class OperatorError(RuntimeError):
    """``CATSACK_ADMIN_ACCOUNTS`` names an account that does not exist: the server does not start."""


class AccountError(TableError):
    """A refused account request: an HTTP status, a stable code and a message for the person
    (answered like every refused request: ``{"detail": message, "code": code}``)."""


@dataclass(frozen=True, slots=True)
class Account:
    id: int
    name: str
    created: float


def name_key(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def check_name(name: object) -> str:
    """The account name, or :class:`AccountError` saying what is wrong with it."""
    if not isinstance(name, str):
        raise AccountError("bad_name", "a name must be text", params=_NAME_RANGE)
    name = unicodedata.normalize("NFKC", name.strip())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise AccountError(
            "bad_name", f"a name has {NAME_MIN} to {NAME_MAX} characters (this one has {len(name)})", params=_NAME_RANGE
        )
    bad = [ch for ch in name if not (ch.isalnum() or ch in "-_.")]
    if bad:
        raise AccountError(
            "bad_name", f"a name may hold letters, digits, '-', '_' and '.' only, not {bad[0]!r}", params=_NAME_RANGE
        )
    key = name_key(name)
    if key in RESERVED_NAMES or key.split(":")[0] in RESERVED_NAMES:
        raise AccountError("reserved_name", f"the name {name!r} is reserved", params={"name": name})
    return name


def check_password(password: object) -> str:
    if not isinstance(password, str):
        raise AccountError("bad_password", "a password must be text", params=_PASSWORD_RANGE)
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise AccountError(
            "bad_password", f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters", params=_PASSWORD_RANGE
        )
    if any(0xD800 <= ord(ch) <= 0xDFFF or ch == "\x00" for ch in password):
        raise AccountError(
            "bad_password", "a password may not hold NUL or unpaired surrogate characters", params=_PASSWORD_RANGE
        )
    return password


def change_seat_token(engine: Engine, table_id: str, seat: int, token_hash: str) -> bool:
    """Give a person's seat a new token (the old one stops working); ``False`` if it is no longer a person's."""
    with engine.begin() as conn:
        res = conn.execute(
            update(seats_t)
            .where(seats_t.c.table_id == table_id, seats_t.c.seat == seat, seats_t.c.kind == "human")
            .values(token_hash=token_hash)
        )
    return bool(res.rowcount)


class Accounts:
    """Users, sessions and seat bindings in the server's database (``engine`` is the store's)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._hasher: Any = None
        self._dummy: str | None = None

    @property
    def hasher(self) -> Any:
        """argon2-cffi's ``PasswordHasher`` (argon2id, its RFC 9106 low-memory profile), made on first use."""
        if self._hasher is None:
            from argon2 import PasswordHasher

            self._hasher = PasswordHasher()
        return self._hasher

    @property
    def _dummy_hash(self) -> str:
        """Verified against when the name is unknown, so both failures take the same time."""
        if self._dummy is None:
            self._dummy = str(self.hasher.hash(secrets.token_hex(16)))
        return self._dummy

    # ------------------------------------------------------------------ users

    def register(self, name: str, password: str) -> Account:
        name = check_name(name)
        password = check_password(password)
        digest = self.hasher.hash(password)
        now = time.time()
        try:
            with self.engine.begin() as conn:
                res = conn.execute(
                    insert(users_t).values(
                        name=name,
                        name_key=name_key(name),
                        name_skeleton=skeleton(name),
                        password_hash=digest,
                        created=now,
                        deleted=False,
                    )
                )
                user_id = int(res.inserted_primary_key[0])  # type: ignore[index]
        except IntegrityError:
            with self.engine.connect() as conn:
                retired = conn.execute(select(users_t.c.deleted).where(users_t.c.name_key == name_key(name))).scalar()
            if retired:  # a deleted operator's name stays theirs: nobody may take it and pass for them
                raise AccountError(
                    "reserved_name", f"the name {name!r} is reserved", 409, params={"name": name}
                ) from None
            raise AccountError("name_taken", f"the name {name!r} is taken", 409, params={"name": name}) from None
        return Account(user_id, name, now)

    def _row(self, name: str) -> Any:
        with self.engine.connect() as conn:
            return conn.execute(
                select(users_t).where(users_t.c.name_key == name_key(name), users_t.c.deleted.is_(False))
            ).first()

    def by_name(self, name: str) -> Account | None:
        if not isinstance(name, str) or len(name) > 64:
            return None
        r = self._row(name)
        return None if r is None else Account(r.id, r.name, r.created)

    def looking_like(self, name: str) -> Account | None:
        """An account whose name reads like ``name`` (the same :func:`~catsack.server.storage.names.skeleton`),
        or ``None``."""
        if not isinstance(name, str) or len(name) > 64:
            return None
        with self.engine.connect() as conn:
            r = conn.execute(
                select(users_t).where(users_t.c.name_skeleton == skeleton(name), users_t.c.deleted.is_(False)).limit(1)
            ).first()
        return None if r is None else Account(r.id, r.name, r.created)

    def by_id(self, user_id: int) -> Account | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(users_t).where(users_t.c.id == user_id, users_t.c.deleted.is_(False))).first()
        return None if r is None else Account(r.id, r.name, r.created)

    def authenticate(self, name: str, password: str) -> Account | None:
        """The account if ``password`` is right; ``None`` otherwise, taking the same time either way."""
        from argon2.exceptions import InvalidHashError, VerificationError

        r = self._row(name) if isinstance(name, str) and len(name) <= 64 else None
        if not isinstance(password, str) or len(password) > PASSWORD_MAX:
            password = ""
        digest = r.password_hash if r is not None else self._dummy_hash
        try:
            ok: bool = self.hasher.verify(digest, password)
        except (VerificationError, InvalidHashError):
            ok = False
        if not ok or r is None:
            return None
        if self.hasher.check_needs_rehash(digest):
            with self.engine.begin() as conn:
                conn.execute(
                    update(users_t).where(users_t.c.id == r.id).values(password_hash=self.hasher.hash(password))
                )
        return Account(r.id, r.name, r.created)

    def change_password(self, account: Account, old: str, new: str) -> None:
        new = check_password(new)
        if self.authenticate(account.name, old) is None:
            raise AccountError("wrong_password", "the current password is wrong", 403)
        with self.engine.begin() as conn:
            conn.execute(update(users_t).where(users_t.c.id == account.id).values(password_hash=self.hasher.hash(new)))
            # Every other session ends: a changed password is often a stolen one.
            conn.execute(delete(sessions_t).where(sessions_t.c.user_id == account.id))

    def delete(self, account: Account, password: str, *, retire_name: bool = False) -> None:
        """Delete the account: its name and password go, its games and tournament entries stay under
        "deleted player". With ``retire_name`` (an operator's account) its name can never be registered
        again: whoever took it could pass for the operator."""
        if self.authenticate(account.name, password) is None:
            raise AccountError("wrong_password", "the password is wrong", 403)
        with self.engine.begin() as conn:
            conn.execute(delete(sessions_t).where(sessions_t.c.user_id == account.id))
            # Which training positions it answered goes too (the counts stay in the positions' totals).
            conn.execute(delete(attempts_t).where(attempts_t.c.who == f"u{account.id}"))
            seats = conn.execute(select(seat_users_t).where(seat_users_t.c.user_id == account.id)).all()
            for s in seats:
                conn.execute(
                    update(seats_t)
                    .where(seats_t.c.table_id == s.table_id, seats_t.c.seat == s.seat, seats_t.c.kind == "human")
                    .values(name=DELETED_NAME)
                )
                # Its chat lines stay too, under the same name.
                conn.execute(
                    update(chat_t)
                    .where(chat_t.c.table_id == s.table_id, chat_t.c.seat == s.seat)
                    .values(name=DELETED_NAME)
                )
            # Its tournament entries stay (standings keep their shape) under "deleted player" too.
            conn.execute(update(entries_t).where(entries_t.c.user_id == account.id).values(name=DELETED_NAME))
            conn.execute(
                update(users_t)
                .where(users_t.c.id == account.id)
                .values(
                    name=DELETED_NAME,
                    name_key=name_key(account.name) if retire_name else f"#deleted-{account.id}",
                    password_hash="",
                    deleted=True,
                )
            )

    # ------------------------------------------------------------------ sessions

    def new_session(self, account: Account) -> str:
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                insert(sessions_t).values(
                    token_hash=hash_token(token), user_id=account.id, created=now, expires=now + SESSION_SECONDS
                )
            )
            conn.execute(delete(sessions_t).where(sessions_t.c.expires < now))
        return token

    def session(self, token: str | None) -> Account | None:
        if not token or len(token) > 128:
            return None
        with self.engine.connect() as conn:
            r = conn.execute(
                select(users_t.c.id, users_t.c.name, users_t.c.created)
                .select_from(sessions_t.join(users_t, users_t.c.id == sessions_t.c.user_id))
                .where(
                    sessions_t.c.token_hash == hash_token(token),
                    sessions_t.c.expires > time.time(),
                    users_t.c.deleted.is_(False),
                )
            ).first()
        return None if r is None else Account(r.id, r.name, r.created)

    def end_session(self, token: str | None) -> None:
        if token and len(token) <= 128:
            with self.engine.begin() as conn:
                conn.execute(delete(sessions_t).where(sessions_t.c.token_hash == hash_token(token)))

    # ------------------------------------------------------------------ seats and games

    def bind_seat(self, account: Account, table_id: str, seat: int) -> bool:
        """Bind a seat to the account; ``False`` when another account holds it already."""
        try:
            with self.engine.begin() as conn:
                conn.execute(insert(seat_users_t).values(table_id=table_id, seat=seat, user_id=account.id))
        except IntegrityError:
            with self.engine.connect() as conn:
                held = conn.execute(
                    select(seat_users_t.c.user_id).where(
                        seat_users_t.c.table_id == table_id, seat_users_t.c.seat == seat
                    )
                ).scalar()
            return held == account.id
        return True

    def seat_of(self, account: Account, table_id: str) -> int | None:
        with self.engine.connect() as conn:
            seat = conn.execute(
                select(seat_users_t.c.seat).where(
                    seat_users_t.c.table_id == table_id, seat_users_t.c.user_id == account.id
                )
            ).scalar()
        return None if seat is None else int(seat)

    def seat_accounts(self, table_id: str) -> dict[int, Account]:
        """The accounts seated at a table, by seat."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(seat_users_t.c.seat, users_t.c.id, users_t.c.name, users_t.c.created)
                .select_from(seat_users_t.join(users_t, users_t.c.id == seat_users_t.c.user_id))
                .where(seat_users_t.c.table_id == table_id, users_t.c.deleted.is_(False))
            ).all()
        return {int(r.seat): Account(r.id, r.name, r.created) for r in rows}

    def games(self, account: Account, *, finished_only: bool = False, limit: int = 1000) -> list[tuple[str, int]]:
        """``(table id, seat)`` of the account's games, newest first."""
        q = (
            select(seat_users_t.c.table_id, seat_users_t.c.seat)
            .select_from(seat_users_t.join(tables_t, tables_t.c.id == seat_users_t.c.table_id))
            .where(seat_users_t.c.user_id == account.id)
            .order_by(tables_t.c.created.desc())
            .limit(limit)
        )
        if finished_only:
            q = q.where(tables_t.c.status == "over")
        with self.engine.connect() as conn:
            return [(r.table_id, int(r.seat)) for r in conn.execute(q).all()]


def operator_ids(accounts: Accounts, names: frozenset[str]) -> frozenset[int]:
    """The accounts of the operators named in ``CATSACK_ADMIN_ACCOUNTS``, bound once when the server starts:
    operator rights belong to these accounts, never to whoever holds a name later. A listed name that no
    account holds raises :class:`OperatorError` (the server does not start): the name must be registered
    first, or taken out of the setting (docs/deploy.md, "Settings")."""
    ids = []
    missing = []
    for name in sorted(names):
        found = accounts.by_name(name)
        if found is None:
            missing.append(name)
        else:
            ids.append(found.id)
    if missing:
        listed = ", ".join(repr(n) for n in missing)
        raise OperatorError(
            f"CATSACK_ADMIN_ACCOUNTS names {listed}, which no account holds: register the account first and "
            "start the server again, or take the name out of the setting"
        )
    return frozenset(ids)
