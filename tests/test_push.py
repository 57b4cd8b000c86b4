"""Web Push end to end over HTTP: the server's pushes arrive at a push service in the test process
(tests/push_sink.py), encrypted for the device (RFC 8291) and signed (VAPID, RFC 8292), and are
decrypted there with the subscription's own keys. SQLite and PostgreSQL.

Checked: keys from settings (raw, PEM, a file; a bad one refused with a reason), push off without a
key (the setting named), subscriptions checked and bounded, each kind's payload in the device's
language, a turn that passed not pushed, a push service's 410 dropping the device and its 5xx
retried, the queue's claims as the mail queue's (a dead sender's push goes again, once), and no
hidden information in a payload (R23): no card of any hand, no card token at all.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("pywebpush")

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from catsack.locales import LANGUAGES
from catsack.server.people.friends import user_seen_t
from catsack.server.people.push import (
    DEVICES_MAX,
    STALE_SECONDS,
    Pushbox,
    check_subscription,
    generate_keys,
    push_devices_t,
    push_queue_t,
    vapid_keys,
)
from catsack.server.settings import Settings
from catsack.server.storage.store import seats_t
from push_sink import PushDevice, PushService, check_vapid, push_service
from test_turn_based import TB, stored, wait_for
from web_clients import ORIGIN, browser, register

# Card tokens as the rules write them (+15, -8, R, LD, SD): none may appear in a payload (R23).
CARD = re.compile(r"(?<![\w-])(?:[+−-]\d{1,2}|LD|SD|R)(?![\w-])")
SUBJECT = "mailto:games@example.org"
PRIVATE, PUBLIC = generate_keys()


@pytest.fixture
def service() -> Iterator[PushService]:
    with push_service() as found:
        yield found


def push_settings(**kw: Any) -> dict[str, Any]:
    """Push on, to the test's push service on 127.0.0.1; the queue is emptied when the test says."""
    return {
        "vapid_private_key": PRIVATE,
        "vapid_subject": SUBJECT,
        "push_hosts": "127.0.0.1",
        "push_allow_http": True,
        "push_poll_seconds": 3600.0,
        "push_away_minutes": 0.0,
        **kw,
    }


def sender_of(c: TestClient) -> Any:
    return c.app.state.push_sender  # type: ignore[attr-defined]


def engine_of(c: TestClient) -> Any:
    return c.app.state.hub.store.engine  # type: ignore[attr-defined]


def run_once(c: TestClient, now: float | None = None) -> int:
    return int(c.portal.call(sender_of(c).run_once, now))  # type: ignore[union-attr]


def subscribe(c: TestClient, device: PushDevice, lang: str = "en") -> dict[str, Any]:
    r = c.post("/api/push/subscribe", json={**device.subscription(), "lang": lang}, headers=ORIGIN)
    assert r.status_code == 200, r.text
    return dict(r.json())


def payloads(service: PushService, device: PushDevice, count: int = 1) -> list[dict[str, Any]]:
    return [device.decrypt(r.body) for r in service.wait(device, count)]


def queue_rows(c: TestClient) -> list[Any]:
    with engine_of(c).connect() as conn:
        return list(conn.execute(select(push_queue_t).order_by(push_queue_t.c.id)).all())


# ---------------------------------------------------------------------- keys and settings


