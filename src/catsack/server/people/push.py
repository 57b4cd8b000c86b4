"""Web Push: notifications that reach a player's phone or computer with no page of the site open.

- **Keys.** The server signs what it sends with its VAPID key pair (RFC 8292): the private key is the
  ``vapid_private_key`` setting (or the PEM file ``vapid_key_file``), the public key is given to the
  pages, which hand it to the browser when they subscribe. Without a key, push is off: nothing is
  queued and the account page names the setting. ``python -m catsack.server.people.push keys`` makes a pair.
- **Devices.** A browser that turns notifications on hands the page a subscription: the push service's
  endpoint (an address of the browser maker's push service, ``push_hosts``) and the browser's keys
  (``p256dh``, ``auth``). It is kept per device (at most :data:`DEVICES_MAX` an account, the oldest
  giving way), found by the endpoint's SHA-256; the push service's 404 or 410 (the subscription
  ended) drops the device.
- **What is sent.** Per kind (:data:`KINDS`: your turn in a turn-based game, an invitation, a
  tournament round starting, a new follower, a bot taking the account's seat, a clock about to run
  out) the account says
  whether it wants a push; each kind is on until turned off. A notice is queued as one row per
  device (``push_queue``) and its text is made when it is sent, in the device's language, from what
  the database says then: a "your turn" push whose turn has passed, or a round's push whose seat a
  bot has taken, is not sent.
- **The queue** is an outbox, as the mail's is (:mod:`catsack.server.people.outbox`, which both use): a
  sender claims a due row (``pending`` → ``sending``, one process wins), sends it, marks it ``sent``; a
  failure of the push service puts it back with a growing delay. A crash between the push service's acceptance and the
  ``sent`` mark is the only way a row can go twice; it goes with the same ``Topic`` header (the push
  service keeps one message per topic) and the same notification tag (the browser shows one
  notification per tag), so the player sees it once.
- **Secrecy (R23).** A payload says what a turn mail says: whose turn, at which table, how much time
  is left; an invitation's sender and table; a round's number and table. Never a card, a bid to come
  or anything else a view hides. It is encrypted for the device (RFC 8291, ``aes128gcm``): the push
  service reads nothing.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import hashlib
import json
import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import (
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
    insert,
    select,
    update,
)

from catsack.i18n import duration, translations
from catsack.locales import DEFAULT_LANGUAGE, LANGUAGES
from catsack.server.people.accounts import AccountError, seat_users_t, users_t
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
from catsack.server.tables.turnbased import clock_of, reminder_time

if TYPE_CHECKING:
    from catsack.server.people.accounts import Account
    from catsack.server.people.friends import Challenge
    from catsack.server.settings import Settings
    from catsack.server.tables.bus import SeatAbandoned, TablesAdopted
    from catsack.server.tables.hub import Hub
    from catsack.server.tables.live import LiveTable

__all__ = [
    "DEVICES_MAX",
    "ENDPOINT_MAX",
    "KEY_SETTING",
    "KINDS",
    "MAX_ATTEMPTS",
    "STALE_SECONDS",
    "Device",
    "PushSender",
    "Pushbox",
    "QueuedPush",
    "VapidKeys",
    "check_subscription",
    "generate_keys",
    "missed_turns",
    "notify_challenge",
    "notify_follow",
    "notify_turn",
    "push_enabled",
    "push_message",
    "push_text",
    "queue_missed_turns",
    "queue_reminder",
    "queue_round",
    "recipients",
    "seat_taken",
    "vapid_keys",
]

log = logging.getLogger("catsack.server")

#: A push the person asked for from the account page (to see that notifications arrive).
TEST = "test"
#: Devices one account may have; a new one beyond that replaces the one used longest ago.
DEVICES_MAX = 10
#: The longest endpoint accepted (the browsers' are 150 to 500 characters).
ENDPOINT_MAX = 1024
#: Attempts before a push is given up.
MAX_ATTEMPTS = 10
#: How long a push service keeps a message for a device that is offline (seconds): a day, and a
#: round's start no longer than its seat waits.
TTL_SECONDS = 86400
#: The setting that turns push on (named on the account page when it is off).
KEY_SETTING = "CATSACK_VAPID_PRIVATE_KEY"

push_devices_t = Table(
    "push_devices",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("endpoint_hash", String(64), nullable=False, unique=True),  # SHA-256 of the endpoint, hex
    Column("endpoint", String(ENDPOINT_MAX), nullable=False),
    Column("p256dh", String(100), nullable=False),  # the browser's public key, base64url (65 bytes)
    Column("auth", String(32), nullable=False),  # the browser's auth secret, base64url (16 bytes)
    Column("lang", String(8), nullable=False),
    Column("created", Float, nullable=False),
    Column("last_success", Float, nullable=True),
)

push_prefs_t = Table(
    "push_prefs",
    metadata,
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("prefs", Text, nullable=False),  # JSON: {kind: bool}
)

push_queue_t = Table(
    "push_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("device_id", Integer, ForeignKey("push_devices.id"), nullable=False, index=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("payload", Text, nullable=False),  # JSON: what it is about; its text is made when it is sent
    Column("topic", String(32), nullable=False),  # the Web Push Topic: one message per topic and device
    Column("created", Float, nullable=False),
    Column("send_after", Float, nullable=False),
    Column("status", String(12), nullable=False),  # pending | sending | sent | dropped | failed
    Column("attempts", Integer, nullable=False),
    Column("claimed", Float, nullable=True),
    Column("claimed_by", String(32), nullable=True),
    Column("sent", Float, nullable=True),
    Column("error", String(200), nullable=True),
    Index("ix_push_queue_status_send_after", "status", "send_after"),
)


# ---------------------------------------------------------------------- keys


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True, slots=True)
class VapidKeys:
    """The server's VAPID key pair: the private key, and the public key as the browsers want it
    (the uncompressed P-256 point, base64url), and the contact sent with each message."""

    private: ec.EllipticCurvePrivateKey
    public: str
    subject: str | None


def _read_private(text: str) -> ec.EllipticCurvePrivateKey:
    text = text.strip()
    try:
        if "BEGIN" in text:
            key = serialization.load_pem_private_key(text.encode("ascii"), password=None)
        else:
            raw = _unb64(text)
            if len(raw) == 32:
                key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
            else:
                key = serialization.load_der_private_key(raw, password=None)
    except (ValueError, TypeError, UnicodeError) as exc:
        raise ValueError(f"the VAPID private key cannot be read ({exc})") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError("the VAPID private key must be a P-256 (prime256v1) key")
    return key


def _public_of(key: ec.EllipticCurvePrivateKey) -> str:
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return _b64(point)


@functools.cache
def _keys(private: str | None, key_file: str | None, public: str | None, subject: str) -> VapidKeys | None:
    if key_file:
        try:
            private = Path(key_file).read_text("ascii")
        except (OSError, UnicodeError) as exc:
            raise ValueError(f"vapid_key_file: {key_file} cannot be read ({exc})") from None
    if not private:
        return None
    key = _read_private(private)
    mine = _public_of(key)
    if public and public.strip().rstrip("=") != mine:
        raise ValueError("vapid_public_key is not the public key of vapid_private_key (leave it out to derive it)")
    if subject and not (subject.startswith("mailto:") or subject.startswith("https://")):
        raise ValueError("vapid_subject must be a mailto: or an https:// address")
    return VapidKeys(key, mine, subject or None)


def vapid_keys(settings: Settings) -> VapidKeys | None:
    """The server's keys, or ``None`` when push is off; :class:`ValueError` saying what is wrong with a
    key that is set but cannot be used (the server does not start with it)."""
    subject = settings.vapid_subject.strip()
    if not subject and settings.public_url.startswith("https://"):
        subject = settings.public_url.rstrip("/")
    return _keys(settings.vapid_private_key, settings.vapid_key_file, settings.vapid_public_key, subject)


def push_enabled(settings: Settings) -> bool:
    """Whether this server sends push notifications (a VAPID private key is set)."""
    return bool(settings.vapid_private_key or settings.vapid_key_file)


def generate_keys() -> tuple[str, str]:
    """A new key pair: the private key (base64url of its 32 bytes) and the public key (base64url of the
    uncompressed point), as ``vapid_private_key`` and ``vapid_public_key`` take them."""
    key = ec.generate_private_key(ec.SECP256R1())
    return _b64(key.private_numbers().private_value.to_bytes(32, "big")), _public_of(key)


# ---------------------------------------------------------------------- subscriptions


@dataclass(frozen=True, slots=True)
class Subscription:
    endpoint: str
    p256dh: str
    auth: str


def _allowed_host(host: str, settings: Settings) -> bool:
    allowed = [h.strip().lower().strip(".") for h in settings.push_hosts.split(",") if h.strip()]
    host = host.lower().strip(".")
    return any(host == a or host.endswith("." + a) for a in allowed)


def check_subscription(endpoint: object, p256dh: object, auth: object, settings: Settings) -> Subscription:
    """A browser's subscription as the server keeps it, or :class:`AccountError` ``bad_subscription``
    saying what is wrong: an ``https://`` endpoint (``http://`` only with ``push_allow_http``) on a host of
    ``push_hosts``, at most :data:`ENDPOINT_MAX` characters; ``p256dh`` a P-256 public key and ``auth``
    16 bytes, both base64url."""

    def bad(why: str) -> AccountError:
        return AccountError("bad_subscription", f"this is not a push subscription this server sends to: {why}", 422)

    if not isinstance(endpoint, str) or not isinstance(p256dh, str) or not isinstance(auth, str):
        raise bad("endpoint and keys must be text")
    if not 10 <= len(endpoint) <= ENDPOINT_MAX or not endpoint.isascii() or any(c.isspace() for c in endpoint):
        raise bad(f"the endpoint must be an address of at most {ENDPOINT_MAX} characters")
    parts = urlsplit(endpoint)
    if parts.scheme != "https" and not (parts.scheme == "http" and settings.push_allow_http):
        raise bad("the endpoint must be an https address")
    host = parts.hostname or ""
    if parts.username or parts.password or not host or not _allowed_host(host, settings):
        raise bad(f"{host or 'this host'} is not a push service of CATSACK_PUSH_HOSTS")
    try:
        point = _unb64(p256dh)
        secret = _unb64(auth)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except (ValueError, TypeError):
        raise bad("p256dh must be a P-256 public key and auth 16 bytes, in base64url") from None
    if len(point) != 65 or len(secret) != 16:
        raise bad("p256dh must be a P-256 public key and auth 16 bytes, in base64url")
    return Subscription(endpoint, _b64(point), _b64(secret))


def endpoint_hash(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode("utf-8", "replace")).hexdigest()


@dataclass(frozen=True, slots=True)
class Device:
    id: int
    user_id: int
    key: str  # the endpoint's SHA-256, hex: a page finds its own device by it
    lang: str
    created: float
    last_success: float | None

    def public(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "key": self.key,
            "lang": self.lang,
            "created": self.created,
            "last_success": self.last_success,
        }


@dataclass(frozen=True, slots=True)
class QueuedPush:
    id: int
    device_id: int
    user_id: int
    kind: str
    payload: dict[str, Any]
    topic: str
    attempts: int


def _device(r: Any) -> Device:
    return Device(int(r.id), int(r.user_id), r.endpoint_hash, r.lang, float(r.created), r.last_success)


def _topic(kind: str, key: str) -> str:
    """The Web Push ``Topic`` of a notice (at most 32 characters of the base64url alphabet)."""
    return _b64(hashlib.sha256(f"{kind}:{key}".encode()).digest())[:32]


def _wants(prefs: dict[str, Any], kind: str) -> bool:
    return kind == TEST or bool(prefs.get(kind, True))


def _prefs_in(conn: Connection, user_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    rows = conn.execute(select(push_prefs_t).where(push_prefs_t.c.user_id.in_(sorted(set(user_ids))))).all()
    return {int(r.user_id): json.loads(r.prefs) for r in rows}


def _insert(
    conn: Connection, device: int, user_id: int, kind: str, payload: dict[str, Any], key: str, now: float, after: float
) -> None:
    conn.execute(
        insert(push_queue_t).values(
            device_id=device,
            user_id=user_id,
            kind=kind,
            payload=json.dumps(payload),
            topic=_topic(kind, key),
            created=now,
            send_after=after,
            status="pending",
            attempts=0,
            claimed=None,
            claimed_by=None,
            sent=None,
            error=None,
        )
    )


def _queue_in(
    conn: Connection,
    user_ids: Iterable[int],
    kind: str,
    payload: dict[str, Any],
    key: str,
    now: float,
    after: float,
    once_within: float = 0.0,
) -> int:
    """One row per device of each account of ``user_ids`` that wants ``kind``; a device with a waiting
    row of the same notice (kind and ``key``), or one made within ``once_within`` seconds, gets none.
    How many were queued."""
    users = sorted(set(user_ids))
    if not users:
        return 0
    prefs = _prefs_in(conn, users)
    devices = conn.execute(
        select(push_devices_t.c.id, push_devices_t.c.user_id).where(push_devices_t.c.user_id.in_(users))
    ).all()
    topic = _topic(kind, key)
    waiting = {
        int(r.device_id)
        for r in conn.execute(
            select(push_queue_t.c.device_id).where(
                push_queue_t.c.user_id.in_(users),
                push_queue_t.c.topic == topic,
                (push_queue_t.c.status == "pending") | (push_queue_t.c.created > now - once_within),
            )
        )
    }
    queued = 0
    for d in devices:
        if d.id in waiting or not _wants(prefs.get(int(d.user_id), {}), kind):
            continue
        _insert(conn, int(d.id), int(d.user_id), kind, payload, key, now, after)
        queued += 1
    return queued


class Pushbox(Outbox[QueuedPush]):
    """Devices, preferences and the push queue (``engine`` is the store's): the queue's claim, finish and
    counts are the outbox's (:class:`~catsack.server.people.outbox.Outbox`)."""

    queue_table = push_queue_t

    def _notice(self, row: Any, attempts: int) -> QueuedPush:
        return QueuedPush(
            int(row.id), int(row.device_id), int(row.user_id), row.kind, json.loads(row.payload), row.topic, attempts
        )

    def _sent(self, conn: Connection, notice_id: int, when: float) -> None:
        """A device that received a push has had a success then (the account page shows it)."""
        conn.execute(
            update(push_devices_t)
            .where(
                push_devices_t.c.id
                == select(push_queue_t.c.device_id).where(push_queue_t.c.id == notice_id).scalar_subquery()
            )
            .values(last_success=when)
        )

    # ------------------------------------------------------------------ devices and choices

    def devices(self, user_id: int) -> list[Device]:
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(push_devices_t).where(push_devices_t.c.user_id == user_id).order_by(push_devices_t.c.id)
            ).all()
        return [_device(r) for r in rows]

    def subscribe(self, user_id: int, sub: Subscription, lang: str, now: float | None = None) -> Device:
        """Keep the device of ``sub`` for the account (a device that was another account's becomes this
        one's, its waiting pushes dropped); beyond :data:`DEVICES_MAX` the one used longest ago goes."""
        now = time.time() if now is None else now
        lang = lang if lang in LANGUAGES else DEFAULT_LANGUAGE
        key = endpoint_hash(sub.endpoint)
        with self.engine.begin() as conn:
            old = conn.execute(select(push_devices_t).where(push_devices_t.c.endpoint_hash == key)).first()
            values = {"user_id": user_id, "p256dh": sub.p256dh, "auth": sub.auth, "lang": lang}
            if old is None:
                conn.execute(
                    insert(push_devices_t).values(
                        endpoint_hash=key, endpoint=sub.endpoint, created=now, last_success=None, **values
                    )
                )
            else:
                if int(old.user_id) != user_id:
                    _drop_waiting(conn, [int(old.id)], "the device changed accounts")
                conn.execute(update(push_devices_t).where(push_devices_t.c.id == old.id).values(**values))
            rows = conn.execute(
                select(push_devices_t.c.id, push_devices_t.c.created, push_devices_t.c.last_success).where(
                    push_devices_t.c.user_id == user_id
                )
            ).all()
            if len(rows) > DEVICES_MAX:
                by_use = sorted(rows, key=lambda r: (max(r.created, r.last_success or 0.0), r.id))
                gone = [int(r.id) for r in by_use[: len(rows) - DEVICES_MAX]]
                _delete_devices(conn, gone, "too many devices")
            r = conn.execute(select(push_devices_t).where(push_devices_t.c.endpoint_hash == key)).one()
        return _device(r)

    def unsubscribe(self, user_id: int, endpoint: str) -> bool:
        """Forget the account's device of this endpoint; whether there was one."""
        return self._remove(user_id, push_devices_t.c.endpoint_hash == endpoint_hash(endpoint))

    def remove(self, user_id: int, device_id: int) -> bool:
        """Forget one of the account's devices (by its id); whether there was one."""
        return self._remove(user_id, push_devices_t.c.id == device_id)

    def _remove(self, user_id: int, which: Any) -> bool:
        with self.engine.begin() as conn:
            ids = [
                int(r.id)
                for r in conn.execute(select(push_devices_t.c.id).where(which, push_devices_t.c.user_id == user_id))
            ]
            _delete_devices(conn, ids, "device removed")
        return bool(ids)

    def remove_all(self, user_id: int) -> None:
        with self.engine.begin() as conn:
            ids = [
                int(r.id) for r in conn.execute(select(push_devices_t.c.id).where(push_devices_t.c.user_id == user_id))
            ]
            _delete_devices(conn, ids, "account gone")

    def prefs(self, user_id: int) -> dict[str, bool]:
        with self.engine.connect() as conn:
            found = _prefs_in(conn, [user_id]).get(user_id, {})
        return {k: bool(found.get(k, True)) for k in KINDS}

    def set_prefs(self, user_id: int, prefs: dict[str, bool]) -> dict[str, bool]:
        """Which kinds of push the account wants (:data:`KINDS`; anything else is ignored)."""
        with self.engine.begin() as conn:
            found = _prefs_in(conn, [user_id]).get(user_id)
            merged: dict[str, Any] = dict(found or {})
            merged.update({k: bool(v) for k, v in prefs.items() if k in KINDS})
            if found is None:
                conn.execute(insert(push_prefs_t).values(user_id=user_id, prefs=json.dumps(merged)))
            else:
                conn.execute(
                    update(push_prefs_t).where(push_prefs_t.c.user_id == user_id).values(prefs=json.dumps(merged))
                )
        return {k: bool(merged.get(k, True)) for k in KINDS}

    # ------------------------------------------------------------------ the queue

    def queue(
        self,
        user_ids: Iterable[int],
        kind: str,
        payload: dict[str, Any],
        key: str,
        after: float | None = None,
        *,
        once_within: float = 0.0,
    ) -> int:
        """Queue the notice ``kind`` about ``key`` (a table, a challenge, a follower) to every device of
        the accounts that want it; a device still waiting for the same notice, or given it within
        ``once_within`` seconds, gets no second one."""
        now = time.time()
        with self.engine.begin() as conn:
            return _queue_in(conn, user_ids, kind, payload, key, now, now if after is None else after, once_within)

    def queue_test(self, user_id: int, device_id: int) -> bool:
        """A test push to one of the account's devices (one waiting at a time)."""
        now = time.time()
        with self.engine.begin() as conn:
            found = conn.execute(
                select(push_devices_t.c.id).where(push_devices_t.c.id == device_id, push_devices_t.c.user_id == user_id)
            ).first()
            if found is None:
                return False
            waiting = conn.execute(
                select(push_queue_t.c.id).where(
                    push_queue_t.c.device_id == device_id,
                    push_queue_t.c.kind == TEST,
                    push_queue_t.c.status == "pending",
                )
            ).first()
            if waiting is None:
                _insert(conn, device_id, user_id, TEST, {}, f"{device_id}", now, now)
        return True

    def drop_device(self, device_id: int, why: str) -> None:
        """The push service says the subscription is gone (404, 410): forget the device."""
        with self.engine.begin() as conn:
            _delete_devices(conn, [device_id], why)


