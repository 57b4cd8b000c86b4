"""Swiss tournaments: seating, scoring and tie-breaks against hand-computed tables, and a whole
tournament on the server (accounts taking their seats over, bots, a withdrawal, duplicate deals)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from catsack.server.tournaments.swiss import (
    SeatResult,
    duplicate_points,
    filler_counts,
    meetings,
    pair_round,
    place_points,
    repeated_pairs,
    score_round,
    standings,
)

# ---------------------------------------------------------------------- the rules, by hand


def seats(*rows: tuple[int | None, int, int]) -> list[SeatResult]:
    """A table from (entry, score, cats) per seat."""
    return [SeatResult(e, i, s, c) for i, (e, s, c) in enumerate(rows)]


def test_rank_points_with_shared_places() -> None:
    """Place k of n earns n - k; a tie (R22: score, then cats) shares the places' points."""
    assert place_points(seats((1, 30, 5), (2, 20, 5), (3, 10, 5), (4, 0, 5))) == [3, 2, 1, 0]
    # 1 and 2 tie on score and cats: (3 + 2) / 2 each; 3 and 4 tie on score, 4 has more cats.
    assert place_points(seats((1, 30, 5), (2, 30, 5), (3, 10, 1), (4, 10, 2))) == [2.5, 2.5, 0, 1]
    assert place_points(seats((1, 7, 0), (2, 7, 0), (3, 7, 0))) == [1, 1, 1]


def test_fillers_go_to_the_bottom_tables_one_at_a_time() -> None:
    assert filler_counts(8, 4) == [0, 0]
    assert filler_counts(7, 4) == [0, 1]
    assert filler_counts(6, 4) == [1, 1]  # spread out: no table holds two fillers while another holds none
    assert filler_counts(9, 4) == [1, 1, 1]
    assert filler_counts(10, 4) == [0, 1, 1]
    assert filler_counts(6, 5) == [2, 2]
    assert filler_counts(2, 3) == [1]


def test_leaders_sit_together_and_repeats_are_avoided() -> None:
    order = [1, 2, 3, 4, 5, 6, 7, 8]
    first = pair_round(order, 4, {}, 1)
    assert first == [[1, 2, 3, 4], [5, 6, 7, 8]]
    # Round 2 by standings 1, 2, 5, 6, 3, 4, 7, 8: without a history, the top four sit together.
    order2 = [1, 2, 5, 6, 3, 4, 7, 8]
    assert [sorted(t) for t in pair_round(order2, 4, {}, 2)] == [[1, 2, 5, 6], [3, 4, 7, 8]]
    # Two tables of four after one round cannot avoid repeats (each holds two pairs of one old table at
    # best): the split by standings stays. Three tables of three can: 1-2 and 7-8 met in round 1.
    met = meetings(first)
    assert [sorted(t) for t in pair_round(order2, 4, met, 2)] == [[1, 2, 5, 6], [3, 4, 7, 8]]
    nine = meetings(pair_round(list(range(1, 10)), 3, {}, 1))
    order3 = [1, 2, 4, 5, 7, 8, 3, 6, 9]
    assert repeated_pairs([[1, 2, 4], [5, 7, 8], [3, 6, 9]], nine) == 2
    tables = pair_round(order3, 3, nine, 2)
    assert repeated_pairs(tables, nine) == 0 and 1 in tables[0]  # type: ignore[arg-type]
    # Seats rotate by round: round 2 starts each table with its second player.
    assert pair_round([1, 2, 3], 3, {}, 2) == [[2, 3, 1]]
    assert pair_round([1, 2, 3, 4, 5], 3, {}, 1) == [[1, 2, 3], [4, 5, None]]


