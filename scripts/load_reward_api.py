#!/usr/bin/env python3
"""Load and faults through the reward API: N candidates submitted over HTTP (python/ptxbench_client,
asyncio, batches in parallel) to service_http_harness (`serve --http`'s API and engine with the
simulated GPU stage), every result awaited, then every result fetched again. Faults, while the
client keeps retrying:
  --kills K [--kill-every S]   the server (the first one with --servers) is killed -9 K times and
                               started again on the same port: when 1/(K+1), 2/(K+1), ... of the
                               results are in (or every S seconds, K times at most, with --kill-every);
  --redis                      the queue is Redis Streams (a redis-server this script starts, AOF with
                               fsync always), shared by --servers K harness processes, as hosts would
                               share it; each server takes its share of the submissions and the client
                               waits for each result on another server than the one it submitted to;
  --redis-restarts K [--redis-restart-every S]   redis-server killed -9 and started again on its AOF,
                               K times spread over the results as the kills are (or every S seconds).
Prints one JSON line: wall time, lost (a key without a done result), duplicated (stored results
beyond one per key, read from the queue's own tables: SQLite's service_job_results, or Redis's
results hash and done stream), kills, restarts, re-run attempts; exits 1 unless 0 lost, 0 duplicated
and every result retrievable.

  python3 scripts/load_reward_api.py --bin-dir build/ci/bin --n 10000 --kills 5 [--inline-gpu]
  python3 scripts/load_reward_api.py --bin-dir build/ci/bin --n 2000 --redis --servers 2 --redis-restarts 2

--inline-gpu simulates the GPU stages in-process (tests/service/inline_gpu_executor.h) instead of
as ptxbench-fake-gpu-worker processes: the API, the queue and the engine are the same; the load is
no longer bounded by starting two sandboxed processes per candidate.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python/ptxbench_client/src"))
sys.path.insert(0, str(ROOT / "python/ptxbench_client/tests"))

from live_server import free_port, simulated_serve, simulated_source  # noqa: E402
from ptxbench_client import AsyncPtxbenchClient, Candidate, RetryPolicy  # noqa: E402


def resp(port: int, *args: str) -> object:
    """One Redis command over RESP (no client library needed); integers, strings, arrays."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(("*%d\r\n" % len(args) + "".join("$%d\r\n%s\r\n" % (len(a.encode()), a) for a in args)).encode())
        f = s.makefile("rb")

        def read():
            line = f.readline().rstrip(b"\r\n")
            kind, rest = line[:1], line[1:]
            if kind == b":":
                return int(rest)
            if kind == b"+":
                return rest.decode()
            if kind == b"-":
                raise RuntimeError(rest.decode())
            if kind == b"$":
                n = int(rest)
                if n < 0:
                    return None
                data = f.read(n + 2)[:-2]
                return data.decode(errors="replace")
            if kind == b"*":
                n = int(rest)
                return None if n < 0 else [read() for _ in range(n)]
            raise RuntimeError(f"unexpected RESP reply {line!r}")

        return read()