def _drop_waiting(conn: Connection, device_ids: list[int], why: str) -> None:
    if device_ids:
        conn.execute(
            update(push_queue_t)
            .where(push_queue_t.c.device_id.in_(device_ids), push_queue_t.c.status == "pending")
            .values(status="dropped", error=why)
        )


def _delete_devices(conn: Connection, device_ids: list[int], why: str) -> None:
    """Delete devices and their rows in the queue (a row being sent is finished by its sender, which
    finds the device gone)."""
    if device_ids:
        conn.execute(delete(push_queue_t).where(push_queue_t.c.device_id.in_(device_ids)))
        conn.execute(delete(push_devices_t).where(push_devices_t.c.id.in_(device_ids)))
        log.info("push devices removed", extra={"fields": {"devices": len(device_ids), "why": why}})


# ---------------------------------------------------------------------- what a push says


def _safe(value: object, limit: int = 60) -> str:
    """A name as it may appear in a notification: one line, no control characters, bounded."""
    return "".join(ch for ch in str(value) if ch.isprintable())[:limit]


def push_text(kind: str, lang: str, facts: dict[str, Any]) -> tuple[str, str] | None:
    """The title and body of a push of ``kind`` in ``lang``: ``facts`` are what the database says when
    it is sent (a turn's table and time left, a challenge's sender, table and pace, a round's number,
    table and wait). ``None`` for an unknown kind."""
    t = translations(lang)
    f = facts
    if kind == "turn":
        title = t.gettext("Your turn at {table}").format(table=_safe(f["table"]))
        # i18n: the body of a "your turn" notification; {left} is the time left ("2 days, 5 hours").
        body = t.gettext("{left} left to move.").format(left=duration(float(f["left"]), lang))
    elif kind == "invite":
        tb = f.get("turn_based")
        if tb:
            pace = t.gettext("turn-based, {time} per move").format(time=duration(float(tb["move_hours"]) * 3600, lang))
        else:
            pace = t.gettext("real time")
        title = t.gettext("{from} challenges you").format(**{"from": _safe(f["from"], 24)})
        body = t.gettext("{table} ({pace}): accept or decline on My games.").format(table=_safe(f["table"]), pace=pace)
    elif kind == "tournament":
        title = t.gettext("Round {round} of {tournament} starts").format(
            round=int(f["round"]), tournament=_safe(f["tournament"])
        )
        if f.get("deadline") is not None:  # a turn-based tournament's round
            # i18n: {deadline} is a time in UTC ("2026-12-05 18:00").
            body = t.gettext("Your table: {table}. Turn-based; the round ends {deadline} UTC.").format(
                table=int(f.get("table", 0)),
                deadline=time.strftime("%Y-%m-%d %H:%M", time.gmtime(float(f["deadline"]))),
            )
        else:
            body = t.gettext("Your table: {table}. Your seat waits {wait} for you.").format(
                table=int(f.get("table", 0)), wait=duration(float(f.get("wait", 0)), lang)
            )
    elif kind == "friend":
        title = t.gettext("{from} follows you").format(**{"from": _safe(f["from"], 24)})
        body = t.gettext("Follow back or block from your Friends page.")
    elif kind == "clock":
        # i18n: a reminder before a turn-based clock runs out; {left} is the time left ("5 hours").
        title = t.gettext("{left} left to move at {table}").format(
            left=duration(float(f["left"]), lang), table=_safe(f["table"])
        )
        body = t.gettext("Then a bot plays your seat. Going away? Vacation mode stops your clocks.")
    elif kind == "seat":
        title = t.gettext("A bot took your seat at {table}").format(table=_safe(f["table"]))
        body = t.gettext("It plays your seat to the end of the game.")
    elif kind == TEST:
        title = t.gettext("Notifications work")
        body = t.gettext("This device will be told when it is your turn.")
    else:
        return None
    return title, body


