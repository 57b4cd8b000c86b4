"""A refused form is worded in the page's language, field by field.

The 422 answer carries each field's problem as a reason and its numbers (server/web/problems.py); the
catalogues word every reason (``err.why.*``) and every field of the forms (``err.field.*``) in both
languages, so a German page shows no English from the server.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from browser_i18n import CATALOGUES

pytest.importorskip("fastapi", reason="the server extra is not installed")
from fastapi.testclient import TestClient

from catsack.server.routes.tables import CreateTable, JoinTable
from catsack.server.settings import Settings
from catsack.server.web.app import create_app
from catsack.server.web.problems import REASONS, field_problems


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'forms.db'}", bot_delay=0.0, log_json=True)
    with TestClient(create_app(settings)) as c:
        yield c


def problems(answer: Any) -> list[dict[str, Any]]:
    assert answer.status_code == 422, answer.text
    body = answer.json()
    assert body["code"] == "invalid" and body["detail"]  # the English detail stays for API clients
    found: list[dict[str, Any]] = body["params"]["problems"]
    return found


def test_each_refused_field_comes_with_a_reason_and_its_numbers(client: TestClient) -> None:
    got = problems(client.post("/api/tables", json={"seats": 9, "name": "x" * 41, "turn_seconds": "soon"}))
    assert {(p["field"], p["reason"]) for p in got} == {
        ("seats", "too_big"),
        ("name", "too_long"),
        ("turn_seconds", "not_whole_number"),
    }
    by_field = {p["field"]: p["params"] for p in got}
    assert by_field["seats"] == {"max": 5} and by_field["name"] == {"max": 40}
    got = problems(client.post("/api/tables", json={"seats": 3, "bots": {"1": "grandmaster"}, "player": "  "}))
    assert {(p["field"], p["reason"]) for p in got} == {("bots", "unknown_bot"), ("player", "empty")}
    assert next(p for p in got if p["reason"] == "unknown_bot")["params"] == {"n": 2}  # seat 2 for people (R4)
    table = client.post("/api/tables", json={"seats": 3}).json()["table"]
    got = problems(client.post(f"/api/tables/{table}/join", json={"name": "a\u0000b", "colour": "red"}))
    assert {(p["field"], p["reason"]) for p in got} == {("name", "not_printable"), ("colour", "unknown_field")}


def test_unknown_errors_are_a_plain_bad_value() -> None:
    assert field_problems([{"type": "something_new", "loc": ("body", "x"), "msg": "?"}]) == [
        {"field": "x", "reason": "bad_value", "params": {}}
    ]


def test_every_reason_and_form_field_is_worded_in_both_languages() -> None:
    for lang, catalogue in CATALOGUES.items():
        missing = [r for r in REASONS if f"err.why.{r}" not in catalogue]
        fields = set(CreateTable.model_fields) | set(JoinTable.model_fields) | {"body"}
        missing += [f for f in fields if f"err.field.{f}" not in catalogue]
        assert missing == [], (lang, missing)
        assert "{problems}" in catalogue["err.invalid"] and "{detail}" not in catalogue["err.invalid"]
