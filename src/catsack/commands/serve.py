"""``catsack serve``: the web application (browser client, HTTP API, WebSocket); the ``server`` extra."""

from __future__ import annotations

import errno
import os
import socket
from typing import Annotated, Any

import typer

__all__ = ["listen_socket", "register"]


def listen_socket(host: str, port: int) -> socket.socket:
    """Bind ``host:port`` the way uvicorn would, before anything else starts.

    Binding first means a taken port is reported before the database is opened
    or "serving at" is printed. Raises :class:`OSError` with a message naming
    the address and what to do.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        where = f"[{host}]:{port}" if family == socket.AF_INET6 else f"{host}:{port}"
        if exc.errno == errno.EADDRINUSE:
            why = "the port is already in use (another catsack serve?); stop that program or choose another --port"
        elif exc.errno == errno.EACCES:
            why = "permission denied (ports below 1024 need privileges); choose a --port above 1023"
        elif isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
            why = f"this machine has no address {host!r}; try --host 127.0.0.1 or --host 0.0.0.0"
        else:
            why = exc.strerror or str(exc)
        raise OSError(exc.errno, f"cannot listen on {where}: {why}") from None
    return sock


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command to ``app``."""

    @app.command()
    def serve(
        host: Annotated[
            str | None,
            typer.Option(
                help="Address to listen on; 0.0.0.0 listens on every network interface. "
                "Default 127.0.0.1 (this machine only); env CATSACK_HOST.",
            ),
        ] = None,
        port: Annotated[
            int | None,
            typer.Option(min=1, max=65535, help="Port to listen on. Default 8000; env CATSACK_PORT."),
        ] = None,
        database_url: Annotated[
            str | None,
            typer.Option(
                help="SQLAlchemy URL of the database, e.g. postgresql+psycopg://user@host/db. "
                "Default sqlite:///catsack.db (a file in the current directory); env CATSACK_DATABASE_URL.",
            ),
        ] = None,
        redis_url: Annotated[
            str | None,
            typer.Option(
                help="Redis URL to fan updates out across several server processes. "
                "Default: none (one process); env CATSACK_REDIS_URL.",
            ),
        ] = None,
        bot_delay: Annotated[
            float | None,
            typer.Option(min=0.0, help="Seconds a bot waits before moving. Default 0.8; env CATSACK_BOT_DELAY."),
        ] = None,
    ) -> None:
        """Run the web server: open the printed address, create a table, invite friends, fill seats with bots.

        Every setting can also come from a CATSACK_* environment variable (see docs/protocol.md).
        """
        try:
            import uvicorn

            from catsack.server.settings import Settings
            from catsack.server.web.app import create_app, safe_url, setup_logging
        except ImportError as exc:
            typer.echo(f"the server needs the 'server' extra: pip install 'catsack[server]' ({exc})", err=True)
            raise typer.Exit(2) from None
        from pydantic import ValidationError

        overrides: dict[str, Any] = {
            "host": host,
            "port": port,
            "database_url": database_url,
            "redis_url": redis_url,
            "bot_delay": bot_delay,
        }
        try:
            settings = Settings(**{k: v for k, v in overrides.items() if v is not None})
        except ValidationError as exc:
            typer.echo(f"bad setting: {exc}", err=True)
            raise typer.Exit(2) from None
        # The address is claimed first: a taken port fails here with one clear line, before the
        # database is opened or anything claims to be serving.
        try:
            sock = listen_socket(settings.host, settings.port)
        except OSError as exc:
            typer.echo(f"catsack serve: {exc.strerror}", err=True)
            raise typer.Exit(2) from None
        setup_logging(settings)
        shown = "localhost" if settings.host in ("127.0.0.1", "0.0.0.0") else settings.host
        typer.echo(
            f"catsack is serving at http://{shown}:{settings.port}/  (database: {safe_url(settings.database_url)})"
        )
        typer.echo(f"How to play: http://{shown}:{settings.port}/rules   Press Ctrl+C to stop.")
        os.environ.setdefault("PYTHONUNBUFFERED", "1")
        config = uvicorn.Config(
            create_app(settings),
            host=settings.host,
            port=settings.port,
            ws_max_size=settings.max_frame_bytes,
            ws_per_message_deflate=settings.ws_compression,
            log_level="warning",
            lifespan="on",
        )
        server = uvicorn.Server(config)
        try:
            server.run(sockets=[sock])
        finally:
            sock.close()
        if not server.started:  # the application failed to start (logged above)
            raise typer.Exit(1)
