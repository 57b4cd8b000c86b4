"""Arena tournaments: the queue's seating, points by rank with the streak bonus and the standings
against hand-computed tables (docs/tournaments.md, *Arena*), and an arena on the server driven by
its injectable clock (the window, bots filling a table that waited too long)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from catsack.server.tournaments.arena import Waiter, arena_points, arena_standings, seat_queue
from catsack.server.tournaments.swiss import RoundScore, SeatResult, score_round

# ---------------------------------------------------------------------- the rules, by hand


def waiting(*rows: tuple[int, float]) -> list[Waiter]:
    """Waiters from (entry, rating), all waiting since 0."""
    return [Waiter(e, r, 0.0) for e, r in rows]


def test_the_queue_seats_rating_near_players_together() -> None:
    """Eight waiting at 4 seats: the four best-rated at one table, the others at the next."""
    w = waiting((1, 1500), (2, 1200), (3, 1800), (4, 1100), (5, 1700), (6, 1300), (7, 1600), (8, 1000))
    assert seat_queue(w, 4, {}, 0.0, None) == [[3, 5, 7, 1], [6, 2, 4, 8]]
    # Tables of 3 and 5 as the creator set; who is left over waits.
    assert seat_queue(w, 3, {}, 0.0, None) == [[3, 5, 7], [1, 6, 2]]
    assert seat_queue(w, 5, {}, 0.0, None) == [[3, 5, 7, 1, 6]]
    # Fewer than a table's seats: nobody is seated (no bots allowed).
    assert seat_queue(w[:3], 4, {}, 1e9, None) == []
    with pytest.raises(ValueError):
        seat_queue(w, 6, {}, 0.0, None)


def test_the_same_table_is_not_seated_twice_in_a_row_when_avoidable() -> None:
    """Six at 3 seats: 1, 2 and 3 (the best rated) just played together, so each sits with two of
    the others now; when only the same three wait, they play again (unavoidable)."""
    w = waiting((1, 1900), (2, 1800), (3, 1700), (4, 1600), (5, 1500), (6, 1400))
    mates = {1: {2, 3}, 2: {1, 3}, 3: {1, 2}}
    # Table 1 takes 1, then 4 and 5 (2 and 3 sat with 1); table 2 holds the three left, 2, 6 and 3:
    # two tables can not part three players who all sat together, so one pair repeats.
    assert seat_queue(w, 3, mates, 0.0, None) == [[1, 4, 5], [2, 6, 3]]
    # Only the same three wait: they play again (unavoidable).
    assert seat_queue(waiting((1, 1900), (2, 1800), (3, 1700)), 3, mates, 0.0, None) == [[1, 2, 3]]
    # Nine at 3 seats after 1-2-3, 4-5-6 and 7-8-9: nobody sits with a last tablemate.
    w9 = waiting(*((e, 2000.0 - 100 * e) for e in range(1, 10)))
    mates9 = {e: {m for m in range(3 * ((e - 1) // 3) + 1, 3 * ((e - 1) // 3) + 4) if m != e} for e in range(1, 10)}
    assert seat_queue(w9, 3, mates9, 0.0, None) == [[1, 4, 7], [2, 5, 8], [3, 6, 9]]
    assert seat_queue(w9, 3, {}, 0.0, None) == [[1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_bots_fill_a_table_only_after_the_wait_and_only_when_allowed() -> None:
    w = [Waiter(1, 1500, 100.0), Waiter(2, 1400, 160.0)]
    assert seat_queue(w, 4, {}, 150.0, 60.0) == []  # 1 waited 50 s of 60
    assert seat_queue(w, 4, {}, 160.0, 60.0) == [[1, 2, None, None]]  # 60 s: two filler bots
    assert seat_queue(w, 4, {}, 1e9, None) == []  # the creator allowed no bots: they wait
    # Full tables first; the one left over gets bots when it waited long enough.
    w5 = [*waiting((1, 1900), (2, 1800), (3, 1700)), Waiter(4, 1000, 0.0)]
    assert seat_queue(w5, 3, {}, 30.0, 30.0) == [[1, 2, 3], [4, None, None]]


def game(round_no: int, place: int, points: float, *, entry: int = 1, abandoned: bool = False) -> RoundScore:
    win = 1.0 if place == 1 and not abandoned else 0.0
    return RoundScore(entry, 1, 0, place, points, 0, 0, win, abandoned, round_no)


def test_points_by_rank_and_the_streak_by_hand() -> None:
    """docs/tournaments.md's worked example: at 4 seats Ann places 1, 1, 1, 2, 1, 1, 1: points 3, 3,
    6 (third first in a row: double), 2 (streak over), 3, 3, 6 = 26."""
    places = [1, 1, 1, 2, 1, 1, 1]
    games = [game(i + 1, p, 4 - p) for i, p in enumerate(places)]
    got = arena_points(games)
    assert [(g.points, doubled) for g, doubled in got] == [
        (3, False),
        (3, False),
        (6, True),
        (2, False),
        (3, False),
        (3, False),
        (6, True),
    ]
    assert sum(g.points for g, _ in got) == 26
    # An abandoned seat earns nothing and ends the streak.
    lost = arena_points([game(1, 1, 3), game(2, 1, 3), game(3, 1, 3, abandoned=True), game(4, 1, 3)])
    assert [g.points for g, _ in lost] == [3, 3, 0, 3]


def test_shared_ranks_and_seat_counts() -> None:
    """R22's shared ranks: two tied for first at 3 seats share (2 + 1) / 2 = 1.5 and both count a
    first place for the streak; 5 seats give 4, 3, 2, 1, 0."""

    def table(*rows: tuple[int | None, int, int]) -> list[SeatResult]:
        return [SeatResult(e, i, s, c) for i, (e, s, c) in enumerate(rows)]

    three = score_round([table((1, 10, 2), (2, 10, 2), (3, 5, 0))], round_no=1)
    assert [(s.entry, s.place, s.points, s.win) for s in three] == [(1, 1, 1.5, 0.5), (2, 1, 1.5, 0.5), (3, 3, 0, 0)]
    five = score_round([table((1, 50, 0), (2, 40, 0), (None, 30, 0), (4, 20, 0), (5, 10, 0))], round_no=2)
    assert [s.points for s in five] == [4, 3, 1, 0]  # the filler bot's place earns nobody anything
    # Entry 1 shares two first places, then wins alone: the third first place in a row is doubled.
    third = score_round([table((1, 9, 0), (2, 1, 0), (3, 0, 0))], round_no=3)
    fourth = score_round([table((1, 9, 0), (2, 1, 0), (3, 0, 0))], round_no=4)
    st = arena_standings([1, 2, 3], [*three, *third, *fourth])
    assert [(s.entry, s.points, s.wins, s.streak) for s in st] == [
        (1, 1.5 + 2 + 4, 2.5, 3),
        (2, 1.5 + 1 + 1, 0.5, 0),
        (3, 0.0, 0.0, 0),
    ]


def test_standings_order_points_then_wins_then_entry() -> None:
    games = [
        game(1, 1, 3, entry=2),
        game(1, 2, 2, entry=1),
        game(2, 2, 2, entry=3),
        game(2, 2, 2, entry=4),
        game(3, 2, 1, entry=3),
    ]
    st = arena_standings([1, 2, 3, 4], games)
    assert [(s.entry, s.points, s.wins) for s in st] == [(2, 3, 1), (3, 3, 0), (1, 2, 0), (4, 2, 0)]


# ---------------------------------------------------------------------- on the server

pytest.importorskip("fastapi")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient  # noqa: E402

from test_social import account, play_out  # noqa: E402
from test_tournaments import wait_for  # noqa: E402
from web_clients import ORIGIN  # noqa: E402


@pytest.fixture
def server(app_server: Callable[..., TestClient]) -> Callable[..., TestClient]:
    return app_server


def hub_of(c: TestClient) -> Any:
    return c.app.state.hub  # type: ignore[attr-defined]


def info(c: TestClient, tid: str) -> dict[str, Any]:
    got: dict[str, Any] = c.get(f"/api/tournaments/{tid}").json()
    return got


def play_mine(people: list[TestClient], tid: str) -> list[str]:
    """Each person takes the seat of their table and plays it out (all at once: they share tables)."""
    from concurrent.futures import ThreadPoolExecutor

    games = []
    for who in people:
        mine = next(tb for tb in info(who, tid)["tables"] if tb["mine"])
        seat = who.post(f"/api/tables/{mine['game']}/takeover", headers=ORIGIN).json()
        games.append((who, mine["game"], seat["seat"], seat["token"]))
    with ThreadPoolExecutor(len(games)) as pool:
        for done in [pool.submit(play_out, *g) for g in games]:
            done.result()
    return [g[1] for g in games]


def by_hand(row: dict[str, Any], rows: list[dict[str, Any]], seats: int) -> float:
    """A player's arena points recomputed from the places at each of their tables: place k of n earns
    n - k, tied places share (R22), a first place after two firsts in a row is doubled."""
    total, run = 0.0, 0
    for g in row["rounds"]:
        at_table = [x["place"] for r in rows for x in r["rounds"] if x["round"] == g["round"]]
        assert len(at_table) == seats  # all people: no fillers here
        p, tied = g["place"], at_table.count(g["place"])
        base = sum(seats - k for k in range(p, p + tied)) / tied
        total += base * (2 if p == 1 and run >= 2 else 1)
        run = run + 1 if p == 1 else 0
    return total


def test_an_arena_seats_the_queue_until_its_window_closes(server: Callable[..., TestClient]) -> None:
    """Three accounts, 3 seats, a 30-minute window: seated at once, seated again the moment their
    game ends; past the window no table is made, the game still going counts, then the arena ends.
    The standings' points are the places' points recomputed by hand."""
    from catsack.server.tournaments.runner import advance, arena_clock

    c = server()
    people = [account(c, n) for n in ("Ann", "Ben", "Cid")]
    body = {"name": "Blitz", "format": "arena", "seats": 3, "minutes": 30}
    t = people[0].post("/api/tournaments", json=body, headers=ORIGIN).json()
    assert t["format"] == "arena" and t["minutes"] == 30 and t["bots_after"] is None
    for who in people[1:]:
        assert who.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
    assert people[0].post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
    first = info(c, t["id"])
    assert first["status"] == "running" and first["ends"] and len(first["tables"]) == 1
    # A process working from the state before table 1 (another server's step) makes nothing.
    from catsack.server.tournaments.model import Tournaments

    assert Tournaments(hub_of(c).store.engine).add_arena_tables(t["id"], 0, [[1, 2, 3]]) is None
    assert len(info(c, t["id"])["tables"]) == 1
    # Hidden information (R23): the page's data names players and tables, never a card or a deal.
    text = c.get(f"/api/tournaments/{t['id']}").text
    assert not any(word in text for word in ('"hand', '"setup', '"removed', '"cards', '"seed', '"view')), text
    assert sorted(p["name"] for p in first["tables"][0]["players"]) == ["Ann", "Ben", "Cid"]
    play_mine(people, t["id"])
    # The game's end scored it and seated the three again (nobody else waits: unavoidable).
    second = wait_for("table 2", lambda: (d := info(c, t["id"]))["tables"] and d)
    assert [tb["table"] for tb in second["tables"]] == [2] and second["status"] == "running"
    assert all(len(row["rounds"]) == 1 for row in second["standings"])
    hub = hub_of(c)
    arena_clock(hub).skew = 30 * 60 + 1  # the window closed while table 2 plays
    c.portal.call(advance, hub, t["id"])
    assert info(c, t["id"])["status"] == "running"
    play_mine(people, t["id"])
    done = wait_for("the end", lambda: (d := info(c, t["id"]))["status"] == "finished" and d)
    assert done["tables"] == []
    assert len(done["standings"]) == 3
    for row in done["standings"]:
        assert len(row["rounds"]) == 2  # no table 3: the second game, still going at the end, counted
        assert row["points"] == by_hand(row, done["standings"], 3)
    ranks = [r["rank"] for r in done["standings"]]
    assert ranks == sorted(ranks) and ranks[0] == 1


def test_bots_fill_an_arena_table_only_when_the_creator_allows(server: Callable[..., TestClient]) -> None:
    """Two accounts at 4 seats never fill a table; with bots after 30 s, once they waited 30 s (the
    arena's clock moved on), they sit down with two filler bots; without, they keep waiting."""
    from catsack.server.tournaments.runner import advance, arena_clock

    c = server()
    ann, ben = account(c, "Ann"), account(c, "Ben")
    ids = []
    for bots_after in (30, None):
        body = {"name": f"Bots {bots_after}", "format": "arena", "seats": 4, "minutes": 60, "bots_after": bots_after}
        t = ann.post("/api/tournaments", json=body, headers=ORIGIN).json()
        assert ben.post(f"/api/tournaments/{t['id']}/enter", headers=ORIGIN).status_code == 200
        assert ann.post(f"/api/tournaments/{t['id']}/start", headers=ORIGIN).status_code == 204
        assert info(c, t["id"])["tables"] == []  # two wait, a table has four seats
        ids.append(t["id"])
    hub = hub_of(c)
    arena_clock(hub).skew = 29
    for tid in ids:
        c.portal.call(advance, hub, tid)
        assert info(c, tid)["tables"] == []
    arena_clock(hub).skew = 31
    for tid in ids:
        c.portal.call(advance, hub, tid)
    filled, waiting = info(c, ids[0]), info(c, ids[1])
    assert [sorted(p["kind"] for p in tb["players"]) for tb in filled["tables"]] == [
        ["filler", "filler", "human", "human"]
    ]
    assert waiting["tables"] == []
    # An arena takes entries while its window is open: two more make the four seats, seated at once.
    for name in ("Cid", "Dan"):
        assert account(c, name).post(f"/api/tournaments/{ids[1]}/enter", headers=ORIGIN).status_code == 200
    seated = info(c, ids[1])["tables"]
    assert [sorted(p["name"] for p in tb["players"]) for tb in seated] == [["Ann", "Ben", "Cid", "Dan"]]
    arena_clock(hub).skew = 60 * 60  # the window closed: no more entries
    late = account(c, "Eve").post(f"/api/tournaments/{ids[1]}/enter", headers=ORIGIN)
    assert late.status_code == 409 and late.json()["code"] == "not_upcoming"
    # Bad arenas are refused with a clear error.
    for bad in (
        {"name": "x", "format": "ladder"},
        {"name": "x", "format": "arena", "pace": "turnbased"},
        {"name": "x", "format": "arena", "bots": ["random"]},
        {"name": "x", "format": "arena", "minutes": 5},
        {"name": "x", "format": "arena", "bots_after": 5},
    ):
        assert ann.post("/api/tournaments", json=bad, headers=ORIGIN).status_code == 422, bad


def test_the_operator_creates_an_arena_from_the_command_line(tmp_path: Any) -> None:
    from typer.testing import CliRunner

    from catsack.cli import app as cli_app
    from catsack.server.storage.store import Store
    from catsack.server.tournaments.model import Tournaments

    url = f"sqlite:///{tmp_path / 'arena.db'}"
    Store(url).close()
    runner = CliRunner()
    args = ["admin", "tournament", "create", "--name", "Blitz", "--database-url", url, "--seats", "5"]
    out = runner.invoke(cli_app, [*args, "--arena", "45", "--bots-after", "60"])
    assert out.exit_code == 0, out.output
    tid = out.output.split("created tournament ")[1].split(":")[0]
    store = Store(url)
    try:
        t = Tournaments(store.engine).get(tid)
    finally:
        store.close()
    assert t is not None and (t.options["format"], t.options["minutes"], t.options["bots_after"]) == ("arena", 45, 60)
    listed = runner.invoke(cli_app, ["admin", "tournament", "list", "--database-url", url])
    assert f"{tid}  upcoming  arena 45 min, 0 tables  5 seats  Blitz" in listed.output, listed.output
    bad = runner.invoke(cli_app, [*args, "--arena", "45", "--move-hours", "24"])
    assert bad.exit_code == 2 and "real time" in bad.output
