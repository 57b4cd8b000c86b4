"""Silent WebSockets benchmark (issue 29, defect 10): memory of a server that 1,500 sockets never say hello to.

One ``catsack serve`` process (SQLite in a temporary directory) behind a trusted proxy address, so the
script can speak for many client addresses (``X-Forwarded-For``: ``--per-address`` sockets from each).
It opens ``--sockets`` WebSockets that never send a frame, holds them until the server closes them
(``HELLO_TIMEOUT``, 10 s), and reports the server's resident size (RSS): idle, at the peak, and once they
are gone and the housekeeping sweep has run. Two runs: the limits of the server as shipped
(``CATSACK_MAX_PENDING_CONNECTIONS`` 256 per process, ``CATSACK_MAX_PENDING_PER_ADDRESS`` 16), and with
both lifted (as every version before the limits behaved).

    PYTHONPATH=src .venv/bin/python bench/silent_sockets.py
    PYTHONPATH=src .venv/bin/python bench/silent_sockets.py --sockets 1500 --per-address 10 --json
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


async def measure(p: ServerProc, args: argparse.Namespace) -> dict[str, Any]:
    assert p.proc is not None
    pid = p.proc.pid
    await asyncio.sleep(1.0)
    idle = rss_mib(pid)
    t0 = time.monotonic()
    held, refused, failed = await flood(p.port, args.sockets, args.per_address)
    opened = time.monotonic() - t0
    peak = rss_mib(pid)
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
    ap.add_argument("--sockets", type=int, default=1500)
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
                f"{label:16} accepted {r['accepted']:5} refused {r['refused']:5}  RSS idle {m['idle']:.0f} MiB, "
                f"peak {m['peak']:.0f} (+{r['rss_growth_mib']['peak']:.0f}), after {m['after']:.0f} "
                f"(+{r['rss_growth_mib']['after']:.0f})"
            )
        print(f"load average {out['load_average_before_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
