"""A rated game on a server installed with exactly the Quick start's extras (standard library only).

Run by tests/test_quickstart_install.py with the fresh virtualenv's Python:
``python quickstart_smoke.py VENV_BIN WORKDIR``. It starts that virtualenv's ``catsack serve`` on
a free port (its own SQLite file, a short grace period), registers an account (argon2), seats it
at a rated table with two bots and never connects, so a bot takes the seat over and finishes the
game; the game must then be rated (OpenSkill) with the abandoned seat last, and the server's log
must hold no error. Exit status 0 when all of that happened.
"""

from __future__ import annotations

import http.cookiejar
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any


def main(bin_dir: Path, workdir: Path) -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "CATSACK_DATABASE_URL": f"sqlite:///{workdir / 'quick.db'}",
        "CATSACK_BOT_DELAY": "0",
        "CATSACK_GRACE_SECONDS": "0.5",
        "CATSACK_SWEEP_SECONDS": "0.2",
    }
    env.pop("PYTHONPATH", None)  # the virtualenv's own install, nothing else
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:
        proc = subprocess.Popen(
            [str(bin_dir / "catsack"), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            cwd=workdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def call(method: str, path: str, body: Any = None) -> Any:
            data = None if body is None else json.dumps(body).encode()
            req = urllib.request.Request(base + path, data=data, method=method)
            req.add_header("Content-Type", "application/json")
            req.add_header("Origin", base)
            with opener.open(req, timeout=10) as answer:
                return json.load(answer)

        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"catsack serve exited with {proc.returncode}:\n{log_path.read_text()[-3000:]}")
            try:
                health = call("GET", "/health")
                if health.get("status") == "ok":
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.2)
        call("POST", "/api/account/register", {"name": "quickstart", "password": "correct horse"})
        body = {"seats": 3, "bots": {"1": "random", "2": "random"}, "rated": True, "player": "x"}
        table = call("POST", "/api/tables", body)["table"]
        deadline = time.monotonic() + 120
        while True:
            profile = call("GET", "/api/users/quickstart")
            if profile["rated_games"] == 1:
                break
            if time.monotonic() > deadline:
                raise SystemExit(f"table {table} was never rated:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
        game = profile["history"][0]
        if game["rank"] != 3 or not game["abandoned"]:
            raise SystemExit(f"the abandoned seat was not rated last: {game}")
        board = {e["name"]: e for e in call("GET", "/api/leaderboard")}
        if board.get("random", {}).get("games") != 2:
            raise SystemExit(f"the bots were not rated: {board}")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # it must not outlive the check
            proc.kill()
            proc.wait(timeout=20)
    errors = [line for line in log_path.read_text().splitlines() if '"level": "error"' in line or "Traceback" in line]
    if errors:
        raise SystemExit("the server logged errors:\n" + "\n".join(errors[:20]))
    print("health ok: version", health["version"])
    print("rated game ok:", json.dumps(game))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
