"""Fair play: the soft-play report flags simulated colluders who pass for each other and no
honest pair; it reads rated games from the server's database; ``catsack admin`` prints it and reverts
a game's rating changes."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import pytest

from catsack.bots.base import Bot, make_bot
from catsack.game import Game
from catsack.moves import Move
from catsack.server.people.fairplay import GameFacts, analyse, bidding_turns, pairs_of
from catsack.setup import Setup
from catsack.view import View

ACCOUNTS = [f"user:{i}" for i in range(1, 7)]


class Colluder(Bot):
    """The heuristic bot, except that it passes whenever its partner leads the auction (soft play)."""

    def __init__(self, partners: set[int], seed: int) -> None:
        self.inner = make_bot("heuristic", seed=seed)
        self.partners = partners

    def reset(self, seat: int, seats: int) -> None:
        self.inner.reset(seat, seats)

    def choose(self, view: View) -> Move:
        if view.phase == "bidding" and view.high_bidder in self.partners:
            return Move.parse("pass")
        return self.inner.choose(view)


def simulate(games: int, seed: int, colluders: frozenset[str] = frozenset()) -> list[GameFacts]:
    """``games`` 4-seat games among six accounts seated at random; ``colluders`` pass for each other."""
    rng = random.Random(seed)
    out = []
    for i in range(games):
        players = rng.sample(ACCOUNTS, 4)
        setup = Setup.deal(4, rng)
        g = Game(setup)
        bots: list[Bot] = []
        for seat, p in enumerate(players):
            partners = {s for s, q in enumerate(players) if q != p and p in colluders and q in colluders}
            bot: Bot = (
                Colluder(partners, rng.randrange(2**31)) if partners else make_bot("heuristic", seed=i * 4 + seat)
            )
            bot.reset(seat, 4)
            bots.append(bot)
        while not g.is_over:
            seat = g.to_move
            assert seat is not None
            g.play(bots[seat].choose(g.view(seat)))
        out.append(GameFacts(f"g{i}", tuple(players), setup, tuple(m.text for m in g.moves)))
    return out


NAMES = ("ann", "ben", "cat", "dan", "eve", "fay")


def standing_in(games: list[GameFacts], accounts: frozenset[str]) -> list[GameFacts]:
    """The same games, with every move of ``accounts``' seats made by their standby bots (as if those
    players had left at once and the bots played exactly as they would have)."""
    out = []
    for facts in games:
        g = Game(facts.setup)
        actors = []
        for move in facts.moves:
            seat = g.to_move
            assert seat is not None
            actors.append("bot" if facts.players[seat] in accounts else "human")
            g.play(move)
        out.append(dataclasses.replace(facts, actors=tuple(actors)))
    return out


def seed_rated_games(store: Any, games: list[GameFacts] | None = None) -> None:
    """Rated 4-seat games stored as the server stores them (tables, actions with who made each move,
    account seats, ratings) among accounts ann…fay (password "correct horse"); by default 120 games of
    which ann and ben pass for each other."""
    from catsack.server.people.accounts import Accounts
    from catsack.server.people.ratings import Ratings
    from catsack.server.storage.store import Append, SeatRow
    from catsack.server.tables.live import setup_to_json

    accounts = Accounts(store.engine)
    users = {f"user:{accounts.register(n, 'correct horse').id}": n for n in NAMES}
    keys = list(users)
    mapping = dict(zip(ACCOUNTS, keys, strict=True))
    ratings = Ratings(store.engine)
    games = simulate(120, 5, frozenset({"user:1", "user:2"})) if games is None else games
    for facts in games:
        tid = facts.table_id
        rows = [SeatRow(i, "open", None, None, None, False) for i in range(4)]
        store.create_table(tid, "x", rows, {"rated": True}, setup_to_json(facts.setup), "open")
        for seat, p in enumerate(facts.players):
            assert p is not None
            store.claim_seat(tid, seat, users[mapping[p]], f"{seat:064d}", user_id=int(mapping[p][5:]))
        last = len(facts.moves)
        actors = facts.actors or ("human",) * last
        moves = [
            Append(tid, v, 0, move, None, actors[v - 1], "over" if v == last else "playing", None)
            for v, move in enumerate(facts.moves, start=1)
        ]
        assert store.append_batch(moves) == [None] * last  # one transaction per game: quick on PostgreSQL too
        g = Game(facts.setup)
        for m in facts.moves:
            g.play(m)
        ratings.record_game(tid, [mapping[p] for p in facts.players if p], list(g.scores()), list(g.cat_points()))


def test_bidding_turns_follow_the_leader() -> None:
    facts = simulate(1, 3)[0]
    turns = list(bidding_turns(facts))
    assert turns and all(t.seat != t.leader and t.lead_by_person for t in turns)
    assert any(t.passed for t in turns) and not all(t.passed for t in turns)
    # Seat 0's moves made by its standby bot: none of its turns, and none of its leads, is its person's.
    (bot_at_0,) = standing_in([facts], frozenset({facts.players[0] or ""}))
    theirs = list(bidding_turns(bot_at_0))
    assert [t._replace(lead_by_person=t.leader != 0) for t in turns if t.seat != 0] == theirs
    assert all(t.seat != 0 for t in theirs) and any(t.leader == 0 for t in theirs)


def test_moves_a_standby_bot_made_for_a_seat_are_not_the_persons() -> None:
    """The colluders' passes made by a standby bot for either seat (the passing one or the leading one)
    are not theirs: the pair is not flagged, and no turn of one while the other led is counted."""
    cheats = frozenset({"user:1", "user:2"})
    games = simulate(160, 1, cheats)
    assert pairs_of(analyse(games)) == {cheats}
    for standby in (cheats, frozenset({"user:2"})):
        stats = analyse(standing_in(games, standby))
        pair = next(p for p in stats if {p.a, p.b} == cheats)
        assert pairs_of(stats) == set() and pair.partner_turns == 0, standby


def test_the_report_reads_who_made_each_move_and_counts_the_games_read(tmp_path: Path) -> None:
    """Stored games give back the action log's actors; the report says how many games it read."""
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("openskill")
    from catsack.server.people.fairplay import load_games, report
    from catsack.server.storage.store import Store

    games = standing_in(simulate(3, 7), frozenset({"user:3"}))
    store = Store(f"sqlite:///{tmp_path / 'fp.db'}")
    try:
        seed_rated_games(store, games)
        loaded = {f.table_id: f for f in load_games(store.engine)}
        assert {t: f.actors for t, f in loaded.items()} == {f.table_id: f.actors for f in games}
        assert any("bot" in f.actors for f in loaded.values())
        assert report(store.engine, everyone=True).games_read == 3
        assert report(store.engine, limit=2).games_read == 2
    finally:
        store.close()


