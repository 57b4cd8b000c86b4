"""E-mail: an account's verified address and preferences, a send queue in the database, and the
sender that empties it over SMTP.

- **Addresses.** An account may add one address; it is used only once verified by the link mailed
  to it. Per kind (:data:`KINDS`: your turn in a turn-based game, an invitation, a tournament round
  starting, a new follower, a clock about to run out, a bot taking the account's seat) the account
  says whether it wants mail; a follower is announced once a
  week at most (:data:`FOLLOW_MAIL_SECONDS`), however often they unfollow and follow again. Every
  mail carries a one-click unsubscribe (RFC 8058 ``List-Unsubscribe-Post`` and a link in the text).
- **The queue** (``mail_queue``, an outbox as push's is: :mod:`catsack.server.people.outbox`) is written
  in the database before anything is sent. The sender claims a due row (``pending`` → ``sending``, one
  process wins), sends it, and marks it ``sent``; an SMTP failure puts it back with a growing delay, so
  an outage loses nothing. A crash between the SMTP server's acceptance and the ``sent`` mark is the
  only way a mail can go twice: a row left ``sending`` by a process that has since died (its heartbeat
  ran out, or a lone process started again after a crash) is sent again with the same ``Message-ID``,
  which mail programs show as one message; a row whose sender is not known is sent again after
  :data:`STALE_SECONDS`.
- **Batching.** A "your turn" mail waits until the player has been away for
  ``mail_away_minutes`` (no page of the site open, no connection to a table); turns that come
  meanwhile join the same mail, and games where the player has moved since drop out of it (a mail
  with nothing left is not sent). So a quick game sends nothing, and a slow one one mail per absence.
- **Secrecy (R23).** A mail says whose turn it is, at which table and how much time is left;
  never a card, a bid to come or anything else a view hides.

Without ``CATSACK_SMTP_HOST`` and ``CATSACK_SMTP_FROM`` the feature is off: nothing is queued,
and the account page says so.
"""

from __future__ import annotations

import asyncio
import email.policy
import json
import logging
import re
import secrets
import smtplib
import ssl
import time
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import formatdate
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    delete,
    func,
    insert,
    select,
    update,
)

from catsack.i18n import duration, names, translations
from catsack.locales import DEFAULT_LANGUAGE, LANGUAGES
from catsack.server.people import push
from catsack.server.people.accounts import Account, AccountError, check_password, seat_users_t, sessions_t, users_t
from catsack.server.people.friends import Challenge
from catsack.server.people.outbox import (
    CLOCK_SLACK,
    KINDS,
    STALE_SECONDS,
    Outbox,
    Sender,
    bots_seat,
    persons_turns,
    seen_since,
    still_seated,
)
from catsack.server.storage.store import metadata, seats_t, tables_t
from catsack.server.storage.tokens import hash_token
from catsack.server.tables.bus import TablesAdopted
from catsack.server.tables.turnbased import clock_of, reminder_time

if TYPE_CHECKING:
    from catsack.server.settings import Settings
    from catsack.server.tables.bus import SeatAbandoned
    from catsack.server.tables.hub import Hub
    from catsack.server.tables.live import LiveTable

__all__ = [
    "FOLLOW_MAIL_SECONDS",
    "KINDS",
    "MAIL_KINDS",
    "MAX_ATTEMPTS",
    "STALE_SECONDS",
    "MailSender",
    "MailWords",
    "Mailbox",
    "TurnLine",
    "check_address",
    "mail_enabled",
    "mail_footer",
    "mail_text",
    "missed_turns",
    "notify_challenge",
    "notify_follow",
    "notify_turn",
    "public_url",
    "queue_missed_turns",
    "queue_reminder",
    "queue_tournament_round",
    "render",
    "seat_taken",
    "tournament_recipients",
    "turn_lines",
    "unsubscribe_link",
]

log = logging.getLogger("catsack.server")

#: A clock reminder (kind ``clock``) is queued once per turn: the same one is not queued again within this time.
REMINDER_ONCE_SECONDS = 400 * 86400.0
#: Kinds sent whatever the preferences say: they answer the person's own request.
TRANSACTIONAL = ("verify", "reset")
ADDRESS_MAX = 254
VERIFY_SECONDS = 2 * 86400
RESET_SECONDS = 3600
#: Verification mails one account may cause per day (the budgets per mailbox and per client address are
#: ``catsack.server.budgets``'s).
VERIFY_PER_DAY = 5


class MailPolicy(email.policy.EmailPolicy):
    """How mails are written: the SMTP policy, except that a header value with no space in it (the
    ``List-Unsubscribe`` link, a ``Message-ID``) is written on one line as it is, up to RFC 5322's 998
    characters. Folded at 78, Python writes such a value as RFC 2047 encoded words, which mail
    programs do not read as a link (RFC 2369, RFC 8058: no one-click unsubscribe)."""

    def _unbroken(self, name: str, value: Any) -> str | None:
        text = str(value)
        if text.isascii() and not any(c.isspace() for c in text) and len(name) + 2 + len(text) <= 998:
            return f"{name}: {text}{self.linesep}"
        return None

    def fold(self, name: str, value: Any) -> str:
        return self._unbroken(name, value) or super().fold(name, value)

    def fold_binary(self, name: str, value: Any) -> bytes:
        line = self._unbroken(name, value)
        return line.encode("ascii") if line is not None else super().fold_binary(name, value)


MAIL_POLICY = MailPolicy(linesep="\r\n")
#: One follower's "follows you" mail goes to an account at most once in this time (a week).
FOLLOW_MAIL_SECONDS = 7 * 86400.0
#: Attempts before a mail is given up (about two days of retries).
MAX_ATTEMPTS = 12