def test_a_blocked_pair_is_parted_where_a_swap_can_part_it() -> None:
    """Entries 1 and 2 (one blocks the other) sit at different tables although the standings put them
    together, even where parting them repeats a pair that met before; at one table they cannot be."""
    order = [1, 2, 3, 4, 5, 6, 7, 8]
    tables = pair_round(order, 4, {}, 1, apart={frozenset((1, 2))})
    assert not any({1, 2} <= set(t) for t in tables)
    assert repeated_pairs(tables, {frozenset((1, 2)): 1}) == 0
    # Round 2 after [[1, 2, 3, 4], [5, 6, 7, 8]]: every split repeats pairs; the blocked pair still parts.
    met = meetings([[1, 2, 3, 4], [5, 6, 7, 8]])
    order2 = [1, 2, 5, 6, 3, 4, 7, 8]
    assert [sorted(t) for t in pair_round(order2, 4, met, 2)] == [[1, 2, 5, 6], [3, 4, 7, 8]]
    parted = pair_round(order2, 4, met, 2, apart={frozenset((1, 2))})
    assert not any({1, 2} <= set(t) for t in parted)
    assert sorted(e for t in parted for e in t if e is not None) == order  # everyone seated once
    # Nothing to swap with: four entries at one 4-seat table, and three at a 3-seat one, sit together.
    assert [sorted(t) for t in pair_round([1, 2, 3, 4], 4, {}, 1, apart={frozenset((1, 2))})] == [[1, 2, 3, 4]]
    assert pair_round([1, 2, 3], 3, {}, 1, apart={frozenset((1, 3))}) == [[1, 2, 3]]


def test_duplicate_points_compare_the_same_seat_across_tables() -> None:
    a = seats((1, 20, 3), (2, 10, 1), (3, 5, 0))
    b = seats((4, 15, 0), (5, 10, 1), (6, 9, 9))
    c = seats((7, 25, 0), (8, 12, 0), (None, 30, 0))
    pts = duplicate_points([a, b, c], 3)
    # Seat 0: 1 (20) beats 4 (15), loses to 7 (25): 2 * 1/2 = 1.0; 7 beats both: 2.0; 4: 0.
    assert (pts[1], pts[4], pts[7]) == (1.0, 0.0, 2.0)
    # Seat 1: 2 and 5 tie (10, 1), both lose to 8 (12): 2 * 0.5/2 = 0.5 each; 8: 2.0.
    assert (pts[2], pts[5], pts[8]) == (0.5, 0.5, 2.0)
    # Seat 2: 3 (5) against 6 (9) only: the filler is not compared with.
    assert (pts[3], pts[6]) == (0.0, 2.0)
    scores = {s.entry: s for s in score_round([a, b, c], duplicate=True, round_no=1)}
    assert scores[7].points == 2.0 and scores[7].place == 2 and scores[7].win == 0.0  # the filler won table 3
    # One table: nobody to compare with, rank points instead.
    alone = {s.entry: s.points for s in score_round([a], duplicate=True)}
    assert alone == {1: 2.0, 2: 1.0, 3: 0.0}


def test_abandoned_seats_and_fillers_earn_nothing() -> None:
    table = [SeatResult(1, 0, 30, 0, abandoned=True), SeatResult(2, 1, 20, 0), SeatResult(None, 2, 10, 0)]
    got = {s.entry: s for s in score_round([table], round_no=3)}
    assert set(got) == {1, 2}
    assert got[1].points == 0 and got[1].win == 0 and got[1].place == 1 and got[1].abandoned
    assert got[2].points == 1 and got[2].place == 2 and got[2].round == 3


