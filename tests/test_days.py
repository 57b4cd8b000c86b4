"""Playing over days, over HTTP: e-mail (a real SMTP server in the test process), password reset,
My games, follows, blocks and challenges. SQLite and PostgreSQL.

Mails are read as they arrive at the SMTP sink (tests/mail_sink.py). What a mail or a follower sees
is checked for hidden information (R23): whose turn, names and times, never a card.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient
from sqlalchemy import delete, select, update

from browser_i18n import WORD, formatter_words, python_words, words_of
from catsack.server.people.mail import FOLLOW_MAIL_SECONDS, STALE_SECONDS, Mailbox, mail_queue_t, queue_missed_turns
from catsack.server.storage.store import seats_t, tables_t
from mail_sink import Sink, mail_settings, smtp_sink
from test_turn_based import TB, stored, wait_for
from web_clients import ORIGIN, browser, register

# Card tokens as the rules write them (+15, -8, R, LD, SD): none may appear in a mail.
CARD = re.compile(r"(?<![\w-])(?:[+−-]\d{1,2}|LD|SD|R)(?![\w-])")


@pytest.fixture
def sink() -> Iterator[tuple[Sink, int]]:
    with smtp_sink() as found:
        yield found


def hub_of(c: TestClient) -> Any:
    return c.app.state.hub  # type: ignore[attr-defined]


def sender_of(c: TestClient) -> Any:
    return c.app.state.mail_sender  # type: ignore[attr-defined]


def link_in(msg: Any, path: str) -> str:
    body = msg.get_content()
    found = re.search(r"http://testserver(" + re.escape(path) + r"[^\s]*)", body)
    assert found, (path, body)
    return found.group(1)


def verified(c: TestClient, sink: Sink, address: str) -> None:
    """Add ``address`` to the logged-in account of ``c`` and open the link mailed to it."""
    r = c.post("/api/mail/address", json={"address": address}, headers=ORIGIN)
    assert r.status_code == 200, r.text
    assert r.json()["address"] == address and r.json()["verified"] is False
    c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]  # whatever the poll interval
    msg = sink.wait(lambda ms: [m for m in ms if m["To"] == address and "confirm" in m["Subject"]], "verify")[-1]
    r = c.get(link_in(msg, "/mail/verify"), follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/account?mail=verified"
    assert c.get("/api/mail").json()["verified"] is True


# ---------------------------------------------------------------------- without SMTP settings


def test_mail_is_off_without_smtp_settings(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    register(c, "Ann")
    assert c.get("/api/mail/status").json() == {"enabled": False}
    assert c.get("/api/mail").json()["enabled"] is False
    r = c.post("/api/mail/address", json={"address": "ann@example.org"}, headers=ORIGIN)
    assert r.status_code == 409 and r.json()["code"] == "mail_off"
    r = c.post("/api/account/reset", json={"address": "ann@example.org"}, headers=ORIGIN)
    assert r.status_code == 409 and r.json()["code"] == "mail_off"
    assert sender_of(c).task is None  # no sender runs


# ---------------------------------------------------------------------- addresses


def test_address_verification_preferences_and_one_click_unsubscribe(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    box, port = sink
    c = app_server(**mail_settings(port))
    register(c, "Ann")
    for bad in ("nobody", "a@b", "x@@example.org", "ann@example.org\r\nBcc: x@example.org", "a" * 250 + "@ex.org"):
        r = c.post("/api/mail/address", json={"address": bad}, headers=ORIGIN)
        assert r.status_code == 422, (bad, r.text)
    verified(c, box, "ann@example.org")
    msg = box.to("ann@example.org")[-1]
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    prefs = c.post("/api/mail/prefs", json={"friend": False, "turn": True}, headers=ORIGIN).json()["prefs"]
    assert prefs == {"turn": True, "invite": True, "tournament": True, "friend": False, "clock": True, "seat": True}

    # A follower's mail carries its own unsubscribe link; one POST (RFC 8058) turns that kind off.
    c.post("/api/mail/prefs", json={"friend": True}, headers=ORIGIN)
    bea = browser(c)
    register(bea, "Bea")
    assert bea.post("/api/friends/follow", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    note = box.wait(lambda ms: [m for m in ms if "follows you" in m["Subject"]], "follow mail")[-1]
    assert "Bea" in note["Subject"]
    unsub = note["List-Unsubscribe"].strip("<>")
    path = urlsplit(unsub)
    assert parse_qs(path.query)["k"] == ["friend"]
    page = bea.get(f"{path.path}?{path.query}")  # the link in the text: a page with one button, nothing changed
    assert page.status_code == 200 and '<form method="post"' in page.text
    assert c.get("/api/mail").json()["prefs"]["friend"] is True
    assert bea.post(f"{path.path}?{path.query}").status_code == 200  # no cookie needed
    assert c.get("/api/mail").json()["prefs"]["friend"] is False
    wrong = bea.post(f"{path.path}?{path.query.replace('k=friend', 'k=turn')}&t=x")
    assert "not valid" in wrong.text and c.get("/api/mail").json()["prefs"]["turn"] is True

    # At most five verification mails a day per account.
    for i in range(4):
        assert c.post("/api/mail/address", json={"address": f"a{i}@example.org"}, headers=ORIGIN).status_code == 200
    r = c.post("/api/mail/address", json={"address": "a9@example.org"}, headers=ORIGIN)
    assert r.status_code == 429 and r.json()["code"] == "too_many_mails"


def test_mail_headers_arrive_unencoded_for_one_click_unsubscribe(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    """The bytes the SMTP server receives: ``List-Unsubscribe`` is the link in angle brackets on one
    line (RFC 2369; not RFC 2047 encoded words, which mail programs do not offer as an unsubscribe),
    with ``List-Unsubscribe-Post: List-Unsubscribe=One-Click`` (RFC 8058) and the mail's language in
    ``Content-Language``; the link, posted as a mail program does, unsubscribes."""
    box, port = sink
    c = app_server(**mail_settings(port))
    register(c, "Ann")
    c.cookies.set("catsack_lang", "de")  # the mails' language is the page's when the address is added
    assert c.post("/api/mail/address", json={"address": "ann@example.org"}, headers=ORIGIN).status_code == 200
    c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]  # whatever the poll interval
    (confirm,) = box.wait(lambda ms: ms, "the verification mail")
    assert c.get(link_in(confirm, "/mail/verify"), follow_redirects=False).status_code == 303
    bea = browser(c)
    register(bea, "Bea")
    assert bea.post("/api/friends/follow", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]  # whatever the poll interval
    box.wait(lambda ms: len(ms) >= 2, "the verification and the follower's mail")
    with box.lock:
        received = list(box.raw)
    for raw in received:
        head = raw.split(b"\r\n\r\n", 1)[0].replace(b"\r\n", b"\n")
        unfolded = re.sub(rb"\n[ \t]+", b" ", head).decode("ascii")
        headers = dict(line.split(": ", 1) for line in unfolded.split("\n"))
        link = re.fullmatch(r"<(http://testserver/mail/unsubscribe\?[^<>\s]+)>", headers["List-Unsubscribe"])
        assert link, headers["List-Unsubscribe"]
        assert "=?" not in head.decode("ascii").split("Subject:", 1)[0] + headers["List-Unsubscribe"]
        assert headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert headers["Content-Language"] == "de"
    follow = next(raw for raw in received if b"k=friend" in raw)
    link = re.search(rb"List-Unsubscribe: <([^>]+)>", follow)
    assert link
    path = urlsplit(link.group(1).decode())
    one_click = bea.post(f"{path.path}?{path.query}", content=b"List-Unsubscribe=One-Click")
    assert one_click.status_code == 200
    assert c.get("/api/mail").json()["prefs"]["friend"] is False


# ---------------------------------------------------------------------- password reset


def test_password_reset_by_verified_mail(app_server: Callable[..., TestClient], sink: tuple[Sink, int]) -> None:
    box, port = sink
    c = app_server(**mail_settings(port))
    register(c, "Ann")
    verified(c, box, "Ann@Example.org")
    other = browser(c)
    known = other.post("/api/account/reset", json={"address": "ann@example.org"}, headers=ORIGIN)
    unknown = other.post("/api/account/reset", json={"address": "nobody@example.org"}, headers=ORIGIN)
    assert known.status_code == unknown.status_code == 202 and known.json() == unknown.json()
    msg = box.wait(lambda ms: [m for m in ms if "new password" in m["Subject"]], "reset mail")[-1]
    assert msg["To"] == "Ann@Example.org" and len([m for m in box.messages if "new password" in m["Subject"]]) == 1
    token = link_in(msg, "/reset#token=").split("#token=", 1)[1]
    short = other.post("/api/account/reset/confirm", json={"token": token, "password": "short"}, headers=ORIGIN)
    assert short.status_code == 400 and short.json()["code"] == "bad_password"  # the token is not spent
    r = other.post("/api/account/reset/confirm", json={"token": token, "password": "a new horse 31"}, headers=ORIGIN)
    assert r.status_code == 204 and other.get("/api/account").json()["name"] == "Ann"
    assert c.get("/api/account").status_code == 401  # every other session ended
    again = other.post(
        "/api/account/reset/confirm", json={"token": token, "password": "third horse 31"}, headers=ORIGIN
    )
    assert again.status_code == 400 and again.json()["code"] == "bad_token"
    ok = c.post("/api/account/login", json={"name": "Ann", "password": "a new horse 31"}, headers=ORIGIN)
    assert ok.status_code == 200
    with hub_of(c).store.engine.begin() as conn:  # an expired link does not work either
        from catsack.server.people.mail import password_resets_t

        conn.execute(update(password_resets_t).values(used=False, expires=time.time() - 1))
    late = other.post(
        "/api/account/reset/confirm", json={"token": token, "password": "fourth horse 31"}, headers=ORIGIN
    )
    assert late.status_code == 400
    # Reset requests are limited per address asked for.
    codes = [
        other.post("/api/account/reset", json={"address": "ann@example.org"}, headers=ORIGIN).status_code
        for _ in range(4)
    ]
    assert 429 in codes


# ---------------------------------------------------------------------- the queue


def test_an_smtp_outage_loses_nothing_and_a_dead_sender_is_recovered(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    box, port = sink
    c = app_server(**{**mail_settings(port), "mail_poll_seconds": 3600.0})  # passes run when the test says
    register(c, "Ann")
    sender = sender_of(c)
    box.refuse = True
    c.post("/api/mail/address", json={"address": "ann@example.org"}, headers=ORIGIN)
    engine = hub_of(c).store.engine

    def rows() -> list[Any]:
        with engine.connect() as conn:
            return list(conn.execute(select(mail_queue_t)).all())

    assert c.portal.call(sender.run_once) == 0  # type: ignore[union-attr]
    (row,) = rows()
    assert row.status == "pending" and row.attempts == 1 and row.send_after > time.time() and row.error
    box.refuse = False
    assert c.portal.call(sender.run_once) == 0  # type: ignore[union-attr]  # not due yet
    assert c.portal.call(sender.run_once, row.send_after + 1) == 1  # type: ignore[union-attr]
    assert c.portal.call(sender.run_once, row.send_after + 2) == 0  # type: ignore[union-attr]
    assert len(box.to("ann@example.org")) == 1 and rows()[0].status == "sent"

    # A sender that claimed a mail and died: after STALE_SECONDS the mail goes again, same Message-ID.
    mailbox = Mailbox(engine)
    c.post("/api/mail/address", json={"address": "ann2@example.org"}, headers=ORIGIN)
    now = time.time()
    (claimed,) = mailbox.claim(now)
    assert mailbox.claim(now + 1) == []  # nobody else takes it meanwhile
    (again,) = mailbox.claim(now + STALE_SECONDS + 1)
    assert again.id == claimed.id and again.message_id == claimed.message_id and again.attempts == 2

    # A sender known by its process: while that process lives its claim stands; once it is dead (no
    # heartbeat: killed, and a lone process started again) the mail goes again at once, not after
    # STALE_SECONDS, so a restart does not hold a "your turn" mail back for ten minutes.
    mailbox.finish(again.id, "sent")
    live = hub_of(c).process_id
    c.post("/api/mail/address", json={"address": "ann3@example.org"}, headers=ORIGIN)
    now = time.time()
    (mine,) = mailbox.claim(now, holder=live)
    assert mailbox.claim(now + 1, holder="other") == []  # the live sender keeps it
    mailbox.finish(mine.id, "sent")
    c.post("/api/mail/address", json={"address": "ann4@example.org"}, headers=ORIGIN)
    now = time.time()
    (orphan,) = mailbox.claim(now, holder="gone-process")
    assert mailbox.claim(now + 1, holder="gone-process") == []  # not its own claim again
    (taken,) = mailbox.claim(now + 1, holder=live)
    assert taken.id == orphan.id and taken.message_id == orphan.message_id and taken.attempts == 2


# ---------------------------------------------------------------------- turn mails


def two_accounts(c: TestClient) -> tuple[TestClient, TestClient]:
    bea = browser(c)
    register(c, "Ann")
    register(bea, "Bea")
    return c, bea


def turn_based_table(ann: TestClient, bea: TestClient) -> str:
    """Ann's turn-based 3-seat table with Bea and a random bot, both seated under their accounts."""
    r = ann.post(
        "/api/tables", json={"seats": 3, "bots": {"2": "random"}, "turn_based": TB, "player": "Ann"}, headers=ORIGIN
    )
    assert r.status_code == 201, r.text
    t = str(r.json()["table"])
    assert bea.post(f"/api/tables/{t}/join", json={"name": "Bea"}, headers=ORIGIN).status_code == 200
    return t


