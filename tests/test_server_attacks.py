"""What an attack run found in ``catsack serve``: each case as
the attacker tried it. SQLite and PostgreSQL where a database is involved."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient

from web_clients import ORIGIN, browser, finished_bot_game, register


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ---------------------------------------------------------------------- login lock-out


def _login(c: TestClient, name: str, password: str) -> int:
    return c.post("/api/account/login", json={"name": name, "password": password}, headers=ORIGIN).status_code


def test_wrong_passwords_from_one_address_do_not_lock_the_owner_out(app_server: Callable[..., TestClient]) -> None:
    """Five wrong passwords (and more) for a name from one address, then the owner's right password from
    another address: logged in. The guessing address itself waits. The budgets' clock stands still (it is
    injected): however slowly the requests go, no budget fills up again meanwhile."""
    c = app_server()
    c.app.state.budgets.clock = FakeClock()  # type: ignore[attr-defined]
    register(c, "Owner")
    c.post("/api/account/logout", headers=ORIGIN)
    attacker = browser(c, client=("203.0.113.9", 5000))
    codes = [_login(attacker, "Owner", f"guess {i}") for i in range(8)]
    assert codes[:5] == [401] * 5 and codes[-1] == 429, codes
    owner = browser(c, client=("198.51.100.2", 5000))
    assert _login(owner, "owner", "correct horse") == 200


@pytest.mark.parametrize("how", ["password", "delete"])
def test_password_change_and_deletion_are_throttled(app_server: Callable[..., TestClient], how: str) -> None:
    """``POST /api/account/password`` and ``DELETE /api/account`` test the password: 429 after a few wrong
    ones (on an injected clock that stands still, so the answer never depends on how fast they went)."""
    c = app_server()
    c.app.state.budgets.clock = FakeClock()  # type: ignore[attr-defined]
    register(c, "Victim")
    codes = []
    for i in range(12):
        if how == "password":
            r = c.post("/api/account/password", json={"old": f"guess {i}", "new": "new password"}, headers=ORIGIN)
        else:
            r = c.request("DELETE", "/api/account", json={"password": f"guess {i}"}, headers=ORIGIN)
        codes.append(r.status_code)
    assert codes[:5] == [403] * 5 and set(codes[5:]) == {429}, codes
    assert c.get("/api/account").json()["name"] == "Victim"  # still there, still logged in


async def _login_budgets(clock: FakeClock) -> None:
    from catsack.server.budgets import Budgets, LoginThrottle

    t = LoginThrottle(Budgets(clock=clock))
    for _ in range(5):
        assert await t.attempt("ann", "a") == 0
        await t.failed("ann", "a")
    assert await t.attempt("ann", "a") > 0
    assert await t.attempt("bob", "a") == 0  # another name from the same address
    assert await t.attempt("ann", "b") == 0  # the same name from another address
    clock.now += 600.0  # two windows of the pair budget later
    assert await t.attempt("ann", "a") == 0
    # A distributed attack: the name's budget (30 failures) spent from many addresses.
    for i in range(30):
        await t.failed("cleo", f"bot{i}")
    assert await t.attempt("cleo", "owner's new address") == 0  # the owner still gets in
    await t.failed("cleo", "bot99")  # a fresh attacking address: one guess, then minutes
    assert await t.attempt("cleo", "bot99") > 60
    clock.now += 600.0
    assert await t.attempt("cleo", "bot99") == 0


def test_login_throttle_budgets() -> None:
    """Per (name, address): five failures, then a wait. Per name over all addresses: once spent, each
    address gets one failure per few minutes, and a fresh address (the owner's) may still try."""
    asyncio.run(_login_budgets(FakeClock()))


async def _sprayed(clock: FakeClock) -> list[float]:
    from catsack.server.budgets import Budgets, LoginThrottle

    t = LoginThrottle(Budgets(clock=clock))
    return [await t.attempt(f"name{i}", "sprayer") for i in range(25)]


def test_login_throttle_counts_attempts_per_address() -> None:
    waits = asyncio.run(_sprayed(FakeClock()))
    assert waits[:20] == [0.0] * 20 and all(w > 0 for w in waits[20:])


# ---------------------------------------------------------------------- security headers

SECURITY_HEADERS = ("content-security-policy", "x-frame-options", "referrer-policy", "x-content-type-options")


def test_every_answer_carries_the_security_headers(app_server: Callable[..., TestClient]) -> None:
    """Pages, API answers, static files, the rules page, refusals of the framework and of the guard."""
    c = app_server(http_rate_burst=1, http_rate_per_second=0.01)
    answers = [
        c.get("/"),
        c.get("/t/abcdef"),
        c.get("/rules"),
        c.get("/static/table.js"),
        c.get("/api/tables"),
        c.get("/no/such/page"),
        c.post("/api/tables", json={"seats": 9}),
        c.post("/api/tables", json={"seats": 9}),  # the guard's 429
    ]
    assert answers[-1].status_code == 429
    for r in answers:
        missing = [h for h in SECURITY_HEADERS if h not in r.headers]
        assert not missing, (r.request.url, missing)
        assert r.headers["x-frame-options"] == "DENY"
    policy = answers[0].headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self';" in policy and "unsafe" not in policy
    # The API explorer is not served unless the operator asks for it (its scripts come from a CDN).
    assert c.get("/docs").status_code == 404 and c.get("/redoc").status_code == 404
    assert c.get("/openapi.json").status_code == 200


def test_the_api_explorer_is_served_only_when_asked_for(app_server: Callable[..., TestClient]) -> None:
    """With ``api_docs`` on, /docs and /redoc load their scripts from a CDN under a policy of their own
    that allows exactly that, and still cannot be framed; the client's pages keep the strict one."""
    c = app_server(api_docs=True)
    for path in ("/docs", "/redoc"):
        page = c.get(path)
        assert page.status_code == 200 and "cdn.jsdelivr.net" in page.text, path
        policy = page.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "https://cdn.jsdelivr.net" in policy, path
    assert "cdn" not in c.get("/").headers["content-security-policy"]


def test_the_client_pages_need_no_inline_script_or_style() -> None:
    """What a strict CSP would block: inline scripts, event handler attributes, style attributes."""
    import re
    from pathlib import Path

    import catsack.server

    static = Path(catsack.server.__file__).parent / "static"
    for page in sorted(static.glob("*.html")):
        html = page.read_text()
        for script in re.findall(r"<script\b[^>]*>", html):
            assert "src=" in script, (page.name, script)
        assert not re.search(r"\son\w+\s*=", html), page.name
        assert not re.search(r"\sstyle\s*=", html), page.name
        assert "<style" not in html, page.name


def test_nginx_tls_site_sends_hsts() -> None:
    from pathlib import Path

    conf = (Path(__file__).parents[1] / "deploy" / "nginx" / "catsack.conf").read_text()
    tls = conf[conf.index("listen 443") :]
    assert 'add_header Strict-Transport-Security "max-age=' in tls


# ---------------------------------------------------------------------- the analysis limit


def test_simultaneous_analyses_from_one_address_keep_the_limit(
    app_server: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four POSTs at once from one address (limit 2): two start, two are refused with 429. A slow
    step between the check and the start keeps all four inside the window the race needed."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    from catsack.server.people import analysis_jobs

    monkeypatch.setenv("CATSACK_ANALYSIS_LEVEL", "iters=4")
    c = app_server()
    table = finished_bot_game(c)
    plies = analysis_jobs.decision_plies

    def slow_plies(*args: object) -> list[int]:
        time.sleep(0.3)
        return plies(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis_jobs, "decision_plies", slow_plies)
    clients = [browser(c) for _ in range(4)]

    def start(seat: int) -> int:
        return clients[seat].post(f"/api/tables/{table}/analysis", json={"seat": seat}).status_code

    with ThreadPoolExecutor(4) as pool:
        codes = sorted(pool.map(start, range(4)))
    assert codes == [202, 202, 429, 429], codes


# ---------------------------------------------------------------------- SIGTERM and the workers


def _children(pid: int) -> set[int]:
    from pathlib import Path

    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    from pathlib import Path

    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"), reason="reads /proc")
def test_sigterm_ends_the_analysis_workers(tmp_path: object) -> None:
    """``catsack serve`` stopped with SIGTERM (systemd's way) while an analysis runs: no worker stays."""
    import json
    import time
    import urllib.request
    from pathlib import Path

    from server_procs import START_BOUND
    from test_browser import Server

    server = Server(Path(str(tmp_path)), {"CATSACK_ANALYSIS_LEVEL": "iters=5000"})
    try:
        server.start()

        def call(path: str, body: object = None) -> object:
            data = None if body is None else json.dumps(body).encode()
            req = urllib.request.Request(server.base + path, data=data, method="GET" if body is None else "POST")
            req.add_header("Content-Type", "application/json")
            with urllib.request.urlopen(req, timeout=10) as answer:
                return json.load(answer)

        table = call("/api/tables", {"seats": 3, "bots": {str(i): "random" for i in range(3)}})["table"]  # type: ignore[index]
        deadline = time.monotonic() + START_BOUND  # bounds a failure only: each wait is for a condition
        while call(f"/api/tables/{table}")["status"] != "over":  # type: ignore[index]
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert call(f"/api/tables/{table}/analysis", {"seat": 0})["status"] == "running"  # type: ignore[index]
        assert server.proc is not None
        workers: set[int] = set()
        while not workers:  # the pool starts its worker
            assert time.monotonic() < deadline
            workers = _children(server.proc.pid)
            time.sleep(0.05)
        server.proc.terminate()  # SIGTERM to the server alone, as systemd stops it: it must end its workers
        server.proc.wait(START_BOUND)
        deadline = time.monotonic() + START_BOUND
        while any(_alive(pid) for pid in workers):
            assert time.monotonic() < deadline, f"workers still running after SIGTERM: {workers}"
            time.sleep(0.05)
    finally:
        server.stop()  # whatever happened: nothing of it stays running


# ---------------------------------------------------------------------- private games, costly reads


def _wait_over(c: TestClient, table: str) -> None:
    import time

    deadline = time.monotonic() + 30
    while c.get(f"/api/tables/{table}").json()["status"] != "over":
        assert time.monotonic() < deadline, "the game did not end"
        time.sleep(0.02)


def _private_game(c: TestClient) -> tuple[str, str]:
    """A finished private game at which the logged-in account of ``c`` sat (seat 0, its token returned);
    a bot finished it for the account (the seat was taken over, as after a long absence)."""
    r = c.post(
        "/api/tables",
        json={"seats": 3, "bots": {"1": "random", "2": "random"}, "private": True, "player": "x"},
        headers=ORIGIN,
    )
    assert r.status_code == 201, r.text
    table, token = r.json()["table"], r.json()["token"]
    hub = c.app.state.hub  # type: ignore[attr-defined]
    c.portal.call(hub.replace, hub.tables[table], 0)  # type: ignore[union-attr]
    _wait_over(c, table)
    return table, token


def test_private_games_only_to_their_players(app_server: Callable[..., TestClient]) -> None:
    """A private game is not listed in a profile (nor named in its rating history) for others, and its
    replay, record and analysis are refused to them; its players (account or seat token) see all."""
    c = app_server()
    register(c, "Ann")
    table, token = _private_game(c)
    public = finished_bot_game(c, 3)
    stranger = browser(c)
    other = browser(c)
    register(other, "Bob")

    def listed(client: TestClient) -> set[str]:
        answer = client.get("/api/users/Ann").json()
        # The figures count it (a bot finished it: apart from the games played to the end); they name no game.
        assert (answer["games"], answer["finished_by_bot"]) == (0, 1)
        return {g["table"] for g in answer["recent"]}

    assert listed(c) == {table}
    assert listed(stranger) == set() and listed(other) == set()
    paths = [
        f"/api/tables/{table}/replay",
        f"/api/tables/{table}/replay?perspective=all",
        f"/api/tables/{table}/record",
        f"/api/tables/{table}/analysis?seat=0",
    ]
    for who in (stranger, other):
        for path in paths:
            r = who.get(path)
            assert r.status_code == 403 and r.json()["code"] == "private_game", (path, r.text)
        r = who.post(f"/api/tables/{table}/analysis", json={"seat": 1})
        assert r.status_code == 403 and r.json()["code"] == "private_game"
    for path in paths:
        assert c.get(path).status_code == 200, path  # the account that sat there
        assert stranger.get(path, headers={"Authorization": f"Bearer {token}"}).status_code == 200, path
    assert stranger.get(f"/api/tables/{public}/replay").status_code == 200  # public games stay open


def test_profiles_and_replays_are_not_rebuilt_on_every_request(app_server: Callable[..., TestClient]) -> None:
    """The second profile request replays no game, and a cached replay is answered before any rebuild."""
    c = app_server()
    register(c, "Cal")
    table, _token = _private_game(c)
    store = c.app.state.hub.store  # type: ignore[attr-defined]
    loads: list[str] = []
    load = store.load

    def counted(table_id: str) -> object:
        loads.append(table_id)
        return load(table_id)

    store.load = counted
    assert c.get("/api/users/Cal").json()["finished_by_bot"] == 1
    first = len(loads)
    assert c.get("/api/users/Cal").json()["finished_by_bot"] == 1
    assert len(loads) == first  # nothing replayed the second time
    assert c.get(f"/api/tables/{table}/replay").status_code == 200
    built = len(loads)
    assert c.get(f"/api/tables/{table}/replay").status_code == 200
    assert len(loads) == built  # served from the cache


def test_expensive_reads_are_budgeted_per_address(app_server: Callable[..., TestClient]) -> None:
    c = app_server(expensive_gets_burst=3, expensive_gets_per_second=0.01)
    register(c, "Dee")
    codes = [c.get("/api/users/Dee").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    r = c.get("/api/leaderboard")
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    elsewhere = browser(c, client=("198.51.100.9", 1))
    assert elsewhere.get("/api/users/Dee").status_code == 200
    assert c.get("/api/tables").status_code == 200  # cheap reads are not counted


# ---------------------------------------------------------------------- wall-clock budgets


def test_search_with_a_time_budget_keeps_its_floor_and_its_cap() -> None:
    """``seconds`` with ``min_iterations``: however soon the time is up, at least the floor; never more
    than ``iterations``. Without ``seconds`` an iteration budget is reproducible for a seed."""
    import random

    from catsack.bots import expert
    from catsack.game import Game

    game = Game.new(4, seed=3)
    view = game.view(game.to_move)  # type: ignore[arg-type]
    floor = expert.search(view, random.Random(1), seconds=0.0, min_iterations=200)
    assert 200 <= floor.iterations < 200 + 16  # the clock is read every 16 iterations
    capped = expert.search(view, random.Random(1), iterations=50, seconds=0.0, min_iterations=500)
    assert capped.iterations == 50
    a = expert.search(view, random.Random(7), iterations=300)
    b = expert.search(view, random.Random(7), iterations=300)
    assert (a.best, a.visits, a.margins) == (b.best, b.visits, b.margins)


def test_bot_move_in_a_thinking_process_respects_its_deadline() -> None:
    """The worker's move for an expert whose deadline has passed: searched with the floor only (fast),
    a legal move of the view it was given."""
    import time

    from catsack.game import Game
    from catsack.moves import Move
    from catsack.server.tables.think_worker import bot_move

    game = Game.new(3, seed=5)
    seat = game.to_move
    assert seat is not None
    view = game.view(seat)
    t0 = time.process_time()
    text = bot_move("expert", 1, seat, 3, [None, "expert", "expert"], view, time.time() - 1.0, 100)
    assert Move.parse(text) in view.legal
    assert time.process_time() - t0 < 5.0  # not the 7,000 iterations of a full budget on a loaded machine


# ---------------------------------------------------------------------- a bot's move time tells nothing


def test_bot_moves_are_due_after_a_drawn_delay_whatever_their_options(tmp_path: object) -> None:
    """Every bot move of a whole game is committed exactly at its drawn delay after its turn began, whether
    the bot had one legal move (a forced pass) or a choice that took it long to search: the time of the
    move is the delay, and the delay is drawn without the view. The clock is injected: nothing waits."""
    import asyncio
    import random

    from catsack.server.settings import Settings
    from catsack.server.tables.hub import Hub
    from catsack.server.tables.thinking import Pace, Plan

    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.now += seconds
        await asyncio.sleep(0)

    async def scenario() -> list[tuple[bool, float, float]]:
        hub = Hub(Settings(database_url=f"sqlite:///{tmp_path}/pace.db", sweep_seconds=3600))
        hub.pace = Pace(0.8, 0.4, 0.6, rng=random.Random(5), clock=clock, sleep=sleep)
        plans: list[Plan] = []
        plan = hub.pace.plan

        def recorded() -> Plan:
            plans.append(plan())
            return plans[-1]

        hub.pace.plan = recorded  # type: ignore[method-assign]
        moves: list[tuple[bool, float, float]] = []  # (forced, elapsed, drawn delay)
        decide = hub.turns.decide

        async def thinking(table: Any, seat: int, spec: str, until: float) -> Any:
            forced = len(table.game.legal_moves()) == 1
            if not forced:  # a choice: search until the deadline
                clock.now = max(clock.now, until)
            move = await decide(table, seat, spec, until)
            started = plans[-1]
            commit = hub.commit

            async def timed(*args: Any) -> Any:
                moves.append((forced, clock.now - started.start, started.due - started.start))
                hub.commit = commit  # type: ignore[method-assign]
                return await commit(*args)

            hub.commit = timed  # type: ignore[method-assign]
            return move

        hub.turns.decide = thinking  # type: ignore[method-assign]
        await hub.start()
        try:
            table = await hub.create(
                3, {i: "heuristic" for i in range(3)}, name="pace", money_visible=False, turn_seconds=None, hints=False
            )
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 300.0  # a bound on a stuck game, not a timing: the bots think in threads
            while not table.game.is_over and loop.time() < deadline:
                await asyncio.sleep(0.001)
            assert table.game.is_over
        finally:
            await hub.stop()
        return moves

    moves = asyncio.run(scenario())
    assert len(moves) >= 27  # every bot move of the game
    assert any(f for f, _, _ in moves) and not all(f for f, _, _ in moves)
    for forced, elapsed, delay in moves:
        assert elapsed == pytest.approx(delay), (forced, elapsed, delay)
        assert 0.8 <= delay <= 1.2


def test_a_move_is_released_when_due_even_when_its_search_overruns(tmp_path: object) -> None:
    """On a machine so loaded that searches overrun: every searched move with a choice answers only long
    after it is due (its search never comes back in time), every forced move at once. All are still
    released exactly at their drawn delay; the overrun ones are the stand-in's moves, worked out when
    the turn began. So the release time is the same function of the draw for both kinds (R23, R24).
    The clock is injected: nothing waits."""
    import asyncio
    import random

    from catsack.moves import Move
    from catsack.server.settings import Settings
    from catsack.server.tables.hub import Hub
    from catsack.server.tables.thinking import Pace, Plan

    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.now += seconds
        await asyncio.sleep(0)

    async def scenario() -> list[tuple[bool, float, float, str, str]]:
        hub = Hub(Settings(database_url=f"sqlite:///{tmp_path}/overrun.db", sweep_seconds=3600))
        hub.pace = Pace(0.8, 0.4, 0.6, rng=random.Random(7), clock=clock, sleep=sleep)
        plans: list[Plan] = []
        plan = hub.pace.plan

        def recorded() -> Plan:
            plans.append(plan())
            return plans[-1]

        hub.pace.plan = recorded  # type: ignore[method-assign]
        standin = hub.turns.standin_move
        fallbacks: list[Move] = []

        def remembered(table: Any, seat: int) -> Move:
            fallbacks.append(standin(table, seat))
            return fallbacks[-1]

        hub.turns.standin_move = remembered  # type: ignore[method-assign]
        never: asyncio.Future[Move] = asyncio.get_running_loop().create_future()

        async def thinking(table: Any, seat: int, spec: str, until: float) -> Move:
            legal = table.game.legal_moves()
            if len(legal) == 1:
                return legal[0]  # a forced move: back at once
            return await never  # the search of a move with a choice is still running when the move is due

        moves: list[tuple[bool, float, float, str, str]] = []  # (forced, elapsed, delay, played, stand-in's)
        commit = hub.commit

        async def timed(table: Any, seat: int, move: Move, *args: Any) -> Any:
            started = plans[-1]
            forced = len(table.game.legal_moves()) == 1
            elapsed, delay = clock.now - started.start, started.due - started.start
            moves.append((forced, elapsed, delay, move.text, fallbacks[-1].text))
            return await commit(table, seat, move, *args)

        hub.turns.decide = thinking  # type: ignore[method-assign]
        hub.commit = timed  # type: ignore[method-assign]
        await hub.start()
        try:
            table = await hub.create(
                3, {i: "expert" for i in range(3)}, name="overrun", money_visible=False, turn_seconds=None, hints=False
            )
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60.0  # a bound on a game stuck waiting for a search, not a timing
            while not table.game.is_over and loop.time() < deadline:
                await asyncio.sleep(0.001)
            assert table.game.is_over, "a move waited for its search"
        finally:
            never.cancel()
            await hub.stop()
        return moves

    moves = asyncio.run(scenario())
    assert len(moves) >= 27 and any(m[0] for m in moves) and not all(m[0] for m in moves)
    for forced, elapsed, delay, played, standin in moves:
        assert elapsed == pytest.approx(delay), (forced, elapsed, delay)
        assert 0.8 <= delay <= 1.2
        assert forced or played == standin  # the overrun search's answer was not waited for


def test_the_stand_in_moves_are_worked_out_only_where_they_may_be_played(tmp_path: object) -> None:
    """A bot of this process answers before its move is due, so no stand-in's move is worked out for
    its turns (for every turn it cost more CPU than the bots' own moves, and filled the stand-in bot's
    process-wide caches with every game's rows: tests/test_server_memory.py). Where such a bot fails, the
    stand-in's move is worked out then and played, and the game goes on. The clock is injected."""
    import asyncio
    import random

    from catsack.moves import Move
    from catsack.server.settings import Settings
    from catsack.server.tables.hub import Hub
    from catsack.server.tables.thinking import Pace

    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.now += seconds
        await asyncio.sleep(0)

    async def scenario() -> tuple[int, list[str], list[str]]:
        hub = Hub(Settings(database_url=f"sqlite:///{tmp_path}/standin.db", sweep_seconds=3600))
        hub.pace = Pace(0.8, 0.4, 0.6, rng=random.Random(7), clock=clock, sleep=sleep)
        standin = hub.turns.standin_move
        fallbacks: list[str] = []

        def remembered(table: Any, seat: int) -> Move:
            fallbacks.append(standin(table, seat).text)
            return Move.parse(fallbacks[-1])

        hub.turns.standin_move = remembered  # type: ignore[method-assign]
        decide = hub.turns.decide
        calls = 0

        async def failing(table: Any, seat: int, spec: str, until: float) -> Move:
            nonlocal calls
            calls += 1
            if calls % 7 == 0:
                raise RuntimeError("this bot failed")
            return await decide(table, seat, spec, until)

        hub.turns.decide = failing  # type: ignore[method-assign]
        failed: list[str] = []
        commit = hub.commit

        async def played(table: Any, seat: int, move: Move, *args: Any) -> Any:
            if calls % 7 == 0:
                failed.append(move.text)
            return await commit(table, seat, move, *args)

        hub.commit = played  # type: ignore[method-assign]
        await hub.start()
        try:
            table = await hub.create(
                3, {i: "random" for i in range(3)}, name="standin", money_visible=False, turn_seconds=None, hints=False
            )
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 60.0  # a bound on a stuck game, not a timing
            while not table.game.is_over and loop.time() < deadline:
                await asyncio.sleep(0.001)
            assert table.game.is_over, "the game stopped at a failed bot"
        finally:
            await hub.stop()
        return calls, fallbacks, failed

    calls, fallbacks, failed = asyncio.run(scenario())
    assert calls >= 27
    assert len(fallbacks) == calls // 7 >= 3  # one stand-in's move per failure, none for the other turns
    assert failed == fallbacks  # and each failed turn played it


def test_pace_draws_delays_without_the_view() -> None:
    """The delay distribution is the same for every move: a plan takes no view, and two paces with the
    same seed draw the same delays whatever games they time."""
    import inspect
    import random

    from catsack.server.tables.thinking import Pace

    assert list(inspect.signature(Pace.plan).parameters) == ["self"]
    clock = FakeClock()
    a = Pace(0.8, 0.4, 0.6, rng=random.Random(2), clock=clock)
    b = Pace(0.8, 0.4, 0.6, rng=random.Random(2), clock=clock)
    plans = [(a.plan(), b.plan()) for _ in range(50)]
    assert all(p.due == q.due and p.think_until <= p.due for p, q in plans)
    assert all(p.think_until - p.start == pytest.approx(0.6) for p, _ in plans)  # below every delay


# ---------------------------------------------------------------------- hints


def test_one_hint_at_a_time_per_seat_and_a_bound_per_process(tmp_path: object) -> None:
    """Two connections of one seat ask at once: one hint is worked out, the other is refused. With the
    process's bound reached, another table's seat is told the server is busy. The hint itself comes from
    a thinking process (the expert's advice at the seat's view)."""
    import asyncio

    from catsack.server.settings import Settings
    from catsack.server.tables.hub import Hub
    from catsack.server.tables.live import Conn

    async def scenario() -> None:
        hub = Hub(
            Settings(
                database_url=f"sqlite:///{tmp_path}/hints.db",
                sweep_seconds=3600,
                hint_max_running=1,
                hint_seconds=0.0,
                think_min_iterations=50,
            )
        )
        await hub.start()
        release = asyncio.Event()
        real = hub.thinkers.hint
        asked: list[int] = []

        async def held(view: Any, players: Any) -> Any:
            asked.append(view.seat)
            await release.wait()
            return await real(view, players)

        hub.thinkers.hint = held  # type: ignore[method-assign]

        async def sink(_text: str) -> None:
            return None

        try:
            tables = []
            for name in ("one", "two"):
                t = await hub.create(3, {}, name=name, money_visible=False, turn_seconds=None, hints=True)
                for who in ("Ann", "Bea", "Cal"):
                    await hub.join(t, who, None)
                tables.append(t)
            a, b = tables
            seat = a.game.to_move
            conns = [Conn(sink, seat, None) for _ in range(2)]
            for c in conns:
                hub.attach(a, c)
            other = Conn(sink, b.game.to_move, None)
            hub.attach(b, other)
            first = asyncio.create_task(hub.hint(conns[0]))
            for _ in range(1000):
                if asked:
                    break
                await asyncio.sleep(0)
            assert asked == [seat]
            second = await hub.hint(conns[1])  # the same seat, another connection
            assert second["type"] == "error" and second["code"] == "rate_limited"
            busy = await hub.hint(other)  # the process's bound
            assert busy["type"] == "error" and busy["code"] == "busy"
            release.set()
            answer = await first
            assert answer["type"] == "hint" and answer["best"] in answer["values"]
            assert {m.text for m in a.game.legal_moves()} >= set(answer["values"])
            assert "hints" in hub.thinkers.pools  # worked out in a process of its own
            again = await hub.hint(other)  # the slot is free again
            assert again["type"] == "hint"
        finally:
            await hub.stop()

    asyncio.run(scenario())


def test_a_failed_search_does_not_stop_the_table(tmp_path: object) -> None:
    """A thinking process that dies (killed, out of memory) costs one move's search: the stand-in bot
    plays that move and the game goes on."""
    import asyncio

    from catsack.server.settings import Settings
    from catsack.server.tables.hub import Hub

    async def scenario() -> bool:
        hub = Hub(Settings(database_url=f"sqlite:///{tmp_path}/dead.db", sweep_seconds=3600, bot_delay=0.0))

        async def dead(*_args: Any) -> str:
            raise RuntimeError("the thinking process died")

        hub.thinkers.move = dead  # type: ignore[method-assign]
        await hub.start()
        try:
            table = await hub.create(
                3, {i: "expert" for i in range(3)}, name="d", money_visible=False, turn_seconds=None, hints=False
            )
            for _ in range(3000):
                if table.game.is_over:
                    break
                await asyncio.sleep(0.01)
            return table.game.is_over
        finally:
            await hub.stop()

    assert asyncio.run(scenario())


def test_a_forced_move_searches_as_a_choice_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a busy machine a search may end after the move was due: a forced move must not come sooner
    then, so it searches with the same budget and floor (R23, R24: a forced pass says "I cannot outbid")."""
    import random
    import time

    from catsack.bots.expert import bot as expert  # the module whose search the bot calls
    from catsack.game import Game
    from catsack.server.tables.think_worker import bot_move

    rng = random.Random(4)
    game = Game.new(4, seed=4)
    while True:  # a position whose player may only pass
        view = game.view(game.to_move)  # type: ignore[arg-type]
        if len(view.legal) == 1 and view.legal[0].text == "pass":
            break
        game.play(rng.choice(game.legal_moves()))
        assert not game.is_over
    searched: list[int] = []
    real = expert.search

    def counted(*args: Any, **kw: Any) -> Any:
        stats = real(*args, **kw)
        searched.append(stats.iterations)
        return stats

    monkeypatch.setattr(expert, "search", counted)
    seat = view.seat
    assert seat is not None
    text = bot_move("expert:strong", 1, seat, 4, [None] * 4, view, time.time() - 1.0, 120)
    assert text == "pass" and len(searched) == 1 and searched[0] >= 120


def test_a_queue_shortens_every_search_instead_of_delaying_every_answer() -> None:
    import time

    from catsack.server.settings import Settings
    from catsack.server.tables.thinking import Thinkers

    t = Thinkers(Settings(think_workers=2, hint_workers=1))
    t.waiting["bots"] = 4  # twice as many decisions waiting as workers: half the time each
    deadline = time.time() + 10.0
    assert t.shared_deadline("bots", deadline) - time.time() == pytest.approx(5.0, abs=0.5)
    t.waiting["bots"] = 1
    assert t.shared_deadline("bots", deadline) == pytest.approx(deadline, abs=0.01)
