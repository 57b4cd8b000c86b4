"""Live My games (catsack.server.people.gamesfeed): a stream per account that says "your games changed".

The feed alone (bounds, folding changes into one event, the end of streams), the hub's changes reaching
the accounts seated at a table and nobody else, the HTTP endpoint's answers to a guest and past the
bounds, two processes through Redis, and a real ``catsack serve`` that stops promptly on SIGTERM with a
stream open. The browser side is in tests/test_browser_days.py.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient

from catsack.server.people.accounts import Accounts
from catsack.server.people.gamesfeed import GamesFeed, Stream
from server_procs import ServerProc
from web_clients import ORIGIN, browser, register

WAIT = 30.0  # bounds a wait for a condition: only a failure takes this long


def bare_feed(**kw: Any) -> GamesFeed:
    return GamesFeed(SimpleNamespace(publish_hooks=[]), **kw)  # type: ignore[arg-type]


async def first(events: Any) -> str:
    text: str = await asyncio.wait_for(events.__anext__(), WAIT)
    return text


def test_bounds_per_account_and_address() -> None:
    async def body() -> None:
        feed = bare_feed(per_account=2, per_address=3)
        a1, a2 = feed.open(1, "10.0.0.1"), feed.open(1, "10.0.0.2")
        assert a1 is not None and a2 is not None
        assert feed.open(1, "10.0.0.3") is None  # the account has its most
        b1, b2 = feed.open(2, "10.0.0.1"), feed.open(3, "10.0.0.1")
        assert b1 is not None and b2 is not None
        assert feed.open(4, "10.0.0.1") is None  # the address has its most
        feed.close(a1)
        feed.close(a1)  # twice is harmless
        assert feed.open(1, "10.0.0.3") is not None and feed.open(4, "10.0.0.1") is not None
        feed.end_all()
        assert feed.open(5, "10.0.0.9") is None  # the server is stopping

    asyncio.run(body())


def test_changes_are_told_to_the_accounts_streams_and_folded_into_one_event() -> None:
    async def body() -> None:
        feed = bare_feed(min_gap=0.0)
        mine, other = feed.open(1, "a"), feed.open(2, "b")
        assert mine is not None and other is not None
        events = feed.events(mine)
        assert "event: ready" in await first(events)
        for _ in range(5):
            feed.changed([1, 3])  # several changes before the page reads: one event
        assert await first(events) == "event: changed\ndata: {}\n\n"
        assert not mine.pending.is_set() and not other.pending.is_set()
        nxt = asyncio.ensure_future(first(events))
        await asyncio.sleep(0)
        assert not nxt.done()  # nothing more to tell
        feed.end_all()
        with pytest.raises(StopAsyncIteration):
            await nxt
        assert 1 not in feed.streams and 2 in feed.streams  # a stream closes itself when it ends

    asyncio.run(body())


def test_an_idle_stream_sends_comments_and_ends_after_its_time() -> None:
    async def body() -> None:
        feed = bare_feed(heartbeat=0.01, max_seconds=0.2)
        stream = feed.open(1, "a")
        assert stream is not None
        got = [text async for text in feed.events(stream)]
        assert "event: ready" in got[0] and ": still here\n\n" in got[1:]
        assert not feed.streams

    asyncio.run(body())


def test_moves_and_seats_reach_the_seated_accounts_only(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    assert register(c, "Ann").status_code == 201
    bob = browser(c)
    assert register(bob, "Bob").status_code == 201
    accounts = Accounts(c.app.state.hub.store.engine)  # type: ignore[attr-defined]
    ann, bob_account = accounts.by_name("Ann"), accounts.by_name("Bob")
    assert ann is not None and bob_account is not None
    feed: GamesFeed = c.app.state.games_feed  # type: ignore[attr-defined]

    def opened(user_id: int) -> Stream:
        stream: Stream | None = c.portal.call(lambda: _open(feed, user_id))  # type: ignore[union-attr]
        assert stream is not None
        return stream

    ann_stream, bob_stream = opened(ann.id), opened(bob_account.id)
    # Ann sits down at a table with two bots: her seat and the bots' moves are changes of her games.
    body = {"seats": 3, "bots": {"1": "random", "2": "random"}, "player": "Ann"}
    r = c.post("/api/tables", json=body, headers=ORIGIN)
    assert r.status_code == 201, r.text
    end = time.monotonic() + WAIT
    while not ann_stream.pending.is_set():
        assert time.monotonic() < end, "Ann's stream was never told"
        time.sleep(0.02)
    assert not bob_stream.pending.is_set()


async def _open(feed: GamesFeed, user_id: int) -> Stream | None:
    return feed.open(user_id, "test")


def test_the_endpoint_for_a_guest_and_past_the_bounds(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    assert c.get("/api/mygames/events").status_code == 204  # a guest: EventSource stops trying
    assert register(c, "Ann").status_code == 201
    ann = Accounts(c.app.state.hub.store.engine).by_name("Ann")  # type: ignore[attr-defined]
    assert ann is not None
    feed: GamesFeed = c.app.state.games_feed  # type: ignore[attr-defined]
    for _ in range(feed.per_account):
        assert c.portal.call(lambda: _open(feed, ann.id)) is not None  # type: ignore[union-attr]
    r = c.get("/api/mygames/events")
    assert r.status_code == 429 and r.json()["code"] == "rate_limited" and r.headers["Retry-After"] == "60"


def test_another_process_hears_of_the_change_through_redis(redis_url: str) -> None:
    async def body() -> None:
        here, there = bare_feed(), bare_feed()
        await here.start(redis_url)
        await there.start(redis_url)
        try:
            stream = there.open(7, "a")
            assert stream is not None
            end = time.monotonic() + WAIT
            while not stream.pending.is_set():  # the subscription may take a moment: publish until heard
                assert time.monotonic() < end, "the other process was never told"
                here.changed([7])
                await asyncio.sleep(0.05)
        finally:
            await here.stop()
            await there.stop()

    asyncio.run(body())


def test_the_accounts_channel_is_the_deployments_own(redis_url: str, app_server: Callable[..., TestClient]) -> None:
    """Two deployments share one Redis server, each with its own CATSACK_REDIS_CHANNEL: a change told
    on one reaches that deployment's other process and never the other deployment's."""
    ours, theirs = f"catsack-test-{uuid.uuid4().hex[:8]}", f"catsack-test-{uuid.uuid4().hex[:8]}"
    c = app_server(redis_url=redis_url, redis_channel=ours)
    assert c.app.state.games_feed.channel == f"{ours}:accounts"  # type: ignore[attr-defined]

    async def told(feed: GamesFeed, stream: Stream, account: int) -> None:
        end = time.monotonic() + WAIT
        while not stream.pending.is_set():  # the subscription may take a moment: publish until heard
            assert time.monotonic() < end, "the deployment's other process was never told"
            feed.changed([account])
            await asyncio.sleep(0.05)

    async def body() -> None:
        here, there, elsewhere, marker = bare_feed(), bare_feed(), bare_feed(), bare_feed()
        await here.start(redis_url, ours)
        await there.start(redis_url, ours)
        await elsewhere.start(redis_url, theirs)
        await marker.start(redis_url, theirs)
        try:
            heard, unheard, mark = there.open(7, "a"), elsewhere.open(7, "a"), elsewhere.open(8, "a")
            assert heard is not None and unheard is not None and mark is not None
            await told(here, heard, 7)
            # The other deployment's own message, published after ours: Redis hands a subscriber its
            # messages in the order they were published, so ours would have come before it.
            await told(marker, mark, 8)
            assert not unheard.pending.is_set()
        finally:
            for feed in (here, there, elsewhere, marker):
                await feed.stop()

    asyncio.run(body())


def test_a_server_with_an_open_stream_stops_promptly(tmp_path: Path) -> None:
    """SIGTERM ends the streams before the server waits for open responses: it exits at once instead
    of waiting for the stream's ten minutes."""
    proc = ServerProc(tmp_path, {"CATSACK_DATABASE_URL": f"sqlite:///{tmp_path / 'feed.db'}"}).start()
    try:
        with httpx.Client(base_url=proc.url, timeout=WAIT) as client:
            account = {"name": "Ann", "password": "correct horse"}
            r = client.post("/api/account/register", json=account, headers={"Origin": proc.url})
            assert r.status_code == 201, r.text
            with client.stream("GET", "/api/mygames/events") as stream:
                assert stream.status_code == 200
                lines = stream.iter_lines()
                assert next(lines).startswith("retry:") and next(lines) == "event: ready"
                assert proc.proc is not None
                proc.proc.terminate()
                # Within the bound (uvicorn raises the signal again once it has shut down: -15).
                assert proc.proc.wait(WAIT) in (0, -15), proc.tail()
                rest = list(lines)  # the stream ended with the server, not after its own time
                assert all("changed" not in line for line in rest)
    finally:
        proc.kill9()
