"""The reward recipes over reward views: every tier, the target-required variant, the forbidden
penalty, and no reward at all for a candidate the harness could not judge."""
import pytest

from ptxbench_client import DEFAULT, TARGET_REQUIRED, RewardConfig, continuous_speedup_reward, tiered_reward


def view(verdict, compiled=True, speedup=None, target=None):
    return {"verdict": verdict, "compiled": compiled, "counts": verdict not in ("infra_error", "not_run"),
            "speedup_geomean": speedup, "target_executed": target}


@pytest.mark.parametrize("v, expected", [
    (view("compile_error", compiled=False), -1.0),
    (view("forbidden"), -1.0),
    (view("runtime_error"), 0.0),
    (view("sanitizer_error"), 0.0),
    (view("incorrect"), 0.0),
    (view("correct", speedup=0.7), 0.5),
    (view("correct", speedup=None), 0.5),
    (view("correct", speedup=1.0), 1.0),
    (view("correct", speedup=1.49), 1.0),
    (view("correct", speedup=1.5), 1.5),
    (view("correct", speedup=3.0), 2.0),
    (view("infra_error", compiled=False), None),
    (view("not_run"), None),
])
def test_default_tiers(v, expected):
    assert tiered_reward(v, DEFAULT) == expected


def test_target_required_counts_a_correct_candidate_only_when_the_target_did_the_work():
    assert tiered_reward(view("correct", speedup=2.0, target=False), TARGET_REQUIRED) == 0.1
    assert tiered_reward(view("correct", speedup=2.0, target=None), TARGET_REQUIRED) == 0.1
    assert tiered_reward(view("correct", speedup=2.0, target=True), TARGET_REQUIRED) == 2.0
    assert tiered_reward(view("correct", speedup=2.0, target=False), DEFAULT) == 2.0


def test_a_configured_forbidden_penalty_and_tiers():
    cfg = RewardConfig(forbidden=-5.0, speedup_tiers=((1.0, 1.0), (4.0, 10.0)), no_verdict=0.0)
    assert tiered_reward(view("forbidden"), cfg) == -5.0
    assert tiered_reward(view("correct", speedup=4.0), cfg) == 10.0
    assert tiered_reward(view("infra_error"), cfg) == 0.0
    with pytest.raises(ValueError, match="ascend"):
        RewardConfig(speedup_tiers=((2.0, 1.0), (1.0, 2.0)))


def test_continuous_speedup_reward_is_capped_and_never_below_correct_slower():
    assert continuous_speedup_reward(view("correct", speedup=2.7)) == pytest.approx(2.7)
    assert continuous_speedup_reward(view("correct", speedup=9.0), cap=4.0) == 4.0
    assert continuous_speedup_reward(view("correct", speedup=0.1)) == 0.5
    assert continuous_speedup_reward(view("incorrect")) == 0.0
    assert continuous_speedup_reward(view("correct", speedup=3.0, target=False), TARGET_REQUIRED) == 0.1
