#!/usr/bin/env python3
"""Load and faults through the reward API: N candidates submitted over HTTP (python/ptxbench_client,
asyncio, batches in parallel) to service_http_harness (`serve --http`'s API and engine with the
simulated GPU stage), every result awaited; with --kill-every S the server is killed -9 every S
seconds and started again on the same port while the client retries through. Prints one JSON line:
wall time, lost (a key without a result), duplicated (stored results beyond one per key, read from
the queue's own table), kills, re-run attempts.

  python3 scripts/load_reward_api.py --bin-dir build/ci/bin --n 10000 [--kill-every 20]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python/ptxbench_client/src"))
sys.path.insert(0, str(ROOT / "python/ptxbench_client/tests"))
import os  # noqa: E402

from ptxbench_client import AsyncPtxbenchClient, Candidate, RetryPolicy  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", type=Path, required=True)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--ms", type=int, default=1, help="each simulated GPU stage's length")
    ap.add_argument("--kill-every", type=float, default=0, help="kill -9 the server every S seconds (0: never)")
    ap.add_argument("--workspace", type=Path, help="default: a fresh temporary folder")
    args = ap.parse_args()
    os.environ["PTXBENCH_BIN_DIR"] = str(args.bin_dir.resolve())
    from live_server import free_port, simulated_serve, simulated_source

    ws = args.workspace or Path(tempfile.mkdtemp(prefix="ptxbench-load-"))
    server = simulated_serve(ws, port=free_port()).start()
    cands = [Candidate(f"load-{i}", "gemm", simulated_source(ms=args.ms, i=i)) for i in range(args.n)]
    done = threading.Event()
    kills = 0

    def killer() -> None:
        nonlocal kills
        while not done.wait(args.kill_every):
            server.kill9()
            kills += 1
            time.sleep(0.3)
            server.start()

    if args.kill_every > 0:
        threading.Thread(target=killer, daemon=True).start()

    async def run():
        client = AsyncPtxbenchClient(server.url, batch_size=args.batch, poll_seconds=10, concurrency=48,
                                     retry=RetryPolicy(max_attempts=1000, base_delay=0.05, max_delay=1.0,
                                                       rng=random.Random(1)))
        t0 = time.monotonic()
        await client.submit(cands)
        submitted = time.monotonic() - t0
        results = await asyncio.gather(*(client.wait(c.key, timeout=3600) for c in cands))
        return submitted, time.monotonic() - t0, results, await client.health()

    try:
        submit_s, wall_s, results, health = asyncio.run(run())
    finally:
        done.set()
    by_key = {r.key: r for r in results}
    lost = [c.key for c in cands if c.key not in by_key or by_key[c.key].state != "done"]
    server.stop()
    db = sqlite3.connect(ws / "ptxbench.db")
    stored = db.execute("SELECT COUNT(*) FROM service_job_results").fetchone()[0]
    jobs = db.execute("SELECT COUNT(*) FROM service_jobs").fetchone()[0]
    reruns = db.execute("SELECT COALESCE(SUM(attempts - 1), 0) FROM service_jobs").fetchone()[0]
    report = {"n": args.n, "wall_seconds": round(wall_s, 1), "submit_seconds": round(submit_s, 1),
              "per_second": round(args.n / wall_s, 1), "lost": len(lost), "duplicated": stored - len(by_key),
              "jobs_in_queue": jobs, "stored_results": stored, "kills": kills, "rerun_attempts": reruns,
              "correct": sum(1 for r in results if r.reward.get("correct")), "queue": health["queue"]}
    print(json.dumps(report))
    return 0 if not lost and stored == args.n and jobs == args.n else 1


if __name__ == "__main__":
    sys.exit(main())