emails_t = Table(
    "emails",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("address", String(ADDRESS_MAX), nullable=False),
    Column("address_key", String(ADDRESS_MAX), nullable=False, index=True),
    Column("verified", Boolean, nullable=False),
    Column("verify_hash", String(64), nullable=True),
    Column("verify_expires", Float, nullable=True),
    Column("prefs", Text, nullable=False),  # JSON: {kind: bool, "lang": a code of catsack.locales.LANGUAGES}
    Column("unsubscribe", String(64), nullable=False),  # the secret of this address's unsubscribe links
    Column("created", Float, nullable=False),
)

mail_queue_t = Table(
    "mail_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=True, index=True),
    Column("kind", String(16), nullable=False),
    Column("address", String(ADDRESS_MAX), nullable=False),
    Column("payload", Text, nullable=False),  # JSON: what the mail is about; its text is made when it is sent
    Column("created", Float, nullable=False),
    Column("send_after", Float, nullable=False),
    Column("status", String(12), nullable=False),  # pending | sending | sent | dropped | failed
    Column("attempts", Integer, nullable=False),
    Column("claimed", Float, nullable=True),
    Column("claimed_by", String(32), nullable=True),  # the sending process (Hub.process_id); revision 0012
    Column("sent", Float, nullable=True),
    Column("error", String(200), nullable=True),
    Column("message_id", String(120), nullable=False),
    Index("ix_mail_queue_status_send_after", "status", "send_after"),
)

password_resets_t = Table(
    "password_resets",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("used", Boolean, nullable=False),
)

_ADDRESS = re.compile(r"^[^@\s\x00-\x1f\x7f<>(),;:\\\"\[\]]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}$")


def check_address(address: object) -> str:
    """The e-mail address, or :class:`AccountError` ``bad_address`` saying what is wrong with it."""
    if not isinstance(address, str):
        raise AccountError("bad_address", "an e-mail address must be text", 422)
    address = unicodedata.normalize("NFKC", address.strip())
    if not 3 <= len(address) <= ADDRESS_MAX or not _ADDRESS.match(address):
        raise AccountError("bad_address", "that is not an e-mail address (name@example.org)", 422)
    return address


def address_key(address: str) -> str:
    return address.casefold()


def mail_enabled(settings: Settings) -> bool:
    """Whether this server sends mail (``CATSACK_SMTP_HOST`` and ``CATSACK_SMTP_FROM`` are set)."""
    return bool(settings.smtp_host and settings.smtp_from)


