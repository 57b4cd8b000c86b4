"""Quick play on a quiet server.

A quick play table whose other seats waited for people forever, and whose open seats could not be
given to bots afterwards: now the player may start with bots at once, and the host of a waiting table
gives its open seats to bots whenever it likes (the page offers it while the table waits).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed")
from fastapi.testclient import TestClient

from catsack.server.settings import Settings
from catsack.server.web.app import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'quick.db'}", bot_delay=0.0, log_json=True)
    with TestClient(create_app(settings)) as c:
        yield c


def table(c: TestClient, table_id: str) -> dict[str, Any]:
    found: dict[str, Any] = c.get(f"/api/tables/{table_id}").json()
    return found


def moved(c: TestClient, table_id: str) -> None:
    """Wait until the bots have made a move (30 s bounds a failure only)."""
    end = time.monotonic() + 30
    while table(c, table_id)["version"] == 0:
        assert time.monotonic() < end, "the bots never moved"
        time.sleep(0.02)


def test_quick_play_with_bots_starts_at_once(client: TestClient) -> None:
    joined = client.post("/api/quickplay", json={"seats": 4, "name": "Ann", "bots": "heuristic"}).json()
    t = table(client, joined["table"])
    assert t["status"] == "playing" and joined["seat"] == 0
    assert [p["kind"] for p in t["players"]] == ["human", "bot", "bot", "bot"]
    assert client.get("/api/tables").json() == []  # not offered to others: it is full
    refused = client.post("/api/quickplay", json={"seats": 4, "name": "Ann", "bots": "grandmaster"})
    assert refused.status_code == 422


def test_the_host_gives_a_waiting_tables_open_seats_to_bots(client: TestClient) -> None:
    ann = client.post("/api/quickplay", json={"seats": 3, "name": "Ann"}).json()
    tid = ann["table"]
    assert table(client, tid)["status"] == "open"
    ben = client.post(f"/api/tables/{tid}/join", json={"name": "Ben"}).json()
    url = f"/api/tables/{tid}/bots"
    refused = client.post(url, json={"level": "random"}, headers={"Authorization": f"Bearer {ben['token']}"})
    assert refused.status_code == 403 and refused.json()["code"] == "not_host"
    assert client.post(url, json={"level": "random"}).status_code == 403  # no token at all
    bad = client.post(url, json={"level": "nope"}, headers={"Authorization": f"Bearer {ann['token']}"})
    assert bad.status_code == 422
    done = client.post(url, json={"level": "random"}, headers={"Authorization": f"Bearer {ann['token']}"})
    assert done.status_code == 200 and done.json() == {"seats": [2]}
    t = table(client, tid)
    assert t["status"] == "playing" and [p["kind"] for p in t["players"]] == ["human", "human", "bot"]
    again = client.post(url, json={"level": "random"}, headers={"Authorization": f"Bearer {ann['token']}"})
    assert again.status_code == 409 and again.json()["code"] == "table_full"


def test_seats_given_to_bots_play(client: TestClient) -> None:
    """The bots that took the open seats move (R12 order from the start player), and the game starts
    once the last open seat is filled, not before."""
    ann = client.post("/api/quickplay", json={"seats": 3, "name": "Ann"}).json()
    tid = ann["table"]
    assert table(client, tid)["version"] == 0
    headers = {"Authorization": f"Bearer {ann['token']}"}
    assert client.post(f"/api/tables/{tid}/bots", json={"level": "random"}, headers=headers).status_code == 200
    state = client.get(f"/api/tables/{tid}/state", headers=headers).json()
    if state["view"]["to_move"] != 0:  # a bot starts: it moves without anybody asking
        moved(client, tid)