def test_keys_are_read_from_settings_and_a_bad_one_is_refused_with_its_reason(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization

    keys = vapid_keys(Settings(vapid_private_key=PRIVATE))
    assert keys is not None and keys.public == PUBLIC and keys.subject is None
    # The same key as PEM text, and in a file; the subject from an https public_url.
    pem = keys.private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode("ascii")
    assert vapid_keys(Settings(vapid_private_key=pem, vapid_public_key=PUBLIC)).public == PUBLIC  # type: ignore[union-attr]
    (tmp_path / "vapid.pem").write_text(pem)
    from_file = vapid_keys(
        Settings(vapid_key_file=str(tmp_path / "vapid.pem"), public_url="https://catsack.example.org/")
    )
    assert from_file is not None and from_file.public == PUBLIC and from_file.subject == "https://catsack.example.org"
    assert vapid_keys(Settings()) is None  # no key: push is off
    with pytest.raises(ValueError, match="cannot be read"):
        vapid_keys(Settings(vapid_private_key="not a key"))
    with pytest.raises(ValueError, match="is not the public key"):
        vapid_keys(Settings(vapid_private_key=PRIVATE, vapid_public_key=generate_keys()[1]))
    with pytest.raises(ValueError, match="mailto: or an https://"):
        vapid_keys(Settings(vapid_private_key=PRIVATE, vapid_subject="games@example.org"))


def test_the_key_command_prints_settings(capsys: pytest.CaptureFixture[str]) -> None:
    from catsack.server.people.push import main

    assert main(["keys"]) == 0
    lines = dict(line.split("=", 1) for line in capsys.readouterr().out.splitlines())
    assert (
        vapid_keys(Settings(vapid_private_key=lines["CATSACK_VAPID_PRIVATE_KEY"])).public
        == (  # type: ignore[union-attr]
            lines["CATSACK_VAPID_PUBLIC_KEY"]
        )
    )
    assert main([]) == 2


def test_push_is_off_without_a_key_and_says_which_setting(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    assert c.get("/api/push/status").json() == {
        "enabled": False,
        "public_key": None,
        "setting": "CATSACK_VAPID_PRIVATE_KEY",
    }
    register(c, "Ann")
    r = c.post("/api/push/subscribe", json=PushDevice("https://fcm.googleapis.com").subscription(), headers=ORIGIN)
    assert r.status_code == 409 and r.json()["code"] == "push_off"
    assert c.get("/api/push").json()["devices"] == []


def test_subscriptions_are_checked_bounded_and_csrf_protected(app_server: Callable[..., TestClient]) -> None:
    c = app_server(**push_settings(push_hosts="fcm.googleapis.com", push_allow_http=False))
    assert c.get("/api/push/status").json()["public_key"] == PUBLIC
    good = PushDevice("https://fcm.googleapis.com/fcm/send").subscription()
    assert c.post("/api/push/subscribe", json=good, headers=ORIGIN).json()["code"] == "not_logged_in"
    register(c, "Ann")
    assert c.post("/api/push/subscribe", json=good).json()["code"] == "csrf"  # no Origin: another site's form
    for endpoint, why in [
        ("http://fcm.googleapis.com/x", "https"),
        ("https://evil.example.org/push", "not a push service"),
        ("https://fcm.googleapis.com.evil.example.org/push", "not a push service"),
        ("https://user@fcm.googleapis.com/x", "not a push service"),
    ]:
        r = c.post("/api/push/subscribe", json={**good, "endpoint": endpoint}, headers=ORIGIN)
        assert r.status_code == 422 and r.json()["code"] == "bad_subscription" and why in r.json()["detail"], r.text
    r = c.post("/api/push/subscribe", json={**good, "keys": {"p256dh": "AAAA", "auth": "AAAA"}}, headers=ORIGIN)
    assert r.status_code == 422 and r.json()["code"] == "bad_subscription"
    r = c.post(
        "/api/push/subscribe", json={**good, "endpoint": "https://fcm.googleapis.com/" + "x" * 2000}, headers=ORIGIN
    )
    assert r.status_code == 422  # over the endpoint's bound
    # At most DEVICES_MAX devices: the next one replaces the oldest.
    devices = [PushDevice("https://fcm.googleapis.com/fcm/send") for _ in range(DEVICES_MAX + 2)]
    for d in devices:
        assert c.post("/api/push/subscribe", json=d.subscription(), headers=ORIGIN).status_code == 200
    mine = c.get("/api/push").json()
    assert len(mine["devices"]) == DEVICES_MAX and mine["devices_max"] == DEVICES_MAX
    # Subscribing again keeps one device; unsubscribing forgets it; a device of another account is not ours.
    assert len(c.post("/api/push/subscribe", json=devices[-1].subscription(), headers=ORIGIN).json()["devices"]) == 10
    r = c.post("/api/push/unsubscribe", json={"endpoint": devices[-1].endpoint}, headers=ORIGIN)
    assert len(r.json()["devices"]) == DEVICES_MAX - 1
    bea = browser(c)
    register(bea, "Bea")
    theirs = c.get("/api/push").json()["devices"][0]["id"]
    assert bea.delete(f"/api/push/devices/{theirs}", headers=ORIGIN).json()["code"] == "no_device"
    assert c.delete(f"/api/push/devices/{theirs}", headers=ORIGIN).status_code == 200
    # The kinds an account wants.
    prefs = c.post("/api/push/prefs", json={"friend": False}, headers=ORIGIN).json()["prefs"]
    assert prefs == {"turn": True, "invite": True, "tournament": True, "friend": False, "seat": True, "clock": True}
    assert c.post("/api/push/prefs", json={"cards": True}, headers=ORIGIN).status_code == 422


def test_check_subscription_normalises_the_keys() -> None:
    d = PushDevice("https://updates.push.services.mozilla.com/wpush/v2")
    sub = d.subscription()
    padded = sub["keys"]["p256dh"] + "="
    found = check_subscription(sub["endpoint"], padded, sub["keys"]["auth"], Settings())
    assert found.p256dh == sub["keys"]["p256dh"]


# ---------------------------------------------------------------------- the real protocol, end to end


def test_a_push_arrives_encrypted_and_signed_and_the_device_decrypts_it(
    app_server: Callable[..., TestClient], service: PushService
) -> None:
    c = app_server(**push_settings())
    register(c, "Ann")
    device = PushDevice(service.base)
    mine = subscribe(c, device, lang="de")
    assert mine["device"]["lang"] == "de" and mine["device"]["last_success"] is None
    assert c.post("/api/push/test", json={"endpoint": device.endpoint}, headers=ORIGIN).status_code == 200
    assert run_once(c) == 1
    (got,) = service.wait(device)
    assert got.headers["content-encoding"] == "aes128gcm"
    assert int(got.headers["ttl"]) > 0 and got.headers["urgency"] == "normal"
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,32}", got.headers["topic"])
    claims = check_vapid(got, PUBLIC, service.base, SUBJECT)
    assert set(claims) == {"aud", "exp", "sub"}
    body = device.decrypt(got.body)
    assert body == {
        "v": 1,
        "kind": "test",
        "title": "Benachrichtigungen funktionieren",
        "body": body["body"],
        "url": "/account",
        "tag": "test",
        "lang": "de",
    }
    assert len(got.body) < 4096  # one record, small
    assert c.get("/api/push").json()["devices"][0]["last_success"] is not None
    assert run_once(c) == 0 and len(service.to(device)) == 1  # sent once


def test_an_invitation_pushes_the_invitee_in_their_language(
    app_server: Callable[..., TestClient], service: PushService
) -> None:
    c = app_server(**push_settings())
    ann, bea = c, browser(c)
    register(ann, "Ann")
    register(bea, "Bea")
    fr, en = PushDevice(service.base), PushDevice(service.base)
    subscribe(bea, fr, lang="fr")
    subscribe(bea, en, lang="en")
    r = ann.post("/api/challenges", json={"invitees": ["Bea"], "seats": 3, "turn_based": TB}, headers=ORIGIN)
    assert r.status_code == 201, r.text
    assert run_once(c) == 2
    (french,) = payloads(service, fr)
    (english,) = payloads(service, en)
    assert english["kind"] == "invite" and english["url"] == "/games"
    assert english["title"] == "Ann challenges you" and "turn-based, 1 day per move" in english["body"]
    assert french["title"] == "Ann vous défie" and french["lang"] == "fr"
    # A new follower: pushed once, however often they unfollow and follow again.
    assert ann.post("/api/friends/follow", json={"name": "Bea"}, headers=ORIGIN).status_code == 204
    assert ann.post("/api/friends/unfollow", json={"name": "Bea"}, headers=ORIGIN).status_code == 204
    assert ann.post("/api/friends/follow", json={"name": "Bea"}, headers=ORIGIN).status_code == 204
    assert run_once(c) == 2
    assert run_once(c) == 0
    follow = payloads(service, en, 2)[-1]
    assert follow["kind"] == "friend" and follow["title"] == "Ann follows you" and follow["url"] == "/u/Ann"
    # A kind turned off is not pushed.
    bea.post("/api/push/prefs", json={"invite": False}, headers=ORIGIN)
    ann.post("/api/challenges", json={"invitees": ["Bea"], "seats": 3}, headers=ORIGIN)
    assert run_once(c) == 0 and len(service.to(en)) == 2


def test_turn_pushes_say_whose_turn_never_a_card(app_server: Callable[..., TestClient], service: PushService) -> None:
    c = app_server(**push_settings(push_away_minutes=60.0))
    ann, bea = c, browser(c)
    register(ann, "Ann")
    register(bea, "Bea")
    devices = {0: PushDevice(service.base), 1: PushDevice(service.base)}
    subscribe(ann, devices[0])
    subscribe(bea, devices[1])
    r = ann.post(
        "/api/tables", json={"seats": 3, "bots": {"2": "random"}, "turn_based": TB, "player": "Ann"}, headers=ORIGIN
    )
    t = str(r.json()["table"])
    assert bea.post(f"/api/tables/{t}/join", json={"name": "Bea"}, headers=ORIGIN).status_code == 200
    first = wait_for(lambda: (s := stored(c, t)).to_move in (0, 1) and s, "a person's turn").to_move
    rows = wait_for(lambda: [q for q in queue_rows(c) if q.kind == "turn"], "a turn push queued")
    assert json.loads(rows[0].payload) == {"table_id": t} and rows[0].send_after > time.time() + 3000
    # The player is here: nothing goes until they have been away an hour.
    with engine_of(c).begin() as conn:
        conn.execute(update(push_queue_t).values(send_after=time.time() - 1))
    ann.get("/api/mygames/summary")
    bea.get("/api/mygames/summary")
    assert run_once(c) == 0
    with engine_of(c).begin() as conn:
        conn.execute(update(user_seen_t).values(seen=time.time() - 7200))
        conn.execute(update(seats_t).values(seen=None))
        conn.execute(update(push_queue_t).values(send_after=time.time() - 1))
    assert run_once(c) == 1
    (push,) = payloads(service, devices[first])
    assert push["kind"] == "turn" and push["url"] == f"/t/{t}" and push["tag"] == f"turn:{t}"
    assert push["title"].startswith("Your turn at ") and "left to move" in push["body"]
    hidden_facts_absent(c, t, push)
    # A turn that passed before its push goes is not pushed.
    other = 1 - first
    Pushbox(engine_of(c)).queue([other + 1], "turn", {"table_id": t}, t)
    assert run_once(c) == 0 and service.to(devices[other]) == []
    assert queue_rows(c)[-1].status == "dropped"


def hidden_facts_absent(c: TestClient, table: str, payload: dict[str, Any]) -> None:
    """R23: a payload names no card: no card token at all, and none of any hand's cards."""
    text = " ".join(str(v) for k, v in payload.items() if k not in ("url", "tag"))  # the table id may hold "LD"
    assert not CARD.search(text), text
    game = c.app.state.hub.tables[table].game  # type: ignore[attr-defined]
    for seat in range(3):
        for card in game.hand(seat):
            assert not re.search(rf"(?<![\w-]){re.escape(card.token)}(?![\w-])", text), (card.token, text)
    assert set(payload) == {"v", "kind", "title", "body", "url", "tag", "lang"}


# ---------------------------------------------------------------------- failures and crashes


def test_an_ended_subscription_is_dropped_and_an_outage_retried(
    app_server: Callable[..., TestClient], service: PushService
) -> None:
    c = app_server(**push_settings())
    register(c, "Ann")
    gone, down = PushDevice(service.base), PushDevice(service.base)
    subscribe(c, gone)
    subscribe(c, down)
    service.status[gone.path] = 410
    service.status[down.path] = 503
    for d in (gone, down):
        c.post("/api/push/test", json={"endpoint": d.endpoint}, headers=ORIGIN)
    assert run_once(c) == 0
    assert len(service.to(gone)) == 1 and len(service.to(down)) == 1
    with engine_of(c).connect() as conn:
        left = [r.endpoint for r in conn.execute(select(push_devices_t))]
    assert left == [down.endpoint]  # the 410's device is forgotten, with its queue
    (row,) = queue_rows(c)
    assert row.status == "pending" and row.attempts == 1 and row.send_after > time.time() and "503" in row.error
    service.status[down.path] = 201
    assert run_once(c) == 0  # not due yet
    assert run_once(c, row.send_after + 1) == 1
    assert run_once(c, row.send_after + 2) == 0
    assert len(service.to(down)) == 2 and queue_rows(c)[0].status == "sent"
    # An unreachable push service is an outage too.
    service.status.clear()
    c.post("/api/push/test", json={"endpoint": down.endpoint}, headers=ORIGIN)
    with engine_of(c).begin() as conn:
        conn.execute(update(push_devices_t).values(endpoint="http://127.0.0.1:9/push/nobody"))
    assert run_once(c) == 0
    assert queue_rows(c)[-1].status == "pending" and queue_rows(c)[-1].attempts == 1


def test_a_dead_senders_push_goes_again_once_and_a_live_senders_does_not(
    app_server: Callable[..., TestClient], service: PushService
) -> None:
    c = app_server(**push_settings())
    register(c, "Ann")
    device = PushDevice(service.base)
    device_id = subscribe(c, device)["device"]["id"]
    box = Pushbox(engine_of(c))
    live = c.app.state.hub.process_id  # type: ignore[attr-defined]

    # Claimed by a process that died before sending: the next pass of a live sender takes it.
    assert box.queue_test(1, device_id)
    now = time.time()
    (orphan,) = box.claim(now, holder="gone-process")
    assert box.claim(now + 1, holder="gone-process") == []  # not its own claim again
    assert run_once(c, now + 1) == 1
    (got,) = service.wait(device)
    assert device.decrypt(got.body)["kind"] == "test"
    assert queue_rows(c)[0].status == "sent" and queue_rows(c)[0].attempts == 2

    # Claimed by a live process: nobody else sends it; after STALE_SECONDS without an end, it goes again
    # with the same topic (the push service and the browser keep one message per topic and tag).
    assert box.queue_test(1, device_id)
    now = time.time()
    (mine,) = box.claim(now, holder=live)
    assert run_once(c, now + 1) == 0 and len(service.to(device)) == 1
    (again,) = box.claim(now + STALE_SECONDS + 1, holder="other")
    assert again.id == mine.id and again.topic == mine.topic and again.attempts == 2
    box.finish(again.id, "sent")
    assert run_once(c, now + STALE_SECONDS + 2) == 0 and len(service.to(device)) == 1
    assert orphan.topic == mine.topic  # one test notice per device: one topic


def test_a_tournament_round_is_pushed_with_the_round_and_not_once_a_bot_has_the_seat(
    app_server: Callable[..., TestClient], service: PushService
) -> None:
    from catsack.server.people.mail import queue_tournament_round, tournament_recipients

    c = app_server(**push_settings())
    register(c, "Ann")
    device = PushDevice(service.base)
    subscribe(c, device)
    engine, settings = engine_of(c), c.app.state.hub.settings  # type: ignore[attr-defined]
    # Told by push only (no mail on this server): the seat waits for them as for a mailed player.
    assert tournament_recipients(engine, settings, [1]) == {1}
    c.post("/api/push/prefs", json={"tournament": False}, headers=ORIGIN)
    assert tournament_recipients(engine, settings, [1]) == set()
    c.post("/api/push/prefs", json={"tournament": True}, headers=ORIGIN)
    table = {"seats": 3, "bots": {"1": "random", "2": "random"}, "player": "Ann"}
    r = c.post("/api/tables", json=table, headers=ORIGIN)
    assert r.status_code == 201, r.text
    t = str(r.json()["table"])
    payload = {"tournament": "Spring cup", "round": 2, "table": 3, "table_id": t, "link": f"/t/{t}", "wait": 600.0}
    with engine.begin() as conn:  # the transaction that publishes the round
        queue_tournament_round(conn, [(1, payload)])
    assert run_once(c) == 1
    (got,) = service.wait(device)
    assert got.headers["ttl"] == "600"  # no use after the seat stops waiting
    push = device.decrypt(got.body)
    assert push["title"] == "Round 2 of Spring cup starts" and push["url"] == f"/t/{t}"
    assert push["body"] == "Your table: 3. Your seat waits 10 minutes for you."
    hidden_facts_absent(c, t, push)
    # A bot has the seat by the time it would go: not pushed.
    with engine.begin() as conn:
        queue_tournament_round(conn, [(1, {**payload, "round": 3})])
        conn.execute(update(seats_t).where(seats_t.c.table_id == t, seats_t.c.seat == 0).values(kind="bot"))
    assert run_once(c) == 0 and queue_rows(c)[-1].status == "dropped"


def test_a_bot_taking_a_seat_is_pushed_unless_the_player_came_back(
    app_server: Callable[..., TestClient], service: PushService
) -> None:
    c = app_server(**push_settings())
    register(c, "Ann")
    device = PushDevice(service.base)
    subscribe(c, device, lang="fr")
    hub = c.app.state.hub  # type: ignore[attr-defined]
    table = {"seats": 3, "bots": {"1": "random", "2": "random"}, "player": "Ann", "name": "Chez Ann"}
    t = str(c.post("/api/tables", json=table, headers=ORIGIN).json()["table"])
    with engine_of(c).begin() as conn:
        conn.execute(update(user_seen_t).values(seen=time.time() - 600))  # away for ten minutes
    assert c.portal.call(hub.replace, hub.tables[t], 0)  # type: ignore[union-attr]  # the grace period ran out
    wait_for(lambda: [q for q in queue_rows(c) if q.kind == "seat"], "a seat push queued")
    assert run_once(c) == 1
    (push,) = payloads(service, device)
    assert push["kind"] == "seat" and push["url"] == f"/t/{t}" and push["tag"] == f"seat:{t}"
    assert push["title"] == "Un bot a pris votre place : Chez Ann"
    hidden_facts_absent(c, t, push)
    # Back on the site before it went: they saw it there, no push.
    (row,) = [q for q in queue_rows(c) if q.kind == "seat"]
    Pushbox(engine_of(c)).queue([1], "seat", {**json.loads(row.payload), "at": time.time() - 5}, "again")
    c.get("/api/mygames/summary")  # a page of the site open
    assert run_once(c) == 0 and queue_rows(c)[-1].status == "dropped"


def test_a_turn_push_lost_in_a_crash_is_queued_when_the_tables_are_taken_over(
    app_server: Callable[..., TestClient], service: PushService
) -> None:
    from catsack.server.people.push import queue_missed_turns

    c = app_server(**push_settings())
    ann, bea = c, browser(c)
    register(ann, "Ann")
    register(bea, "Bea")
    subscribe(ann, PushDevice(service.base))
    subscribe(bea, PushDevice(service.base))
    r = ann.post(
        "/api/tables", json={"seats": 3, "bots": {"2": "random"}, "turn_based": TB, "player": "Ann"}, headers=ORIGIN
    )
    t = str(r.json()["table"])
    assert bea.post(f"/api/tables/{t}/join", json={"name": "Bea"}, headers=ORIGIN).status_code == 200
    wait_for(lambda: stored(c, t).to_move in (0, 1), "a person's turn")
    wait_for(lambda: [q for q in queue_rows(c) if q.kind == "turn"], "a turn push queued")
    engine, settings = engine_of(c), c.app.state.hub.settings  # type: ignore[attr-defined]
    assert queue_missed_turns(engine, settings, [t]) == 0  # it waits already
    with engine.begin() as conn:  # the process died between the move's commit and the push's
        conn.execute(push_queue_t.delete())
    assert queue_missed_turns(engine, settings, [t]) == 1
    assert queue_missed_turns(engine, settings, [t]) == 0
    assert queue_missed_turns(engine, settings, []) == 0


def test_a_deleted_account_s_devices_are_forgotten(app_server: Callable[..., TestClient], service: PushService) -> None:
    c = app_server(**push_settings())
    register(c, "Ann")
    device = PushDevice(service.base)
    subscribe(c, device)
    c.post("/api/push/test", json={"endpoint": device.endpoint}, headers=ORIGIN)
    r = c.request("DELETE", "/api/account", json={"password": "correct horse"}, headers=ORIGIN)
    assert r.status_code == 204, r.text
    with engine_of(c).connect() as conn:
        assert conn.execute(select(push_devices_t)).all() == []
    assert queue_rows(c) == [] and run_once(c) == 0 and service.to(device) == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_kind_of_push_is_written_in_the_devices_language(lang: str) -> None:
    """Each kind's title and body in every language: no word outside the catalogues, no placeholder left,
    no rule number or card token (tests/test_texts_rendered.py's check, as for the mails)."""
    from catsack.server.people.push import KINDS, TEST, push_message, push_text
    from test_texts_rendered import check

    facts = {
        "turn": [{"table": "Spring", "left": left} for left in (90, 7200, 3 * 86400 + 3600)],
        "invite": [{"from": "Bea", "table": "Spring", "turn_based": {"move_hours": h}} for h in (12, 24)]
        + [{"from": "Bea", "table": "Spring", "turn_based": None}],
        "tournament": [{"round": 2, "tournament": "Spring cup", "table": 3, "wait": w} for w in (60, 600)]
        + [{"round": 2, "tournament": "Spring cup", "table": 3, "wait": 600, "deadline": 1.8e9}],
        "friend": [{"from": "Bea"}],
        "seat": [{"table": "Spring"}],
        "clock": [{"table": "Spring", "left": left} for left in (90, 7200, 18 * 3600)],
        TEST: [{}],
    }
    assert set(facts) == {*KINDS, TEST}
    texts = [text for kind, samples in facts.items() for f in samples for text in push_text(kind, lang, f) or ()]
    check(texts, lang, "pushes")
    assert push_text("cards", lang, {}) is None and push_message("cards", lang, {}, "/", "x") is None


def test_mail_and_push_offer_the_same_kinds_from_one_outbox() -> None:
    """One list of kinds for both channels and one request model for their choices; both queues are the
    outbox's (claim, finish, counts), each channel naming its own table."""
    from catsack.server.people import mail, outbox, push
    from catsack.server.routes.mail import Prefs
    from catsack.server.routes.prefs import KindPrefs

    assert mail.KINDS is push.KINDS is outbox.KINDS
    assert tuple(KindPrefs.model_fields) == outbox.KINDS
    assert set(Prefs.model_fields) == {*outbox.KINDS, "lang"}
    assert issubclass(mail.Mailbox, outbox.Outbox) and issubclass(push.Pushbox, outbox.Outbox)
    assert (mail.Mailbox.queue_table, push.Pushbox.queue_table) == (mail.mail_queue_t, push_queue_t)
    assert [outbox.backoff(n) for n in (1, 2, 3, 8, 20)] == [30.0, 60.0, 120.0, 3600.0, 3600.0]
