"""Clock reminders (kind ``clock``): a mail and a push when a quarter of a turn-based move's time is
left (``clock_reminder_share``), queued once per turn, never sent after the move, queued again by
the process that takes the tables over when a crash lost it; and the mail when a bot takes a seat."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("pywebpush")

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from catsack.server.people import mail, push, reminders
from catsack.server.people.friends import user_seen_t
from catsack.server.people.mail import mail_queue_t
from catsack.server.people.push import push_queue_t
from catsack.server.storage.store import seats_t, tables_t
from catsack.server.tables.turnbased import HOUR, clock_of
from mail_sink import Sink, mail_settings, smtp_sink
from push_sink import PushDevice, PushService, push_service
from test_days import verified
from test_push import CARD, hidden_facts_absent, payloads, push_settings, subscribe
from test_turn_based import TB, stored, wait_for
from web_clients import ORIGIN, browser, register


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as found:
        yield found


@pytest.fixture
def sink() -> Iterator[tuple[Sink, int]]:
    with smtp_sink() as found:
        yield found


def engine_of(c: TestClient) -> Any:
    return c.app.state.hub.store.engine  # type: ignore[attr-defined]


def rows(c: TestClient, table: Any, kind: str) -> list[Any]:
    with engine_of(c).connect() as conn:
        return list(conn.execute(select(table).where(table.c.kind == kind).order_by(table.c.id)).all())


def no_card(c: TestClient, table: str, text: str) -> None:
    """R23: a mail names no card (its links left out: a table id or a token may hold "LD")."""
    words = re.sub(r"https?://\S+", "", text)
    assert not CARD.search(words), words
    game = c.app.state.hub.tables[table].game  # type: ignore[attr-defined]
    for seat in range(3):
        for card in game.hand(seat):
            assert not re.search(rf"(?<![\w-]){re.escape(card.token)}(?![\w-])", words), (card.token, words)


def send_all(c: TestClient) -> tuple[int, int]:
    state = c.app.state  # type: ignore[attr-defined]
    return c.portal.call(state.mail_sender.run_once), c.portal.call(state.push_sender.run_once)  # type: ignore[union-attr]


def test_a_reminder_is_queued_once_per_turn_goes_at_its_share_and_never_after_the_move(
    app_server: Callable[..., TestClient], service: PushService, sink: tuple[Sink, int]
) -> None:
    box, port = sink
    c = app_server(**{**mail_settings(port), "mail_poll_seconds": 3600.0}, **push_settings())
    ann, bea = c, browser(c)
    devices = {}
    for seat, (client, name) in enumerate(((ann, "Ann"), (bea, "Bea"))):
        register(client, name)
        verified(client, box, f"{name.lower()}@example.org")
        devices[seat] = PushDevice(service.base)
        subscribe(client, devices[seat], lang="de" if name == "Bea" else "en")
    r = ann.post(
        "/api/tables", json={"seats": 3, "bots": {"2": "random"}, "turn_based": TB, "player": "Ann"}, headers=ORIGIN
    )
    t = str(r.json()["table"])
    assert bea.post(f"/api/tables/{t}/join", json={"name": "Bea"}, headers=ORIGIN).status_code == 200
    row = wait_for(lambda: (s := stored(c, t)).to_move in (0, 1) and s, "a person's turn")
    mover, version = int(row.to_move), int(row.version)
    clock = clock_of(row.clock)
    assert clock is not None and clock.since is not None
    mailed = wait_for(lambda: rows(c, mail_queue_t, "clock"), "the reminder mail queued")
    pushed = wait_for(lambda: rows(c, push_queue_t, "clock"), "the reminder push queued")
    # Due when a quarter of the 24 hours per move and 72 hours of bank is left: 72 hours on.
    due = clock.since + 72 * HOUR
    assert len(mailed) == len(pushed) == 1 and mailed[0].user_id == pushed[0].user_id == mover + 1
    assert abs(mailed[0].send_after - due) < 1 and abs(pushed[0].send_after - due) < 1
    assert json.loads(mailed[0].payload) == json.loads(pushed[0].payload) == {"table_id": t, "version": version}
    engine, settings = engine_of(c), c.app.state.hub.settings  # type: ignore[attr-defined]
    assert reminders.queue_reminders(engine, settings, [t]) == 0  # once per turn
    # The process died before queuing them: the one that takes the table over queues them, once.
    with engine.begin() as conn:
        conn.execute(mail_queue_t.delete().where(mail_queue_t.c.kind == "clock"))
        conn.execute(push_queue_t.delete().where(push_queue_t.c.kind == "clock"))
    assert reminders.queue_reminders(engine, settings, [t]) == 2
    assert reminders.queue_reminders(engine, settings, None) == 0

    send_all(c)  # the "your turn" notices go
    # Not due yet: a sender that looks early leaves them waiting for their time.
    for q in (mail_queue_t, push_queue_t):
        with engine.begin() as conn:
            conn.execute(update(q).where(q.c.kind == "clock").values(send_after=time.time() - 1))
    assert send_all(c) == (0, 0)
    assert all(r.status == "pending" and abs(r.send_after - due) < 1 for r in rows(c, push_queue_t, "clock"))
    # 73 hours later (the turn began that long ago): a quarter of the time is left, they go.
    clock_back = json.loads(row.clock)
    clock_back["since"] = clock.since - 73 * HOUR
    with engine.begin() as conn:
        conn.execute(
            update(tables_t)
            .where(tables_t.c.id == t)
            .values(clock=json.dumps(clock_back), deadline=clock.since - 73 * HOUR + 96 * HOUR)
        )
        conn.execute(update(user_seen_t).values(seen=time.time() - 7200))
        conn.execute(update(seats_t).values(seen=None))
        for q in (mail_queue_t, push_queue_t):
            conn.execute(update(q).where(q.c.kind == "clock").values(send_after=time.time() - 1))
    assert send_all(c) == (1, 1)
    (note,) = [p for p in payloads(service, devices[mover], 2) if p["kind"] == "clock"]  # after "your turn"
    assert note["kind"] == "clock" and note["url"] == f"/t/{t}" and note["tag"] == f"clock:{t}"
    words = ("left to move at", "Then a bot") if mover == 0 else ("übrig für deinen Zug", "Danach")
    assert words[0] in note["title"] and note["body"].startswith(words[1]), note
    hidden_facts_absent(c, t, note)
    address = ("ann", "bea")[mover] + "@example.org"
    msg = box.wait(lambda ms: [m for m in ms if m["To"] == address and "/account" in m.get_content()], "reminder")[-1]
    assert f"/t/{t}" in msg.get_content()
    no_card(c, t, f"{msg['Subject']} {msg.get_content()}")
    # A reminder of a turn already played (the table moved on from its version) is dropped, not sent.
    user = mover + 1
    assert mail.queue_reminder(engine, settings, user, t, version - 1, time.time() - 1)
    assert push.queue_reminder(engine, settings, user, t, version - 1, time.time() - 1) == 1
    assert send_all(c) == (0, 0)
    assert rows(c, mail_queue_t, "clock")[-1].status == "dropped"
    assert rows(c, push_queue_t, "clock")[-1].status == "dropped"


def test_a_bot_taking_a_seat_is_mailed_unless_the_player_came_back(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    box, port = sink
    c = app_server(**mail_settings(port))
    register(c, "Ann")
    verified(c, box, "ann@example.org")
    prefs = c.get("/api/mail").json()["prefs"]
    assert prefs["seat"] is True and prefs["clock"] is True
    hub = c.app.state.hub  # type: ignore[attr-defined]
    # Seat "1" stays open, so the game cannot start and end before the mail goes out (a seat mail of a
    # game already over is dropped).
    table = {"seats": 3, "bots": {"2": "random"}, "player": "Ann", "name": "Chez Ann"}
    t = str(c.post("/api/tables", json=table, headers=ORIGIN).json()["table"])
    with engine_of(c).begin() as conn:
        conn.execute(update(user_seen_t).values(seen=time.time() - 600))
    assert c.portal.call(hub.replace, hub.tables[t], 0)  # type: ignore[union-attr]
    msg = box.wait(lambda ms: [m for m in ms if "took your seat" in str(m["Subject"])], "the seat mail")[-1]
    assert "Chez Ann" in msg["Subject"] and f"/t/{t}" in msg.get_content()
    no_card(c, t, f"{msg['Subject']} {msg.get_content()}")
    # Back on the site before it went: they saw it there, no mail.
    (row,) = rows(c, mail_queue_t, "seat")
    mail.Mailbox(engine_of(c)).enqueue(1, "seat", {**json.loads(row.payload), "at": time.time() - 5})
    c.get("/api/mygames/summary")
    wait_for(lambda: rows(c, mail_queue_t, "seat")[-1].status == "dropped", "the second seat mail dropped")