def public_url(settings: Settings) -> str:
    """The site's address for links in mails: ``CATSACK_PUBLIC_URL``, else the host and port served."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    return f"http://{settings.host}:{settings.port}"


@dataclass(frozen=True, slots=True)
class Address:
    user_id: int
    address: str
    verified: bool
    prefs: dict[str, Any]
    unsubscribe: str

    def wants(self, kind: str) -> bool:
        return self.verified and (kind in TRANSACTIONAL or bool(self.prefs.get(kind, True)))

    @property
    def lang(self) -> str:
        lang = self.prefs.get("lang")
        return lang if lang in LANGUAGES else DEFAULT_LANGUAGE


@dataclass(frozen=True, slots=True)
class Queued:
    id: int
    user_id: int | None
    kind: str
    address: str
    payload: dict[str, Any]
    attempts: int
    message_id: str


def _verified_elsewhere(conn: Any, key: str, user_id: int) -> bool:
    """Whether an account other than ``user_id`` (not deleted) has the address ``key`` verified: an address
    is verified on one account at a time, so that a password reset by mail names one account."""
    found = conn.execute(
        select(emails_t.c.user_id)
        .select_from(emails_t.join(users_t, users_t.c.id == emails_t.c.user_id))
        .where(
            emails_t.c.address_key == key,
            emails_t.c.verified.is_(True),
            emails_t.c.user_id != user_id,
            users_t.c.deleted.is_(False),
        )
    ).first()
    return found is not None


class Mailbox(Outbox[Queued]):
    """Addresses, preferences, reset tokens and the send queue (``engine`` is the store's): the queue's
    claim, finish and counts are the outbox's (:class:`~catsack.server.people.outbox.Outbox`)."""

    queue_table = mail_queue_t

    def _notice(self, row: Any, attempts: int) -> Queued:
        return Queued(row.id, row.user_id, row.kind, row.address, json.loads(row.payload), attempts, row.message_id)

    # ------------------------------------------------------------------ addresses

    def address(self, user_id: int) -> Address | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(emails_t).where(emails_t.c.user_id == user_id)).first()
        if r is None:
            return None
        return Address(r.user_id, r.address, bool(r.verified), json.loads(r.prefs), r.unsubscribe)

    def addresses(self, user_ids: list[int]) -> dict[int, Address]:
        if not user_ids:
            return {}
        with self.engine.connect() as conn:
            rows = conn.execute(select(emails_t).where(emails_t.c.user_id.in_(user_ids))).all()
        return {
            r.user_id: Address(r.user_id, r.address, bool(r.verified), json.loads(r.prefs), r.unsubscribe) for r in rows
        }

    def set_address(self, account: Account, address: str, lang: str, now: float | None = None) -> str:
        """Give the account this (unverified) address; the verification token to mail to it. At most
        :data:`VERIFY_PER_DAY` verification mails per account and day (a stranger's inbox is not a target);
        an address verified on another account is refused (``address_taken``, 409)."""
        address = check_address(address)
        now = time.time() if now is None else now
        token = secrets.token_urlsafe(24)
        with self.engine.begin() as conn:
            sent = conn.execute(
                select(func.count())
                .select_from(mail_queue_t)
                .where(
                    mail_queue_t.c.user_id == account.id,
                    mail_queue_t.c.kind == "verify",
                    mail_queue_t.c.created > now - 86400,
                )
            ).scalar_one()
            if sent >= VERIFY_PER_DAY:
                raise AccountError(
                    "too_many_mails", f"at most {VERIFY_PER_DAY} verification mails a day; try again tomorrow", 429
                )
            if _verified_elsewhere(conn, address_key(address), account.id):
                raise AccountError(
                    "address_taken", "this address is verified on another account: remove it there first", 409
                )
            old = conn.execute(select(emails_t.c.prefs).where(emails_t.c.user_id == account.id)).first()
            prefs = json.loads(old.prefs) if old is not None else {k: True for k in KINDS}
            prefs["lang"] = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
            values = {
                "address": address,
                "address_key": address_key(address),
                "verified": False,
                "verify_hash": hash_token(token),
                "verify_expires": now + VERIFY_SECONDS,
                "prefs": json.dumps(prefs),
                "unsubscribe": secrets.token_urlsafe(24),
                "created": now,
            }
            if old is None:
                conn.execute(insert(emails_t).values(user_id=account.id, **values))
            else:
                conn.execute(update(emails_t).where(emails_t.c.user_id == account.id).values(**values))
            self._enqueue(conn, account.id, "verify", address, {"token": token, "name": account.name}, now, now)
        return token

    def verify(self, token: str, now: float | None = None) -> int | None:
        """Mark the address whose verification link holds ``token`` verified; its account id, or ``None``
        for a link that is not valid; :class:`AccountError` ``address_taken`` when another account has
        verified the address since."""
        if not isinstance(token, str) or not 1 <= len(token) <= 128:
            return None
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            r = conn.execute(
                select(emails_t.c.user_id, emails_t.c.address_key).where(
                    emails_t.c.verify_hash == hash_token(token), emails_t.c.verify_expires > now
                )
            ).first()
            if r is None:
                return None
            if _verified_elsewhere(conn, r.address_key, r.user_id):  # verified on another account meanwhile
                raise AccountError(
                    "address_taken", "this address is verified on another account: remove it there first", 409
                )
            conn.execute(
                update(emails_t)
                .where(emails_t.c.user_id == r.user_id)
                .values(verified=True, verify_hash=None, verify_expires=None)
            )
            return int(r.user_id)

    def remove(self, user_id: int) -> None:
        with self.engine.begin() as conn:
            conn.execute(delete(emails_t).where(emails_t.c.user_id == user_id))
            conn.execute(
                update(mail_queue_t)
                .where(mail_queue_t.c.user_id == user_id, mail_queue_t.c.status == "pending")
                .values(status="dropped", error="address removed")
            )

    def set_prefs(self, user_id: int, prefs: dict[str, bool | str]) -> dict[str, Any]:
        """Which kinds of mail the account wants (:data:`KINDS`), and ``lang``, the mails' language (one of
        :data:`catsack.locales.LANGUAGES`); anything else is ignored."""
        with self.engine.begin() as conn:
            r = conn.execute(select(emails_t.c.prefs).where(emails_t.c.user_id == user_id)).first()
            if r is None:
                raise AccountError("no_address", "add an e-mail address first", 409)
            merged: dict[str, Any] = json.loads(r.prefs)
            merged.update({k: bool(v) for k, v in prefs.items() if k in KINDS})
            if prefs.get("lang") in LANGUAGES:
                merged["lang"] = prefs["lang"]
            conn.execute(update(emails_t).where(emails_t.c.user_id == user_id).values(prefs=json.dumps(merged)))
        return merged

    def unsubscribe(self, user_id: int, secret: str, kind: str) -> bool:
        """One-click unsubscribe: ``kind`` off (``all``: the address removed). ``False`` for a wrong link."""
        if not isinstance(secret, str) or len(secret) > 128 or (kind not in KINDS and kind != "all"):
            return False
        found = self.address(user_id)
        if found is None or not secrets.compare_digest(found.unsubscribe, secret):
            return False
        if kind == "all":
            self.remove(user_id)
        else:
            self.set_prefs(user_id, {kind: False})
        return True

    # ------------------------------------------------------------------ password reset

    def request_reset(self, address: str, now: float | None = None) -> int:
        """Queue a reset link for the account whose *verified* address this is: the number of links
        queued. An address verified on several accounts (possible only before an address could be
        verified on one account at a time) gets one link per account, each mail naming its account. How
        often anyone may ask is the caller's budget (``catsack.server.budgets``), checked before it
        answers; nothing here refuses a request silently."""
        try:
            address = check_address(address)
        except AccountError:
            return 0
        now = time.time() if now is None else now
        with self.engine.begin() as conn:
            rows = conn.execute(
                select(emails_t.c.user_id, emails_t.c.address, users_t.c.name)
                .select_from(emails_t.join(users_t, users_t.c.id == emails_t.c.user_id))
                .where(
                    emails_t.c.address_key == address_key(address),
                    emails_t.c.verified.is_(True),
                    users_t.c.deleted.is_(False),
                )
                .order_by(emails_t.c.user_id)
            ).all()
            for r in rows:
                token = secrets.token_urlsafe(32)
                conn.execute(
                    insert(password_resets_t).values(
                        token_hash=hash_token(token),
                        user_id=r.user_id,
                        created=now,
                        expires=now + RESET_SECONDS,
                        used=False,
                    )
                )
                self._enqueue(conn, r.user_id, "reset", r.address, {"token": token, "name": r.name}, now, now)
        return len(rows)

    def reset_password(self, token: str, password: str, hasher: Any, now: float | None = None) -> int:
        """Set a new password with a reset token (once; it expires): every session of the account ends.
        The account id; :class:`AccountError` ``bad_token`` for an unknown, used or expired token."""
        password = check_password(password)
        now = time.time() if now is None else now
        if not isinstance(token, str) or not 1 <= len(token) <= 128:
            raise AccountError("bad_token", "this reset link is not valid (used, expired or mistyped)", 400)
        digest = hasher.hash(password)
        with self.engine.begin() as conn:
            r = conn.execute(
                select(password_resets_t.c.user_id).where(
                    password_resets_t.c.token_hash == hash_token(token),
                    password_resets_t.c.used.is_(False),
                    password_resets_t.c.expires > now,
                )
            ).first()
            taken = conn.execute(
                update(password_resets_t)
                .where(password_resets_t.c.token_hash == hash_token(token), password_resets_t.c.used.is_(False))
                .values(used=True)
            ).rowcount
            if r is None or not taken:
                raise AccountError("bad_token", "this reset link is not valid (used, expired or mistyped)", 400)
            conn.execute(update(users_t).where(users_t.c.id == r.user_id).values(password_hash=digest))
            conn.execute(delete(sessions_t).where(sessions_t.c.user_id == r.user_id))
            # Every other reset link of the account stops working too.
            conn.execute(update(password_resets_t).where(password_resets_t.c.user_id == r.user_id).values(used=True))
            return int(r.user_id)

    # ------------------------------------------------------------------ the queue

    @staticmethod
    def _enqueue(
        conn: Any, user_id: int | None, kind: str, address: str, payload: dict[str, Any], now: float, after: float
    ) -> None:
        conn.execute(
            insert(mail_queue_t).values(
                user_id=user_id,
                kind=kind,
                address=address,
                payload=json.dumps(payload),
                created=now,
                send_after=after,
                status="pending",
                attempts=0,
                claimed=None,
                sent=None,
                error=None,
                message_id=f"{secrets.token_hex(12)}.{kind}",
            )
        )

    def enqueue(
        self,
        user_id: int,
        kind: str,
        payload: dict[str, Any],
        after: float | None = None,
        *,
        once_within: float | None = None,
    ) -> bool:
        """Queue a mail of ``kind`` to the account, if it has a verified address that wants this kind.
        With ``once_within`` (seconds), nothing is queued when the same mail (kind and payload) was
        queued to the account within that time. Whether a mail was queued."""
        found = self.address(user_id)
        if found is None or not found.wants(kind):
            return False
        now = time.time()
        text = json.dumps(payload)
        with self.engine.begin() as conn:
            if once_within is not None:
                earlier = conn.execute(
                    select(mail_queue_t.c.id)
                    .where(
                        mail_queue_t.c.user_id == user_id,
                        mail_queue_t.c.kind == kind,
                        mail_queue_t.c.payload == text,
                        mail_queue_t.c.created > now - once_within,
                    )
                    .limit(1)
                ).first()
                if earlier is not None:
                    return False
            self._enqueue(conn, user_id, kind, found.address, payload, now, now if after is None else after)
        return True

    def queue_turn(self, user_id: int, table_id: str, after: float) -> bool:
        """Add a turn-based game to the account's waiting "your turn" mail (made if there is none)."""
        found = self.address(user_id)
        if found is None or not found.wants("turn"):
            return False
        now = time.time()
        with self.engine.begin() as conn:
            r = conn.execute(
                select(mail_queue_t.c.id, mail_queue_t.c.payload).where(
                    mail_queue_t.c.user_id == user_id,
                    mail_queue_t.c.kind == "turn",
                    mail_queue_t.c.status == "pending",
                )
            ).first()
            if r is None:
                self._enqueue(conn, user_id, "turn", found.address, {"tables": [table_id]}, now, after)
                return True
            payload = json.loads(r.payload)
            if table_id not in payload["tables"]:
                payload["tables"] = [*payload["tables"], table_id][-50:]
                conn.execute(
                    update(mail_queue_t)
                    .where(mail_queue_t.c.id == r.id, mail_queue_t.c.status == "pending")
                    .values(payload=json.dumps(payload))
                )
        return True


