"""Bot accounts: accounts a person creates for a program that plays over the bot API (docs/bot-api.md).

A bot account is an account (a ``users`` row: a name, a profile, a rating, seats bound to it) that
nobody logs into: its password is random and never shown. It plays with an **API token** instead,
shown once when the bot is created and stored only as :func:`~catsack.server.storage.tokens.hash_token` of it
(the one token hash of the server: a copy of the database opens no bot). The person who created it
(its *owner*) lists their bots and revokes a token; a revoked token, a bot whose owner deleted their
account and a deleted bot are refused alike.

The table ``bot_accounts`` is registered on the store's ``metadata`` (revision ``0015`` adds it).
The methods are synchronous, like :class:`~catsack.server.people.accounts.Accounts`'s: the server calls them
in a worker thread.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Engine, Float, ForeignKey, Integer, Select, String, Table, select, update

from catsack.server.people.accounts import Account, AccountError, Accounts, users_t
from catsack.server.storage.store import metadata
from catsack.server.storage.tokens import hash_token

__all__ = ["TOKEN_PREFIX", "BotAccount", "BotAccounts", "bot_accounts_t"]

#: Every bot API token starts with this, so that a token pasted in the wrong place is recognised.
TOKEN_PREFIX = "cbt_"
#: Bot accounts one person may hold (revoked ones included: a revoked bot keeps its name and rating).
MAX_BOTS_PER_OWNER = 10

bot_accounts_t = Table(
    "bot_accounts",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("owner_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    # The token's SHA-256 (catsack.server.storage.tokens.hash_token); NULL once revoked.
    Column("token_hash", String(64), nullable=True, unique=True),
    Column("created", Float, nullable=False),
    Column("revoked", Float, nullable=True),
)


@dataclass(frozen=True, slots=True)
class BotAccount:
    """A bot account as its owner sees it (never its token)."""

    id: int
    name: str
    owner_id: int
    created: float
    revoked: float | None

    @property
    def active(self) -> bool:
        return self.revoked is None

    def account(self) -> Account:
        return Account(self.id, self.name, self.created)


def new_token() -> str:
    """A fresh API token: the prefix and 256 random bits (43 URL-safe characters)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


class BotAccounts:
    """Bot accounts in the server's database (``engine`` is the store's)."""

    def __init__(self, engine: Engine, accounts: Accounts | None = None) -> None:
        self.engine = engine
        self.accounts = accounts or Accounts(engine)

    def _select(self) -> Select[Any]:
        return select(
            bot_accounts_t.c.user_id,
            users_t.c.name,
            bot_accounts_t.c.owner_id,
            bot_accounts_t.c.created,
            bot_accounts_t.c.revoked,
        ).join(users_t, users_t.c.id == bot_accounts_t.c.user_id)

    def create(self, owner: Account, name: str) -> tuple[BotAccount, str]:
        """A new bot account of ``owner`` named ``name`` and its API token, the only time it is shown.
        The name follows the accounts' rules (and is then taken: no person or bot may register it)."""
        if self.is_bot(owner.id):
            raise AccountError("bot_owner", "a bot account cannot create bots", 403)
        with self.engine.connect() as conn:
            held = conn.execute(select(bot_accounts_t.c.user_id).where(bot_accounts_t.c.owner_id == owner.id)).all()
        if len(held) >= MAX_BOTS_PER_OWNER:
            raise AccountError(
                "too_many_bots",
                f"an account may create at most {MAX_BOTS_PER_OWNER} bots",
                409,
                params={"max": MAX_BOTS_PER_OWNER},
            )
        # Nobody logs into a bot: its password is random and forgotten at once.
        user = self.accounts.register(name, secrets.token_urlsafe(32))
        token = new_token()
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                bot_accounts_t.insert().values(
                    user_id=user.id, owner_id=owner.id, token_hash=hash_token(token), created=now, revoked=None
                )
            )
        return BotAccount(user.id, user.name, owner.id, now, None), token

    def of_owner(self, owner: Account) -> list[BotAccount]:
        """The owner's bots, oldest first (revoked ones too)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                self._select()
                .where(bot_accounts_t.c.owner_id == owner.id, users_t.c.deleted.is_(False))
                .order_by(bot_accounts_t.c.created)
            ).all()
        return [BotAccount(r.user_id, r.name, r.owner_id, r.created, r.revoked) for r in rows]

    def revoke(self, owner: Account, name: str) -> BotAccount:
        """Revoke the token of ``owner``'s bot ``name``: it is refused from now on (a connected bot is
        let go by the caller). 404 ``unknown_bot_account`` for a name that is not one of the owner's bots."""
        bot = next((b for b in self.of_owner(owner) if b.name.casefold() == name.casefold()), None)
        if bot is None:
            raise AccountError(
                "unknown_bot_account", f"you have no bot named {name[:40]!r}", 404, params={"name": name[:40]}
            )
        if bot.revoked is not None:
            return bot
        now = time.time()
        with self.engine.begin() as conn:
            conn.execute(
                update(bot_accounts_t).where(bot_accounts_t.c.user_id == bot.id).values(token_hash=None, revoked=now)
            )
        return BotAccount(bot.id, bot.name, bot.owner_id, bot.created, now)

    def by_token(self, token: str) -> BotAccount | None:
        """The active bot holding ``token``; ``None`` for an unknown or revoked token, a deleted bot, or a
        bot whose owner deleted their account."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 128:
            return None
        owners = users_t.alias("owners")
        with self.engine.connect() as conn:
            r = conn.execute(
                self._select()
                .join(owners, owners.c.id == bot_accounts_t.c.owner_id)
                .where(
                    bot_accounts_t.c.token_hash == hash_token(token),
                    bot_accounts_t.c.revoked.is_(None),
                    users_t.c.deleted.is_(False),
                    owners.c.deleted.is_(False),
                )
            ).first()
        return None if r is None else BotAccount(r.user_id, r.name, r.owner_id, r.created, r.revoked)

    def by_name(self, name: str) -> BotAccount | None:
        """The bot account named ``name`` (any owner), or ``None``."""
        account = self.accounts.by_name(name)
        if account is None:
            return None
        with self.engine.connect() as conn:
            r = conn.execute(self._select().where(bot_accounts_t.c.user_id == account.id)).first()
        return None if r is None else BotAccount(r.user_id, r.name, r.owner_id, r.created, r.revoked)

    def is_bot(self, user_id: int) -> bool:
        return bool(self.bot_ids([user_id]))

    def bot_ids(self, user_ids: list[int] | None = None) -> set[int]:
        """Which of ``user_ids`` (all, when ``None``) are bot accounts."""
        query = select(bot_accounts_t.c.user_id)
        if user_ids is not None:
            if not user_ids:
                return set()
            query = query.where(bot_accounts_t.c.user_id.in_(user_ids))
        with self.engine.connect() as conn:
            return {int(r[0]) for r in conn.execute(query)}

    def owner_names(self, bot_ids: list[int]) -> dict[int, str]:
        """Each bot's owner's name (for the marks on profiles and leaderboards)."""
        if not bot_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(bot_accounts_t.c.user_id, users_t.c.name)
                .join(users_t, users_t.c.id == bot_accounts_t.c.owner_id)
                .where(bot_accounts_t.c.user_id.in_(bot_ids))
            ).all()
        return {int(r.user_id): str(r.name) for r in rows}