def push_message(kind: str, lang: str, facts: dict[str, Any], url: str, tag: str) -> dict[str, Any] | None:
    """The JSON a device receives: kind, title, body, the page to open (a path of this site) and the
    notification's tag (one notification per tag); ``None`` for an unknown kind."""
    made = push_text(kind, lang, facts)
    if made is None:
        return None
    title, body = made
    return {"v": 1, "kind": kind, "title": title, "body": body, "url": url, "tag": tag, "lang": lang}


def _turn_facts(conn: Connection, user_id: int, table_id: str, now: float) -> dict[str, Any] | None:
    """A turn-based game's name and the time left, while it is still this account's (a person's) move."""
    r = conn.execute(
        select(tables_t.c.name, tables_t.c.to_move, tables_t.c.deadline, seat_users_t.c.seat, seats_t.c.kind)
        .select_from(
            seat_users_t.join(tables_t, tables_t.c.id == seat_users_t.c.table_id).join(
                seats_t, (seats_t.c.table_id == seat_users_t.c.table_id) & (seats_t.c.seat == seat_users_t.c.seat)
            )
        )
        .where(seat_users_t.c.user_id == user_id, seat_users_t.c.table_id == table_id, tables_t.c.status == "playing")
    ).first()
    if r is None or r.to_move != r.seat or r.kind != "human":
        return None
    return {"table": r.name, "left": (r.deadline or now) - now}