# ---------------------------------------------------------------------- what a mail says
# The texts are messages of the package's catalogues (catsack.i18n), in the address's language
# (Address.lang, chosen when the address is added). mail_text makes a mail's words from its payload and
# what render looked up; it reads nothing itself, so every kind can be rendered in every language alone.


@dataclass(frozen=True, slots=True)
class TurnLine:
    """One game of a turn mail where it is still the reader's move: the table's name, the other people,
    how many bots play with them, the seconds left on the reader's clock and the table's link."""

    table: str
    players: tuple[str, ...]
    bots: int
    left: float
    link: str


@dataclass(frozen=True, slots=True)
class MailWords:
    """What a mail's words are made from: the reader's translations and language, the mail's payload, the
    account's name, the site's address and a turn mail's games."""

    t: Any
    lang: str
    payload: dict[str, Any]
    name: str
    base: str
    turns: Sequence[TurnLine]

    @property
    def mygames(self) -> str:
        """The link to the reader's My games page."""
        return f"{self.base}/games"


def mail_text(
    kind: str, lang: str, payload: dict[str, Any], *, name: str, base: str, turns: Sequence[TurnLine] = ()
) -> tuple[str, str] | None:
    """The subject and body (without the footer) of a mail of ``kind`` in ``lang`` for the account called
    ``name``; ``turns`` are a turn mail's games. ``None`` for a turn mail without games or an unknown kind."""
    build = MAIL_KINDS.get(kind)
    if build is None:
        return None
    return build(MailWords(translations(lang), lang, payload, name, base, turns))


def _verify_text(m: MailWords) -> tuple[str, str]:
    t = m.t
    subject = t.gettext("catsack: confirm your e-mail address")
    body = t.gettext(
        "Hello {name},\n\nplease confirm that this address belongs to your catsack account:\n{link}\n\n"
        "The link works for two days. If you did not ask for this, ignore this mail."
    ).format(name=m.name, link=f"{m.base}/mail/verify?t={quote(m.payload['token'])}")
    return subject, body


