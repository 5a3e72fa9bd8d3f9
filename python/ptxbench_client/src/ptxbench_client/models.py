"""What the reward API takes and answers, typed. The full evaluation record stays a dict (its
fields: docs/rl.md); the reward view's fields are typed for a trainer's reward function."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

try:  # Python 3.11+: NotRequired; the views are read with .get() either way
    from typing import TypedDict
except ImportError:  # pragma: no cover
    from typing_extensions import TypedDict  # type: ignore


@dataclass
class Candidate:
    """One candidate: `key` is the client's idempotency key (1-128 of A-Z a-z 0-9 . _ : -)."""

    key: str
    problem: str
    source: str
    language: Optional[str] = None  # the server's when None
    arch: Optional[str] = None      # the server's when None
    metadata: Dict[str, Any] = field(default_factory=dict)  # returned with the result

    def to_json(self) -> Dict[str, Any]:
        body: Dict[str, Any] = {"key": self.key, "problem": self.problem, "source": self.source}
        if self.language is not None:
            body["language"] = self.language
        if self.arch is not None:
            body["arch"] = self.arch
        if self.metadata:
            body["metadata"] = self.metadata
        return body


@dataclass
class Accepted:
    key: str
    duplicate: bool  # the key was known: nothing new was queued


class ShapeSpeedup(TypedDict):
    shape: Dict[str, int]
    speedup: float
    median_ms: float
    baseline_ms: float


class RewardView(TypedDict):
    compiled: bool
    verdict: str
    reason: str
    correct: bool
    counts: bool  # False for infra_error and not_run: no verdict on the candidate
    forbidden: bool
    speedup_geomean: Optional[float]
    speedups: List[ShapeSpeedup]
    target_executed: Optional[bool]
    target_seen: Optional[bool]
    target_static: bool
    tensor_flop_share: Optional[float]
    tma_byte_share: Optional[float]
    error_class: Optional[str]
    error_signature: Optional[str]
    feedback: str
    stage_seconds: Dict[str, float]
    service_seconds: Dict[str, float]


@dataclass
class Status:
    key: str
    state: str  # queued, running, done, infra_error
    finished: bool
    attempts: int
    reason: str = ""

    @classmethod
    def from_json(cls, j: Dict[str, Any]) -> "Status":
        return cls(str(j["key"]), str(j["state"]), bool(j["finished"]), int(j.get("attempts", 0)),
                   str(j.get("reason", "")))


@dataclass
class Result:
    key: str
    state: str  # done or infra_error
    reward: RewardView
    record: Dict[str, Any]
    metadata: Dict[str, Any]
    attempts: int

    @classmethod
    def from_json(cls, j: Dict[str, Any]) -> "Result":
        return cls(str(j["key"]), str(j["state"]), j["reward"], j["record"], j.get("metadata", {}),
                   int(j.get("attempts", 0)))