@dataclass(frozen=True, slots=True)
class Outgoing:
    """A push ready to go: the device's subscription, the JSON it receives and how long it may wait."""

    endpoint: str
    p256dh: str
    auth: str
    message: dict[str, Any]
    ttl: int


def render(engine: Engine, push: QueuedPush, now: float) -> Outgoing | str:
    """The push for a queued row, made now; a reason (text) when there is nothing to send: the device
    or the account is gone, the kind is no longer wanted, the turn has passed, the seat is a bot's."""
    with engine.connect() as conn:
        d = conn.execute(select(push_devices_t).where(push_devices_t.c.id == push.device_id)).first()
        if d is None or int(d.user_id) != push.user_id:
            return "device gone"
        deleted = conn.execute(select(users_t.c.deleted).where(users_t.c.id == push.user_id)).scalar()
        if deleted is None or deleted:
            return "account gone"
        if not _wants(_prefs_in(conn, [push.user_id]).get(push.user_id, {}), push.kind):
            return "kind turned off"
        found = _kind_facts(engine, conn, push, now)
    if isinstance(found, str):
        return found
    facts, url, tag, ttl = found
    message = push_message(push.kind, d.lang if d.lang in LANGUAGES else DEFAULT_LANGUAGE, facts, url, tag)
    if message is None:
        return "unknown kind"
    return Outgoing(d.endpoint, d.p256dh, d.auth, message, ttl)