def _reset_text(m: MailWords) -> tuple[str, str]:
    t = m.t
    subject = t.gettext("catsack: set a new password")
    body = t.gettext(
        "Hello {name},\n\nsomebody (you, we hope) asked to set a new password for your catsack account.\n"
        "Set one here within the hour; the link works once:\n{link}\n\n"
        "If you did not ask for this, ignore this mail: your password stays as it is."
    ).format(name=m.name, link=f"{m.base}/reset#token={quote(m.payload['token'])}")
    return subject, body


def _your_turn_text(m: MailWords) -> tuple[str, str] | None:
    if not m.turns:
        return None
    return _turn_text(m.t, m.lang, m.turns, name=m.name, mygames=m.mygames)


def _clock_text(m: MailWords) -> tuple[str, str] | None:
    if not m.turns:
        return None
    t, lang = m.t, m.lang
    line = m.turns[0]
    subject = t.gettext("catsack: {left} left to move at {table}").format(
        left=duration(line.left, lang), table=_safe(line.table, 60)
    )
    # i18n: a reminder before a turn-based clock runs out; {left} is the time left ("5 hours").
    body = t.gettext(
        "Hello {name},\n\nyour clock at {table} runs out in {left}; then a bot plays your seat to the end.\n"
        "Your move: {link}\n\nGoing away? Vacation mode on your account page stops your clocks: {account}"
    ).format(
        name=m.name,
        table=_safe(line.table),
        left=duration(line.left, lang),
        link=line.link,
        account=f"{m.base}/account",
    )
    return subject, body


def _seat_text(m: MailWords) -> tuple[str, str]:
    t, p = m.t, m.payload
    table = _safe(p.get("table", ""))
    subject = t.gettext("catsack: a bot took your seat at {table}").format(table=_safe(table, 60))
    body = t.gettext(
        "Hello {name},\n\na bot took your seat at {table} and plays it to the end of the game.\n"
        "The game: {link}\n\nMy games: {mygames}"
    ).format(name=m.name, table=table, link=f"{m.base}/t/{quote(str(p.get('table_id', '')))}", mygames=m.mygames)
    return subject, body


def _invite_text(m: MailWords) -> tuple[str, str]:
    t, p = m.t, m.payload
    who = _safe(p["from"], 24)
    tb = p.get("turn_based")
    if tb:
        # i18n: {time} is the time per move ("1 day", "12 hours").
        pace = t.gettext("turn-based, {time} per move").format(time=duration(float(tb["move_hours"]) * 3600, m.lang))
    else:
        pace = t.gettext("real time")
    subject = t.gettext("catsack: {from} challenges you").format(**{"from": who})
    body = t.gettext(
        "Hello {name},\n\n{from} invites you to a new table: {table} ({pace}).\n"
        "Accept or decline on your My games page:\n{mygames}"
    ).format(**{"from": who}, name=m.name, table=_safe(p["table"]), pace=pace, mygames=m.mygames)
    return subject, body


def _friend_text(m: MailWords) -> tuple[str, str]:
    t = m.t
    who = _safe(m.payload["from"], 24)
    subject = t.gettext("catsack: {from} follows you").format(**{"from": who})
    body = t.gettext(
        "Hello {name},\n\n{from} now follows you on catsack: {profile}\n\nFollow back or block from {friends}"
    ).format(**{"from": who}, name=m.name, profile=f"{m.base}/u/{quote(who)}", friends=f"{m.base}/friends")
    return subject, body


def _tournament_text(m: MailWords) -> tuple[str, str]:
    t, p, lang = m.t, m.payload, m.lang
    tournament = _safe(p["tournament"])
    subject = t.gettext("catsack: round {round} of {tournament} starts").format(
        round=int(p["round"]), tournament=tournament
    )
    link = str(p.get("link", "/games"))
    link = link if urlsplit(link).scheme in ("http", "https") else m.base + "/" + link.lstrip("/")
    words = {"name": m.name, "round": int(p["round"]), "tournament": tournament, "table": int(p.get("table", 0))}
    if p.get("deadline") is not None:  # a turn-based tournament's round
        # i18n: {time} is the time per move ("1 day"); {deadline} a time in UTC ("2026-12-05 18:00").
        body = t.gettext(
            "Hello {name},\n\nround {round} of {tournament} starts now. Your table, {table}:\n{link}\n\n"
            "It is turn-based, {time} per move. The round ends {deadline} UTC: a game still going then is "
            "played out by a bot for everyone at it, and counts. If your clock runs out before, a bot "
            "plays your seat and you leave the tournament."
        ).format(
            **words,
            link=link,
            time=duration(float(p.get("move_hours", 0)) * 3600, lang),
            deadline=utc_minute(float(p["deadline"])),
        )
        return subject, body
    body = t.gettext(
        "Hello {name},\n\nround {round} of {tournament} starts now. Your table, {table}:\n{link}\n\n"
        "Your seat waits {wait} for you to come; after that a bot plays it and you leave the tournament."
    ).format(**words, link=link, wait=duration(float(p.get("wait", 0)), lang))
    return subject, body


#: Each kind of mail and the function that writes its subject and body (``None``: nothing to send).
MAIL_KINDS: dict[str, Callable[[MailWords], tuple[str, str] | None]] = {
    "verify": _verify_text,
    "reset": _reset_text,
    "turn": _your_turn_text,
    "clock": _clock_text,
    "seat": _seat_text,
    "invite": _invite_text,
    "friend": _friend_text,
    "tournament": _tournament_text,
}