def test_standings_and_tie_breaks_by_hand() -> None:
    """Two rounds of two 3-seat tables; the table below is worked out by hand.

    Round 1: table 1 = 1 (30), 2 (20), 3 (10) -> 2, 1, 0; table 2 = 4 (25), 5 (25, more cats), 6 (5) -> 1, 2, 0.
    Round 2: table 1 = 1 (12), 5 (12), 2 (3), all cats equal -> 1.5, 1.5, 0; table 2 = 4 (40), 3 (2), 6 (1) -> 2, 1, 0.
    Totals: 1: 3.5 (wins 1 + 0.5), 5: 3.5 (wins 1 + 0.5), 4: 3 (1 win), 2: 1, 3: 1, 6: 0.
    1 and 5 tie on points and wins; game scores 42 against 37: 1 first. 2 and 3: no wins, scores 23 and 12.
    """
    r1 = score_round([seats((1, 30, 0), (2, 20, 0), (3, 10, 0)), seats((4, 25, 0), (5, 25, 3), (6, 5, 0))], round_no=1)
    r2 = score_round([seats((1, 12, 1), (5, 12, 1), (2, 3, 1)), seats((4, 40, 0), (3, 2, 0), (6, 1, 0))], round_no=2)
    table = standings([1, 2, 3, 4, 5, 6], [r1, r2])
    assert [(s.entry, s.points, s.wins, s.score) for s in table] == [
        (1, 3.5, 1.5, 42),
        (5, 3.5, 1.5, 37),
        (4, 3.0, 1.0, 65),
        (2, 1.0, 0.0, 23),
        (3, 1.0, 0.0, 12),
        (6, 0.0, 0.0, 6),
    ]
    assert [r.round for r in table[0].rounds] == [1, 2]


def test_a_withdrawn_player_keeps_what_he_played_and_ranks_below_stayers_level_with_him() -> None:
    """A seat abandoned to a bot earns nothing: no points, no win, and the bot's game score is not the
    player's (no tie-break from it). Level on points and wins, players who stayed rank first. Worked out
    by hand (entry: score; "abandoned" marks the seat a bot took over, with what the bot scored):

    Round 1: table 1 = 1 (20), 2 (10), 3 (35) -> 1, 0, 2 (3 wins); table 2 = 4 (30), 5 (-4), 6 (-6) -> 2, 1, 0.
    Round 2: table 1 = 3 (abandoned, the bot 50), 4 (12), 1 (8): the bot's seat is first, so 4 gets 1
    and 1 gets 0, and 3 gets nothing; table 2 = 6 (15), 2 (5), 5 (-10) -> 2, 1, 0 (6 wins).
    Totals (points, wins, score): 4: 3, 1, 42; 6: 2, 1, 9; 3: 2, 1, 35 (not 85), withdrawn; 1: 1, 0, 28;
    2: 1, 0, 15; 5: 1, 0, -14. 6 and 3 are level on points and wins: 6 stayed and ranks first,
    although 3's own score is higher.
    """
    r1 = score_round([seats((1, 20, 0), (2, 10, 0), (3, 35, 0)), seats((4, 30, 0), (5, -4, 0), (6, -6, 0))], round_no=1)
    abandoned = [SeatResult(3, 0, 50, 0, abandoned=True), SeatResult(4, 1, 12, 0), SeatResult(1, 2, 8, 0)]
    r2 = score_round([abandoned, seats((6, 15, 0), (2, 5, 0), (5, -10, 0))], round_no=2)
    table = standings([1, 2, 3, 4, 5, 6], [r1, r2], withdrawn={3})
    assert [(s.entry, s.points, s.wins, s.score, s.withdrawn) for s in table] == [
        (4, 3.0, 1.0, 42, False),
        (6, 2.0, 1.0, 9, False),
        (3, 2.0, 1.0, 35, True),
        (1, 1.0, 0.0, 28, False),
        (2, 1.0, 0.0, 15, False),
        (5, 1.0, 0.0, -14, False),
    ]
    # The abandoned game stays in the player's results (place 1 at the table: the bot's), worth nothing.
    played = [(r.round, r.place, r.points, r.abandoned) for r in table[2].rounds]
    assert played == [(1, 1, 2.0, False), (2, 1, 0.0, True)]


# ---------------------------------------------------------------------- on the server

pytest.importorskip("fastapi")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient  # noqa: E402

from test_social import account, play_out  # noqa: E402
from web_clients import ORIGIN  # noqa: E402