def test_turn_mails_say_whose_turn_never_a_card_and_wait_for_absence(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    box, port = sink
    c = app_server(**{**mail_settings(port), "mail_away_minutes": 60.0, "mail_poll_seconds": 3600.0})
    ann, bea = two_accounts(c)
    verified(ann, box, "ann@example.org")
    verified(bea, box, "bea@example.org")
    sender = sender_of(c)
    t = turn_based_table(ann, bea)
    engine = hub_of(c).store.engine
    first = stored(c, t).to_move
    while first == 2:  # the bot starts: wait for a person's turn
        first = wait_for(lambda: (r := stored(c, t)).to_move != 2 and r, "a person's turn").to_move
    mover, address, client = ("Ann", "ann@example.org", ann) if first == 0 else ("Bea", "bea@example.org", bea)
    client.get("/api/mygames/summary")  # the player is here: the mail waits

    def queued() -> list[Any]:
        with engine.connect() as conn:
            return list(conn.execute(select(mail_queue_t).where(mail_queue_t.c.kind == "turn")).all())

    row = wait_for(lambda: queued(), "a turn mail queued")[0]
    assert json.loads(row.payload)["tables"] == [t]
    assert row.send_after > time.time() + 3000  # an hour away at the earliest

    def due_now() -> None:
        with engine.begin() as conn:
            conn.execute(update(mail_queue_t).where(mail_queue_t.c.kind == "turn").values(send_after=time.time() - 1))

    due_now()  # due, but the player was here a moment ago: it waits an hour from then
    assert c.portal.call(sender.run_once) == 0  # type: ignore[union-attr]
    assert queued()[0].status == "pending" and queued()[0].send_after > time.time() + 3000
    # The player leaves (their last sign of life an hour and more ago): the mail goes out, once.
    with engine.begin() as conn:
        from catsack.server.people.friends import user_seen_t

        conn.execute(update(user_seen_t).values(seen=time.time() - 7200))
        conn.execute(update(seats_t).values(seen=None))
    due_now()
    assert c.portal.call(sender.run_once) == 1  # type: ignore[union-attr]
    msg = box.to(address)[-1]
    body = msg.get_content()
    assert "your turn" in msg["Subject"] and f"/t/{t}" in body and "left" in body
    assert not CARD.search(msg["Subject"] + body.split("--", 1)[0]), body
    # The mover's own cards are not named anywhere either, the links aside (their random table id
    # and unsubscribe key may hold "LD" or "-5" by chance).
    words = re.sub(r"https?://\S+", " ", body)
    hand = hub_of(c).tables[t].game.hand(first)
    assert not any(re.search(rf"(?<![\w-]){re.escape(card.token)}(?![\w-])", words) for card in hand), body
    assert mover in body

    # A turn taken before the mail goes drops out of it; a mail with nothing left is not sent.
    mailbox = Mailbox(engine)
    other = 1 - first
    other_id = 2 if first == 0 else 1  # Ann registered first: account ids 1 and 2
    assert mailbox.queue_turn(other_id, t, time.time() - 1)
    before = len(box.messages)
    c.portal.call(sender.run_once)  # type: ignore[union-attr]
    assert len(box.messages) == before  # it is not that player's turn
    assert queued()[-1].status == "dropped"
    assert other in (0, 1)


def test_a_turn_mail_lost_in_a_crash_is_queued_when_the_server_comes_back(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    """The turn passes in the move's commit and its mail is queued just after: a process killed in
    between leaves a person to move who is never told. A starting (or adopting) process queues the
    mails missing for turns now running, and only those."""
    box, port = sink
    c = app_server(**{**mail_settings(port), "mail_poll_seconds": 3600.0})
    ann, bea = two_accounts(c)
    verified(ann, box, "ann@example.org")
    verified(bea, box, "bea@example.org")
    t = turn_based_table(ann, bea)
    engine = hub_of(c).store.engine
    settings = hub_of(c).settings
    row = wait_for(lambda: (r := stored(c, t)).to_move != 2 and r, "a person's turn")

    def turn_rows() -> list[Any]:
        with engine.connect() as conn:
            return list(conn.execute(select(mail_queue_t).where(mail_queue_t.c.kind == "turn")).all())

    wait_for(turn_rows, "the turn mail queued")
    assert queue_missed_turns(engine, settings) == 0  # it is waiting: nothing is missing
    with engine.begin() as conn:  # the crash: the turn passed, its mail was never queued
        conn.execute(delete(mail_queue_t).where(mail_queue_t.c.kind == "turn"))
    assert queue_missed_turns(engine, settings, ["elsewhere"]) == 0  # only the tables asked about
    assert queue_missed_turns(engine, settings, [t]) == 1
    (made,) = turn_rows()
    assert json.loads(made.payload)["tables"] == [t] and made.user_id == row.to_move + 1  # Ann is account 1
    assert queue_missed_turns(engine, settings) == 0  # once
    # A mail made or sent since the turn began counts too (a waiting mail made earlier that went out
    # later was checked at sending); one made and sent before the turn began does not.
    since = json.loads(row.clock)["since"]
    with engine.begin() as conn:
        conn.execute(update(mail_queue_t).values(status="sent", created=since + 1, sent=since + 1))
    assert queue_missed_turns(engine, settings) == 0
    with engine.begin() as conn:
        conn.execute(update(mail_queue_t).values(created=since - 3600, sent=since + 60))
    assert queue_missed_turns(engine, settings) == 0
    with engine.begin() as conn:
        conn.execute(update(mail_queue_t).values(created=since - 3600, sent=since - 1800))
    assert queue_missed_turns(engine, settings) == 1


def test_turns_in_several_games_make_one_mail(app_server: Callable[..., TestClient], sink: tuple[Sink, int]) -> None:
    _box, port = sink
    c = app_server(**mail_settings(port))
    register(c, "Ann")
    c.post("/api/mail/address", json={"address": "ann@example.org"}, headers=ORIGIN)
    engine = hub_of(c).store.engine
    with engine.begin() as conn:
        from catsack.server.people.mail import emails_t

        conn.execute(update(emails_t).values(verified=True))
    mailbox = Mailbox(engine)
    for t in ("t1", "t2", "t1"):
        assert mailbox.queue_turn(1, t, time.time() + 600)
    with engine.connect() as conn:
        rows = conn.execute(select(mail_queue_t).where(mail_queue_t.c.kind == "turn")).all()
    assert len(rows) == 1 and json.loads(rows[0].payload)["tables"] == ["t1", "t2"]


def test_a_french_account_gets_its_mails_in_french(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    """A mail speaks the account's language: the page's when the address is added (French for Ann), or the
    one set later (``lang`` in the preferences, French for Bea). The turn mail, its time left and names, and
    the unsubscribe page it links to are French: no word outside the French catalogues."""
    box, port = sink
    c = app_server(**{**mail_settings(port), "mail_away_minutes": 60.0, "mail_poll_seconds": 3600.0})
    ann, bea = two_accounts(c)
    ann.cookies.set("catsack_lang", "fr")
    verified(ann, box, "ann@example.org")
    (confirm,) = box.to("ann@example.org")
    assert confirm["Subject"] == "catsack : confirmez votre adresse e-mail" and confirm["Content-Language"] == "fr"
    verified(bea, box, "bea@example.org")
    assert box.to("bea@example.org")[0]["Content-Language"] == "en"
    assert bea.post("/api/mail/prefs", json={"lang": "fr"}, headers=ORIGIN).json()["lang"] == "fr"
    assert bea.post("/api/mail/prefs", json={"lang": "xx"}, headers=ORIGIN).status_code == 422
    assert bea.get("/api/mail").json()["lang"] == "fr"
    t = turn_based_table(ann, bea)
    engine = hub_of(c).store.engine
    mover = wait_for(lambda: (r := stored(c, t)).to_move != 2 and r, "a person's turn").to_move
    address = ("ann@example.org", "bea@example.org")[mover]
    wait_for(lambda: Mailbox(engine).stats().get("pending"), "the turn mail queued")
    with engine.begin() as conn:  # the player has been away for two hours, and the mail is due
        from catsack.server.people.friends import user_seen_t

        conn.execute(update(user_seen_t).values(seen=time.time() - 7200))
        conn.execute(update(seats_t).values(seen=None))
        conn.execute(update(mail_queue_t).where(mail_queue_t.c.kind == "turn").values(send_after=time.time() - 1))
    assert c.portal.call(sender_of(c).run_once) == 1  # type: ignore[union-attr]
    msg = box.to(address)[-1]
    body = msg.get_content()
    assert msg["Subject"].startswith("catsack : à vous de jouer à ") and msg["Content-Language"] == "fr"
    assert body.startswith(f"Bonjour {('Ann', 'Bea')[mover]},") and "c'est à vous de jouer" in body
    assert re.search(r"\(avec \w+ et 1 bot\) : encore \d+\s(jours?|heures?)", body), body
    table_name = str(stored(c, t).name)
    said = re.sub(r"https?://\S+", " ", msg["Subject"] + "\n" + body).replace(table_name, " ")
    vocabulary = words_of("fr") | python_words("fr") | formatter_words("fr") | {"ann", "bea", "catsack"}
    assert [w for w in WORD.findall(said) if len(w) > 1 and w.lower() not in vocabulary] == [], said
    unsubscribe = urlsplit(msg["List-Unsubscribe"].strip("<>"))
    assert parse_qs(unsubscribe.query)["lang"] == ["fr"]
    page = browser(c).get(f"{unsubscribe.path}?{unsubscribe.query}")  # a browser with no language of its own
    assert '<html lang="fr">' in page.text and "Se désabonner" in page.text and "Ne plus recevoir" in page.text


# ---------------------------------------------------------------------- my games, friends, challenges


def test_my_games_lists_your_turn_first_with_the_time_left(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    ann, bea = two_accounts(c)
    assert browser(c).get("/api/mygames").json()["account"] is None  # a guest: no error
    t = turn_based_table(ann, bea)
    real = ann.post("/api/tables", json={"seats": 3, "bots": {"1": "random"}, "player": "Ann"}, headers=ORIGIN)
    waiting = real.json()["table"]  # one open seat: waiting for players
    row = wait_for(lambda: (r := stored(c, t)).to_move != 2 and r, "a person's turn")
    mine = ann.get("/api/mygames").json()
    theirs = bea.get("/api/mygames").json()
    for answer, seat in ((mine, 0), (theirs, 1)):
        games = {g["table"]: g for g in answer["games"]}
        g = games[t]
        assert g["seat"] == seat and g["turn_based"] == TB and g["players"][:2] == ["Ann", "Bea"]
        assert g["your_turn"] == (row.to_move == seat) and g["to_move_name"] == ["Ann", "Bea"][row.to_move]
        assert 0 < g["seconds_left"] <= 96 * 3600 and set(g) >= {"deadline", "status"}
        assert "view" not in json.dumps(answer) and "hand" not in json.dumps(answer)  # R23: public facts only
    assert [g["table"] for g in mine["games"]][-1] == waiting or row.to_move == 0
    mover = ann if row.to_move == 0 else bea
    assert mover.get("/api/mygames").json()["games"][0]["your_turn"] is True  # yours first
    summary = mover.get("/api/mygames/summary").json()
    assert summary["your_turn"] == 1 and summary["turn_based"] == [{"table": t, "name": "Table"}]


def test_follow_search_block_and_what_a_follower_sees(app_server: Callable[..., TestClient]) -> None:
    c = app_server()
    ann, bea = two_accounts(c)
    assert ann.get("/api/players/search", params={"q": "be"}).json() == {"players": [{"name": "Bea"}]}
    assert ann.post("/api/friends/follow", json={"name": "bea"}, headers=ORIGIN).status_code == 204
    assert ann.post("/api/friends/follow", json={"name": "Ann"}, headers=ORIGIN).status_code == 422
    assert ann.post("/api/friends/follow", json={"name": "Nobody"}, headers=ORIGIN).status_code == 404
    assert ann.post("/api/friends/follow", json={"name": "Bea"}, headers={}).status_code == 403  # CSRF
    t = turn_based_table(bea, ann)  # a game of Bea's (and Ann's)
    private = bea.post(
        "/api/tables",
        json={"seats": 3, "bots": {"1": "random", "2": "random"}, "player": "Bea", "private": True},
        headers=ORIGIN,
    ).json()["table"]
    bea.get("/api/mygames/summary")  # Bea is online
    (person,) = ann.get("/api/friends").json()["following"]
    assert person["name"] == "Bea" and person["online"] is True
    shown = {g["table"] for g in person["games"]}
    assert t in shown and private not in shown  # a private table stays private
    assert set(person["games"][0]) == {"table", "name", "turn_based", "to_move_name", "players"}

    # Bea blocks Ann: Ann's follow ends, and she can neither follow, challenge nor chat at Bea's tables.
    assert bea.post("/api/friends/block", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    assert ann.get("/api/friends").json()["following"] == []
    r = ann.post("/api/friends/follow", json={"name": "Bea"}, headers=ORIGIN)
    assert r.status_code == 403 and r.json()["code"] == "blocked"
    r = ann.post("/api/challenges", json={"invitees": ["Bea"], "seats": 3}, headers=ORIGIN)
    assert r.status_code == 403 and r.json()["code"] == "blocked"
    assert bea.get("/api/friends").json()["blocked"] == ["Ann"]
    hub = hub_of(c)
    from catsack.server.people.friends import Friends

    assert Friends(hub.store.engine).blocked_at_table(t, 1) is True  # Ann's seat at Bea's table: no chat
    assert Friends(hub.store.engine).blocked_at_table(t, 0) is False
    assert bea.post("/api/friends/unblock", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    assert ann.post("/api/friends/follow", json={"name": "Bea"}, headers=ORIGIN).status_code == 204

    # Follows are limited per account.
    codes = [ann.post("/api/friends/follow", json={"name": "Bea"}, headers=ORIGIN).status_code for _ in range(40)]
    assert codes.count(429) > 0


def test_a_follower_is_mailed_once_a_week_however_often_they_refollow(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    """Ten follow/unfollow cycles mail the followed account once; after FOLLOW_MAIL_SECONDS (a week) a
    follow mails again, and another follower is announced on their own."""
    box, port = sink
    c = app_server(**mail_settings(port))
    register(c, "Ann")
    verified(c, box, "ann@example.org")
    bea, cid = browser(c), browser(c)
    register(bea, "Bea")
    register(cid, "Cid")

    def follow_mails(messages: list[Any]) -> list[str]:
        return [str(m["Subject"]) for m in messages if m["To"] == "ann@example.org" and "follows you" in m["Subject"]]

    def sent() -> None:
        c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]  # whatever the poll interval

    for _ in range(10):
        assert bea.post("/api/friends/follow", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
        assert bea.post("/api/friends/unfollow", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    assert cid.post("/api/friends/follow", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    sent()
    mails = box.wait(lambda ms: len(follow_mails(ms)) >= 2 and follow_mails(ms), "the two followers' mails")
    assert sorted(mails) == ["catsack: Bea follows you", "catsack: Cid follows you"], mails
    with hub_of(c).store.engine.begin() as conn:  # a week and a second later
        conn.execute(update(mail_queue_t).values(created=mail_queue_t.c.created - FOLLOW_MAIL_SECONDS - 1))
    assert bea.post("/api/friends/follow", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    sent()
    box.wait(lambda ms: len(follow_mails(ms)) == 3, "Bea's mail a week later")


def test_a_challenge_accepted_makes_the_table_and_a_decline_ends_one(
    app_server: Callable[..., TestClient], sink: tuple[Sink, int]
) -> None:
    box, port = sink
    c = app_server(**mail_settings(port))
    ann, bea = two_accounts(c)
    verified(bea, box, "bea@example.org")
    r = ann.post(
        "/api/challenges", json={"invitees": ["Bea"], "seats": 4, "bot": "random", "turn_based": TB}, headers=ORIGIN
    )
    assert r.status_code == 201, r.text
    ch = r.json()
    assert ch["mine"] and ch["status"] == "pending" and ch["bots"] == {"2": "random", "3": "random"}
    invite = box.wait(lambda ms: [m for m in ms if "challenges you" in m["Subject"]], "invitation mail")[-1]
    assert "Ann" in invite["Subject"] and "/games" in invite.get_content()
    mine = bea.get("/api/mygames").json()
    assert mine["invitations"] == 1 and mine["challenges"][0]["answer"] is None
    assert bea.get("/api/mygames/summary").json()["invitations"] == 1
    assert ann.post(f"/api/challenges/{ch['id']}/accept", headers=ORIGIN).status_code == 404  # not invited
    done = bea.post(f"/api/challenges/{ch['id']}/accept", headers=ORIGIN).json()
    assert done["status"] == "accepted" and done["table"]
    t = done["table"]
    info = c.get(f"/api/tables/{t}").json()
    assert info["turn_based"] == TB and info["private"] is True and info["status"] == "playing"
    assert [p["name"] for p in info["players"]][:2] == ["Ann", "Bea"]
    for who in (ann, bea):
        assert t in {g["table"] for g in who.get("/api/mygames").json()["games"]}
    seat = bea.post(f"/api/tables/{t}/takeover", headers=ORIGIN).json()  # Bea plays from her device
    assert seat["seat"] == 1 and seat["token"]
    assert bea.post(f"/api/challenges/{ch['id']}/accept", headers=ORIGIN).json()["code"] == "challenge_closed"

    again = ann.post("/api/challenges", json={"invitees": ["Bea"], "seats": 3}, headers=ORIGIN).json()
    declined = bea.post(f"/api/challenges/{again['id']}/decline", headers=ORIGIN).json()
    assert declined["status"] == "declined" and declined["table"] is None
    with hub_of(c).store.engine.connect() as conn:
        assert len(conn.execute(select(tables_t.c.id)).all()) == 1  # the declined challenge made no table
    bad = ann.post("/api/challenges", json={"invitees": ["Bea", "Bea"], "seats": 3}, headers=ORIGIN)
    assert bad.status_code == 422
    big = ann.post("/api/challenges", json={"invitees": ["Bea"] * 3, "seats": 3}, headers=ORIGIN)
    assert big.status_code == 422
    codes = [
        ann.post("/api/challenges", json={"invitees": ["Bea"], "seats": 3}, headers=ORIGIN).status_code
        for _ in range(12)
    ]
    assert codes.count(429) > 0  # challenges are limited per account


def test_a_challenges_invitees_sit_in_the_order_they_were_typed(app_server: Callable[..., TestClient]) -> None:
    """Ann challenges Dan, Bea and Cid in that order (not the order their accounts were made): the
    challenge lists them so, and the table seats them so, after Ann."""
    c = app_server()
    people = {"Ann": c}
    register(c, "Ann")
    for name in ("Bea", "Cid", "Dan"):
        people[name] = browser(c)
        register(people[name], name)
    typed = ["Dan", "Bea", "Cid"]
    r = c.post("/api/challenges", json={"invitees": typed, "seats": 4}, headers=ORIGIN)
    assert r.status_code == 201, r.text
    ch = r.json()
    assert [i["name"] for i in ch["invitees"]] == typed
    listed = people["Bea"].get("/api/mygames").json()["challenges"][0]
    assert [i["name"] for i in listed["invitees"]] == typed
    for name in ("Cid", "Bea", "Dan"):  # answered in yet another order
        done = people[name].post(f"/api/challenges/{ch['id']}/accept", headers=ORIGIN).json()
    assert done["table"]
    assert [p["name"] for p in c.get(f"/api/tables/{done['table']}").json()["players"]] == ["Ann", *typed]


def test_every_key_the_new_pages_use_is_in_both_catalogues() -> None:
    """My games, friends, the reset page, the e-mail settings, the badge and the table's clock speak
    English and German: every key they use exists in both catalogues."""
    from pathlib import Path

    static = Path(__file__).resolve().parents[1] / "src" / "catsack" / "server" / "static"
    catalogues = {lang: json.loads((static / "i18n" / f"{lang}.json").read_text("utf-8")) for lang in ("en", "de")}
    used: set[str] = set()
    prefixes: set[str] = set()
    for name in ("days", "mygames", "friends", "reset", "mailprefs", "table"):
        text = (static / f"{name}.js").read_text("utf-8")
        used |= set(re.findall(r"\bt\(\"([\w.:-]+)\"", text))
        prefixes |= set(re.findall(r"\bt\(`([\w.:-]+)\$\{", text))
    for name in ("mygames", "friends", "reset", "account", "index", "table"):
        used |= set(re.findall(r'data-i18n(?:-[a-z-]+)?="([^"]+)"', (static / f"{name}.html").read_text("utf-8")))
    assert {k for k in used if k.startswith("days.")}, "the scan found none of the new keys"
    for lang, catalogue in catalogues.items():
        assert sorted(used - catalogue.keys()) == [], lang
        for prefix in prefixes:
            assert any(k.startswith(prefix) for k in catalogue), (lang, prefix)
