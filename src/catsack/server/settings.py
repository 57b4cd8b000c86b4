"""Server settings, read from ``CATSACK_*`` environment variables (pydantic-settings)."""

from __future__ import annotations

import ipaddress

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["Settings", "parse_networks"]

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(text: str) -> tuple[Network, ...]:
    """``"127.0.0.1, 10.0.0.0/8"`` as networks; raise ``ValueError`` naming a bad entry."""
    out: list[Network] = []
    for part in text.replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        try:
            out.append(ipaddress.ip_network(part, strict=False))
        except ValueError:
            raise ValueError(f"trusted_proxies: {part!r} is not an IP address or CIDR block") from None
    return tuple(out)


class Settings(BaseSettings):
    """Every knob of ``catsack serve``; each field is also ``CATSACK_<NAME>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="CATSACK_", extra="ignore")

    #: SQLAlchemy URL. SQLite (WAL) by default; ``postgresql+psycopg://…`` for PostgreSQL.
    database_url: str = "sqlite:///catsack.db"
    #: ``redis://host:port/0`` to fan updates out across several server processes.
    redis_url: str | None = None
    #: The pub/sub channel of this deployment's processes: two deployments sharing one Redis server
    #: (pub/sub channels are not separated by Redis database numbers) each need their own.
    redis_channel: str = "catsack:tables"
    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=1, le=65535)
    #: Seconds from a bot's turn to its move: drawn for every move between ``bot_delay`` and ``bot_delay *
    #: (1 + bot_delay_jitter)``, never from its cards or options (R23, R24); its search ends before then.
    bot_delay: float = Field(default=0.8, ge=0.0, le=30.0)
    bot_delay_jitter: float = Field(default=0.5, ge=0.0, le=10.0)
    #: Wall-clock budget of a searching bot's move (cut to the drawn delay if that is shorter) and of a
    #: hint; either searches at least ``think_min_iterations`` iterations however busy the machine is.
    think_seconds: float = Field(default=0.6, ge=0.0, le=60.0)
    hint_seconds: float = Field(default=0.8, ge=0.0, le=60.0)
    think_min_iterations: int = Field(default=300, ge=0)
    #: Processes searching bots' moves, and hints (each pool made on first use; threads would hold the
    #: event loop's GIL). Hints one process works out at once (a seat asks one at a time).
    think_workers: int = Field(default=2, ge=1, le=64)
    hint_workers: int = Field(default=2, ge=1, le=64)
    hint_max_running: int = Field(default=4, ge=1)
    #: A joined player without a live connection for this long is replaced by a bot.
    grace_seconds: float = Field(default=120.0, ge=0.0)
    #: A tournament player mailed that a round starts keeps the seat this long from the round's start
    #: when they have not come yet, instead of ``grace_seconds`` (docs/tournaments.md).
    tournament_wait_seconds: float = Field(default=600.0, ge=0.0)
    #: Level of the bot that replaces an absent player or plays when a turn timer runs out.
    standin_bot: str = "heuristic"
    #: Largest client frame accepted, in bytes; larger ones close the connection (1009).
    max_frame_bytes: int = Field(default=4096, ge=256)
    #: Per-connection token bucket: frames per second and burst size.
    rate_per_second: float = Field(default=20.0, gt=0)
    rate_burst: int = Field(default=40, ge=1)
    #: Frames dropped for flooding before the connection is closed (1008).
    rate_close_after: int = Field(default=50, ge=1)
    #: Frames dropped for flooding are counted over this many seconds; a connection that stays
    #: within its budget for a whole window starts again from zero (occasional bursts never add up).
    rate_window_seconds: float = Field(default=10.0, gt=0)
    #: Live WebSocket connections allowed from one client address.
    max_connections_per_address: int = Field(default=64, ge=1)
    #: WebSocket connections that have not said a good hello yet (each holds memory for up to 10 s). Per
    #: process, sized by memory: one holds 22 to 32 KiB (bench/silent_sockets.py: 1,500 of them grow a
    #: process by 46 MiB, 3,000 by 66 MiB), so 2,048 hold at most about 64 MiB; when they are that many, the
    #: oldest is closed to make room for the newest. Per client address: more are refused at the handshake (503,
    #: ``Retry-After``). A reconnect that proves its seat counts against neither (catsack.server.tables.pending).
    max_pending_connections: int = Field(default=2048, ge=1)
    max_pending_per_address: int = Field(default=16, ge=1)
    #: Mutating HTTP requests (POST, PUT, PATCH, DELETE) per client address: a token bucket of this
    #: rate and burst; over it the answer is 429 with ``Retry-After``.
    http_rate_per_second: float = Field(default=1.0, gt=0)
    http_rate_burst: int = Field(default=30, ge=1)
    #: Expensive reads (a profile, a replay, a record, the export, the leaderboard) per client address: a
    #: token bucket of this rate and burst; over it the answer is 429 with ``Retry-After``.
    expensive_gets_per_second: float = Field(default=2.0, gt=0)
    expensive_gets_burst: int = Field(default=60, ge=1)
    #: Largest HTTP request body, in bytes: larger ones are refused (413) before they are read or parsed.
    max_body_bytes: int = Field(default=65536, ge=1024)
    #: Reverse proxies whose ``X-Forwarded-For`` / ``X-Real-IP`` headers are believed, as comma-separated
    #: addresses or CIDR blocks (``127.0.0.1,10.0.0.0/8``). Empty: the peer address is the client.
    trusted_proxies: str = ""
    #: Serve Prometheus metrics at ``/metrics``.
    metrics: bool = True
    #: Serve FastAPI's API explorer at ``/docs`` and ``/redoc``. Off by default: its pages load scripts
    #: from a CDN, without Subresource Integrity, on the site's own origin, where the login cookie lives.
    #: The API's description stays at ``/openapi.json`` (data, no script) for a tool of your own.
    api_docs: bool = False
    #: How often the housekeeping sweep runs (grace periods, eviction, version-gap checks).
    sweep_seconds: float = Field(default=2.0, gt=0)
    #: Evict from memory: tables never filled after this long, tables with nobody connected,
    #: and finished tables (they stay in the database, browsable and downloadable). Open tables that
    #: nobody joined are also marked abandoned in the database after ``evict_open_seconds``, so they
    #: leave the lobby list even when no process holds them.
    evict_open_seconds: float = Field(default=3600.0, ge=0)
    evict_idle_seconds: float = Field(default=600.0, ge=0)
    evict_finished_seconds: float = Field(default=120.0, ge=0)
    #: A turn-based game with nobody connected leaves memory after this many seconds (its clock is
    #: stored; the game loads again when someone opens it or its clock needs driving).
    evict_turn_based_seconds: float = Field(default=60.0, ge=0)
    #: How often the database is asked for turn-based games whose clock ran out or whose bot is to move.
    clock_sweep_seconds: float = Field(default=30.0, gt=0)
    #: A reminder (mail and push, kind ``clock``) goes out when this share of a turn-based move's time
    #: (its time per move and the player's bank when the turn began) is left; 0 turns reminders off.
    clock_reminder_share: float = Field(default=0.25, ge=0.0, lt=1.0)
    #: Vacation days a player may take per calendar year (UTC): their turn-based clocks stand still
    #: meanwhile (docs/rules.md, "Playing online"); 0 turns vacations off.
    vacation_days_per_year: int = Field(default=21, ge=0, le=366)
    #: E-mail (docs/deploy.md, "E-mail"): off unless ``smtp_host`` and ``smtp_from`` are set.
    smtp_host: str | None = None
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_user: str | None = None
    smtp_password: str | None = None
    #: The sender, e.g. ``catsack <games@example.org>``.
    smtp_from: str | None = None
    #: STARTTLS after connecting (port 587); ``smtp_ssl``: TLS from the start (port 465).
    smtp_starttls: bool = True
    smtp_ssl: bool = False
    smtp_timeout: float = Field(default=20.0, gt=0)
    #: The site's address as players reach it, for links in mails (``https://catsack.example.org``).
    public_url: str = ""
    #: A "your turn" mail goes out once the player has been away (no page open) this many minutes.
    mail_away_minutes: float = Field(default=15.0, ge=0.0)
    #: How often the send queue is looked at.
    mail_poll_seconds: float = Field(default=5.0, gt=0.0)
    #: Web Push notifications (docs/deploy.md, "Push notifications"): off unless a VAPID private key is set,
    #: here (base64url of the 32-byte key, or PEM text) or in ``vapid_key_file`` (a PEM file); make one with
    #: ``python -m catsack.server.people.push keys``. ``vapid_public_key``, if given, must be the private key's.
    vapid_private_key: str | None = None
    vapid_public_key: str | None = None
    vapid_key_file: str | None = None
    #: Who runs this server, as the push services want to know: ``mailto:admin@example.org`` or an
    #: ``https://`` address. Unset: ``public_url`` when it is https, else no contact is sent.
    vapid_subject: str = ""
    #: A "your turn" push goes out once the player has been away (no page open) this many minutes.
    push_away_minutes: float = Field(default=1.0, ge=0.0)
    #: How often the push queue is looked at.
    push_poll_seconds: float = Field(default=2.0, gt=0.0)
    #: The push services a subscription may point at (host names or their parent domains, comma-separated):
    #: the server sends to no other host. The default covers the browsers' services (Chrome, Firefox, Edge,
    #: Safari).
    push_hosts: str = (
        "fcm.googleapis.com,android.googleapis.com,push.services.mozilla.com,notify.windows.com,push.apple.com"
    )
    #: Accept ``http://`` push endpoints (a local push service in tests); never on a public server.
    push_allow_http: bool = False
    #: Seconds a push service may take to answer one message.
    push_timeout: float = Field(default=10.0, gt=0.0)
    #: Test hook: seconds to sleep inside every database write (checklist case 5).
    write_delay: float = Field(default=0.0, ge=0.0)
    #: The longest the database writer lets a move wait for others to commit with it in one transaction
    #: (catsack.server.tables.writer: 1.5 mean gaps between moves of different tables, none when they
    #: come less often than this): less CPU per move under load, each answer at most this much later.
    commit_window: float = Field(default=0.03, ge=0.0, le=1.0)
    #: JSON log lines on stderr (structured logs); plain text when false.
    log_json: bool = True
    log_level: str = "INFO"
    #: Log every garbage-collector pause (``{"msg": "gc", "gen": .., "ms": ..}``) for load tests.
    gc_log: bool = False
    #: Garbage collector tuning for many long-lived connections: the first-generation threshold
    #: (Python's default is 700), and freezing everything alive after start-up out of collections.
    gc_threshold: int = Field(default=20000, ge=100)
    gc_freeze: bool = True
    #: Collect the youngest generation every this many seconds (0: only when Python decides). Thousands
    #: of connections renew their waiting coroutines all the time; Python's allocation counter does not
    #: see that churn, so left alone the young generation grows large and each collection pauses long.
    gc_young_interval: float = Field(default=0.1, ge=0.0)
    #: With the timed collections above, the middle generation is collected every 10th time and the
    #: whole heap every this many seconds (one longer pause, instead of unpredictable ones).
    gc_full_seconds: float = Field(default=300.0, gt=0.0)
    #: permessage-deflate on WebSockets: less bandwidth, but CPU and ~45 KiB per connection.
    ws_compression: bool = False
    #: Several processes (docs/deploy.md): one process drives each table's bots and timers, the holder
    #: of its lease in the database. A lease is valid while its holder's heartbeat (one row per process,
    #: renewed every sixth of this many seconds) is; when a process stops beating, another takes its
    #: tables over within about this many seconds (one that dies is found sooner on PostgreSQL: its
    #: closed connection drops a lock, catsack.server.tables.leases).
    lease_seconds: float = Field(default=2.0, gt=0.0)
    #: On start, bring an older database schema to the newest revision (Alembic). When false the
    #: server refuses an older schema and ``catsack db upgrade`` must be run first (docs/deploy.md).
    db_auto_upgrade: bool = True
    #: Retention of finished games: delete those that ended more than this many days ago (0: keep
    #: every game). With ``retention_archive_dir`` set, each game's full catsack/1 record is written
    #: there first (``<table>.json``).
    retention_days: float = Field(default=0.0, ge=0.0)
    retention_archive_dir: str | None = None
    #: The game database's folder (docs/database.md): finished months' dumps are written there once,
    #: for every process sharing it and across restarts. Unset: a temporary folder of the process.
    gamedb_dir: str | None = None
    #: Account names (comma-separated) that may open the operator's pages (``/admin/fairplay``: the
    #: soft-play report and rating reverts). Empty: nobody; the command line needs no account.
    admin_accounts: str = ""

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, v: str) -> str:
        parse_networks(v)
        return v

    def admin_names(self) -> frozenset[str]:
        """The operators' account names as typed in ``admin_accounts`` (compared as accounts compare names)."""
        return frozenset(n.strip() for n in self.admin_accounts.split(",") if n.strip())

    def proxy_networks(self) -> tuple[Network, ...]:
        """The trusted proxies as networks."""
        return parse_networks(self.trusted_proxies)