def _turn_text(t: Any, lang: str, turns: Sequence[TurnLine], *, name: str, mygames: str) -> tuple[str, str]:
    """The subject and body of a "your turn" mail listing ``turns`` (at least one)."""
    lines = []
    for line in turns:
        others = list(line.players)
        if line.bots:
            others.append(t.ngettext("{n} bot", "{n} bots", line.bots).format(n=line.bots))
        # i18n: one game of a "your turn" mail; {players} lists the others ("Bea and 1 bot"), {left} the time left.
        text = t.gettext("- {table} (with {players}): {left} left\n  {link}")
        lines.append(
            text.format(table=line.table, players=names(others, lang), left=duration(line.left, lang), link=line.link)
        )
    if len(turns) == 1:
        subject = t.gettext("catsack: your turn at {table}").format(table=_safe(turns[0].table, 60))
    else:
        subject = t.ngettext("catsack: your turn in {n} game", "catsack: your turn in {n} games", len(turns))
        subject = subject.format(n=len(turns))
    body = t.gettext("Hello {name},\n\nit is your turn:\n\n{lines}\n\nMy games: {mygames}").format(
        name=name, lines="\n".join(lines), mygames=mygames
    )
    return subject, body


def utc_minute(epoch: float) -> str:
    """A time as a reader anywhere takes it: ``2026-12-05 18:00`` (UTC)."""
    return time.strftime("%Y-%m-%d %H:%M", time.gmtime(epoch))


def mail_footer(kind: str, lang: str, unsubscribe: str, settings: str) -> str:
    """The footer under a mail's body: the one-click unsubscribe link of its kind and the settings page
    (``all`` for a mail the person asked for: the link removes the address)."""
    t = translations(lang)
    if kind == "all":
        return t.gettext("\n\n--\nNot your account? Remove this address from it: {unsubscribe}").format(
            unsubscribe=unsubscribe
        )
    return t.gettext("\n\n--\nNo more mails of this kind: {unsubscribe}\nSettings: {settings}").format(
        unsubscribe=unsubscribe, settings=settings
    )


def _safe(value: object, limit: int = 80) -> str:
    """A name or table name as it may appear in a mail: one line, no control characters, bounded."""
    text = "".join(ch for ch in str(value) if ch.isprintable())
    return text[:limit]


