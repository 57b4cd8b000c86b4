"""``catsack serve``: the web application (browser client, HTTP API, WebSocket); the ``server`` extra."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer


def register(app: typer.Typer) -> None:
    """Add the ``serve`` command to ``app``."""

    @app.command()
    def serve(
        host: Annotated[str | None, typer.Option(help="Address to listen on [env CATSACK_HOST, 127.0.0.1].")] = None,
        port: Annotated[int | None, typer.Option(min=1, max=65535, help="Port [env CATSACK_PORT, 8000].")] = None,
        database_url: Annotated[
            str | None,
            typer.Option(
                help="SQLAlchemy URL [env CATSACK_DATABASE_URL, sqlite:///catsack.db]; "
                "e.g. postgresql+psycopg://user@host/db."
            ),
        ] = None,
        redis_url: Annotated[
            str | None,
            typer.Option(help="Redis URL to fan updates out across several processes [env CATSACK_REDIS_URL]."),
        ] = None,
        bot_delay: Annotated[
            float | None, typer.Option(min=0.0, help="Seconds a bot waits before moving [env CATSACK_BOT_DELAY, 0.8].")
        ] = None,
    ) -> None:
        """Run the web server: open the printed address, create a table, invite friends, fill seats with bots.

        Every setting can also come from a CATSACK_* environment variable (see docs/protocol.md).
        """
        try:
            import uvicorn

            from catsack.server.app import create_app, safe_url, setup_logging
            from catsack.server.settings import Settings
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
        setup_logging(settings)
        shown = "localhost" if settings.host in ("127.0.0.1", "0.0.0.0") else settings.host
        typer.echo(
            f"catsack is serving at http://{shown}:{settings.port}/  (database: {safe_url(settings.database_url)})"
        )
        typer.echo("Press Ctrl+C to stop.")
        os.environ.setdefault("PYTHONUNBUFFERED", "1")
        uvicorn.run(
            create_app(settings),
            host=settings.host,
            port=settings.port,
            ws_max_size=settings.max_frame_bytes,
            ws_per_message_deflate=settings.ws_compression,
            log_level="warning",
            lifespan="on",
        )