def _kind_facts(
    engine: Engine, conn: Connection, push: QueuedPush, now: float
) -> tuple[dict[str, Any], str, str, int] | str:
    """What a push of its kind says, where it leads, its tag and how long it may wait (``ttl``); a
    reason (text) when it is no longer worth sending."""
    ttl = TTL_SECONDS
    p = push.payload
    if push.kind == "turn":
        table_id = str(p.get("table_id", ""))
        facts = _turn_facts(conn, push.user_id, table_id, now)
        if facts is None:
            return "not their turn any more"
        url, tag = f"/t/{table_id}", f"turn:{table_id}"
        ttl = max(60, min(TTL_SECONDS, int(facts["left"])))
    elif push.kind == "clock":
        table_id = str(p.get("table_id", ""))
        turn = reminder_time(engine, table_id, int(p.get("version", -1)), 0.0)
        facts = None if turn is None else _turn_facts(conn, push.user_id, table_id, now)
        if facts is None:
            return "the move was made"
        url, tag = f"/t/{table_id}", f"clock:{table_id}"
        ttl = max(60, min(TTL_SECONDS, int(facts["left"])))
    elif push.kind == "tournament":
        table_id = str(p.get("table_id", ""))
        if not still_seated(conn, push.user_id, table_id):
            return "the round is over or a bot has the seat"
        facts, url, tag = p, f"/t/{table_id}", f"round:{table_id}"
        ttl = max(60, min(TTL_SECONDS, int(float(p.get("wait", 0)))))
    elif push.kind == "seat":
        table_id = str(p.get("table_id", ""))
        name = bots_seat(conn, push.user_id, table_id, int(p.get("seat", -1)))
        if name is None:
            return "the seat is not a bot's"
        if seen_since(conn, push.user_id, float(p.get("at", now))):
            return "back since: they saw it"
        facts, url, tag = {"table": name}, f"/t/{table_id}", f"seat:{table_id}"
    elif push.kind == "invite":
        facts, url, tag = p, "/games", f"invite:{p.get('challenge', '')}"
    elif push.kind == "friend":
        facts, url, tag = p, f"/u/{quote(str(p.get('from', '')))}", f"friend:{p.get('from', '')}"
    else:
        facts, url, tag = p, "/account", "test"
    return facts, url, tag, ttl