def test_colluders_are_flagged_and_honest_players_are_not() -> None:
    """Accounts 1 and 2 pass whenever the other leads; among 15 pairs only theirs stands out."""
    cheats = frozenset({"user:1", "user:2"})
    stats = analyse(simulate(160, 1, cheats))
    assert pairs_of(stats) == {cheats}
    top = stats[0]
    assert {top.a, top.b} == cheats and top.pass_partner == 1.0 and top.pass_others < 0.8
    assert top.partner_turns >= 20 and top.raises_over_each_other == 0
    assert all(not s.stands_out for s in stats[1:])
    honest = analyse(simulate(160, 2))
    assert pairs_of(honest) == set() and len(honest) == 15


@pytest.mark.slow  # plays 160 games of heuristic bots (about 4 s of CPU)
@pytest.mark.parametrize("backend", ["sqlite"])
def test_report_and_revert_from_the_database(tmp_path: Path, backend: str) -> None:
    """Games stored as the server stores them (tables, actions, account seats, rated) give the same
    report through ``catsack admin fairplay``; ``catsack admin revert`` takes a game's ratings back."""
    pytest.importorskip("sqlalchemy")
    pytest.importorskip("openskill")
    from typer.testing import CliRunner

    from catsack.cli import app as cli_app
    from catsack.server.storage.store import Store

    url = f"sqlite:///{tmp_path / 'fp.db'}"
    store = Store(url)
    seed_rated_games(store)
    store.close()
    runner = CliRunner()
    out = runner.invoke(cli_app, ["admin", "fairplay", "--database-url", url, "--json"])
    assert out.exit_code == 0, out.output
    flagged = json.loads(out.output)
    assert [{p["a"], p["b"]} for p in flagged] == [{"ann", "ben"}]
    assert flagged[0]["pass_share_partner_led"] == 1.0 and flagged[0]["tables"]
    text = runner.invoke(cli_app, ["admin", "fairplay", "--database-url", url])
    assert text.exit_code == 0 and "ann" in text.output and "ben" in text.output
    # The operator takes one of their games' rating changes back.
    game = flagged[0]["tables"][0]
    out = runner.invoke(cli_app, ["admin", "revert", game, "--database-url", url, "--reason", "collusion"])
    assert out.exit_code == 0 and "reverted" in out.output, out.output
    again = runner.invoke(cli_app, ["admin", "revert", game, "--database-url", url])
    assert again.exit_code == 1 and "already" in again.output
    # A reverted game leaves the report's input.
    after = json.loads(runner.invoke(cli_app, ["admin", "fairplay", "--database-url", url, "--json", "--all"]).output)
    assert all(game not in p["tables"] for p in after)


