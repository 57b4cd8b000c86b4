"""The game database (docs/database.md): the monthly dumps of finished public games, their listing, the
explorer's figures and ``catsack db dump``.

The games are written straight into a SQLite store with chosen end times (three months around a fixed "now"
the database is told through its clock), played by seeded random moves after an opening chosen by hand where
a test checks figures (round 1, R10-R17).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import statistics
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sqlalchemy import update

from catsack.cards import Card
from catsack.game import Game
from catsack.record import loads_record, record_from_game
from catsack.server.people.explorer import Tally, quantile, stats
from catsack.server.people.gamedb import EMPTY, REFRESH_SECONDS, SETTLE_SECONDS, GameDatabase, MonthError, parse_month
from catsack.server.storage.store import Append, SeatRow, Store, tables_t
from catsack.setup import Setup


def at(text: str) -> float:
    """``"2026-12-10 12:00"`` (UTC) as epoch seconds."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=UTC).timestamp()


NOW = at("2026-12-10 12:00")
P = Card.parse


def finish(game: Game, seed: int) -> Game:
    """Play ``game`` to its end with seeded random legal moves."""
    rng = random.Random(seed)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game


def put_game(
    store: Store,
    table_id: str,
    finished: float,
    *,
    seats: int = 4,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    agents: Sequence[str] | None = None,
    setup: Setup | None = None,
    opening: Sequence[str] = (),
) -> Game:
    """A finished game stored as the server stores one (setup, seats, action log), ended at ``finished``.
    ``agents``: per seat ``"human"`` (a guest named after the seat) or a bot level."""
    from catsack.server.tables.live import setup_to_json

    setup = setup or Setup.deal(seats, seed)
    game = Game(setup)
    for move in opening:
        game.play(move)
    finish(game, seed)
    kinds = list(agents or ["random"] * setup.seats)
    rows = [
        SeatRow(i, "human", f"P{i + 1}", None, None, False) if k == "human" else SeatRow(i, "bot", None, k, None, False)
        for i, k in enumerate(kinds)
    ]
    store.create_table(table_id, f"game {table_id}", rows, dict(options or {}), setup_to_json(setup), "playing")
    replay = Game(setup)
    items = []
    for v, move in enumerate(game.moves, start=1):
        seat = replay.to_move
        assert seat is not None
        replay.play(move)
        items.append(Append(table_id, v, seat, move.text, None, "bot", "over" if replay.is_over else "playing", None))
    assert store.append_batch(items) == [None] * len(items)
    with store.engine.begin() as conn:
        conn.execute(update(tables_t).where(tables_t.c.id == table_id).values(finished=finished))
    return game


def running_tournament(store: Store) -> str:
    """A duplicate tournament in its round 1 (what an embargo waits for): its id."""
    from catsack.server.tournaments.model import Tournaments, tournaments_t

    t = Tournaments(store.engine).create("Dup", 4, 2, {"duplicate": True}, creator=None)
    with store.engine.begin() as conn:
        conn.execute(update(tournaments_t).where(tournaments_t.c.id == t.id).values(status="running", current_round=1))
    return t.id


def score_round(store: Store, tid: str) -> None:
    from catsack.server.tournaments.model import tournaments_t

    with store.engine.begin() as conn:
        conn.execute(update(tournaments_t).where(tournaments_t.c.id == tid).values(current_round=2))


@dataclass
class Clock:
    now: float = NOW

    def __call__(self) -> float:
        return self.now


@dataclass
class World:
    c: TestClient
    store: Store
    clock: Clock
    folder: Path
    tid: str
    public: dict[str, list[str]]  # month -> table ids, in dump order

    @property
    def db(self) -> GameDatabase:
        found: GameDatabase = self.c.app.state.gamedb  # type: ignore[attr-defined]
        return found

    def listing(self) -> dict[str, Any]:
        r = self.c.get("/api/database")
        assert r.status_code == 200, r.text
        body: dict[str, Any] = r.json()
        return body

    def download(self, month: str) -> bytes:
        r = self.c.get(f"/api/database/catsack-{month}.jsonl.gz")
        assert r.status_code == 200, r.text
        assert r.headers["content-type"] == "application/gzip"
        assert "content-encoding" not in r.headers
        return r.content


def lines(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in gzip.decompress(data).decode("utf-8").splitlines()]