class RedisServer:
    """redis-server on a free loopback port, its AOF (fsync always) in `folder`; kill9 + start is a
    crash and restart on the same data."""

    def __init__(self, folder: Path, exe: str) -> None:
        self.folder, self.exe = folder, exe
        self.port = free_port()
        self.proc: Optional[subprocess.Popen] = None
        folder.mkdir(parents=True, exist_ok=True)

    def start(self) -> "RedisServer":
        log = open(self.folder / "redis.log", "ab")
        self.proc = subprocess.Popen([self.exe, "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
                                      str(self.folder), "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                                      "--protected-mode", "no"], stdout=log, stderr=log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}")
            try:
                if resp(self.port, "PING") == "PONG":
                    return self
            except (OSError, RuntimeError):
                pass
            time.sleep(0.05)
        raise RuntimeError("redis-server did not answer PING in 30 s")

    def kill9(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill9()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", type=Path, required=True)
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=100)
    ap.add_argument("--concurrency", type=int, default=48, help="the asyncio client's requests in flight")
    ap.add_argument("--ms", type=int, default=1, help="each simulated GPU stage's length")
    ap.add_argument("--cpu-jobs", type=int, default=2, help="the engine's CPU threads (each leases and prepares)")
    ap.add_argument("--inline-gpu", action="store_true", help="simulate the GPU stages in-process (no worker processes)")
    ap.add_argument("--kills", type=int, default=0, help="kill -9 the server this many times")
    ap.add_argument("--kill-every", type=float, default=0, help="... every S seconds (default: spread over the results)")
    ap.add_argument("--redis", action="store_true", help="the queue on Redis Streams (a redis-server of this script's)")
    ap.add_argument("--redis-server", default=os.environ.get("REDIS_SERVER") or shutil.which("redis-server") or "")
    ap.add_argument("--servers", type=int, default=1, help="harness processes over the one queue (with --redis)")
    ap.add_argument("--redis-restarts", type=int, default=0, help="kill -9 and restart redis-server this many times")
    ap.add_argument("--redis-restart-every", type=float, default=0, help="... every S seconds (default: spread over the results)")
    ap.add_argument("--timeout", type=float, default=3600, help="give up (exit 1) after this many seconds")
    ap.add_argument("--workspace", type=Path, help="default: a fresh temporary folder")
    args = ap.parse_args()
    if args.servers > 1 and not args.redis:
        ap.error("--servers > 1 needs --redis (SQLite is one host's queue)")
    if args.redis and not args.redis_server:
        print("load_reward_api: no redis-server (apt-get install redis-server, or --redis-server)", file=sys.stderr)
        return 2
    os.environ["PTXBENCH_BIN_DIR"] = str(args.bin_dir.resolve())

    ws = args.workspace or Path(tempfile.mkdtemp(prefix="ptxbench-load-"))
    redis: Optional[RedisServer] = None
    queue = None
    stream = "load"
    if args.redis:
        redis = RedisServer(ws / "redis", args.redis_server).start()
        queue = f"redis://127.0.0.1:{redis.port}/0?stream={stream}"
    servers = [simulated_serve(ws / f"server{i}", port=free_port(), queue=queue, inline_gpu=args.inline_gpu,
                               cpu_jobs=args.cpu_jobs)
               for i in range(args.servers)]
    for s in servers:
        s.workspace.mkdir(parents=True, exist_ok=True)
        s.start()
    cands = [Candidate(f"load-{i}", "gemm", simulated_source(ms=args.ms, i=i)) for i in range(args.n)]
    done = threading.Event()
    faults = {"kills": 0, "redis_restarts": 0}
    finished = [0]  # results in so far

    def due(k: int, count: int, every: float) -> bool:
        """Waits until the k-th of `count` faults is due; False once the run is over."""
        if every > 0:
            return not done.wait(every)
        while not done.is_set():
            if finished[0] >= k * args.n // (count + 1):
                return True
            time.sleep(0.05)
        return False

    def killer() -> None:
        for k in range(1, args.kills + 1):
            if not due(k, args.kills, args.kill_every):
                return
            servers[0].kill9()
            faults["kills"] += 1
            time.sleep(0.2)
            servers[0].start()

    def redis_restarter() -> None:
        assert redis is not None
        for k in range(1, args.redis_restarts + 1):
            if not due(k, args.redis_restarts, args.redis_restart_every):
                return
            redis.kill9()
            faults["redis_restarts"] += 1
            time.sleep(0.5)
            redis.start()

    threads = []
    if args.kills > 0:
        threads.append(threading.Thread(target=killer, daemon=True))
    if args.redis_restarts > 0 and redis:
        threads.append(threading.Thread(target=redis_restarter, daemon=True))

    def client(i: int) -> AsyncPtxbenchClient:
        return AsyncPtxbenchClient(servers[i % len(servers)].url, batch_size=args.batch, poll_seconds=10,
                                   concurrency=args.concurrency,
                                   retry=RetryPolicy(max_attempts=1000, base_delay=0.05, max_delay=1.0,
                                                     rng=random.Random(1 + i)))

    async def run():
        clients = [client(i) for i in range(len(servers))]
        share = [cands[i::len(servers)] for i in range(len(servers))]  # server i takes every i-th candidate
        t0 = time.monotonic()
        for t in threads:
            t.start()
        await asyncio.gather(*(c.submit(part) for c, part in zip(clients, share)))
        submitted = time.monotonic() - t0
        # Each result awaited on the next server: across hosts, any server answers for any key.
        async def wait(i: int, c: Candidate):
            r = await clients[(i + 1) % len(clients)].wait(c.key, timeout=args.timeout)
            finished[0] += 1
            return r

        results = await asyncio.gather(*(wait(i, c) for i, c in enumerate(cands)))
        wall = time.monotonic() - t0
        done.set()
        for t in threads:
            t.join(timeout=60)
        refetched = await asyncio.gather(*(clients[i % len(clients)].result(c.key) for i, c in enumerate(cands)))
        return submitted, wall, results, refetched, await clients[0].health()

    try:
        submit_s, wall_s, results, refetched, health = asyncio.run(asyncio.wait_for(run(), args.timeout))
    finally:
        done.set()
    by_key = {r.key: r for r in results}
    lost = [c.key for c in cands if c.key not in by_key or by_key[c.key].state != "done"]
    unretrievable = [c.key for c, r in zip(cands, refetched) if r is None or r.key != c.key or r.state != "done"]
    stop_codes = [s.stop() for s in servers]
    report = {"n": args.n, "queue": "redis" if redis else "sqlite", "servers": len(servers),
              "gpu": "inline" if args.inline_gpu else "fake-worker processes",
              "wall_seconds": round(wall_s, 1), "submit_seconds": round(submit_s, 1),
              "per_second": round(args.n / wall_s, 1), "lost": len(lost), "unretrievable": len(unretrievable),
              "kills": faults["kills"], "redis_restarts": faults["redis_restarts"],
              # a job whose lease ran out (its server killed, Redis gone past the lease) runs again
              "rerun_attempts": sum(max(0, r.attempts - 1) for r in results),
              "correct": sum(1 for r in results if r.reward.get("correct")), "health_queue": health["queue"],
              "server_exit_codes": stop_codes}
    if redis:
        prefix = "{" + stream + "}:"
        stored = resp(redis.port, "HLEN", prefix + "results")
        finished = resp(redis.port, "XLEN", prefix + "done")
        counts = resp(redis.port, "HGETALL", prefix + "counts")
        counts = dict(zip(counts[::2], map(int, counts[1::2]))) if counts else {}
        redis.stop()
        report.update({"stored_results": stored, "finished_entries": finished, "redis_counts": counts,
                       "duplicated": max(stored, finished) - len(by_key),
                       "jobs_in_queue": counts.get("done", 0) + counts.get("infra_error", 0)})
        ok = stored == args.n and finished == args.n and counts.get("done", 0) == args.n
    else:
        db = sqlite3.connect(servers[0].workspace / "ptxbench.db")
        stored = db.execute("SELECT COUNT(*) FROM service_job_results").fetchone()[0]
        jobs = db.execute("SELECT COUNT(*) FROM service_jobs").fetchone()[0]
        report.update({"stored_results": stored, "jobs_in_queue": jobs, "duplicated": stored - len(by_key)})
        ok = stored == args.n and jobs == args.n
    print(json.dumps(report))
    # Spread over the results, every fault is certain to happen; on a timer, as many as the run lasted.
    faults_ok = (args.kill_every > 0 or faults["kills"] == args.kills) and \
        (args.redis_restart_every > 0 or not redis or faults["redis_restarts"] == args.redis_restarts)
    ok = ok and faults_ok and not lost and not unretrievable and report["duplicated"] == 0
    if not ok:
        for s in servers:
            print(f"--- {s.workspace}/server.log (end)\n{s.log()}", file=sys.stderr)
    elif not args.workspace:
        shutil.rmtree(ws, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
