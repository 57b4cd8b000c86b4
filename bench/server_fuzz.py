"""Server fuzz run: fuzzed WebSocket frames and HTTP requests against a local server.

One ``catsack serve`` process on loopback (SQLite in a temporary directory unless
``--database-url``), with the rate limits raised so that the fuzzed inputs, not
the limits, are what the server sees. Then:

* ``--connections`` WebSockets each send a few fuzzed hellos, a real hello, and
  fuzzed frames (deep nesting, NUL, lone surrogates raw and escaped, control
  characters, wrong types, huge numbers, unknown kinds, binary, oversized), with
  a ``ping`` every few frames to read the answers back;
* ``--requests`` fuzzed HTTP requests on every route (bad ids, NUL, escaped
  surrogates, malformed and deeply nested JSON bodies, oversized bodies, odd
  headers and tokens).

It prints the totals and the internal errors: HTTP 5xx answers, WebSocket
closes other than the expected ones (1008 flooding, 1009 oversized, 1000),
``error`` frames whose code says the server failed, and tracebacks in the
server's log. Zero internal errors is the target.

    .venv/bin/python bench/server_fuzz.py                         # 20,000 frames, 5,000 requests
    .venv/bin/python bench/server_fuzz.py --frames 2000 --requests 500 --seed 3
    .venv/bin/python bench/server_fuzz.py --database-url postgresql+psycopg://catsack@localhost/catsack

Loopback only; bounded by the counts given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any

PROTO = "catsack-ws/1"
FRAME_LIMIT = 4096
EXPECTED_CLOSES = {1000, 1008, 1009}
FAILURE_CODES = {"internal", "unavailable", "hint_failed"}

NASTY_TEXT = ["a\x00b", "\x00", "\ud800", "x\udfffy", "\x1b[2J", "\u202e", "\ufeff", "%00", "9" * 400, "", " "]
NASTY_FRAMES = [
    "[" * 2000 + "]" * 2000,
    "{" * 2000,
    '{"a":' * 600 + "1" + "}" * 600,
    '"\\ud800"',
    '{"type": "move", "action_id": "\\u0000", "version": 0, "move": "pass"}',
    '{"type": "move", "action_id": "a", "version": 0, "move": "pa\\u0000ss"}',
    '{"type": "hello", "protocol": "catsack-ws/1", "table": "a\\u0000b"}',
    '{"type": "ping", "x": "\\udfff"}',
    '{"type": "resync", "since": ' + "9" * 500 + "}",
    "\ud800",
    "\x00" * 100,
    "null",
    "1e999",
    "[]",
    '{"type": null}',
    '{"type": "hint"}',
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# ---------------------------------------------------------------------- generators


def json_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 3 or r < 0.5:
        return rng.choice(
            [
                None,
                True,
                False,
                rng.randint(-(10**20), 10**20),
                rng.random() * 10 ** rng.randint(-5, 300),
                rng.choice(NASTY_TEXT),
                "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(0, 12))),
                rng.choice(["pass", "bid 3", "place +15", "place LD", "bid -1", "bid 99999999999"]),
            ]
        )
    if r < 0.75:
        return [json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    keys = ["type", "move", "version", "action_id", "since", "x", ""]
    return {rng.choice(keys): json_value(rng, depth + 1) for _ in range(4)}


def dumps(value: Any) -> str:
    # surrogates stay escaped in the JSON text; json.dumps may write Infinity (invalid JSON on purpose)
    return json.dumps(value)


def fuzz_frame(rng: random.Random, version: int) -> str | bytes:
    r = rng.random()
    if r < 0.25:
        return rng.choice(NASTY_FRAMES)
    if r < 0.55:
        kinds = ["move", "resync", "ping", "hint", "hello", "chat", "nope", *NASTY_TEXT]
        frame: dict[str, Any] = {"type": rng.choice(kinds)}
        for key in ("action_id", "version", "move", "since", "text"):
            if rng.random() < 0.6:
                frame[key] = json_value(rng)
        if frame["type"] == "move" and rng.random() < 0.5:
            frame.update(action_id=f"f{rng.randrange(10**6)}", version=version, move=rng.choice(["pass", "bid 1"]))
        return dumps(frame)
    if r < 0.8:
        return dumps(json_value(rng))
    if r < 0.9:
        return "".join(chr(rng.randint(0, 0x10FFFF)) for _ in range(rng.randint(0, 40)))
    if r < 0.97:
        return bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
    return '{"type": "ping", "pad": "' + "x" * (FRAME_LIMIT + 100) + '"}'  # oversized: 1009 expected


def wire_text(text: str) -> str:
    """A text frame must be UTF-8: lone surrogates cannot cross a real socket, so send them escaped."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


# ---------------------------------------------------------------------- WebSocket fuzz