@pytest.fixture
def server(app_server: Callable[..., TestClient]) -> Callable[..., TestClient]:
    return app_server


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got:
            return got
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_a_tournament_of_accounts_and_bots_runs_to_the_end(server: Callable[..., TestClient]) -> None:
    """Two accounts and three bot entries, 3-seat tables, 2 rounds, rated: each round two tables (one
    filler bot), the accounts take their seats over from the tournament and play; the results are
    ordinary finished tables; standings follow the stored results."""
    c = server()
    ann, ben = account(c, "Ann"), account(c, "Ben")
    body = {"name": "Friday", "seats": 3, "rounds": 2, "rated": True, "bots": ["random", "random", "random"]}
    t = ann.post("/api/tournaments", json=body, headers=ORIGIN).json()
    assert t["status"] == "upcoming" and t["entries"] == 4
    assert ben.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).json() == {"entry": 5}
    r = ben.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN)
    assert r.status_code == 409 and r.json()["code"] == "entered"
    assert ben.post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 403  # not the creator
    assert ann.post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
    assert c.get("/api/tournaments").json()["running"][0]["id"] == t["id"]
    for round_no in (1, 2):
        info = wait_for(
            f"round {round_no}",
            # A round is published (its number moves) once its tables are made and seated.
            lambda n=round_no: (d := c.get(f"/api/tournaments/{t['id']}").json())["round"] == n and d,
        )
        assert all(tb["status"] != "open" for tb in info["tables"])
        assert (
            len(info["tables"]) == 2 and sum(p["kind"] == "filler" for tb in info["tables"] for p in tb["players"]) == 1
        )
        games = []
        for who in (ann, ben):
            mine = next(tb for tb in who.get(f"/api/tournaments/{t['id']}").json()["tables"] if tb["mine"])
            seat = who.post(f"/api/tables/{mine['game']}/takeover", headers=ORIGIN).json()
            games.append((who, mine["game"], seat["seat"], seat["token"]))
        # Both at once: they may share a table.
        with ThreadPoolExecutor(2) as pool:
            for done in [pool.submit(play_out, *g) for g in games]:
                done.result()
    done = wait_for("the end", lambda: (d := c.get(f"/api/tournaments/{t['id']}").json())["status"] == "finished" and d)
    rows = done["standings"]
    assert len(rows) == 5 and all(len(row["rounds"]) == 2 for row in rows)
    assert rows[0]["rank"] == 1 and [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    total = sum(p["points"] for row in rows for p in row["rounds"])
    # Each 3-seat table hands out 2 + 1 + 0 = 3 points; the filler's share goes to nobody.
    assert total <= 12 and all(row["points"] == sum(p["points"] for p in row["rounds"]) for row in rows)
    for row in rows:
        for g in row["rounds"]:
            assert c.get(f"/api/tables/{g['game']}/record").status_code == 200  # a normal finished table
    profile = c.get("/api/users/ann").json()
    assert profile["rated_games"] == 2 and profile["reputation"]["finished"] == 2
    # A deleted account's entry stays, under "deleted player".
    r = ben.request("DELETE", "/api/account", json={"password": "correct horse"}, headers=ORIGIN)
    assert r.status_code == 204
    after = c.get(f"/api/tournaments/{t['id']}").json()
    gone = next(e for e in after["entries_list"] if e["entry"] == 5)
    assert gone["name"] == "deleted player" and gone["profile"] is None


def test_a_tournament_seats_a_blocked_pair_at_different_tables(server: Callable[..., TestClient]) -> None:
    """Four accounts of one rating at 3 seats make two tables, by entry number Ann and Ben together;
    Ben blocks Ann, so round 1 seats them apart."""
    c = server()
    people = {name: account(c, name) for name in ("Ann", "Ben", "Cid", "Dan")}
    t = people["Ann"].post("/api/tournaments", json={"name": "Apart", "seats": 3, "rounds": 1}, headers=ORIGIN).json()
    for name in ("Ben", "Cid", "Dan"):
        assert people[name].post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
    assert people["Ben"].post("/api/friends/block", json={"name": "Ann"}, headers=ORIGIN).status_code == 204
    assert people["Ann"].post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
    info = wait_for("round 1", lambda: (d := c.get(f"/api/tournaments/{t['id']}").json())["round"] == 1 and d)
    names = [{p["name"] for p in tb["players"]} for tb in info["tables"]]
    assert len(names) == 2 and not any({"Ann", "Ben"} <= n for n in names), names


def test_a_round_is_listed_only_once_every_listed_seat_is_bound(server: Callable[..., TestClient]) -> None:
    """ "Play at table N" works the moment a round's tables are listed: each person's seat is bound to
    their account before the round is published. Four people poll the tournament and take over every
    table listed as theirs while round 1 is seated, with every table and seat write slowed down (a
    round published before its seats were bound would be caught in that window)."""
    c = server(write_delay=0.05)
    people = {name: account(c, name) for name in ("Ann", "Ben", "Cid", "Dan")}
    body = {"name": "Quick", "seats": 3, "rounds": 1, "bots": ["random", "random"]}
    t = people["Ann"].post("/api/tournaments", json=body, headers=ORIGIN).json()
    for name in ("Ben", "Cid", "Dan"):
        assert people[name].post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
    taken: dict[str, int] = {}  # who -> takeovers that worked
    refused: list[tuple[str, int, str]] = []
    stop = threading.Event()

    def poll(name: str) -> None:
        who = people[name]
        while not stop.is_set():
            for tb in who.get(f"/api/tournaments/{t['id']}").json()["tables"]:
                if not tb["mine"]:
                    continue
                r = who.post(f"/api/tables/{tb['game']}/takeover", headers=ORIGIN)
                if r.status_code == 200:
                    taken[name] = taken.get(name, 0) + 1
                else:
                    refused.append((name, r.status_code, r.text))

    with ThreadPoolExecutor(len(people)) as pool:
        polling = [pool.submit(poll, name) for name in people]
        try:
            assert people["Ann"].post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
            wait_for("every person's table listed and taken", lambda: len(taken) == len(people) or refused)
        finally:
            stop.set()
        for done in polling:
            done.result()
    assert refused == [], refused
    info = c.get(f"/api/tournaments/{t['id']}").json()
    assert info["round"] == 1 and len(info["tables"]) == 2 and all(tb["status"] == "playing" for tb in info["tables"])


def test_a_deleted_accounts_name_leaves_its_tournament_entries(server: Callable[..., TestClient]) -> None:
    """Deleting an account blanks its name in the stored entries too, not only on the pages."""
    from catsack.server.tournaments.model import Tournaments

    c = server()
    ann, ben = account(c, "Ann"), account(c, "Benedikt")
    body = {"name": "Friday", "seats": 3, "rounds": 2, "bots": ["random"]}
    t = ann.post("/api/tournaments", json=body, headers=ORIGIN).json()
    assert ben.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
    r = ben.request("DELETE", "/api/account", json={"password": "correct horse"}, headers=ORIGIN)
    assert r.status_code == 204
    entries = Tournaments(c.app.state.hub.store.engine).entries(t["id"])  # type: ignore[attr-defined]
    assert [e.name for e in entries if e.user_id is not None] == ["Ann", "deleted player"]
    assert "Benedikt" not in c.get(f"/api/tournaments/{t['id']}").text


def test_a_player_who_leaves_is_withdrawn_and_earns_nothing(server: Callable[..., TestClient]) -> None:
    c = server(grace_seconds=0.3)
    ann = account(c, "Ann")
    body = {"name": "Quick", "seats": 3, "rounds": 2, "bots": ["random", "random"]}
    t = ann.post("/api/tournaments", json=body, headers=ORIGIN).json()
    assert ann.post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
    # Ann never takes her seat: after the grace period a bot plays it, she is withdrawn.
    done = wait_for("the end", lambda: (d := c.get(f"/api/tournaments/{t['id']}").json())["status"] == "finished" and d)
    row = next(r for r in done["standings"] if r["name"] == "Ann")
    assert row["withdrawn"] == 1 and row["points"] == 0 and [g["abandoned"] for g in row["rounds"]] == [True]
    # What the bot scored at her seat is not hers, and she ranks below the bots who played on.
    assert row["score"] == 0 and done["standings"][-1]["name"] == "Ann"
    assert all(len(r["rounds"]) == 2 for r in done["standings"] if r["name"] != "Ann")
    assert c.get("/api/users/ann").json()["reputation"]["abandoned"] == 1


def test_a_round_mails_its_players_once_and_waits_for_them(server: Callable[..., TestClient]) -> None:
    """The "round starts" mail reaches exactly the players who want it, once (a repeated tournament step
    sends nothing more), with their table's link and the wait, and nothing of the deal. A mailed player
    who has not come keeps the seat for the stated wait, where the others lose theirs after the grace
    period; once the wait is over, the seat goes to a bot like any other (the sweep's clock is moved on)."""
    from catsack.server.tournaments.runner import advance
    from mail_sink import mail_settings, smtp_sink
    from test_days import CARD, hub_of, sender_of, verified

    wait = 3600.0
    with smtp_sink() as (sink, port):
        c = server(**mail_settings(port), grace_seconds=0.2, tournament_wait_seconds=wait)
        ann, ben, cid = account(c, "Ann"), account(c, "Ben"), account(c, "Cid")
        verified(ann, sink, "ann@example.org")
        verified(ben, sink, "ben@example.org")
        assert ben.post("/api/mail/prefs", json={"tournament": False}, headers=ORIGIN).status_code == 200
        body = {"name": "Evening", "seats": 3, "rounds": 1, "bots": ["random"] * 3}
        t = ann.post("/api/tournaments", json=body, headers=ORIGIN).json()
        for who in (ben, cid):
            assert who.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
        assert ann.post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
        hub = hub_of(c)
        c.portal.call(advance, hub, t["id"])  # a repeated step (another process's sweep, a restart)
        c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]
        sink.wait(lambda ms: [m for m in ms if "round 1" in m["Subject"]], "round 1")  # or the sender's loop sent it

        def entries() -> dict[str, Any]:
            return {e["name"]: e for e in c.get(f"/api/tournaments/{t['id']}").json()["entries_list"]}

        # Ben (no tournament mails) and Cid (no address) lose their seats after the grace period.
        wait_for("Ben and Cid withdrawn", lambda: entries()["Ben"]["withdrawn"] and entries()["Cid"]["withdrawn"])
        assert entries()["Ann"]["withdrawn"] is None
        c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]
        mails = [m for m in sink.messages if "round 1" in m["Subject"]]
        assert [m["To"] for m in mails] == ["ann@example.org"], [(m["To"], m["Subject"]) for m in sink.messages]
        text = mails[0].get_content()
        mine = next(tb for tb in ann.get(f"/api/tournaments/{t['id']}").json()["tables"] if tb["mine"])
        assert mails[0]["Subject"] == "catsack: round 1 of Evening starts"
        assert f"http://testserver/t/{mine['game']}" in text and f"Your table, {mine['table']}" in text
        assert "waits 1 hour" in text and not CARD.search(text.split("\n--\n")[0]), text
        # The wait is over (the sweep's clock moved past it): the seat goes to a bot, Ann is withdrawn.
        c.portal.call(hub.sweep, time.monotonic() + wait + 1)
        wait_for("Ann withdrawn", lambda: entries()["Ann"]["withdrawn"])
        c.portal.call(advance, hub, t["id"])
        c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]
        assert len([m for m in sink.messages if "round 1" in m["Subject"]]) == 1


