"""PTXBench's judge as verl's reward: custom reward functions for verl's `custom_reward_function` hook,
which call a running `ptxbench serve --http` through python/ptxbench_client and score each record
with reward.py's recipes (docs/rl.md).

verl config (the reward loop of verl 0.9, one async call per sample, judged concurrently):

    reward:
      custom_reward_function:
        path: python/examples/verl_reward.py
        name: compute_score_async            # or compute_score (sync), e.g. for the NaiveRewardManager
        reward_kwargs: {url: "http://127.0.0.1:8080", recipe: default}

and for verl's BatchRewardManager (the whole batch in one submission): `name: compute_score_batch`.

The dataset's rows name the problem: `reward_model.ground_truth` (or `extra_info.problem`) is a
PTXBench problem (`gemm`, `mha_fwd`, ...); the response is the candidate (its last fenced code
block, else the whole text). A candidate's key is a hash of its problem and source, so the same
completion sent twice (two samples of a group, a restarted trainer) is judged once and answered
with that one result. Returns verl's dict form: `score` plus the record's flat fields (verdict,
correct, speedup, target_executed, counts), which verl keeps as `reward_extra_info`.

verl needs a number for every sample: a candidate with no verdict (infra_error, not_run: the
harness, not the candidate, failed) scores `no_verdict_score` (0.0 by default) and says
`counts: False`, so a trainer can mask it.
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ptxbench_client" / "src"))

from ptxbench_client import (DEFAULT, TARGET_REQUIRED, AsyncPtxbenchClient, Candidate,  # noqa: E402
                             PtxbenchClient, Result, RetryPolicy, tiered_reward)

FENCE = re.compile(r"```[ \t]*(?:cuda|cu|cpp|c\+\+|c)?[ \t]*\n(.*?)```", re.S | re.I)
SIMULATED_OUTCOMES = [{"build": "compile_error"}, {"wrong": True}, {"speedup": 0.7}, {"speedup": 1.2},
                      {"speedup": 1.6}, {"speedup": 2.4}]
_CLIENTS: Dict[str, PtxbenchClient] = {}


def extract_kernel(text: str) -> str:
    blocks = FENCE.findall(text)
    return blocks[-1] if blocks else text


def problem_of(data_source: str, ground_truth: Any, extra_info: Optional[Dict[str, Any]]) -> str:
    if isinstance(extra_info, dict) and extra_info.get("problem"):
        return str(extra_info["problem"])
    if isinstance(ground_truth, str) and ground_truth:
        return ground_truth
    if isinstance(data_source, str) and data_source.startswith("ptxbench/"):
        return data_source.split("/", 1)[1]
    raise ValueError(f"no PTXBench problem in ground_truth={ground_truth!r} / extra_info / data_source={data_source!r}")


def candidate(solution_str: str, problem: str, key_prefix: str = "verl", simulated: bool = False) -> Candidate:
    source = extract_kernel(solution_str)
    if simulated:  # tests only: service_http_harness's simulated GPU stage reads what the candidate does
        spec = dict(SIMULATED_OUTCOMES[int(hashlib.sha256(source.encode()).hexdigest(), 16) % len(SIMULATED_OUTCOMES)])
        spec["ms"] = 1
        source = source.replace("simulated:", "simulated ") + "\n// simulated: " + json.dumps(spec) + "\n"
    digest = hashlib.sha256(f"{problem}\0{source}".encode()).hexdigest()[:32]
    return Candidate(key=f"{key_prefix}-{problem}-{digest}", problem=problem, source=source)


def score_of(result: Result, recipe: str = "default", no_verdict_score: float = 0.0) -> Dict[str, Any]:
    view = result.reward
    reward = tiered_reward(view, TARGET_REQUIRED if recipe == "target" else DEFAULT)
    return {"score": float(no_verdict_score if reward is None else reward),
            "verdict": str(view.get("verdict")),
            "correct": bool(view.get("correct")),
            "counts": bool(view.get("counts", True)),
            "speedup": float(view["speedup_geomean"]) if view.get("speedup_geomean") is not None else float("nan"),
            "target_executed": bool(view.get("target_executed")),
            "ptxbench_key": result.key}


def _retry() -> RetryPolicy:
    return RetryPolicy(max_attempts=200, max_delay=5.0)


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[Dict[str, Any]] = None,
                  url: str = "http://127.0.0.1:8080", recipe: str = "default", no_verdict_score: float = 0.0,
                  key_prefix: str = "verl", simulated: bool = False, timeout: float = 1800.0,
                  **_: Any) -> Dict[str, Any]:
    """verl's per-sample hook (sync): one candidate, submitted and awaited."""
    client = _CLIENTS.get(url) or _CLIENTS.setdefault(url, PtxbenchClient(url, retry=_retry(), poll_seconds=20))
    cand = candidate(solution_str, problem_of(data_source, ground_truth, extra_info), key_prefix, simulated)
    return score_of(client.evaluate([cand], timeout=timeout)[0], recipe, no_verdict_score)


async def compute_score_async(data_source: str, solution_str: str, ground_truth: Any,
                              extra_info: Optional[Dict[str, Any]] = None, url: str = "http://127.0.0.1:8080",
                              recipe: str = "default", no_verdict_score: float = 0.0, key_prefix: str = "verl",
                              simulated: bool = False, timeout: float = 1800.0, **_: Any) -> Dict[str, Any]:
    """verl's per-sample hook, awaitable: verl's reward loop awaits every sample of a batch together,
    so the server judges them concurrently."""
    client = AsyncPtxbenchClient(url, retry=_retry(), poll_seconds=20, concurrency=4)
    cand = candidate(solution_str, problem_of(data_source, ground_truth, extra_info), key_prefix, simulated)
    return score_of((await client.evaluate([cand], timeout=timeout))[0], recipe, no_verdict_score)


def compute_score_batch(data_sources: List[str], solution_strs: List[str], ground_truths: List[Any],
                        extra_infos: List[Optional[Dict[str, Any]]], url: str = "http://127.0.0.1:8080",
                        recipe: str = "default", no_verdict_score: float = 0.0, key_prefix: str = "verl",
                        simulated: bool = False, timeout: float = 1800.0, **_: Any) -> List[Dict[str, Any]]:
    """verl's BatchRewardManager hook: the whole batch in one submission, the results in its order."""
    client = _CLIENTS.get(url) or _CLIENTS.setdefault(url, PtxbenchClient(url, retry=_retry(), poll_seconds=20))
    cands = [candidate(s, problem_of(d, g, e), key_prefix, simulated)
             for d, s, g, e in zip(data_sources, solution_strs, ground_truths, extra_infos)]
    # Identical samples share a key: submit each key once, answer every sample.
    unique = list({c.key: c for c in cands}.values())
    by_key = {r.key: r for r in client.evaluate(unique, timeout=timeout)}
    return [score_of(by_key[c.key], recipe, no_verdict_score) for c in cands]