class Tally:
    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.internal: list[str] = []

    def bad(self, what: str) -> None:
        self.counts["internal errors"] += 1
        if len(self.internal) < 20:
            self.internal.append(what)


async def ws_worker(url: str, table: str, token: str, frames: int, rng: random.Random, tally: Tally) -> None:
    import websockets
    from websockets.exceptions import ConnectionClosed

    sent = 0
    last: list[str] = []
    while sent < frames:
        try:
            async with websockets.connect(url, max_size=None, open_timeout=10) as ws:
                tally.counts["ws connections"] += 1
                last = []
                for _ in range(rng.randint(0, 3)):  # fuzzed hellos first
                    hello = fuzz_frame(rng, 0)
                    await ws.send(hello if isinstance(hello, bytes) else wire_text(hello))
                    sent += 1
                    tally.counts["ws frames"] += 1
                    answer = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    tally.counts[f"ws answer {answer.get('type')}"] += 1
                await ws.send(json.dumps({"type": "hello", "protocol": PROTO, "table": table, "token": token}))
                version = 0
                while sent < frames:
                    frame = fuzz_frame(rng, version)
                    last = [*last[-2:], repr(frame)[:80]]
                    await ws.send(frame if isinstance(frame, bytes) else wire_text(frame))
                    sent += 1
                    tally.counts["ws frames"] += 1
                    if len(frame) > FRAME_LIMIT:  # the server closes (1009): read up to the close, send no more
                        while True:
                            await asyncio.wait_for(ws.recv(), 20)
                    if sent % 8 == 0:
                        await ws.send('{"type": "ping"}')
                        while True:
                            msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                            kind = msg.get("type")
                            tally.counts[f"ws answer {kind}"] += 1
                            if kind == "state":
                                version = int(msg.get("version", version))
                            if kind == "error" and msg.get("code") in FAILURE_CODES:
                                tally.bad(f"error frame {msg}")
                            if kind == "pong":
                                break
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd is not None else 1006
            tally.counts[f"ws close {code}"] += 1
            if code not in EXPECTED_CLOSES:
                tally.bad(f"close {code} after {last}")
        except (TimeoutError, OSError) as exc:
            tally.bad(f"websocket {type(exc).__name__}: {exc}")
            await asyncio.sleep(0.1)


# ---------------------------------------------------------------------- HTTP fuzz


def fuzz_request(rng: random.Random, table: str, token: str) -> tuple[str, str, bytes | None, dict[str, bytes]]:
    ids = [table, table, "nope", *NASTY_TEXT, "x" * 40, "\ud83d\ude3a"]
    tid = rng.choice(ids)
    quoted = urllib.parse.quote(tid.encode("utf-8", "surrogatepass"), safe="")
    path = rng.choice(
        [
            "/api/tables",
            "/api/tables/finished?limit=" + urllib.parse.quote(str(json_value(rng)).encode("utf-8", "surrogatepass")),
            f"/api/tables/{quoted}",
            f"/api/tables/{quoted}/join",
            f"/api/tables/{quoted}/state",
            f"/api/tables/{quoted}/record",
            f"/api/tables/{quoted}/record/{rng.choice(['0', '1', '-1', '99', 'x', '%00'])}",
            "/health",
            "/ready",
            "/metrics",
            f"/t/{quoted}",
        ]
    )
    method = rng.choice(["GET", "GET", "POST", "POST", "PUT", "DELETE"])
    headers: dict[str, bytes] = {}
    if rng.random() < 0.4:
        value = "Bearer " + rng.choice([token, "nope", "x" * 300, "é", rng.choice(NASTY_TEXT)])
        raw = value.encode("utf-8", "surrogatepass")
        # any bytes a client can put in a header: no control characters (the HTTP client refuses those)
        headers["authorization"] = bytes(b for b in raw if b >= 0x20 and b != 0x7F).strip()
    body: bytes | None = None
    if method in ("POST", "PUT"):
        r = rng.random()
        if r < 0.3:
            obj: Any = {
                k: json_value(rng)
                for k in rng.sample(["seats", "bots", "name", "player", "money_visible", "hints", "seat"], 3)
            }
            if rng.random() < 0.5:
                obj.update(seats=rng.choice([3, 4, 5]), name=rng.choice(["ok", *NASTY_TEXT]))
            body = dumps(obj).encode("utf-8", "surrogatepass")
        elif r < 0.6:
            body = rng.choice(NASTY_FRAMES).encode("utf-8", "surrogatepass")
        elif r < 0.8:
            body = dumps(json_value(rng)).encode("utf-8", "surrogatepass")
        elif r < 0.95:
            body = bytes(rng.randrange(256) for _ in range(rng.randint(0, 64)))
        else:
            body = b'{"name": "' + b"x" * 200_000 + b'"}'  # over the body limit: 413 expected
        headers["content-type"] = rng.choice([b"application/json", b"application/json", b"text/plain", b"a/x"])
    return method, path, body, headers