# ---------------------------------------------------------------------- sending


class PushRefused(Exception):
    """The push service answered ``status`` (``retry_after``: seconds it asked to wait, if it said)."""

    def __init__(self, status: int, text: str, retry_after: float | None = None) -> None:
        super().__init__(f"push service answered {status}: {text[:120]}")
        self.status = status
        self.retry_after = retry_after


def _vapid(keys: VapidKeys) -> Any:
    from py_vapid import Vapid  # type: ignore[import-untyped]

    return Vapid(private_key=keys.private)


def send(keys: VapidKeys, out: Outgoing, topic: str, timeout: float) -> int:
    """Encrypt ``out`` for its device (RFC 8291, ``aes128gcm``), sign it (VAPID, RFC 8292) and post it to
    the push service; its status (201). :class:`PushRefused` for an answer over 202, :class:`OSError`
    for no answer. Blocking: run it in a thread."""
    import requests
    from pywebpush import WebPushException, webpush  # type: ignore[import-untyped]

    claims: dict[str, str | int] = {}
    if keys.subject:
        claims["sub"] = keys.subject
    parts = urlsplit(out.endpoint)
    claims["aud"] = f"{parts.scheme}://{parts.netloc}"
    claims["exp"] = int(time.time()) + 12 * 3600
    try:
        response = webpush(
            {"endpoint": out.endpoint, "keys": {"p256dh": out.p256dh, "auth": out.auth}},
            data=json.dumps(out.message, separators=(",", ":")),
            vapid_private_key=_vapid(keys),
            vapid_claims=claims,
            ttl=out.ttl,
            timeout=timeout,
            headers={"Topic": topic, "Urgency": "normal"},
        )
    except WebPushException as exc:
        r = getattr(exc, "response", None)
        if r is None:
            raise OSError(str(exc)) from None
        wait = r.headers.get("retry-after", "")
        raise PushRefused(int(r.status_code), str(r.text or ""), float(wait) if wait.isdigit() else None) from None
    except requests.RequestException as exc:
        raise OSError(str(exc)) from None
    return int(response.status_code)


