"""Silent WebSockets benchmark: memory of a server that 3,000 sockets never say hello to, and whether a
newcomer still gets in.

One ``catsack serve`` process (SQLite in a temporary directory) behind a trusted proxy address, so the
script can speak for many client addresses (``X-Forwarded-For``: ``--per-address`` sockets from each).
It opens ``--sockets`` WebSockets that never send a frame, then one more from a fresh address that says
hello to a table (the newcomer: does it get in, and how long does its welcome take), holds them until
the server closes them (``HELLO_TIMEOUT``, 10 s, or closed with 1013 to make room for newer ones), and
reports the server's resident size (RSS): idle, at the peak, and once they are gone and the housekeeping
sweep has run. Two runs: the limits of the server as shipped (``CATSACK_MAX_PENDING_CONNECTIONS`` per
process, the oldest closed when it is full; ``CATSACK_MAX_PENDING_PER_ADDRESS``, more refused with 503),
and with both lifted (as every version before the limits behaved). The peak growth divided by the
sockets held is the memory of one waiting socket, which sizes the per-process bound (docs/deploy.md).

    PYTHONPATH=src .venv/bin/python bench/silent_sockets.py
    PYTHONPATH=src .venv/bin/python bench/silent_sockets.py --sockets 3000 --per-address 10 --json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from server_procs import ServerProc


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


async def flood(port: int, n: int, per_address: int) -> tuple[list[Any], int, int]:
    import websockets

    held: list[Any] = []
    refused = failed = 0
    sem = asyncio.Semaphore(100)

    async def one(i: int) -> None:
        nonlocal refused, failed
        address = f"10.{(i // per_address) // 65536 % 256}.{(i // per_address) // 256 % 256}.{(i // per_address) % 256}"
        async with sem:
            try:
                ws = await websockets.connect(
                    f"ws://127.0.0.1:{port}/ws", additional_headers={"X-Forwarded-For": address}, open_timeout=30
                )
            except websockets.exceptions.InvalidStatus:
                refused += 1
                return
            except Exception:
                failed += 1
                return
        held.append(ws)

    await asyncio.gather(*(one(i) for i in range(n)))
    return held, refused, failed


async def newcomer(p: ServerProc) -> float | None:
    """Milliseconds from a fresh address's handshake to its welcome at a table, ``None`` if it never came."""
    import websockets

    table = p.create_table(seats=3, bots={"1": "random", "2": "random"}, name="newcomer")["table"]
    t0 = time.monotonic()
    try:
        async with websockets.connect(
            f"ws://127.0.0.1:{p.port}/ws/{table}", additional_headers={"X-Forwarded-For": "192.0.2.1"}, open_timeout=30
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "protocol": "catsack-ws/1", "table": table, "token": None}))
            while json.loads(await asyncio.wait_for(ws.recv(), 30))["type"] != "welcome":
                pass
    except Exception:
        return None
    return round((time.monotonic() - t0) * 1000, 1)


async def measure(p: ServerProc, args: argparse.Namespace) -> dict[str, Any]:
    assert p.proc is not None
    pid = p.proc.pid
    await asyncio.sleep(1.0)
    idle = rss_mib(pid)
    t0 = time.monotonic()
    held, refused, failed = await flood(p.port, args.sockets, args.per_address)
    opened = time.monotonic() - t0
    peak = rss_mib(pid)
    newcomer_ms = await newcomer(p)
    # The server closes each silent socket after its hello timeout; then the sweep gives memory back.
    end = time.monotonic() + 60
    while time.monotonic() < end and any(ws.close_code is None for ws in held):
        await asyncio.sleep(0.2)
        peak = max(peak, rss_mib(pid))
    for ws in held:
        with contextlib.suppress(Exception):
            await ws.close()
    await asyncio.sleep(args.settle)
    after = rss_mib(pid)
    return {
        "sockets_tried": args.sockets,
        "accepted": len(held),
        "refused": refused,
        "failed": failed,
        "open_seconds": round(opened, 1),
        "newcomer_welcome_ms": newcomer_ms,
        "closed_to_make_room": sum(1 for ws in held if ws.close_code == 1013),
        "rss_mib": {"idle": round(idle, 1), "peak": round(peak, 1), "after": round(after, 1)},
        "rss_growth_mib": {"peak": round(peak - idle, 1), "after": round(after - idle, 1)},
    }


def run(args: argparse.Namespace, limits: dict[str, str], folder: Path, name: str) -> dict[str, Any]:
    env = {
        "CATSACK_DATABASE_URL": f"sqlite:///{folder / (name + '.db')}",
        "CATSACK_TRUSTED_PROXIES": "127.0.0.1",
        "CATSACK_MAX_CONNECTIONS_PER_ADDRESS": "100000",
        "MALLOC_ARENA_MAX": "2",  # as deploy/systemd/catsack@.service sets it
        **limits,
    }
    p = ServerProc(folder, env, name=name)
    try:
        p.start()
        return asyncio.run(measure(p, args))
    finally:
        p.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sockets", type=int, default=3000)
    ap.add_argument("--per-address", type=int, default=10, help="silent sockets from each client address")
    ap.add_argument("--settle", type=float, default=6.0, help="seconds to wait after the sockets are gone")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from catsack.server.settings import Settings

    defaults = Settings()
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="catsack-silent-") as tmp:
        folder = Path(tmp)
        shipped = run(args, {}, folder, "limited")
        lifted = run(
            args,
            {"CATSACK_MAX_PENDING_CONNECTIONS": "100000", "CATSACK_MAX_PENDING_PER_ADDRESS": "100000"},
            folder,
            "unlimited",
        )
    out = {
        "limits": {
            "max_pending_connections": defaults.max_pending_connections,
            "max_pending_per_address": defaults.max_pending_per_address,
        },
        "with_limits": shipped,
        "without_limits": lifted,
        "load_average_before_after": [round(load0, 2), round(os.getloadavg()[0], 2)],
    }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        for label, r in (("with the limits", shipped), ("limits lifted", lifted)):
            m = r["rss_mib"]
            print(
                f"{label:16} accepted {r['accepted']:5} refused {r['refused']:5} closed for room "
                f"{r['closed_to_make_room']:5}  RSS idle {m['idle']:.0f} MiB, "
                f"peak {m['peak']:.0f} (+{r['rss_growth_mib']['peak']:.0f}), after {m['after']:.0f} "
                f"(+{r['rss_growth_mib']['after']:.0f}); newcomer's welcome {r['newcomer_welcome_ms']} ms"
            )
        print(f"load average {out['load_average_before_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
