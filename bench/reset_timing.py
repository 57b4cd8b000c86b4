"""Password-reset timing: does the answer's time tell a verified address from an unknown one?

An app in this process (``TestClient``; SQLite in a temporary directory, or ``--postgres`` for a
fresh schema of the test PostgreSQL at 127.0.0.1:5432, dropped afterwards) with one account whose
address is verified. It asks ``POST /api/account/reset`` for that address and for unknown ones in
turn, ``--requests`` times each, and prints the median and the 90th percentile of the wall time from
sending to the answer (what an attacker measures), with their ratio and the load average. The
security budgets run on a clock that moves two days per request, so that none refuses. Each
request's lookup (done after the answer) is let finish before the next is sent.

    PYTHONPATH=src:tests .venv/bin/python bench/reset_timing.py
    PYTHONPATH=src:tests .venv/bin/python bench/reset_timing.py --postgres --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))


class StepClock:
    """The budgets' clock: two days later at every reading, so no budget is ever spent."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        self.now += 2 * 86400
        return self.now


def measure(args: argparse.Namespace, database_url: str) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from catsack.server.people.accounts import Accounts
    from catsack.server.people.mail import Mailbox
    from catsack.server.routes import mail as mail_routes
    from catsack.server.settings import Settings
    from catsack.server.web.app import create_app
    from web_clients import ORIGIN, register

    settings = Settings(
        database_url=database_url,
        smtp_host="127.0.0.1",
        smtp_port=9,
        smtp_from="catsack <games@bench>",
        mail_poll_seconds=3600,
        http_rate_burst=1_000_000,
        log_level="ERROR",
    )
    times: dict[str, list[float]] = {"verified": [], "unknown": []}
    with TestClient(create_app(settings, clock=StepClock())) as c:
        name = f"bench{os.getpid()}"
        assert register(c, name).status_code == 201
        engine = c.app.state.hub.store.engine  # type: ignore[attr-defined]
        account = Accounts(engine).by_name(name)
        assert account is not None
        box = Mailbox(engine)
        known = f"{name}@example.org"
        box.verify(box.set_address(account, known, "en"))
        for i in range(args.requests * 2):
            kind = "verified" if i % 2 == 0 else "unknown"
            address = known if kind == "verified" else f"nobody{i}@example.org"
            t0 = time.perf_counter()
            r = c.post("/api/account/reset", json={"address": address}, headers=ORIGIN)
            times[kind].append(time.perf_counter() - t0)
            assert r.status_code == 202, r.text
            deadline = time.monotonic() + 30
            while mail_routes.reset_lookups and time.monotonic() < deadline:
                time.sleep(0.001)
    out: dict[str, Any] = {"requests": args.requests, "load": os.getloadavg()[0]}
    for kind, values in times.items():
        values.sort()
        out[kind] = {
            "median_ms": round(statistics.median(values) * 1000, 3),
            "p90_ms": round(values[int(len(values) * 0.9)] * 1000, 3),
        }
    out["ratio_median"] = round(out["verified"]["median_ms"] / out["unknown"]["median_ms"], 3)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="requests per kind of address")
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL instead of SQLite")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.postgres:
        from server_procs import postgres_schema

        with postgres_schema() as (url, _schema):
            out = measure(args, url)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = measure(args, f"sqlite:///{tmp}/bench.db")
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.requests} requests each, {'PostgreSQL' if args.postgres else 'SQLite'}, load {out['load']:.2f}")
    for kind in ("verified", "unknown"):
        print(f"  {kind:9} median {out[kind]['median_ms']:.2f} ms, 90th percentile {out[kind]['p90_ms']:.2f} ms")
    print(f"  ratio of the medians (verified / unknown): {out['ratio_median']:.3f}")


if __name__ == "__main__":
    main()