def unsubscribe_link(base: str, user_id: int, secret: str, kind: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """The one-click unsubscribe link of a kind of mail; ``lang`` makes its page speak the mail's language."""
    return f"{base}/mail/unsubscribe?u={user_id}&t={quote(secret)}&k={quote(kind)}&lang={quote(lang)}"


def turn_lines(engine: Engine, user_id: int, tables: list[str], base: str) -> list[TurnLine]:
    """The games of ``tables`` where it is still this account's move (others drop out), with the time left."""
    if not tables:
        return []
    now = time.time()
    with engine.connect() as conn:
        rows = conn.execute(
            select(tables_t.c.id, tables_t.c.name, tables_t.c.to_move, tables_t.c.deadline, seat_users_t.c.seat)
            .select_from(seat_users_t.join(tables_t, tables_t.c.id == seat_users_t.c.table_id))
            .where(
                seat_users_t.c.user_id == user_id,
                seat_users_t.c.table_id.in_(tables),
                tables_t.c.status == "playing",
            )
        ).all()
        seated = {
            (s.table_id, s.seat): (s.name, s.kind)
            for s in conn.execute(select(seats_t).where(seats_t.c.table_id.in_(tables)))
        }
    lines = []
    for r in rows:
        mine = seated.get((r.id, r.seat))
        if r.to_move != r.seat or mine is None or mine[1] != "human":
            continue  # moved meanwhile, or the seat went to a bot
        others = [(n, k) for (t, s), (n, k) in sorted(seated.items()) if t == r.id and s != r.seat]
        people = tuple(_safe(n, 24) for n, k in others if k == "human" and n)
        bots = sum(k == "bot" for _n, k in others)
        lines.append(TurnLine(_safe(r.name), people, bots, (r.deadline or now) - now, f"{base}/t/{r.id}"))
    return lines


def render(engine: Engine, settings: Settings, mail: Queued, to: Address | None) -> EmailMessage | None:
    """The message for a queued mail, made now (a turn mail lists only games still waiting for the
    player); ``None`` when there is nothing left to say or the address no longer wants it."""
    base = public_url(settings)
    p = mail.payload
    if to is None or to.address != mail.address:
        return None  # the address was removed or changed since
    if mail.kind not in TRANSACTIONAL and not to.wants(mail.kind):
        return None
    lang = to.lang
    name = _safe(p.get("name", ""), 24)
    if mail.user_id is not None and not name:
        with engine.connect() as conn:
            name = _safe(conn.execute(select(users_t.c.name).where(users_t.c.id == mail.user_id)).scalar() or "", 24)
    turns: list[TurnLine] = []
    if mail.kind == "turn":
        assert mail.user_id is not None
        turns = turn_lines(engine, mail.user_id, list(p.get("tables", [])), base)
    elif mail.kind == "clock":
        assert mail.user_id is not None
        if reminder_time(engine, str(p.get("table_id", "")), int(p.get("version", -1)), 0.0) is None:
            return None  # the move was made, or the game is over
        turns = turn_lines(engine, mail.user_id, [str(p.get("table_id", ""))], base)
    elif mail.kind == "seat":
        assert mail.user_id is not None
        with engine.connect() as conn:
            found = bots_seat(conn, mail.user_id, str(p.get("table_id", "")), int(p.get("seat", -1)))
            back = found is not None and seen_since(conn, mail.user_id, float(p.get("at", 0.0)))
        if found is None or back:
            return None  # the seat is not a bot's, or they came back and saw it
        p = {**p, "table": found}
    elif mail.kind == "tournament":
        assert mail.user_id is not None
        with engine.connect() as conn:
            seated = still_seated(conn, mail.user_id, str(p.get("table_id", "")))
        if not seated:
            return None  # the round is over, or a bot has the seat by now
    made = mail_text(mail.kind, lang, p, name=name, base=base, turns=turns)
    if made is None:
        return None
    subject, body = made
    kind = "all" if mail.kind in TRANSACTIONAL else mail.kind
    unsubscribe = unsubscribe_link(base, to.user_id, to.unsubscribe, kind, lang)
    body += mail_footer(kind, lang, unsubscribe, f"{base}/account")
    msg = EmailMessage(policy=MAIL_POLICY)
    msg["From"] = settings.smtp_from
    msg["To"] = mail.address
    msg["Subject"] = subject
    msg["Date"] = formatdate(localtime=False)
    host = urlsplit(base).hostname or "catsack"
    msg["Message-ID"] = f"<{mail.message_id}.{mail.id}@{host}>"
    msg["List-Unsubscribe"] = f"<{unsubscribe}>"
    msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg["Auto-Submitted"] = "auto-generated"
    msg.set_content(body)
    msg["Content-Language"] = lang  # after the body: set_content replaces every Content-* header
    return msg


# ---------------------------------------------------------------------- sending


def smtp_send(settings: Settings, msg: EmailMessage) -> None:
    """Send one message through the configured SMTP server (blocking: run it in a thread)."""
    host, port = settings.smtp_host or "", settings.smtp_port
    timeout = settings.smtp_timeout
    if settings.smtp_ssl:
        client: smtplib.SMTP = smtplib.SMTP_SSL(host, port, timeout=timeout, context=ssl.create_default_context())
    else:
        client = smtplib.SMTP(host, port, timeout=timeout)
    try:
        if settings.smtp_starttls and not settings.smtp_ssl:
            client.starttls(context=ssl.create_default_context())
        if settings.smtp_user:
            client.login(settings.smtp_user, settings.smtp_password or "")
        client.send_message(msg)
    finally:
        try:
            client.quit()
        except (smtplib.SMTPException, OSError):
            client.close()


class MailSender(Sender[Queued, EmailMessage]):
    """Empties the queue: every ``mail_poll_seconds``, the due mails are claimed, made and sent over SMTP
    (the outbox's :class:`~catsack.server.people.outbox.Sender`)."""

    what = "mail"
    box: Mailbox

    def __init__(self, hub: Hub) -> None:
        s = hub.settings
        super().__init__(
            hub,
            Mailbox(hub.store.engine),
            poll_seconds=s.mail_poll_seconds,
            away_minutes=s.mail_away_minutes,
            max_attempts=MAX_ATTEMPTS,
        )

    def enabled(self) -> bool:
        return mail_enabled(self.settings)

    async def _make(self, mail: Queued, now: float) -> EmailMessage | str:
        to = await asyncio.to_thread(self.box.address, mail.user_id) if mail.user_id is not None else None
        msg = await asyncio.to_thread(render, self.hub.store.engine, self.settings, mail, to)
        return "nothing left to say" if msg is None else msg

    async def _send(self, mail: Queued, msg: EmailMessage, now: float) -> bool:
        try:
            await asyncio.to_thread(smtp_send, self.settings, msg)
        except (smtplib.SMTPException, OSError) as exc:
            await self._failed(mail, str(exc), now, give_up=isinstance(exc, smtplib.SMTPRecipientsRefused))
            return False
        return True


# ---------------------------------------------------------------------- what causes mail


def _box(hub: Hub) -> Mailbox | None:
    if not mail_enabled(hub.settings):
        return None
    return hub.service(Mailbox, lambda: Mailbox(hub.store.engine))


async def notify_turn(hub: Hub, table: LiveTable) -> None:
    """The turn of a turn-based game passed to a person: queue (or extend) their "your turn" mail, and
    their "your turn" push (catsack.server.people.push)."""
    box = _box(hub)
    pushing = push.push_enabled(hub.settings)
    seat = table.game.to_move
    if (box is None and not pushing) or seat is None or table.players[seat].kind != "human":
        return

    def queue() -> None:
        with hub.store.engine.connect() as conn:
            user = conn.execute(
                select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table.id, seat_users_t.c.seat == seat)
            ).scalar()
        if user is not None and box is not None:
            box.queue_turn(int(user), table.id, time.time() + hub.settings.mail_away_minutes * 60.0)
        if user is not None and pushing:
            push.queue_turn(hub.store.engine, hub.settings, int(user), table.id)

    await asyncio.to_thread(queue)


def queue_reminder(engine: Engine, settings: Settings, user_id: int, table_id: str, version: int, at: float) -> bool:
    """Queue the clock reminder of the turn that began at ``version`` of ``table_id`` (due at ``at``),
    once per turn: nothing is queued when it was queued before. Synchronous."""
    if not mail_enabled(settings) or settings.clock_reminder_share <= 0:
        return False
    payload = {"table_id": table_id, "version": version}
    return Mailbox(engine).enqueue(user_id, "clock", payload, at, once_within=REMINDER_ONCE_SECONDS)


async def seat_taken(hub: Hub, event: SeatAbandoned) -> None:
    """A bot took a person's seat before the end (grace period, clock, host, withdrawal): mail them once
    they have been away ``mail_away_minutes``, unless they came back to the site meanwhile."""
    box = _box(hub)
    if box is None:
        return
    table_id, seat, now = event.table.id, event.seat, time.time()

    def queue() -> None:
        with hub.store.engine.connect() as conn:
            user = conn.execute(
                select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id, seat_users_t.c.seat == seat)
            ).scalar()
        if user is not None:
            payload = {"table_id": table_id, "seat": seat, "at": now}
            box.enqueue(int(user), "seat", payload, now + hub.settings.mail_away_minutes * 60.0)

    await asyncio.to_thread(queue)


