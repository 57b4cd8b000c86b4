"""``catsack bot connect URL --token T --bot SPEC``: play a server's bot arena with any of the project's bots.

The command connects to the server's bot WebSocket (``/api/bot/ws``, docs/bot-api.md) as the bot account
whose API token it is given, accepts the challenges it is sent, and plays each game's seat with a bot
made from ``SPEC`` (``heuristic``, ``expert``, … or ``external:<command line>``, a program speaking
``catsack-bot/1`` on its standard input and output: it is sent the same messages the server sends).
Each ``move`` request's view (the seat's view only, R23) is rebuilt as a
:class:`~catsack.view.View` (:func:`catsack.protocol.views.view_from_dict`) for the bot to decide from.

A token the server refuses, a server that cannot be reached at the start and a server that speaks
another protocol stop the command with a message saying which (exit code 2); a connection that drops
later is opened again, after 1, 2, 4… seconds (at most 30).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit, urlunsplit

import typer

if TYPE_CHECKING:
    from catsack.bots.base import Bot

__all__ = ["BotClient", "ConnectError", "bot_socket_url", "register"]

#: Where the server's bot WebSocket is, below the server's address.
PATH = "/api/bot/ws"
#: Seconds kept back from a request's time limit for the network (the answer must arrive in time).
MARGIN = 1.0


class ConnectError(Exception):
    """A problem that another try will not fix: a refused token, an unreachable server, another protocol."""


def bot_socket_url(url: str) -> str:
    """The bot WebSocket's URL for a server address: ``http(s)://host[:port][/prefix]`` or ``ws(s)://…``
    (a URL that already ends in the bot path is kept)."""
    parts = urlsplit(url.strip())
    scheme = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}.get(parts.scheme.lower())
    if scheme is None or not parts.netloc:
        raise ConnectError(f"not a server address: {url!r} (expected http://host:port or https://host)")
    path = parts.path.rstrip("/")
    if not path.endswith(PATH):
        path += PATH
    return urlunsplit((scheme, parts.netloc, path, parts.query, ""))


class BotClient:
    """One bot account's connection to a server: accepts challenges and plays them with ``spec``'s bots."""

    def __init__(
        self,
        url: str,
        token: str,
        spec: str,
        *,
        games: int | None = None,
        out: Any = None,
        max_backoff: float = 30.0,
    ) -> None:
        self.url = bot_socket_url(url)
        self.token = token
        self.spec = spec
        self.games = games
        self.out = out or sys.stderr
        self.max_backoff = max_backoff
        self.played = 0
        self.idle: list[Bot] = []
        self.playing: dict[str, Bot] = {}
        self.name = ""

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    # ------------------------------------------------------------------ bots

    def make(self) -> Bot:
        from catsack.bots.base import make_bot

        return make_bot(self.spec)

    def check_spec(self) -> None:
        """Make one bot now, so that a bad spec (or an external program that cannot start) is said at once."""
        from catsack.bots.base import BotSpecError

        try:
            self.idle.append(self.make())
        except BotSpecError as exc:
            raise ConnectError(f"bad bot spec {self.spec!r}: {exc}") from None

    def close(self) -> None:
        for bot in [*self.idle, *self.playing.values()]:
            with contextlib.suppress(Exception):
                bot.close()
        self.idle.clear()
        self.playing.clear()

    # ------------------------------------------------------------------ the connection

    async def run(self) -> int:
        """Play until ``games`` games are done (forever without it); the exit code."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI

        backoff = 1.0
        connected = False
        while True:
            try:
                async with connect(
                    self.url,
                    additional_headers={"Authorization": f"Bearer {self.token}"},
                    open_timeout=15,
                    max_size=2**22,
                ) as ws:
                    connected = True
                    backoff = 1.0
                    if await self.session(ws):
                        return 0
            except InvalidStatus as exc:
                status = exc.response.status_code
                detail = _detail(exc.response.body)
                if status == 401:
                    raise ConnectError(f"the server refused the bot's token: {detail}") from None
                if status == 404:
                    raise ConnectError(f"no bot API at {self.url} (is it a catsack server?)") from None
                if not connected or status < 500:
                    raise ConnectError(f"the server refused the connection ({status}): {detail}") from None
                self.say(f"the server answered {status}; trying again in {backoff:g} s")
            except InvalidURI as exc:
                raise ConnectError(f"not a WebSocket address: {exc}") from None
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else None
                reason = exc.rcvd.reason if exc.rcvd is not None else ""
                if code == 1008 and "revoked" in reason:
                    raise ConnectError("the bot's token was revoked") from None
                if code == 4000:
                    raise ConnectError("another connection of this bot took its place") from None
                self.say(f"connection lost ({code or 'no close frame'} {reason}); reconnecting in {backoff:g} s")
            except (OSError, TimeoutError) as exc:
                if not connected:
                    raise ConnectError(f"cannot reach the server at {self.url}: {exc}") from None
                self.say(f"cannot reach the server ({exc}); trying again in {backoff:g} s")
            await asyncio.sleep(backoff)
            backoff = min(self.max_backoff, backoff * 2)

    async def session(self, ws: Any) -> bool:
        """One connection: the handshake, then messages until it closes; ``True`` once enough games are done."""
        from catsack.protocol.messages import PROTOCOL

        hello = json.loads(await ws.recv())
        if hello.get("type") != "hello" or hello.get("protocol") != PROTOCOL:
            raise ConnectError(
                f"the server speaks {hello.get('protocol')!r}, this client {PROTOCOL!r}: update one of them"
            )
        self.name = str(hello.get("bot", ""))
        await ws.send(json.dumps({"type": "hello", "protocol": PROTOCOL, "name": self.spec}))
        self.say(f"connected to {self.url} as {self.name} (playing {self.spec})")
        tasks: set[asyncio.Task[None]] = set()
        async for text in ws:
            message = json.loads(text)
            kind = message.get("type")
            if kind == "challenge":
                self.say(f"challenged to table {message['table']} (seat {message['seat'] + 1}): accepting")
                await ws.send(json.dumps({"type": "accept", "challenge": message["challenge"]}))
            elif kind == "new_game":
                self.new_game(message)
            elif kind == "move":
                task = asyncio.create_task(self.move(ws, message))
                tasks.add(task)
                task.add_done_callback(tasks.discard)
            elif kind == "game_over":
                self.game_over(message)
                if self.games is not None and self.played >= self.games:
                    return True
            elif kind == "error":
                self.say(f"server: {message.get('code')}: {message.get('message')}")
        return False

    def _bot_for(self, table: str) -> Bot:
        bot = self.playing.get(table)
        if bot is None:
            bot = self.playing[table] = self.idle.pop() if self.idle else self.make()
        return bot

    def new_game(self, message: dict[str, Any]) -> None:
        table = str(message.get("table"))
        bot = self._bot_for(table)
        bot.reset(int(message["seat"]), int(message["seats"]))
        if hasattr(bot, "players"):  # an external program is told the players' names
            setattr(bot, "players", message.get("players"))  # noqa: B010
        self.say(f"game at table {table}: seat {int(message['seat']) + 1} of {message['seats']}")

    async def move(self, ws: Any, message: dict[str, Any]) -> None:
        from catsack.protocol.messages import fallback_move
        from catsack.protocol.views import view_from_dict

        view = view_from_dict(message["view"])
        bot = self._bot_for(str(message.get("table")))
        limit = float(message.get("time_limit") or 5)
        if hasattr(bot, "time_limit"):  # an external program: its answer must reach the server in time
            setattr(bot, "time_limit", max(0.5, limit - MARGIN))  # noqa: B010
        try:
            move = await asyncio.to_thread(bot.choose, view)
        except Exception as exc:  # a bot's failure is not the game's: play the protocol's fallback move
            self.say(f"the bot failed ({exc}); playing the fallback move")
            move = fallback_move(view.legal)
        with contextlib.suppress(Exception):
            await ws.send(json.dumps({"type": "move", "id": message["id"], "move": move.text}))

    def game_over(self, message: dict[str, Any]) -> None:
        from catsack.protocol.views import view_from_dict

        table = str(message.get("table"))
        bot = self.playing.pop(table, None)
        ranking = list(message.get("ranking") or [])
        if bot is not None:
            hook = getattr(bot, "game_over", None)
            if callable(hook):
                with contextlib.suppress(Exception):
                    hook(view_from_dict(message["view"]), tuple(ranking))
            self.idle.append(bot)
        self.played += 1
        seat = message.get("view", {}).get("seat")
        rank = ranking[seat] if isinstance(seat, int) and seat < len(ranking) else "?"
        self.say(f"game over at table {table}: scores {message.get('scores')}, our rank {rank}")