def test_a_round_mails_its_players_even_with_no_wait(server: Callable[..., TestClient]) -> None:
    """With a tournament wait of 0 the round's mail still goes to the players who want it, and it states
    the grace period as the time the seat is kept (the longer of the two)."""
    from mail_sink import mail_settings, smtp_sink
    from test_days import sender_of, verified

    with smtp_sink() as (sink, port):
        c = server(**mail_settings(port), grace_seconds=90.0, tournament_wait_seconds=0.0)
        ann, ben, cid = account(c, "Ann"), account(c, "Ben"), account(c, "Cid")
        verified(ann, sink, "ann@example.org")
        body = {"name": "Quick", "seats": 3, "rounds": 1, "bots": ["random"] * 3}
        t = ann.post("/api/tournaments", json=body, headers=ORIGIN).json()
        for who in (ben, cid):
            assert who.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
        # The round's mails are queued with the round, before the start's answer.
        assert ann.post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
        box = sender_of(c).box
        assert sum(box.stats().values()) == 2, box.stats()  # the address's check and the round's mail
        # Sent by this pass or by the sender's own loop, which may have taken the mail first: a mail is
        # marked sent once the SMTP server accepted it, so with nothing left to send the sink holds it.
        c.portal.call(sender_of(c).run_once)  # type: ignore[union-attr]
        wait_for("the queue sent", lambda: not {"pending", "sending"} & box.stats().keys())
        assert box.stats() == {"sent": 2}, box.stats()
        mails = [m for m in sink.messages if "round 1" in m["Subject"]]
        assert [m["To"] for m in mails] == ["ann@example.org"], [(m["To"], m["Subject"]) for m in sink.messages]
        assert "waits 1 min" in mails[0].get_content(), mails[0].get_content()