async def missed_turns(hub: Hub, event: TablesAdopted) -> None:
    """This process took tables over: queue the "your turn" mails their last process had not
    (:func:`queue_missed_turns`)."""
    ids = None if event.table_ids is None else list(event.table_ids)
    await asyncio.to_thread(queue_missed_turns, hub.store.engine, hub.settings, ids)


def queue_missed_turns(
    engine: Engine, settings: Settings, table_ids: Sequence[str] | None = None, now: float | None = None
) -> int:
    """Queue the "your turn" mails a crash lost: the turn of a turn-based game passes to a person in
    the move's commit, and their mail is queued just after it, so a process killed in between
    leaves a person to move who is never told. For each turn-based game in play (of ``table_ids``,
    or all) whose turn is a person's, a mail is queued unless a waiting one names the table or one
    naming it was made or sent since the turn began. How many were queued. Synchronous: call it in a worker thread."""
    if not mail_enabled(settings) or (table_ids is not None and not table_ids):
        return 0
    now = time.time() if now is None else now
    query = persons_turns(table_ids)
    with engine.connect() as conn:
        turns = [(r.id, int(r.user_id), since) for r in conn.execute(query) if (since := _turn_since(r.clock))]
        if not turns:
            return 0
        oldest = min(since for _, _, since in turns) - CLOCK_SLACK
        mails = conn.execute(
            select(
                mail_queue_t.c.user_id,
                mail_queue_t.c.payload,
                mail_queue_t.c.status,
                mail_queue_t.c.created,
                mail_queue_t.c.sent,
            ).where(
                mail_queue_t.c.kind == "turn",
                mail_queue_t.c.status.in_(("pending", "sending"))
                | (mail_queue_t.c.created >= oldest)
                | (mail_queue_t.c.sent >= oldest),
            )
        ).all()
    # Per (account, table): the mails naming it, as (status, when made or, if later, sent). A mail sent
    # after the turn began covers it too: the sender checked at sending that the turn was theirs.
    told: dict[tuple[int, str], list[tuple[str, float]]] = {}
    for m in mails:
        for table_id in json.loads(m.payload).get("tables", []):
            told.setdefault((m.user_id, table_id), []).append((m.status, max(m.created, m.sent or 0.0)))
    box = Mailbox(engine)
    queued = 0
    for table_id, user_id, since in turns:
        seen = told.get((user_id, table_id), [])
        if any(status in ("pending", "sending") or last >= since - CLOCK_SLACK for status, last in seen):
            continue
        if box.queue_turn(user_id, table_id, now + settings.mail_away_minutes * 60.0):
            queued += 1
    if queued:
        log.info("missed turn mails queued", extra={"fields": {"mails": queued}})
    return queued


def _turn_since(clock: str | None) -> float | None:
    found = clock_of(clock)
    return None if found is None else found.since


async def notify_challenge(hub: Hub, challenge: Challenge) -> None:
    """Tell each invitee of a new challenge who wants invitation mails (and pushes)."""
    await push.notify_challenge(hub, challenge)
    box = _box(hub)
    if box is None:
        return
    payload = {
        "from": challenge.from_name,
        "table": challenge.options.get("name") or "",
        "turn_based": challenge.options.get("turn_based"),
    }
    for user_id, _name, _answer in challenge.invitees:
        await asyncio.to_thread(box.enqueue, user_id, "invite", payload)


async def notify_follow(hub: Hub, followed: Account, follower: Account) -> None:
    """Tell ``followed`` that ``follower`` follows them, at most once per :data:`FOLLOW_MAIL_SECONDS`
    per follower: unfollowing and following again does not mail again (nor push)."""
    await push.notify_follow(hub, followed, follower)
    box = _box(hub)
    if box is not None:
        payload = {"from": follower.name}
        await asyncio.to_thread(box.enqueue, followed.id, "friend", payload, once_within=FOLLOW_MAIL_SECONDS)


def tournament_recipients(engine: Engine, settings: Settings, user_ids: Sequence[int]) -> set[int]:
    """The accounts of ``user_ids`` that a "round starts" notice reaches: by mail (mail is on, and a
    verified address wants tournament mails) or by push (a device wants tournament pushes).
    Synchronous: call it in a worker thread."""
    pushed = push.recipients(engine, settings, user_ids, "tournament")
    if not mail_enabled(settings):
        return pushed
    mailed = {u for u, a in Mailbox(engine).addresses(sorted(set(user_ids))).items() if a.wants("tournament")}
    return mailed | pushed


def queue_tournament_round(conn: Connection, mails: Sequence[tuple[int, dict[str, Any]]]) -> int:
    """Queue "round starts" mails, ``(account, payload)`` each, in the caller's transaction: the one
    that publishes the round, so each is written once, with the round. The payload says the
    tournament's name, the round, the table's number, its link (``/t/{table}``) and how long the seat
    waits (``wait``, seconds): nothing of any deal. The pushes of the round are queued with them
    (catsack.server.people.push). How many mails were queued."""
    now = time.time()
    rows = conn.execute(select(emails_t).where(emails_t.c.user_id.in_(sorted({u for u, _ in mails})))).all()
    found = {
        r.user_id: Address(r.user_id, r.address, bool(r.verified), json.loads(r.prefs), r.unsubscribe) for r in rows
    }
    queued = 0
    for user_id, payload in mails:
        to = found.get(user_id)
        if to is not None and to.wants("tournament"):
            Mailbox._enqueue(conn, user_id, "tournament", to.address, payload, now, now)
            queued += 1
    push.queue_round(conn, mails)
    return queued
