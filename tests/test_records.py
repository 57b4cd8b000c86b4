"""``catsack/1`` records: reference records with known outcomes, round trips, redaction, loader fuzzing.

The reference records and their expected summaries live in tests/data (see
its README.md for where each comes from and which values were checked by hand).
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catsack import Game
from catsack.cards import TOKENS
from catsack.errors import CatsackError, RecordError
from catsack.record import (
    FORMAT,
    Record,
    cards_of,
    dumps_record,
    loads_record,
    read_record,
    record_from_game,
    record_from_obj,
    redact,
    write_record,
)
from catsack.summary import summarize
from repository import repository_file

DATA = Path(__file__).parent / "data"
# A reference record is a NAME.json with its NAME.expected.json (other helpers keep data in subfolders).
RECORDS = sorted(p.with_name(p.name.removesuffix(".expected.json") + ".json") for p in DATA.glob("*.expected.json"))
RECORDS_MD = "docs/records.md"


def expected_of(path: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(path.with_name(path.stem + ".expected.json").read_text(encoding="utf-8"))
    return out


def load(name: str) -> Record:
    return loads_record((DATA / name).read_text(encoding="utf-8"), source=name)


# ---------------------------------------------------------------- reference records


def test_reference_records_cover_the_required_cases() -> None:
    names = {p.name for p in RECORDS}
    assert len(names) >= 10 and all(p.exists() for p in RECORDS)
    outcomes = {p.name: expected_of(p) for p in RECORDS}
    complete = [o for o in outcomes.values() if o.get("complete")]
    assert {o["seats"] for o in complete} == {3, 4, 5}
    assert any(r["void"] for o in complete for r in o["rounds"])
    assert any(len(r["chased"]) == 2 and set(r["chased"]) == {"LD", "SD"} for o in complete for r in o["rounds"])
    assert any(o.get("complete") is False for o in outcomes.values())
    assert sum("error" in o for o in outcomes.values()) >= 2
    for p in RECORDS:  # README.md says where every record comes from
        assert f"`{p.name}`" in (DATA / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("path", RECORDS, ids=[p.stem for p in RECORDS])
def test_reference_record_replays_to_known_outcome(path: Path) -> None:
    record = loads_record(path.read_text(encoding="utf-8"), source=path.name)
    expected = expected_of(path)
    if "error" in expected:
        with pytest.raises(RecordError) as err:
            record.to_game()
        e = expected["error"]
        assert (err.value.move_number, err.value.seat, err.value.reason) == (e["move_number"], e["seat"], e["reason"])
        assert err.value.source == path.name
        return
    game = record.to_game()
    assert summarize(game) == expected
    assert json.loads(json.dumps(summarize(game))) == expected  # JSON-ready


def test_rules_md_example_is_illegal_at_move_4_seat_3() -> None:
    with pytest.raises(RecordError) as err:
        load("rules_example_illegal.json").to_game()
    e = err.value
    assert (e.move_number, e.seat) == (4, 3)
    assert e.reason == "R is not in seat 3's hand"  # seat 3's removed card is R
    assert str(e) == "rules_example_illegal.json: move 4 (seat 3): 'place R': R is not in seat 3's hand"
    # The first three moves replay; so does the record up to them.
    g = load("rules_example_illegal.json").to_game(upto=3)
    assert g.ply == 3 and g.to_move == 3


def test_records_md_example_plays() -> None:
    """The example record in docs/records.md is legal and replays to its last move."""
    text = repository_file(RECORDS_MD).read_text(encoding="utf-8")
    block = re.search(r"```json\n(.*?)```", text, re.DOTALL)
    assert block is not None
    rec = record_from_obj(json.loads(block.group(1)))
    g = rec.to_game()
    assert g.ply == len(rec.moves) == 8
    assert g.rounds[0].buyer == 0 and g.rounds[0].price == 3


def test_hand_built_void_round_record_by_hand() -> None:
    g = load("4p_void_round.json").to_game()
    rounds = g.rounds
    assert rounds[0].void and rounds[0].payouts == ((0, 2), (1, 4), (2, 6))
    assert rounds[1].payouts == ((0, 0), (2, 0), (3, 0))  # R19: cards empty after the void round
    assert [r.buyer for r in rounds] == [None, 1, 2, 3, 0, 1, 2, 3, 0]
    assert [r.refilled for r in rounds] == [False, True] + [False] * 7
    assert g.money == (21, 19, 19, 17) and g.bank == 11
    assert g.cat_points() == (4, 21, 16, 20) and g.scores() == (25, 40, 35, 37) and g.winners() == (1,)


def test_hand_built_dog_record_by_hand() -> None:
    g = load("3p_dogs.json").to_game()
    chased = [tuple(c.token for c in r.chased) for r in g.rounds]
    assert chased == [("LD", "SD"), ("LD", "+15"), ("LD", "SD"), ("LD", "-5"), (), ("SD", "+3"), (), (), ()]
    assert [r.buyer for r in g.rounds] == [1, 2, 0, 1, 2, 0, 1, 2, 0]
    assert [r.refilled for r in g.rounds] == [True, False, False, False, False, True, False, False, False]
    assert g.money == (24, 15, 24) and g.bank == 3
    assert g.cat_points() == (30, 46, 17) and g.scores() == (54, 61, 41) and g.winners() == (1,)


def test_incomplete_record_stops_mid_auction() -> None:
    g = load("5p_incomplete.json").to_game()
    assert not g.is_over and g.phase == "bidding" and g.round == 3 and g.to_move == 0
    assert g.winners() == () and len(g.rounds) == 2


# ---------------------------------------------------------------- reading and writing


def test_record_streams_round_trip() -> None:
    record = load("5p_random.json")
    buf = io.StringIO()
    write_record(record, buf)
    assert buf.getvalue().endswith("}\n")
    buf.seek(0)
    again = read_record(buf, source="buf")
    assert again.source == "buf"
    assert again.to_dict() == record.to_dict()
    assert again.extra == {"event": "reference", "ratings": [1500] * 5}  # unknown keys kept
    assert json.loads(dumps_record(again, indent=None))["event"] == "reference"


def test_record_from_game_names_players_and_extra_keys() -> None:
    g = load("3p_dogs.json").to_game()
    rec = record_from_game(g, ["A", "B", "C"], date="2024-01-01")
    d = rec.to_dict()
    assert d["format"] == FORMAT and d["seats"] == 3 and d["players"] == ["A", "B", "C"]
    assert d["dummy"] == ["LD", "+15", "-8", "R", "+3", "SD", "+11", "+8", "+5"]
    assert d["removed"] == ["R", "+15", "SD"] and d["date"] == "2024-01-01"
    assert loads_record(dumps_record(rec)).to_game() == g
    assert cards_of(["+15", "R"]) == [c for c in g.setup.removed[1:2]] + [g.setup.removed[0]]


def test_seats_may_be_omitted_when_players_are_given() -> None:
    obj = json.loads((DATA / "4p_void_round.json").read_text(encoding="utf-8"))
    del obj["seats"]
    assert record_from_obj(obj).to_game() == load("4p_void_round.json").to_game()


def test_redacted_record_holds_only_the_seats_knowledge() -> None:
    g = load("5p_incomplete.json").to_game()
    for seat in range(5):
        rec = redact(g, seat)
        assert rec.redacted_for == seat
        assert [c is not None for c in rec.removed] == [i == seat for i in range(5)]
        assert rec.moves == [t for _, t in g.view(seat).history]
        again = loads_record(dumps_record(rec))
        assert again.redacted_for == seat and again.moves == rec.moves
        with pytest.raises(RecordError, match="redacted"):
            again.to_game()
    three = load("3p_random.json").to_game(upto=20)  # round 2, after its placements
    rec = redact(three, 0)
    seen = len(three.rounds) + 1
    assert rec.dummy[:seen] == list(three.setup.dummy[:seen]) and rec.dummy[seen:] == [None] * (9 - seen)


BASE: dict[str, Any] = {"format": "catsack/1", "seats": 4, "start": 0, "removed": ["+3", "LD", "-8", "R"], "moves": []}


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"format": "catsack/2"}, "'format' must be 'catsack/1'"),
        ({"format": None}, "'format' must be"),
        ({"seats": 6}, "'seats' must be 3, 4 or 5"),
        ({"seats": "4"}, "'seats' must be 3, 4 or 5"),
        ({"seats": True}, "'seats' must be 3, 4 or 5"),
        ({"seats": 4.0}, "'seats' must be 3, 4 or 5"),
        ({"start": 4}, "'start' must be a seat from 0 to 3"),
        ({"start": None}, "'start' must be a seat"),
        ({"start": False}, "'start' must be a seat"),
        ({"removed": ["+3", "LD", "-8"]}, "'removed' must list one card per seat"),
        ({"removed": "+3 LD -8 R"}, "'removed' must be a list"),
        ({"removed": ["+3", "LD", "-8", "X"]}, "'removed'[3] is not a card token: 'X'"),
        ({"removed": ["+3", "LD", "-8", None]}, "'removed'[3] is not a card token: None"),
        ({"players": ["A", "B"]}, "'players' names 2 players but 'seats' is 4"),
        ({"players": "ABCD"}, "'players' must be a list of names"),
        ({"players": [1, 2, 3, 4]}, "'players' must be a list of names"),
        ({"dummy": ["R"] * 9}, "only a 3-seat record has a 'dummy'"),
        ({"seats": 3, "removed": ["R"] * 3}, "needs 'dummy'"),
        ({"seats": 3, "removed": ["R"] * 3, "dummy": ["R"] * 8}, "'dummy' must list 9 cards"),
        ({"seats": 3, "removed": ["R"] * 3, "dummy": ["R"] * 9}, "bad setup"),
        ({"moves": "pass"}, "'moves' must be a list of move texts"),
        ({"moves": [1]}, "'moves' must be a list of move texts"),
        ({"moves": ["place +11", "place -5", "bid x"]}, "move 3: not a move: 'bid x'"),
        ({"moves": ["place ?"]}, "move 1"),
        ({"moves": ["pass"] * 2001}, "more than any game can have"),
        ({"redacted_for": 9}, "'redacted_for' must be a seat"),
    ],
)
def test_malformed_records_are_rejected_with_the_reason(change: dict[str, Any], reason: str) -> None:
    obj = {**BASE, **change}
    with pytest.raises(RecordError) as err:
        loads_record(json.dumps(obj), source="bad.json").to_game()
    assert reason in str(err.value)
    assert str(err.value).startswith("bad.json: ")


@pytest.mark.parametrize(
    "text",
    [b"", b"\xff\xfe\xfa", "", "{", "[]", "null", "42", '"catsack/1"', "{'format': 1}", "\ufeff{}", "NaN"],
)
def test_not_a_record_at_all(text: str | bytes) -> None:
    with pytest.raises(RecordError):
        loads_record(text)


def test_deeply_nested_json_is_a_record_error() -> None:
    for depth in (1000, 100_000):
        for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
            with pytest.raises(RecordError):
                loads_record(text)
        nested = {**BASE, "comment": json.loads("[" * 500 + "]" * 500)}
        assert loads_record(json.dumps(nested)).extra["comment"] is not None


def test_huge_numbers_are_record_errors() -> None:
    for value in ("1e999999", "-1e999999", "1" * 4000, "0.5", "-1", str(2**64)):
        text = json.dumps(BASE).replace('"start": 0', f'"start": {value}')
        with pytest.raises(RecordError, match="'start' must be a seat"):
            loads_record(text)
    big_bid = {**BASE, "moves": ["place +11", "place -5", "place SD", "place +3", "bid 999999999"]}
    with pytest.raises(RecordError, match="move 5 \\(seat 0\\)"):
        loads_record(json.dumps(big_bid)).to_game()


def test_integer_beyond_int_max_str_digits_is_a_record_error() -> None:
    text = json.dumps(BASE).replace('"start": 0', '"start": ' + "9" * 5000)
    with pytest.raises(RecordError):
        loads_record(text)


# ---------------------------------------------------------------- fuzzing the loader


def check_loader(text: str | bytes) -> None:
    """The loader and the replay raise only CatsackError (a ValueError), never anything else."""
    try:
        record = loads_record(text)
        record.to_game()
    except CatsackError:
        pass


JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30), st.floats(), st.text(max_size=8)
)
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
TOKEN_OR_JUNK = st.one_of(st.sampled_from(TOKENS), JSON_LEAF)
MOVE_TEXT = st.one_of(
    st.sampled_from(["pass", "bid 1", "bid 2", "bid 15", "place ?"]),
    st.sampled_from(TOKENS).map(lambda t: f"place {t}"),
    st.integers(min_value=0, max_value=200).map(lambda b: f"bid {b}"),
    st.text(max_size=8),
)


def _real_record(seed: int) -> dict[str, Any]:
    """A structurally valid record: a seeded random game, cut somewhere."""
    rng = random.Random(seed)
    g = Game.new(3 + seed % 3, rng=rng)
    cut = rng.randrange(0, 120)
    while not g.is_over and g.ply < cut:
        g.play(rng.choice(g.legal_moves()))
    return record_from_game(g, [f"P{i}" for i in range(g.seats)]).to_dict()


@st.composite
def record_like(draw: st.DrawFn) -> dict[str, Any]:
    """Mostly valid records with a few keys, list items or moves replaced by junk or near misses."""
    obj = _real_record(draw(st.integers(min_value=0, max_value=10_000)))
    for key in ("format", "seats", "players", "start", "removed", "dummy", "moves", "redacted_for"):
        action = draw(st.sampled_from(["keep"] * 6 + ["drop", "junk", "near", "item"]))
        if action == "drop":
            obj.pop(key, None)
        elif action == "junk":
            obj[key] = draw(JSON)
        elif action == "near":
            obj[key] = draw(st.integers(min_value=-1, max_value=6) | st.sampled_from(["catsack/1", "4", 4.0, True]))
        elif action == "item" and isinstance(obj.get(key), list) and obj[key]:
            items = obj[key]
            i = draw(st.integers(min_value=0, max_value=len(items) - 1))
            if draw(st.booleans()):
                items[i] = draw(TOKEN_OR_JUNK if key != "moves" else MOVE_TEXT)
            elif draw(st.booleans()):
                del items[i]
            else:
                items.insert(i, items[i])
    return obj


RECORD_LIKE = record_like()


@settings(max_examples=300)
@given(st.one_of(st.text(), st.text(alphabet='{}[]":,0123456789.eE-+ nultrfasc/', max_size=60)))
def test_fuzz_loader_text(text: str) -> None:
    check_loader(text)


@settings(max_examples=200)
@given(st.binary(max_size=80))
def test_fuzz_loader_bytes(data: bytes) -> None:
    check_loader(data)


@settings(max_examples=200)
@given(JSON)
def test_fuzz_loader_json_values(value: object) -> None:
    check_loader(json.dumps(value))


@settings(max_examples=400)
@given(RECORD_LIKE)
@pytest.mark.slow
def test_fuzz_loader_record_like_objects(obj: dict[str, Any]) -> None:
    check_loader(json.dumps(obj))


@settings(max_examples=200)
@given(st.integers(min_value=0, max_value=200), st.lists(st.tuples(st.integers(0, 199), MOVE_TEXT), max_size=4))
def test_fuzz_loader_mutated_real_records(seed: int, edits: list[tuple[int, str]]) -> None:
    """Real records with a few moves replaced: legal prefixes replay, the rest fail cleanly."""
    base = json.loads((DATA / RECORDS[seed % len(RECORDS)].name).read_text(encoding="utf-8"))
    moves = list(base["moves"])
    for pos, text in edits:
        if moves:
            moves[pos % len(moves)] = text
    check_loader(json.dumps({**base, "moves": moves}))


def test_loader_accepts_what_game_play_accepts_only() -> None:
    """A record's replay fails exactly where playing its moves one by one fails."""
    base = json.loads((DATA / "4p_random.json").read_text(encoding="utf-8"))
    moves = [*base["moves"][:20], "bid 200", *base["moves"][20:]]
    with pytest.raises(RecordError) as err:
        loads_record(json.dumps({**base, "moves": moves})).to_game()
    g = Game.from_setup(4, base["start"], base["removed"])
    for m in moves[:20]:
        g.play(m)
    assert err.value.move_number == 21 and err.value.seat == g.to_move