def app_for(tmp_path: Path, **settings: Any) -> TestClient:
    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app

    base = {
        "database_url": f"sqlite:///{tmp_path}/app.db",
        "bot_delay": 0.0,
        "expensive_gets_burst": 10_000,
        "metrics": False,
        **settings,
    }
    return TestClient(create_app(Settings(**base)))


def make_world(url: str, folder: Path) -> Iterator[World]:
    """Public games in October, November and December 2026 ("now" is 10 December, noon), a private game, a
    game of a duplicate round still played (2 December), and the folder the dumps go to."""
    with app_for(folder.parent, database_url=url, gamedb_dir=str(folder)) as c:
        hub = c.app.state.hub  # type: ignore[attr-defined]
        store: Store = hub.store
        clock = Clock()
        c.app.state.gamedb = GameDatabase(hub, folder, clock=clock)  # type: ignore[attr-defined]
        tid = running_tournament(store)
        put_game(store, "oct1", at("2026-10-05 10:00"), seed=1)
        put_game(store, "nov1", at("2026-11-03 09:00"), seed=2, seats=3)
        people = ["human", "random", "human", "heuristic", "heuristic"]
        put_game(store, "nov2", at("2026-11-03 08:00"), seed=3, seats=5, agents=people)
        put_game(store, "novpriv", at("2026-11-04 10:00"), seed=4, options={"private": True})
        put_game(store, "dec1", at("2026-12-01 10:00"), seed=5)
        put_game(store, "decemb", at("2026-12-02 10:00"), seed=6, options={"embargo": {"tournament": tid, "round": 1}})
        put_game(store, "dec2", at("2026-12-10 11:00"), seed=7)
        public = {"2026-10": ["oct1"], "2026-11": ["nov2", "nov1"], "2026-12": ["dec1", "dec2"]}
        yield World(c, store, clock, folder, tid, public)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """:func:`make_world` on SQLite."""
    yield from make_world(f"sqlite:///{tmp_path}/app.db", tmp_path / "dumps")


@pytest.fixture
def any_world(db_url: str, tmp_path: Path) -> Iterator[World]:
    """:func:`make_world` on SQLite and on PostgreSQL (tests/conftest.py's ``db_url``)."""
    yield from make_world(db_url, tmp_path / "dumps")


# ---------------------------------------------------------------------- the dumps


def test_dumps_hold_finished_public_games_as_records_that_replay(any_world: World) -> None:
    """Each month's dump holds exactly its public games, in the order they ended, one catsack/1 record a
    line that replays to a finished game (R20); the private game and the embargoed one are in none."""
    world = any_world
    body = world.listing()
    assert body["format"] == "catsack-database/1"
    assert [d["month"] for d in body["dumps"]] == ["2026-12", "2026-11", "2026-10"]
    assert [d["complete"] for d in body["dumps"]] == [False, True, True]
    for entry in body["dumps"]:
        records = lines(world.download(entry["month"]))
        assert [r["table"] for r in records] == world.public[entry["month"]]
        assert entry["games"] == len(records)
        for r in records:
            assert r["format"] == "catsack/1"
            record = loads_record(json.dumps(r))
            assert not record.is_redacted and record.to_game().is_over
    assert body["games"] == 5


def test_a_dumped_record_is_what_the_public_record_route_gives(world: World) -> None:
    """Nothing R23 hides is in a dump beyond what a finished public game's record shows to anyone: each line
    is exactly the body of ``/api/tables/{id}/record`` (removed cards, the dummy deck and all, as the
    replay's "all" perspective shows them)."""
    for month in world.public:
        for record in lines(world.download(month)):
            r = world.c.get(f"/api/tables/{record['table']}/record")
            assert r.status_code == 200, r.text
            assert record == r.json()
    three = lines(world.download("2026-11"))[1]
    assert three["seats"] == 3 and len(three["dummy"]) == 9
    # The 5-seat game: the people's seats say "human", the bots' their level.
    assert lines(world.download("2026-11"))[0]["agents"] == ["human", "random", "human", "heuristic", "heuristic"]


