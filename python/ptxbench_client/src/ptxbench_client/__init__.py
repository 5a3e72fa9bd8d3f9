"""The client of PTXBench's reward API (`ptxbench serve --http`): docs/rl.md."""
from .aio import AsyncPtxbenchClient
from .client import PtxbenchClient
from .errors import ApiError, FieldError, InvalidSubmission, KeyConflict, NotFound, PtxbenchError, RetriesExhausted
from .models import Accepted, Candidate, Result, RewardView, Status
from .retry import RetryPolicy
from .reward import DEFAULT, TARGET_REQUIRED, RewardConfig, continuous_speedup_reward, tiered_reward
from .token_bucket import TokenBucket

__all__ = [
    "AsyncPtxbenchClient", "PtxbenchClient", "ApiError", "FieldError", "InvalidSubmission", "KeyConflict", "NotFound",
    "PtxbenchError", "RetriesExhausted", "Accepted", "Candidate", "Result", "RewardView", "Status", "RetryPolicy",
    "DEFAULT", "TARGET_REQUIRED", "RewardConfig", "continuous_speedup_reward", "tiered_reward", "TokenBucket",
]
