"""The client against real servers on loopback: `ptxbench serve --http` judging real candidates
(static verdicts on the CPU: a broken build, a cuBLAS call), and the API over the engine with the
simulated GPU stage: every tier of the reward recipes, a full queue's 429 retried through, and the
server killed -9 and restarted under a client that keeps retrying (0 lost, 0 judged twice)."""
import asyncio
import random
import threading
import time

import pytest

from ptxbench_client import (DEFAULT, TARGET_REQUIRED, AsyncPtxbenchClient, Candidate, KeyConflict, PtxbenchClient,
                             RetryPolicy, tiered_reward)
from live_server import SOURCE_DIR, free_port, real_serve, simulated_serve, simulated_source


def test_real_serve_judges_a_broken_build_and_a_library_call(tmp_path):
    server = real_serve(tmp_path).start()
    try:
        client = PtxbenchClient(server.url, poll_seconds=10)
        assert client.health()["status"] == "ok"
        cublas = (SOURCE_DIR / "tests/gpu/candidates/calls_cublas.cu").read_text()
        results = client.evaluate([Candidate("broken", "gemm", "not C++ at all\n"),
                                   Candidate("cublas", "gemm", cublas, metadata={"step": 1})], timeout=900)
        assert [r.reward["verdict"] for r in results] == ["compile_error", "forbidden"]
        assert tiered_reward(results[0].reward) == DEFAULT.not_compiled
        assert tiered_reward(results[1].reward) == DEFAULT.forbidden
        assert results[1].metadata == {"step": 1}
        assert results[0].reward["error_class"] == "compile_error"
        assert results[0].record["verdict"] == "compile_error"
        with pytest.raises(KeyConflict):
            client.submit([Candidate("broken", "gemm", "another candidate\n")])
    finally:
        assert server.stop() == 0, server.log()


def test_simulated_gpu_gives_every_reward_tier(tmp_path):
    server = simulated_serve(tmp_path).start()
    specs = {
        "fast": dict(speedup=2.5), "slow": dict(speedup=0.6), "no-target": dict(speedup=2.0, target=False),
        "wrong": dict(wrong=True), "broken": dict(build="compile_error"), "crash": dict(fault="hang", fault_attempts=9),
    }
    try:
        async def run():
            client = AsyncPtxbenchClient(server.url, poll_seconds=5)
            cands = [Candidate(k, "gemm", simulated_source(ms=2, **s)) for k, s in specs.items()]
            return await client.evaluate(cands, timeout=300)

        results = {r.key: r for r in asyncio.run(run())}
        views = {k: r.reward for k, r in results.items()}
        assert views["fast"]["correct"] and views["fast"]["speedup_geomean"] == pytest.approx(2.5)
        assert tiered_reward(views["fast"]) == 2.0
        assert tiered_reward(views["slow"]) == DEFAULT.correct_slower
        assert tiered_reward(views["no-target"]) == 2.0
        assert tiered_reward(views["no-target"], TARGET_REQUIRED) == TARGET_REQUIRED.correct_without_target
        assert views["wrong"]["verdict"] == "incorrect" and tiered_reward(views["wrong"]) == DEFAULT.wrong
        assert tiered_reward(views["broken"]) == DEFAULT.not_compiled
        assert views["crash"]["verdict"] == "runtime_error"
    finally:
        assert server.stop() == 0, server.log()


def test_a_full_queue_is_retried_through(tmp_path):
    server = simulated_serve(tmp_path, max_queue_depth=8).start()
    try:
        client = PtxbenchClient(server.url, batch_size=4, retry=RetryPolicy(max_attempts=200, max_delay=0.5))
        cands = [Candidate(f"k{i}", "gemm", simulated_source(ms=20, i=i)) for i in range(40)]
        results = client.evaluate(cands, timeout=300)
        assert len(results) == 40 and all(r.reward["correct"] for r in results)
    finally:
        assert server.stop() == 0, server.log()


def test_kill_nine_under_a_retrying_client_loses_nothing_and_judges_nothing_twice(tmp_path):
    port = free_port()
    server = simulated_serve(tmp_path, port=port).start()
    n = 400
    cands = [Candidate(f"job-{i}", "gemm", simulated_source(ms=5, i=i)) for i in range(n)]
    client = PtxbenchClient(server.url, batch_size=20, poll_seconds=5,
                            retry=RetryPolicy(max_attempts=400, base_delay=0.05, max_delay=0.5, rng=random.Random(3)))
    outcome = {}

    def submit_and_wait():
        try:
            outcome["results"] = client.evaluate(cands, timeout=600)
        except Exception as e:  # noqa: BLE001 - reported by the assertion below
            outcome["error"] = e

    worker = threading.Thread(target=submit_and_wait)
    worker.start()
    try:
        for _ in range(3):  # kill -9 while submissions and long-polls are in flight, start again on the port
            time.sleep(1.5)
            server.kill9()
            time.sleep(0.5)
            server.start()
        worker.join(timeout=900)
        assert not worker.is_alive()
        assert "error" not in outcome, outcome.get("error")
        results = outcome["results"]
        assert [r.key for r in results] == [c.key for c in cands]
        assert all(r.state == "done" and r.reward["correct"] for r in results), "0 lost"
        health = client.health()
        assert health["queue"]["done"] == n, f"one job per key, none judged twice: {health['queue']}"
        for c in cands[:: n // 20]:
            assert client.result(c.key) is not None
    finally:
        assert server.stop() == 0, server.log()