#: The push service's answers that end a subscription: the device is forgotten.
GONE = (404, 410)
#: Answers that no retry can mend: the push is given up.
HOPELESS = (400, 401, 403, 413)


class PushSender(Sender[QueuedPush, Outgoing]):
    """Empties the queue: every ``push_poll_seconds`` the due pushes are claimed, made and sent to the
    push services (the outbox's :class:`~catsack.server.people.outbox.Sender`)."""

    what = "push"
    box: Pushbox

    def __init__(self, hub: Hub) -> None:
        s = hub.settings
        super().__init__(
            hub,
            Pushbox(hub.store.engine),
            poll_seconds=s.push_poll_seconds,
            away_minutes=s.push_away_minutes,
            max_attempts=MAX_ATTEMPTS,
        )
        self.keys = vapid_keys(s)  # a key that cannot be used stops the start here

    def enabled(self) -> bool:
        return self.keys is not None

    def ready(self) -> bool:
        return self.keys is not None

    async def _make(self, push: QueuedPush, now: float) -> Outgoing | str:
        return await asyncio.to_thread(render, self.hub.store.engine, push, now)

    async def _send(self, push: QueuedPush, out: Outgoing, now: float) -> bool:
        keys = self.keys
        assert keys is not None
        try:
            await asyncio.to_thread(send, keys, out, push.topic, self.settings.push_timeout)
        except PushRefused as exc:
            if exc.status in GONE:
                await asyncio.to_thread(self.box.drop_device, push.device_id, f"push service answered {exc.status}")
                self._not_sent(push, str(exc))
            else:
                await self._failed(push, str(exc), now, wait=exc.retry_after, give_up=exc.status in HOPELESS)
            return False
        except OSError as exc:
            await self._failed(push, str(exc), now)
            return False
        return True


# ---------------------------------------------------------------------- what causes a push


def _box(hub: Hub) -> Pushbox | None:
    if not push_enabled(hub.settings):
        return None
    return hub.service(Pushbox, lambda: Pushbox(hub.store.engine))


def queue_turn(engine: Engine, settings: Settings, user_id: int, table_id: str) -> int:
    """Queue a "your turn" push about ``table_id`` to the account's devices (it goes once the player
    has been away ``push_away_minutes``). Synchronous: call it in a worker thread."""
    if not push_enabled(settings):
        return 0
    after = time.time() + settings.push_away_minutes * 60.0
    return Pushbox(engine).queue([user_id], "turn", {"table_id": table_id}, table_id, after)


async def notify_turn(hub: Hub, table: LiveTable) -> None:
    """The turn of a turn-based game passed to a person: queue their "your turn" push."""
    seat = table.game.to_move
    if not push_enabled(hub.settings) or seat is None or table.players[seat].kind != "human":
        return

    def queue() -> None:
        with hub.store.engine.connect() as conn:
            user = conn.execute(
                select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table.id, seat_users_t.c.seat == seat)
            ).scalar()
        if user is not None:
            queue_turn(hub.store.engine, hub.settings, int(user), table.id)

    await asyncio.to_thread(queue)


async def notify_challenge(hub: Hub, challenge: Challenge) -> None:
    """Tell each invitee of a new challenge who wants invitation pushes."""
    box = _box(hub)
    if box is None:
        return
    payload = {
        "challenge": challenge.id,
        "from": challenge.from_name,
        "table": challenge.options.get("name") or "",
        "turn_based": challenge.options.get("turn_based"),
    }
    users = [user_id for user_id, _name, _answer in challenge.invitees]
    await asyncio.to_thread(box.queue, users, "invite", payload, challenge.id)


#: One follower's "follows you" push goes to a device at most once in this time (a week), as the mail.
FOLLOW_SECONDS = 7 * 86400.0


async def notify_follow(hub: Hub, followed: Account, follower: Account) -> None:
    """Tell ``followed`` that ``follower`` follows them, at most once per :data:`FOLLOW_SECONDS` per
    follower and device."""
    box = _box(hub)
    if box is not None:
        payload = {"from": follower.name}
        await asyncio.to_thread(box.queue, [followed.id], "friend", payload, follower.name, once_within=FOLLOW_SECONDS)