def test_a_duplicate_rounds_game_comes_in_once_the_round_is_scored(world: World) -> None:
    """While the round is played at other tables the game is in no dump and its day stays open (not
    written); once the round is scored it is in December's dump at the next refresh."""
    assert "decemb" not in [r["table"] for r in lines(world.download("2026-12"))]
    days = world.folder / "days"
    assert (days / "2026-12-01.jsonl.gz").is_file()
    assert not (days / "2026-12-02.jsonl.gz").exists()
    score_round(world.store, world.tid)
    assert "decemb" not in [r["table"] for r in lines(world.download("2026-12"))]  # until the refresh
    world.clock.now += REFRESH_SECONDS
    assert [r["table"] for r in lines(world.download("2026-12"))] == ["dec1", "decemb", "dec2"]
    assert (days / "2026-12-02.jsonl.gz").is_file()


def test_an_embargo_holds_its_month_open_past_its_end(world: World) -> None:
    """A month ends complete only when no game of it waits for its round: December, over on 1 January, stays
    open while the round is played, and is written whole once it is scored."""
    world.clock.now = at("2027-01-02 00:00")
    december = next(d for d in world.listing()["dumps"] if d["month"] == "2026-12")
    assert december["complete"] is False
    assert not (world.folder / "catsack-2026-12.jsonl.gz").exists()
    score_round(world.store, world.tid)
    world.clock.now += REFRESH_SECONDS
    december = next(d for d in world.listing()["dumps"] if d["month"] == "2026-12")
    assert december["complete"] is True and december["games"] == 3
    assert (world.folder / "catsack-2026-12.jsonl.gz").is_file()
    assert sorted(p.name for p in (world.folder / "days").iterdir()) == []