def test_duplicate_rounds_deal_alike_and_hide_until_scored(server: Callable[..., TestClient]) -> None:
    c = server()
    ann = account(c, "Ann")
    body = {"name": "Dup", "seats": 3, "rounds": 1, "duplicate": True, "bots": ["random"] * 5}
    t = ann.post("/api/tournaments", json=body, headers=ORIGIN).json()
    assert ann.post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
    info = ann.get(f"/api/tournaments/{t['id']}").json()
    hub = c.app.state.hub  # type: ignore[attr-defined]
    setups = {hub.store.table(tb["game"]).setup["removed"].__str__() for tb in info["tables"]}
    assert len(info["tables"]) == 2 and len(setups) == 1  # one deal for the round
    mine = next(tb for tb in info["tables"] if tb["mine"])
    r = c.get(f"/api/tables/{mine['game']}/state")  # a spectator: not while the round is played
    assert r.status_code == 403 and r.json()["code"] == "embargoed"
    seat = ann.post(f"/api/tables/{mine['game']}/takeover", headers=ORIGIN).json()
    play_out(ann, mine["game"], seat["seat"], seat["token"])
    done = wait_for("the end", lambda: (d := c.get(f"/api/tournaments/{t['id']}").json())["status"] == "finished" and d)
    assert c.get(f"/api/tables/{mine['game']}/state").status_code == 200
    assert {r["points"] for r in done["standings"]} <= {0.0, 1.0, 2.0}


def test_creating_is_for_accounts_and_rate_limited(server: Callable[..., TestClient]) -> None:
    c = server()
    assert c.post("/api/tournaments", json={"name": "x"}, headers=ORIGIN).status_code == 401
    ann = account(c, "Ann")
    for bad in (
        {"name": ""},
        {"name": "x", "seats": 6},
        {"name": "x", "bots": ["nobot"]},
        {"name": "x", "pace": "days"},
    ):
        assert ann.post("/api/tournaments", json=bad, headers=ORIGIN).status_code == 422, bad
    for i in range(3):
        assert ann.post("/api/tournaments", json={"name": f"T{i}"}, headers=ORIGIN).status_code == 201
    r = ann.post("/api/tournaments", json={"name": "T4"}, headers=ORIGIN)
    assert r.status_code == 429 and r.json()["code"] == "too_many_tournaments"
    assert c.get("/api/tournaments/nosuch").status_code == 404
    assert len(c.get("/api/tournaments").json()["upcoming"]) == 3