async def seat_taken(hub: Hub, event: SeatAbandoned) -> None:
    """A bot took a person's seat before the end (grace period, clock, host, withdrawal): tell them, once
    they have been away ``push_away_minutes`` and unless they came back to the site meanwhile."""
    box = _box(hub)
    if box is None:
        return
    table_id, seat = event.table.id, event.seat
    now = time.time()

    def queue() -> None:
        with hub.store.engine.connect() as conn:
            user = conn.execute(
                select(seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id, seat_users_t.c.seat == seat)
            ).scalar()
        if user is not None:
            payload = {"table_id": table_id, "seat": seat, "at": now}
            box.queue([int(user)], "seat", payload, f"{table_id}:{seat}", now + hub.settings.push_away_minutes * 60.0)

    await asyncio.to_thread(queue)


#: A clock reminder is queued once per turn and device: the same one is not queued again within this time.
REMINDER_ONCE_SECONDS = 400 * 86400.0


def queue_reminder(engine: Engine, settings: Settings, user_id: int, table_id: str, version: int, at: float) -> int:
    """Queue the clock reminder of the turn that began at ``version`` of ``table_id`` (due at ``at``) to
    the account's devices, once per turn: a device that had it gets none again. Synchronous."""
    if not push_enabled(settings) or settings.clock_reminder_share <= 0:
        return 0
    payload = {"table_id": table_id, "version": version}
    key = f"{table_id}:{version}"
    return Pushbox(engine).queue([user_id], "clock", payload, key, at, once_within=REMINDER_ONCE_SECONDS)


def queue_missed_turns(
    engine: Engine, settings: Settings, table_ids: Sequence[str] | None = None, now: float | None = None
) -> int:
    """Queue the "your turn" pushes a crash lost, as :func:`catsack.server.people.mail.queue_missed_turns` does
    for mails: for each turn-based game in play (of ``table_ids``, or all) whose turn is a person's, a
    push is queued unless one about it waits, or was made or sent since the turn began. How many
    were queued. Synchronous: call it in a worker thread."""
    if not push_enabled(settings) or (table_ids is not None and not table_ids):
        return 0
    now = time.time() if now is None else now
    query = persons_turns(table_ids)
    queued = 0
    with engine.connect() as conn:
        turns = []
        for r in conn.execute(query).all():
            clock = clock_of(r.clock)
            if clock is not None and clock.since is not None:
                turns.append((str(r.id), int(r.user_id), clock.since))
        having = {int(u) for u in conn.execute(select(push_devices_t.c.user_id).distinct()).scalars()}
    box = Pushbox(engine)
    for table_id, user_id, since in turns:
        if user_id not in having:
            continue
        topic = _topic("turn", table_id)
        with engine.connect() as conn:
            told = conn.execute(
                select(push_queue_t.c.id)
                .where(
                    push_queue_t.c.user_id == user_id,
                    push_queue_t.c.topic == topic,
                    push_queue_t.c.status.in_(("pending", "sending"))
                    | (push_queue_t.c.created >= since - CLOCK_SLACK)
                    | (push_queue_t.c.sent >= since - CLOCK_SLACK),
                )
                .limit(1)
            ).first()
        if told is None:
            after = now + settings.push_away_minutes * 60.0
            queued += box.queue([user_id], "turn", {"table_id": table_id}, table_id, after)
    if queued:
        log.info("missed turn pushes queued", extra={"fields": {"pushes": queued}})
    return queued


async def missed_turns(hub: Hub, event: TablesAdopted) -> None:
    """This process took tables over: queue the "your turn" pushes their last process had not."""
    ids = None if event.table_ids is None else list(event.table_ids)
    await asyncio.to_thread(queue_missed_turns, hub.store.engine, hub.settings, ids)


def recipients(engine: Engine, settings: Settings, user_ids: Sequence[int], kind: str) -> set[int]:
    """The accounts of ``user_ids`` with a device that wants ``kind``. Synchronous."""
    if not push_enabled(settings) or not user_ids:
        return set()
    with engine.connect() as conn:
        prefs = _prefs_in(conn, user_ids)
        having = {
            int(r.user_id)
            for r in conn.execute(
                select(push_devices_t.c.user_id).where(push_devices_t.c.user_id.in_(sorted(set(user_ids))))
            )
        }
    return {u for u in having if _wants(prefs.get(u, {}), kind)}


def queue_round(conn: Connection, notices: Sequence[tuple[int, dict[str, Any]]]) -> int:
    """Queue "round starts" pushes, ``(account, payload)`` each, in the caller's transaction (the one
    that publishes the round, as its mails are), to the devices the accounts have (there are none
    unless push is on). The payload is the round mail's: tournament, round, table number, ``table_id``
    and the seat's wait; nothing of any deal. How many were queued."""
    now = time.time()
    queued = 0
    for user_id, payload in notices:
        queued += _queue_in(conn, [user_id], "tournament", payload, str(payload.get("table_id", "")), now, now)
    return queued


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m catsack.server.people.push keys``: print a new VAPID key pair as settings."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if args != ["keys"]:
        print("usage: python -m catsack.server.people.push keys", file=sys.stderr)
        return 2
    private, public = generate_keys()
    print(f"CATSACK_VAPID_PRIVATE_KEY={private}")
    print(f"CATSACK_VAPID_PUBLIC_KEY={public}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