def test_the_listing_sizes_and_checksums_are_the_files(world: World) -> None:
    """Every listed size and SHA-256 is the downloaded file's; the ETag and Repr-Digest name the same
    checksum, If-None-Match answers 304, and a complete month answers a range of its bytes."""
    for entry in world.listing()["dumps"]:
        r = world.c.get(entry["url"])
        assert r.status_code == 200
        assert len(r.content) == entry["bytes"]
        assert hashlib.sha256(r.content).hexdigest() == entry["sha256"]
        assert r.headers["etag"] == f'"{entry["sha256"]}"'
        assert r.headers["content-length"] == str(entry["bytes"])
        again = world.c.get(entry["url"], headers={"If-None-Match": r.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        if entry["complete"]:
            assert "max-age" in r.headers["cache-control"]
            part = world.c.get(entry["url"], headers={"Range": "bytes=0-9"})
            assert part.status_code == 206 and part.content == r.content[:10]
        else:
            assert r.headers["cache-control"] == "no-cache"


def test_complete_months_are_written_once_and_open_days_at_most_every_refresh(world: World) -> None:
    """October and November are files of their own (their days' files gone), December's closed day is in the
    folder; a game stored later with an end time in a written day changes nothing (written once), one that
    ends today shows after the refresh interval only: a request rebuilds at most the open days."""
    before = world.listing()
    assert sorted(p.name for p in world.folder.glob("catsack-*")) == [
        "catsack-2026-10.json",
        "catsack-2026-10.jsonl.gz",
        "catsack-2026-11.json",
        "catsack-2026-11.jsonl.gz",
    ]
    # December's closed days (the empty ones too, so that they are not looked at again); not the 2nd (its
    # embargo holds it open) nor today.
    written = {p.name: p.stat().st_size for p in (world.folder / "days").glob("*.jsonl.gz")}
    assert sorted(written) == [f"2026-12-{d:02d}.jsonl.gz" for d in (1, 3, 4, 5, 6, 7, 8, 9)]
    assert [name for name, size in written.items() if size] == ["2026-12-01.jsonl.gz"]
    put_game(world.store, "late", at("2026-11-20 10:00"), seed=8)
    put_game(world.store, "dec3", at("2026-12-10 11:30"), seed=9)
    world.clock.now += REFRESH_SECONDS / 2
    assert world.listing()["dumps"] == before["dumps"]
    world.clock.now += REFRESH_SECONDS / 2
    after = {d["month"]: d for d in world.listing()["dumps"]}
    assert [r["table"] for r in lines(world.download("2026-12"))] == ["dec1", "dec2", "dec3"]
    assert after["2026-11"] == next(d for d in before["dumps"] if d["month"] == "2026-11")
    # Past the day's settling time, today is written too.
    world.clock.now = at("2026-12-11 00:00") + SETTLE_SECONDS
    world.listing()
    assert (world.folder / "days" / "2026-12-10.jsonl.gz").is_file()


def test_a_new_process_reads_the_written_months(world: World, tmp_path: Path) -> None:
    """Another process sharing the folder answers the written months from their files (the same bytes),
    without the games that were deleted meanwhile."""
    first = {d["month"]: d for d in world.listing()["dumps"]}
    world.store.delete_tables(["oct1"])
    other = GameDatabase(world.db.hub, world.folder, clock=world.clock)
    october = world.c.portal.call(other.dump, "2026-10")  # type: ignore[union-attr]
    assert october is not None and october.sha256 == first["2026-10"]["sha256"] and october.games == 1


def test_a_month_another_process_wrote_whole_meanwhile_is_served_from_its_file(world: World) -> None:
    """One process lists December from its days; another, an hour into January, writes December whole and
    removes the days' files; the first answers December's download from the new file."""
    score_round(world.store, world.tid)
    world.clock.now = at("2026-12-31 23:00")
    assert next(d for d in world.listing()["dumps"] if d["month"] == "2026-12")["complete"] is False
    later = GameDatabase(world.db.hub, world.folder, clock=lambda: at("2027-01-01 01:00"))
    december = world.c.portal.call(later.dump, "2026-12")  # type: ignore[union-attr]
    assert december is not None and december.complete
    assert not list((world.folder / "days").glob("2026-12-*"))
    data = world.download("2026-12")
    assert data == (world.folder / "catsack-2026-12.jsonl.gz").read_bytes()
    assert [r["table"] for r in lines(data)] == ["dec1", "decemb", "dec2"]


def test_a_removed_month_is_written_again_with_the_same_bytes(world: World) -> None:
    """A complete month's files removed by hand are built again from the database at the next download,
    byte for byte the same (nothing in a dump depends on when it was written)."""
    before = {d["month"]: d for d in world.listing()["dumps"]}
    first = world.download("2026-10")
    for name in ("catsack-2026-10.jsonl.gz", "catsack-2026-10.json"):
        (world.folder / name).unlink()
    assert world.download("2026-10") == first
    assert hashlib.sha256(first).hexdigest() == before["2026-10"]["sha256"]
    assert (world.folder / "catsack-2026-10.jsonl.gz").is_file()


def test_an_empty_current_month_is_a_valid_empty_gzip(tmp_path: Path) -> None:
    """Before any game the listing holds the current month alone, with no games, as an empty gzip file."""
    with app_for(tmp_path) as c:
        body = c.get("/api/database").json()
        assert len(body["dumps"]) == 1 and body["dumps"][0]["games"] == 0 and body["games"] == 0
        data = c.get(body["dumps"][0]["url"]).content
        assert data == EMPTY and gzip.decompress(data) == b""
        assert c.get("/api/database/explorer").json()["games"] == 0


# ---------------------------------------------------------------------- bounded input


#: Months refused, with what the refusal says.
BAD_MONTHS = [
    ("2026-13", "the month must be 01 to 12, not 13"),
    ("2026-00", "the month must be 01 to 12, not 00"),
    ("2026-1", "a month is written YYYY-MM (like 2026-11), not '2026-1'"),
    ("26-11", "YYYY-MM"),
    ("november", "YYYY-MM"),
    ("1969-12", "the year must be 1970 or later"),
    ("2026-11-01", "YYYY-MM"),
    ("x" * 5000, "not 'xxxxxxxxxxxxxxxxxxxx'…"),
]


def test_a_bad_month_is_refused_naming_what_is_wrong(tmp_path: Path) -> None:
    """A 422 with the code ``bad_month`` and a short message saying what is wrong, before any work."""
    with app_for(tmp_path) as c:
        for month, words in BAD_MONTHS:
            r = c.get(f"/api/database/catsack-{month}.jsonl.gz")
            assert r.status_code == 422, month
            body = r.json()
            assert body["code"] == "bad_month" and words in body["detail"], body
            assert len(body["detail"]) < 200
            with pytest.raises(MonthError):
                parse_month(month)


def test_a_month_without_a_dump_is_not_found_naming_the_months_held(world: World) -> None:
    for month in ("2031-01", "2026-09"):
        r = world.c.get(f"/api/database/catsack-{month}.jsonl.gz")
        assert r.status_code == 404
        assert r.json()["code"] == "no_dump"
        assert r.json()["params"] == {"month": month, "first": "2026-10", "last": "2026-12"}
        assert "2026-10 to 2026-12" in r.json()["detail"]
    assert world.c.get("/api/database/other.gz").status_code == 404


# ---------------------------------------------------------------------- catsack db dump


def test_db_dump_writes_the_files_the_server_serves(tmp_path: Path) -> None:
    """``catsack db dump FOLDER`` writes each month's dump with the bytes the server answers (complete months and
    the current month so far) and a SHA256SUMS of them; the server's listing names the same checksums."""
    from typer.testing import CliRunner

    from catsack.cli import app as cli

    now = datetime.now(UTC)
    this_month = datetime(now.year, now.month, 1, tzinfo=UTC).timestamp()
    with app_for(tmp_path) as c:
        store: Store = c.app.state.hub.store  # type: ignore[attr-defined]
        put_game(store, "old", this_month - 40 * 86400, seed=11)
        put_game(store, "older", this_month - 70 * 86400, seed=12, options={"private": True})
        put_game(store, "new", this_month + 60, seed=13)
        listing = c.get("/api/database").json()["dumps"]
        served = {d["file"]: c.get(d["url"]).content for d in listing}
        out = tmp_path / "out"
        url = f"sqlite:///{tmp_path}/app.db"
        result = CliRunner().invoke(cli, ["db", "dump", str(out), "--database-url", url, "-q"])
        assert result.exit_code == 0, result.output
    assert "wrote 2 dumps and SHA256SUMS" in result.output
    written = {p.name: p.read_bytes() for p in out.glob("catsack-*.jsonl.gz")}
    assert written == served
    sums = (out / "SHA256SUMS").read_text().splitlines()
    assert sorted(sums) == sorted(f"{d['sha256']}  {d['file']}" for d in listing)
    assert [[r["table"] for r in lines(v)] for _, v in sorted(written.items())] == [["old"], ["new"]]


def test_db_dump_refuses_a_file_for_a_folder(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from catsack.cli import app as cli

    (tmp_path / "f").write_text("x")
    result = CliRunner().invoke(
        cli, ["db", "dump", str(tmp_path / "f"), "--database-url", f"sqlite:///{tmp_path}/a.db"]
    )
    assert result.exit_code == 2 and "is not a folder" in result.output


# ---------------------------------------------------------------------- the explorer

#: Removed cards that leave every seat the cards of the openings below (R7).
REMOVED = (P("-8"), P("-8"), P("-8"), P("-8"))

#: Four games' round 1 at 4 seats, seat 0 starting, worked out by hand (R10-R17).
#: +15 first, bought by seat 0 (a person) for 4: +15 +3 -5 R kept, 13 points, net 9.
BOUGHT_BY_PERSON = ["place +15", "place +3", "place -5", "place R", "bid 4", "pass", "pass", "pass"]
#: +15 first, bought by seat 1 (a bot) for 6; the lone large dog chases the +15 (R16): +8 +5 kept, 13, net 7.
BOUGHT_BY_BOT = ["place +15", "place LD", "place +8", "place +5", "bid 2", "bid 6", "pass", "pass", "pass"]
#: +15 first, nobody bids and the last player passes its last choice: void (R15, R19).
VOID_ROUND = ["place +15", "place +3", "place +5", "place +8", "pass", "pass", "pass", "pass"]
#: -8 first (seat 0 lacks the rabbit instead), the last choice buys for 1 (R15): -8 +3 +5 +8, 8 points, net 7.
LAST_CHOICE = ["place -8", "place +3", "place +5", "place +8", "pass", "pass", "pass", "bid 1"]
AGENTS = ["human", "heuristic", "human", "human"]


def hand_games() -> list[tuple[Setup, list[str]]]:
    other = (P("R"), P("-8"), P("-8"), P("-8"))
    return [
        (Setup(4, 0, REMOVED), BOUGHT_BY_PERSON),
        (Setup(4, 0, REMOVED), BOUGHT_BY_BOT),
        (Setup(4, 0, REMOVED), VOID_ROUND),
        (Setup(4, 0, other), LAST_CHOICE),
    ]


def test_the_openings_play_as_worked_out_by_hand() -> None:
    """The rounds above end as their comments say (the engine's R15-R17 agree with the hand)."""
    ends = []
    for setup, opening in hand_games():
        game = Game(setup)
        for move in opening:
            game.play(move)
        first = game.rounds[0]
        ends.append((first.row[0].token, first.buyer, first.price, sum(c.points for c in first.won)))
    assert ends == [("+15", 0, 4, 13), ("+15", 1, 6, 13), ("+15", None, None, 0), ("-8", 3, 1, 8)]


def test_tally_of_hand_checked_games() -> None:
    """The explorer's figures of the four games: +15 shown first in 3 games, 1 void, bought for 4 (a person)
    and 6 (a bot), 13 points kept both times; -8 in 1 game, bought for 1 with 8 points kept."""
    tally = Tally()
    for i, (setup, opening) in enumerate(hand_games()):
        game = Game(setup)
        for move in opening:
            game.play(move)
        tally.add_record(record_from_game(finish(game, i), agents=AGENTS))
    groups = {(g["seats"], g["card"]): g for g in tally.summary()}
    fifteen = groups[(4, "+15")]
    assert (fifteen["games"], fifteen["void"]) == (3, 1)
    every = fifteen["buyers"]["all"]
    assert every["games"] == 2
    assert every["price"] == {"n": 2, "min": 4, "q1": 4.5, "median": 5.0, "q3": 5.5, "max": 6, "mean": 5.0}
    assert every["kept"] == {"n": 2, "min": 13, "q1": 13.0, "median": 13.0, "q3": 13.0, "max": 13, "mean": 13.0}
    assert every["net"]["median"] == 8.0 and every["net"]["min"] == 7 and every["net"]["max"] == 9
    assert fifteen["buyers"]["person"]["price"]["median"] == 4.0
    assert fifteen["buyers"]["bot"]["price"]["median"] == 6.0 and fifteen["buyers"]["bot"]["kept"]["median"] == 13.0
    minus = groups[(4, "-8")]
    assert (minus["games"], minus["void"]) == (1, 0)
    assert minus["buyers"]["person"]["price"]["median"] == 1.0 and minus["buyers"]["person"]["net"]["median"] == 7.0
    assert minus["buyers"]["bot"]["games"] == 0 and minus["buyers"]["bot"]["price"] is None
    assert groups[(4, "+11")]["games"] == 0 and groups[(3, "+15")]["games"] == 0
    assert len(groups) == 3 * 10
    assert Tally.from_json(json.loads(json.dumps(tally.to_json()))) == tally


def test_explorer_figures_come_from_the_dumped_games(tmp_path: Path) -> None:
    """The server's figures over the four games stored as public games (and a private one that counts not)
    are the hand's; the number of games behind each figure is given."""
    with app_for(tmp_path) as c:
        store: Store = c.app.state.hub.store  # type: ignore[attr-defined]
        ended = time.time() - 86400  # the real clock's yesterday: this app's database reads the real clock
        for i, (setup, opening) in enumerate(hand_games()):
            put_game(store, f"h{i}", ended - 86400 * i, setup=setup, opening=opening, agents=AGENTS, seed=i)
        private = {"private": True}
        put_game(store, "hp", ended, setup=Setup(4, 0, REMOVED), opening=BOUGHT_BY_BOT, options=private)
        body = c.get("/api/database/explorer").json()
    assert body["format"] == "catsack-explorer/1" and body["games"] == 4
    groups = {(g["seats"], g["card"]): g for g in body["groups"]}
    assert groups[(4, "+15")]["games"] == 3 and groups[(4, "+15")]["buyers"]["all"]["price"]["n"] == 2
    assert groups[(4, "+15")]["buyers"]["bot"]["price"]["n"] == 1
    assert groups[(4, "-8")]["buyers"]["all"]["kept"]["max"] == 8


def test_tallies_add_up_as_their_games() -> None:
    """A tally of two parts added is the tally of all their games (what lets days and months be summed)."""
    games = [finish(Game(Setup.deal(s, seed)), seed) for seed in range(12) for s in (3, 4, 5)]
    whole, a, b = Tally(), Tally(), Tally()
    for i, g in enumerate(games):
        whole.add_game(g, ["human"] * g.seats)
        (a if i % 2 else b).add_game(g, ["human"] * g.seats)
    assert Tally.total([a, b]) == whole
    assert whole.games == len(games)


def test_quantiles_are_pythons_inclusive_method() -> None:
    rng = random.Random(5)
    for _ in range(300):
        data = [rng.randint(-13, 40) for _ in range(rng.randint(2, 15))]
        counts = Counter(data)
        expected = statistics.quantiles(data, n=4, method="inclusive")
        assert [quantile(counts, p) for p in (0.25, 0.5, 0.75)] == pytest.approx(expected)
        assert stats(counts) is not None
    assert stats(Counter()) is None