async def http_worker(base: str, table: str, token: str, count: int, rng: random.Random, tally: Tally) -> None:
    import httpx

    async with httpx.AsyncClient(base_url=base, timeout=20) as client:
        for _ in range(count):
            method, path, body, headers = fuzz_request(rng, table, token)
            try:
                r = await client.request(method, path, content=body, headers=headers)
            except httpx.HTTPError as exc:
                tally.bad(f"http {type(exc).__name__} on {method} {path[:60]}")
                continue
            tally.counts["http requests"] += 1
            tally.counts[f"http {r.status_code // 100}xx"] += 1
            if r.status_code >= 500:
                tally.bad(f"http {r.status_code} on {method} {path[:60]}: {r.text[:120]}")


# ---------------------------------------------------------------------- run


def start_server(port: int, db_url: str, log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "CATSACK_DATABASE_URL": db_url,
        "CATSACK_BOT_DELAY": "0",
        "CATSACK_RATE_PER_SECOND": "1000000",
        "CATSACK_RATE_BURST": "1000000",
        "CATSACK_HTTP_RATE_PER_SECOND": "1000000",
        "CATSACK_HTTP_RATE_BURST": "1000000",
        "CATSACK_MAX_CONNECTIONS_PER_ADDRESS": "1000",
        "CATSACK_LOG_JSON": "1",
    }
    cmd = [sys.executable, "-m", "catsack", "serve", "--host", "127.0.0.1", "--port", str(port)]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log.open("wb"), env=env)


def wait_ready(base: str, proc: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            if httpx.get(f"{base}/ready", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("the server did not become ready")


def log_failures(log: Path) -> list[str]:
    """Errors in the server's log: error lines, and each traceback whole (one entry each)."""
    bad: list[str] = []
    lines = log.read_text(errors="replace").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("Traceback"):
            block = [line]
            i += 1
            while i < len(lines) and (lines[i].startswith((" ", "\t")) or not lines[i].strip()):
                block.append(lines[i])
                i += 1
            if i < len(lines):
                block.append(lines[i])  # the exception line
            bad.append("\n".join(block[-30:]))
        elif "Exception in ASGI" in line or '"level": "error"' in line:
            bad.append(line[:300])
        elif line.startswith("{"):
            try:
                exc = json.loads(line).get("exc")
                if exc:
                    bad.append(str(exc)[-3000:])
            except ValueError:
                pass
        i += 1
    return bad


async def fuzz(args: argparse.Namespace, base: str) -> Tally:
    import httpx

    tally = Tally()
    async with httpx.AsyncClient(base_url=base, timeout=20) as client:
        made = (await client.post("/api/tables", json={"seats": 3, "bots": {"1": "random", "2": "random"}})).json()
        table = made["table"]
        token = (await client.post(f"/api/tables/{table}/join", json={"name": "Fuzz"})).json()["token"]
    ws_url = base.replace("http://", "ws://") + "/ws"
    per = max(1, args.frames // args.connections)
    rngs = [random.Random(args.seed * 1000 + i) for i in range(args.connections + 4)]
    http_per = max(1, args.requests // 4)
    await asyncio.gather(
        *(ws_worker(ws_url, table, token, per, rngs[i], tally) for i in range(args.connections)),
        *(http_worker(base, table, token, http_per, rngs[args.connections + i], tally) for i in range(4)),
    )
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=20000, help="fuzzed WebSocket frames in all")
    ap.add_argument("--requests", type=int, default=5000, help="fuzzed HTTP requests in all")
    ap.add_argument("--connections", type=int, default=8, help="WebSockets sending frames at once")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--database-url", default=None, help="default: SQLite in a temporary directory")
    ap.add_argument("--json", action="store_true", help="print the totals as one JSON object")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db_url = args.database_url or f"sqlite:///{Path(tmp) / 'fuzz.db'}"
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log = Path(tmp) / "server.log"
        proc = start_server(port, db_url, log)
        t0 = time.perf_counter()
        try:
            wait_ready(base, proc)
            tally = asyncio.run(fuzz(args, base))
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        seconds = time.perf_counter() - t0
        logged = log_failures(log)
    tally.counts["internal errors"] += sum(1 for b in logged if b.startswith("Traceback"))
    result = {
        "database": "postgresql" if db_url.startswith("postgres") else "sqlite",
        "seconds": round(seconds, 1),
        **dict(sorted(tally.counts.items())),
        "examples": tally.internal + logged[:10],
    }
    if args.json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        if key != "examples":
            print(f"{key:>28}  {value}")
    for line in result["examples"]:
        print("  ", line)
    if tally.counts["internal errors"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