@pytest.mark.slow  # the same games, through the server
def test_the_operators_page_lists_the_pair_and_reverts_a_game(app_server: Any, db_url: str) -> None:
    """``/api/admin/fairplay`` (the page's data) for the accounts named in CATSACK_ADMIN_ACCOUNTS only:
    the flagged pair with its evidence; a game's rating changes reverted from it, once."""
    pytest.importorskip("openskill")
    from catsack.server.storage.store import Store
    from web_clients import ORIGIN, browser

    store = Store(db_url)  # the operators are bound to their accounts when the server starts: accounts first
    try:
        seed_rated_games(store)
    finally:
        store.close()
    c = app_server(admin_accounts="Cat")
    assert c.get("/api/admin/fairplay").status_code == 401  # a guest
    assert c.get("/admin/fairplay").status_code == 200  # the page itself holds nothing

    def logged_in(name: str) -> Any:
        b = browser(c)
        r = b.post("/api/account/login", json={"name": name, "password": "correct horse"}, headers=ORIGIN)
        assert r.status_code == 200, r.text
        return b

    ann, cat = logged_in("ann"), logged_in("cat")
    refused = ann.get("/api/admin/fairplay")
    assert refused.status_code == 403 and refused.json()["code"] == "not_admin"
    report = cat.get("/api/admin/fairplay").json()  # "cat" as "Cat": names compare as accounts do
    assert report["games_read"] == 120  # the games read, not the most it would read
    assert [{p["a"], p["b"]} for p in report["pairs"]] == [{"ann", "ben"}]
    pair = report["pairs"][0]
    assert pair["stands_out"] and pair["pass_share_partner_led"] == 1.0 and pair["tables"]
    assert report["thresholds"]["min_turns"] >= 1
    assert len(cat.get("/api/admin/fairplay?all=true").json()["pairs"]) == 15

    game = pair["tables"][0]
    url = f"/api/admin/games/{game}/revert"
    assert ann.post(url, json={}, headers=ORIGIN).status_code == 403
    assert cat.post(url, json={}).status_code == 403  # no Origin: a cross-site request
    done = cat.post(url, json={"reason": "soft play"}, headers=ORIGIN)
    assert done.status_code == 200, done.text
    assert {ch["name"] for ch in done.json()["changes"]} >= {"ann", "ben"}
    again = cat.post(url, json={}, headers=ORIGIN)
    assert again.status_code == 409 and again.json()["code"] == "not_revertable"
    assert cat.post("/api/admin/games/%00/revert", json={}, headers=ORIGIN).status_code == 404
    assert all(game not in p["tables"] for p in cat.get("/api/admin/fairplay?all=true").json()["pairs"])