def _detail(body: bytes | bytearray | None) -> str:
    try:
        data = json.loads(body or b"")
        return str(data.get("detail") or data)
    except (ValueError, AttributeError):
        return bytes(body or b"").decode("utf-8", "replace")[:200] or "no detail"


def register(app: typer.Typer) -> None:
    """Add the ``bot`` command group to ``app``."""
    group = typer.Typer(help="Play a server's bot arena (docs/bot-api.md).")
    app.add_typer(group, name="bot")

    @group.command()
    def connect(
        url: Annotated[str, typer.Argument(help="the server, e.g. http://127.0.0.1:8000 or https://catsack.example")],
        token: Annotated[str, typer.Option("--token", envvar="CATSACK_BOT_TOKEN", help="the bot account's API token")],
        bot: Annotated[
            str, typer.Option("--bot", help="the bot that plays: heuristic, expert, … or 'external:<command>'")
        ] = "heuristic",
        games: Annotated[int | None, typer.Option("--games", min=1, help="stop after this many games")] = None,
    ) -> None:
        """Connect a bot account to a server and play the games it is challenged to."""
        try:
            import websockets  # noqa: F401
        except ImportError:
            typer.echo("catsack bot connect needs the 'websockets' package: pip install 'catsack[server]'", err=True)
            raise typer.Exit(2) from None
        try:
            client = BotClient(url, token, bot, games=games)
            client.check_spec()
        except ConnectError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        try:
            code = asyncio.run(client.run())
        except ConnectError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            code = 130
        finally:
            client.close()
        raise typer.Exit(code)
