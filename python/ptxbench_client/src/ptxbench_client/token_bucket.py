"""A token bucket: at most `rate` requests per second on average, bursts of up to `capacity`.
Shared by threads (sync) or by tasks of one event loop (async)."""
from __future__ import annotations

import asyncio
import threading
import time
from typing import Callable


class TokenBucket:
    def __init__(self, rate: float, capacity: float, clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or capacity < 1:
            raise ValueError(f"a token bucket needs rate > 0 and capacity >= 1 (got {rate}, {capacity})")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = capacity
        self._last = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
        self._last = now

    def try_take(self, n: float = 1) -> float:
        """Takes `n` tokens if there are; else returns the seconds until there will be (0: taken)."""
        if n > self.capacity:
            raise ValueError(f"{n} tokens at once from a bucket of {self.capacity}")
        with self._lock:
            self._refill()
            if self._tokens >= n:
                self._tokens -= n
                return 0.0
            return (n - self._tokens) / self.rate

    def acquire(self, n: float = 1) -> None:
        while (wait := self.try_take(n)) > 0:
            time.sleep(wait)

    async def acquire_async(self, n: float = 1) -> None:
        while (wait := self.try_take(n)) > 0:
            await asyncio.sleep(wait)
