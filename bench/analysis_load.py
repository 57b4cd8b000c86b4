"""Post-game analysis benchmark: how long a seat's analysis takes, and what it does to live tables.

Three measurements:

1. ``serial``: :func:`catsack.advice.analysis.analyse_record` in this process for every decision of
   one seat of a 4-seat heuristic-bot game, at the analysis level (default: the library's).
2. ``server``: a real ``catsack serve`` (SQLite in a temporary directory, bot delay 0) with
   ``--tables`` tables of one bench-driven person and three random bots. The person moves as soon
   as it is its turn (pass if it can, else the first legal move) and the time from sending a move
   to receiving the ``state`` frame of the new version is recorded. One ``--seconds`` window
   before any analysis; then, while the server analyses one seat of a finished 4-seat game
   (``POST /api/tables/{id}/analysis``, worker pool of ``CATSACK_ANALYSIS_WORKERS`` processes at
   lower priority), ``--rounds`` pairs of windows ``on`` (the workers search) and ``off`` (the
   bench stops the workers with SIGSTOP), interleaved so the machine's other load falls on both
   alike; one window after. p50/p99/max per condition, CPU seconds of the server process and of
   the workers, and the analysis' own time (paused time left out).
3. ``--calibrate N``: the lost values of N heuristic-bot 4-seat games (one seat each, rotating),
   their quantiles, and how many inaccuracies/mistakes/blunders per game candidate thresholds
   give. This is how :data:`catsack.server.people.analysis_jobs.THRESHOLDS` was chosen: "a typical
   heuristic-bot game has a handful of each".

    .venv/bin/python bench/analysis_load.py                    # serial + server, default level
    .venv/bin/python bench/analysis_load.py --no-serial --tables 8 --seconds 10 --rounds 4
    .venv/bin/python bench/analysis_load.py --calibrate 12     # thresholds (takes minutes)

Figures, 2026-11-23, on the reference machine (docs/benchmarks.md) while other agents' benchmarks and tests
ran (1-minute load average 11 to 24, so every latency below is dominated by them):

* serial, expert (the default level), one seat of a 4-seat heuristic game, 27 decisions:
  16.0 s at load ~11 (0.6 s a decision); 46.6 s and 51.9 s at load 16-18.
* server, first design (one window before, during, after; load 16-24): p99 swung between
  136 and 674 ms from window to window, with no pattern tied to the analysis.
* server, A/B design, ``--no-serial --tables 8 --seconds 10 --rounds 4`` (load 22-28), 4 x 10 s
  with the worker running (on) and stopped (off), interleaved:
  - progress written to the database about once a second (through the one database thread the
    moves also use): on 1058 moves, p50 53 ms, p99 581 ms; off 1810 moves, p50 23 ms, p99
    320 ms: the live tables did worse while the analysis ran (one run each; that the progress
    writes were the cause is likely, not proven).
  - progress written every 15 s (the code now): on 778 moves, p50 93 ms, p99 279 ms; off 837
    moves, p50 82 ms, p99 343 ms: no difference beyond the noise.
  The niced worker got 0.9-1.2 CPU-s of the 40 s "on" (the box was saturated by others); the
  server process used about the same CPU per move in both conditions. The analysis (32-36
  decisions, expert) took 261-334 s of unpaused wall time at this load (16 s serially at load 11).

On this box the windows' p99 are set by the other tenants (hundreds of ms); that the analysis
moves p99 by only "a few milliseconds" is not shown here and needs a quiet machine with a core
to spare for the worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from catsack.advice.analysis import DEFAULT_LEVEL, analyse_record
from catsack.bots.base import make_bot, play_game
from catsack.game import Game
from catsack.record import Record, record_from_game


def heuristic_record(seed: int, seats: int = 4) -> Record:
    game = play_game(Game.new(seats, seed=seed), [make_bot("heuristic", seed=seed * 10 + i) for i in range(seats)])
    return record_from_game(game)


def lost_values(record: Record, seat: int, level: str, seed: int) -> list[float]:
    out = []
    for d in analyse_record(record, seat, level=level, seed=seed):
        values, best, played = d.analysis.values, d.analysis.best.text, d.played.text
        out.append(max(0.0, values[best] - values[played]) if played != best and played in values else 0.0)
    return out


def serial(level: str) -> dict[str, Any]:
    record = heuristic_record(1000)
    t0 = time.perf_counter()
    decisions = analyse_record(record, 0, level=level, seed=0)
    seconds = time.perf_counter() - t0
    return {"level": level, "decisions": len(decisions), "seconds": round(seconds, 2)}


def calibrate(games: int, level: str) -> dict[str, Any]:
    per_game = []
    t0 = time.perf_counter()
    for k in range(games):
        per_game.append(lost_values(heuristic_record(1000 + k), k % 4, level, k))
        print(f"  game {k + 1}/{games}: {len(per_game[-1])} decisions, {time.perf_counter() - t0:.0f} s", flush=True)
    values = sorted(v for g in per_game for v in g)
    n = len(values)
    quantiles = {
        f"q{int(q * 100)}": round(values[min(n - 1, int(q * n))], 2) for q in (0.5, 0.75, 0.85, 0.9, 0.95, 0.99)
    }
    candidates = {}
    for ina, mis, blu in ((2.5, 5.0, 10.0), (3.0, 6.0, 12.0), (4.0, 8.0, 15.0)):
        candidates[f"{ina}/{mis}/{blu}"] = {
            "inaccuracies": round(sum(ina <= v < mis for v in values) / games, 1),
            "mistakes": round(sum(mis <= v < blu for v in values) / games, 1),
            "blunders": round(sum(v >= blu for v in values) / games, 1),
        }
    return {
        "level": level,
        "games": games,
        "decisions_per_game": round(n / games, 1),
        "lost_per_decision": round(sum(values) / n, 2),
        "quantiles": quantiles,
        "per_game_at_thresholds": candidates,
    }


# ---------------------------------------------------------------------- the server part


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def call(base: str, path: str, body: Any = None, token: str | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method="GET" if body is None else "POST")
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req, timeout=30) as answer:
        return json.load(answer)


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def summary(values: list[float]) -> dict[str, Any]:
    return {
        "moves": len(values),
        "p50_ms": round(statistics.median(values) * 1000, 2) if values else None,
        "p99_ms": round(pct(values, 0.99) * 1000, 2),
        "max_ms": round(max(values) * 1000, 2) if values else None,
    }


async def person(base: str, stop: asyncio.Event, phase: list[str], out: dict[str, list[float]]) -> None:
    """One bench-driven person at a fresh table after another: moves at once, times each broadcast."""
    import websockets

    loop = asyncio.get_running_loop()
    while not stop.is_set():
        table = (
            await loop.run_in_executor(
                None, call, base, "/api/tables", {"seats": 4, "bots": {"1": "random", "2": "random", "3": "random"}}
            )
        )["table"]
        joined = await loop.run_in_executor(None, call, base, f"/api/tables/{table}/join", {"name": "bench"})
        async with websockets.connect(base.replace("http", "ws", 1) + "/ws", max_size=2**22) as ws:
            hello = {"type": "hello", "protocol": "catsack-ws/1", "table": table, "token": joined["token"]}
            await ws.send(json.dumps(hello))
            sent_at: float | None = None
            sent_version = -1
            n = 0
            while not stop.is_set():
                try:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                except TimeoutError:
                    continue
                if frame.get("type") != "state":
                    continue
                if sent_at is not None and frame["version"] > sent_version:
                    out.setdefault(phase[0], []).append(time.perf_counter() - sent_at)
                    sent_at = None
                view = frame["view"]
                if view["phase"] == "over":
                    break
                if view["to_move"] == view["seat"] and sent_at is None:
                    legal = view["legal"]
                    n += 1
                    move = "pass" if "pass" in legal else legal[0]
                    sent_at, sent_version = time.perf_counter(), frame["version"]
                    await ws.send(
                        json.dumps({"type": "move", "action_id": f"b{n}", "version": sent_version, "move": move})
                    )


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return out


async def drive(base: str, tables: int, seconds: float, finished: str, server_pid: int, rounds: int) -> dict[str, Any]:
    """A/B windows of ``seconds`` each while one analysis runs: ``on`` (its worker processes run)
    and ``off`` (the bench stops them with SIGSTOP), interleaved ``rounds`` times so that the
    machine's other load falls on both alike; plus one window before and one after the analysis.
    Per condition: the live tables' latencies, the load averages, and the CPU seconds of the
    server process and of its analysis workers (its child processes)."""
    stop = asyncio.Event()
    phase = ["warmup"]
    out: dict[str, list[float]] = {}
    load: dict[str, list[float]] = {}
    cpu: dict[str, dict[str, float]] = {}
    tasks = [asyncio.create_task(person(base, stop, phase, out)) for _ in range(tables)]
    loop = asyncio.get_running_loop()
    await asyncio.sleep(2.0)

    async def window(name: str) -> None:
        workers = children(server_pid)
        before = cpu_seconds(server_pid), sum(cpu_seconds(w) for w in workers)
        phase[0] = name
        await asyncio.sleep(seconds)
        phase[0] = "between"
        load.setdefault(name, []).append(round(os.getloadavg()[0], 1))
        workers = sorted(set(workers) | set(children(server_pid)))
        used = cpu.setdefault(name, {"server": 0.0, "workers": 0.0})
        used["server"] = round(used["server"] + cpu_seconds(server_pid) - before[0], 2)
        used["workers"] = round(used["workers"] + sum(cpu_seconds(w) for w in workers) - before[1], 2)

    async def status() -> dict[str, Any]:
        answer: dict[str, Any] = await loop.run_in_executor(None, call, base, f"/api/tables/{finished}/analysis?seat=0")
        return answer

    await window("before")
    t0 = time.perf_counter()
    await loop.run_in_executor(None, call, base, f"/api/tables/{finished}/analysis", {"seat": 0})
    while not children(server_pid) or (await status())["done"] == 0:  # the pool is up and searching
        await asyncio.sleep(0.2)
    paused = 0.0
    running_throughout = True
    for _ in range(rounds):
        await window("on")
        workers = children(server_pid)
        for w in workers:
            os.kill(w, signal.SIGSTOP)
        p0 = time.perf_counter()
        try:
            await window("off")
        finally:
            for w in workers:
                os.kill(w, signal.SIGCONT)
            paused += time.perf_counter() - p0
        running_throughout = running_throughout and (await status())["status"] == "running"
    answer = await status()
    while answer["status"] == "running" and time.perf_counter() - t0 < 3600:
        await asyncio.sleep(0.5)
        answer = await status()
    wall = time.perf_counter() - t0
    await window("after")
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    result = answer.get("result") or {}
    return {
        "tables": tables,
        "window_seconds": seconds,
        "rounds": rounds,
        **{name: summary(out.get(name, [])) for name in ("before", "on", "off", "after")},
        "analysis_ran_through_every_on_window": running_throughout,
        "load_average_1min": load,
        "cpu_seconds": cpu,
        "analysis": {
            "status": answer.get("status"),
            "level": answer.get("level"),
            "decisions": len(result.get("decisions", [])),
            "wall_seconds_not_paused": round(wall - paused, 2),
        },
    }


def server_bench(level: str, tables: int, seconds: float, workers: int, rounds: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "CATSACK_DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.db'}",
            "CATSACK_BOT_DELAY": "0",
            "CATSACK_ANALYSIS_WORKERS": str(workers),
            "CATSACK_LOG_LEVEL": "WARNING",
            "CATSACK_HTTP_RATE_PER_SECOND": "100000",
            "CATSACK_HTTP_RATE_BURST": "100000",
        }
        if level != DEFAULT_LEVEL:
            env["CATSACK_ANALYSIS_LEVEL"] = level
        with (Path(tmp) / "server.log").open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "catsack", "serve", "--host", "127.0.0.1", "--port", str(port)],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    call(base, "/health")
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise SystemExit((Path(tmp) / "server.log").read_text()[-2000:]) from None
                    time.sleep(0.2)
            finished = call(base, "/api/tables", {"seats": 4, "bots": {str(i): "heuristic" for i in range(4)}})["table"]
            while call(base, f"/api/tables/{finished}")["status"] != "over":
                time.sleep(0.1)
            return asyncio.run(drive(base, tables, seconds, finished, proc.pid, rounds))
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--level", default=DEFAULT_LEVEL, help=f"analysis level (default: {DEFAULT_LEVEL})")
    p.add_argument("--tables", type=int, default=8, help="live tables driven during the measurement")
    p.add_argument("--seconds", type=float, default=10.0, help="length of each measurement window")
    p.add_argument("--rounds", type=int, default=4, help="pairs of windows with the analysis running and stopped")
    p.add_argument("--workers", type=int, default=1, help="the server's analysis worker processes")
    p.add_argument("--calibrate", type=int, metavar="GAMES", help="only the threshold calibration, on GAMES games")
    p.add_argument("--no-server", action="store_true", help="only the serial measurement")
    p.add_argument("--no-serial", action="store_true", help="only the server measurement")
    args = p.parse_args(argv)
    if args.calibrate:
        print(json.dumps(calibrate(args.calibrate, args.level), indent=2))
        return 0
    report: dict[str, Any] = {}
    if not args.no_serial:
        report["serial"] = serial(args.level)
        print(json.dumps(report, indent=2), flush=True)
    if not args.no_server:
        report["server"] = server_bench(args.level, args.tables, args.seconds, args.workers, args.rounds)
        print(json.dumps(report["server"], indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
