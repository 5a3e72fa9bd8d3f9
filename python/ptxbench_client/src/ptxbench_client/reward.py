"""Reward functions over the reward view (Result.reward), kept client-side so a trainer chooses
its own recipe without the server judging differently. The default shape follows KernelGYM's
tiers: not compiled < compiled but wrong < correct but slower than the library < speedup tiers.

    reward = tiered_reward(result.reward)                        # the default tiers
    reward = tiered_reward(result.reward, TARGET_REQUIRED)       # correct only with the target ISA doing the work
    cfg = RewardConfig(speedup_tiers=((1.0, 1.0), (2.0, 2.0)), forbidden=-2.0)

A candidate without a verdict on it (infra_error: the harness failed; not_run: no GPU stage ran)
gets `no_verdict` (None by default): a trainer should drop that sample, never score it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence, Tuple


@dataclass(frozen=True)
class RewardConfig:
    not_compiled: float = -1.0
    forbidden: float = -1.0    # cheating (a library kernel, a hidden module, tampering): below a failed build
    wrong: float = 0.0         # built, but runtime_error, sanitizer_error or incorrect
    correct_slower: float = 0.5  # correct, geomean speedup under the first tier (or not timed)
    # (minimum geomean speedup, reward), ascending: the highest tier reached counts.
    speedup_tiers: Sequence[Tuple[float, float]] = ((1.0, 1.0), (1.5, 1.5), (2.0, 2.0))
    # Target-required: a correct candidate counts as correct only when target_executed is true
    # (the architecture-specific instructions did the problem's share of the work).
    require_target: bool = False
    correct_without_target: float = 0.1  # with require_target: correct, but the target did not do the work
    no_verdict: Optional[float] = None   # infra_error, not_run

    def __post_init__(self) -> None:
        thresholds = [t for t, _ in self.speedup_tiers]
        if thresholds != sorted(thresholds):
            raise ValueError(f"speedup_tiers must ascend by their threshold, got {list(self.speedup_tiers)}")


DEFAULT = RewardConfig()
TARGET_REQUIRED = RewardConfig(require_target=True)


def tiered_reward(view: Mapping[str, Any], config: RewardConfig = DEFAULT) -> Optional[float]:
    """The reward of one judged candidate from its reward view (Result.reward)."""
    verdict = view.get("verdict")
    if not view.get("counts", verdict not in ("infra_error", "not_run")):
        return config.no_verdict
    if verdict == "forbidden":
        return config.forbidden
    if not view.get("compiled", False) or verdict == "compile_error":
        return config.not_compiled
    if verdict != "correct":
        return config.wrong
    if config.require_target and view.get("target_executed") is not True:
        return config.correct_without_target
    speedup = view.get("speedup_geomean")
    reward = config.correct_slower
    if speedup is not None:
        for threshold, value in config.speedup_tiers:
            if speedup >= threshold:
                reward = value
    return reward


def continuous_speedup_reward(view: Mapping[str, Any], config: RewardConfig = DEFAULT,
                              cap: float = 4.0) -> Optional[float]:
    """Like tiered_reward, but a correct candidate earns min(speedup, cap) (at least
    `correct_slower`): a denser signal once most samples are correct."""
    base = tiered_reward(view, config)
    if base is None or view.get("verdict") != "correct":
        return base
    if config.require_target and view.get("target_executed") is not True:
        return base
    speedup = view.get("speedup_geomean")
    return base if speedup is None else max(config.correct_slower, min(float(speedup), cap))
