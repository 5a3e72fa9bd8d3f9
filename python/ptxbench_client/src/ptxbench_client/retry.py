"""When to retry a request and how long to wait: exponential backoff with full jitter, never less
than the server's Retry-After. Retried: connection errors and timeouts, 429, 502, 503, 504. Every
request of the reward API is safe to send again (a submission's key makes it idempotent)."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import FrozenSet, Optional

RETRYABLE_STATUSES: FrozenSet[int] = frozenset({429, 502, 503, 504})


@dataclass
class RetryPolicy:
    max_attempts: int = 10          # including the first
    base_delay: float = 0.2         # seconds, doubled per attempt
    max_delay: float = 30.0         # cap of the backoff (a longer Retry-After is still honoured)
    max_retry_after: float = 300.0  # a Retry-After beyond this is taken as this
    statuses: FrozenSet[int] = RETRYABLE_STATUSES
    rng: random.Random = field(default_factory=random.Random, repr=False)

    def retryable(self, status: int) -> bool:
        return status in self.statuses

    def delay(self, attempt: int, retry_after: Optional[float] = None) -> float:
        """Seconds to wait before attempt `attempt + 1` (`attempt` counts from 1)."""
        backoff = min(self.max_delay, self.base_delay * (2 ** (attempt - 1)))
        wait = self.rng.uniform(0, backoff)  # full jitter: clients that failed together spread out
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_retry_after))
        return wait


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Retry-After in seconds (the API sends delta-seconds); None when absent or not a number."""
    if value is None:
        return None
    try:
        seconds = float(value.strip())
    except ValueError:
        return None
    return seconds if seconds >= 0 else None
