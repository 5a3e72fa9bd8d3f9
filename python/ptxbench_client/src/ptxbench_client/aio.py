"""The asyncio client of the reward API: the same calls as PtxbenchClient, awaitable, with at
most `concurrency` requests of this client in flight (long-polls included)."""
from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, List, Optional, Sequence

from . import _calls
from .errors import RetriesExhausted
from .models import Accepted, Candidate, Result, Status
from .retry import RetryPolicy
from .token_bucket import TokenBucket
from .transport import Response, request_async


class AsyncPtxbenchClient:
    def __init__(self, base_url: str, retry: Optional[RetryPolicy] = None, bucket: Optional[TokenBucket] = None,
                 timeout: float = 120.0, batch_size: int = 64, poll_seconds: float = 30.0,
                 concurrency: int = 32) -> None:
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self.bucket = bucket
        self.timeout = timeout
        self.batch_size = batch_size
        self.poll_seconds = poll_seconds
        self._slots = asyncio.Semaphore(concurrency)

    async def _send(self, method: str, path: str, body: Any = None, timeout: Optional[float] = None) -> Response:
        last: Optional[BaseException] = None
        for attempt in range(1, self.retry.max_attempts + 1):
            if self.bucket is not None:
                await self.bucket.acquire_async()
            response, error = None, None
            try:
                async with self._slots:
                    response = await request_async(self.base_url, method, path, body, timeout or self.timeout)
            except (*_calls.RETRYABLE_ERRORS, asyncio.TimeoutError) as e:
                error = e
            done, last, wait = _calls.judge_attempt(self.retry, attempt, response, error)
            if done is not None:
                return done
            if attempt < self.retry.max_attempts:
                await asyncio.sleep(wait)
        assert last is not None
        raise RetriesExhausted(self.retry.max_attempts, last)

    async def health(self) -> Dict[str, Any]:
        return _calls.expect(await self._send("GET", "/v1/health"), 200)

    async def submit(self, candidates: Sequence[Candidate]) -> List[Accepted]:
        """Queues the candidates, their batches concurrently; safe to call again with the same keys."""
        async def one(batch: List[Candidate]) -> List[Accepted]:
            body = _calls.expect(await self._send("POST", "/v1/submissions", _calls.submission_body(batch)), 202)
            return _calls.accepted(body)

        parts = await asyncio.gather(*(one(b) for b in _calls.batches(candidates, self.batch_size)))
        return [a for part in parts for a in part]

    async def status(self, key: str, wait: float = 0) -> Status:
        path = f"/v1/submissions/{key}" + (f"?wait={wait:g}" if wait > 0 else "")
        return _calls.status_of(_calls.expect(await self._send("GET", path, timeout=self.timeout + wait), 200))

    async def result(self, key: str) -> Optional[Result]:
        return _calls.result_of(await self._send("GET", f"/v1/results/{key}"))

    async def wait(self, key: str, timeout: Optional[float] = None) -> Result:
        start = time.monotonic()
        while True:
            left = None if timeout is None else timeout - (time.monotonic() - start)
            if left is not None and left <= 0:
                raise _calls.not_finished(key, timeout or 0)
            status = await self.status(key, wait=self.poll_seconds if left is None else min(self.poll_seconds, left))
            if status.finished:
                result = await self.result(key)
                if result is not None:
                    return result

    async def evaluate(self, candidates: Sequence[Candidate], timeout: Optional[float] = None) -> List[Result]:
        await self.submit(candidates)
        return list(await asyncio.gather(*(self.wait(c.key, timeout) for c in candidates)))
