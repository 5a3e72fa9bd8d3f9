"""TRL's GRPOTrainer with PTXBench's reward API as its reward, on the CPU: a tiny random policy,
the API and engine of `serve --http` with the simulated GPU stage (service_http_harness), two real
GRPO steps. Checks that every completion the trainer scored was submitted, judged and stored by the
service, that each reward is what reward.py computes from the stored record, and that the trainer
logged the mean of those rewards for its step."""
import json
from statistics import mean

import pytest

from live_server import simulated_serve
from ptxbench_client import PtxbenchClient, tiered_reward


def test_grpo_steps_take_their_rewards_from_the_service(tmp_path):
    pytest.importorskip("trl")
    import trl_grpo

    (tmp_path / "server").mkdir()
    server = simulated_serve(tmp_path / "server").start()
    try:
        out = tmp_path / "grpo"
        summary = trl_grpo.main(["--url", server.url, "--model", "tiny", "--steps", "2", "--batch", "4",
                                 "--generations", "4", "--max-completion-length", "24", "--simulated",
                                 "--run-id", "ci", "--out", str(out)])
        assert summary["steps"] == 2, "two real GRPO optimizer steps"
        lines = [json.loads(l) for l in (out / "rewards.jsonl").read_text().splitlines()]
        assert len(lines) == summary["evaluations"] == 8
        client = PtxbenchClient(server.url)
        health = client.health()["queue"]
        assert health["done"] == len({l["key"] for l in lines}), f"one judged job per completion: {health}"
        verdicts = set()
        for line in lines:
            result = client.result(line["key"])
            assert result is not None and result.state == "done", line
            assert result.record["verdict"] == line["verdict"]
            assert tiered_reward(result.reward) == line["reward"], line
            verdicts.add(line["verdict"])
        # The trainer's own log: per step, the mean reward of its completions (none was dropped).
        per_step = {}
        for line in lines:
            per_step.setdefault(line["step"], []).append(line["reward"])
        logged = summary["reward_mean_per_step"]
        assert len(logged) == 2
        for got, rewards in zip(logged, (per_step[s] for s in sorted(per_step))):
            assert got == pytest.approx(mean(rewards), abs=1e-5)
    finally:
        assert server.stop() == 0, server.log()
