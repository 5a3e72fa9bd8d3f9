"""The synchronous client of the reward API. Thread-safe; every call retries connection errors,
429 and 503 with backoff (honouring Retry-After) and can share a token bucket.

    client = PtxbenchClient("http://127.0.0.1:8080")
    results = client.evaluate([Candidate("run1-step3-0", "gemm", source)])
    reward = tiered_reward(results[0].reward)
"""
from __future__ import annotations

import time
from typing import Any, Dict, List, Optional, Sequence

from . import _calls
from .errors import RetriesExhausted
from .models import Accepted, Candidate, Result, Status
from .retry import RetryPolicy
from .token_bucket import TokenBucket
from .transport import Response, request


class PtxbenchClient:
    def __init__(self, base_url: str, retry: Optional[RetryPolicy] = None, bucket: Optional[TokenBucket] = None,
                 timeout: float = 120.0, batch_size: int = 64, poll_seconds: float = 30.0) -> None:
        self.base_url = base_url
        self.retry = retry or RetryPolicy()
        self.bucket = bucket
        self.timeout = timeout
        self.batch_size = batch_size
        self.poll_seconds = poll_seconds  # each long-poll's wait (the server caps it)

    def _send(self, method: str, path: str, body: Any = None, timeout: Optional[float] = None) -> Response:
        last: Optional[BaseException] = None
        for attempt in range(1, self.retry.max_attempts + 1):
            if self.bucket is not None:
                self.bucket.acquire()
            response, error = None, None
            try:
                response = request(self.base_url, method, path, body, timeout or self.timeout)
            except _calls.RETRYABLE_ERRORS as e:
                error = e
            done, last, wait = _calls.judge_attempt(self.retry, attempt, response, error)
            if done is not None:
                return done
            if attempt < self.retry.max_attempts:
                time.sleep(wait)
        assert last is not None
        raise RetriesExhausted(self.retry.max_attempts, last)

    def health(self) -> Dict[str, Any]:
        return _calls.expect(self._send("GET", "/v1/health"), 200)

    def submit(self, candidates: Sequence[Candidate]) -> List[Accepted]:
        """Queues the candidates (in batches); safe to call again with the same keys."""
        out: List[Accepted] = []
        for batch in _calls.batches(candidates, self.batch_size):
            out += _calls.accepted(_calls.expect(self._send("POST", "/v1/submissions", _calls.submission_body(batch)),
                                                 202))
        return out

    def status(self, key: str, wait: float = 0) -> Status:
        path = f"/v1/submissions/{key}" + (f"?wait={wait:g}" if wait > 0 else "")
        return _calls.status_of(_calls.expect(self._send("GET", path, timeout=self.timeout + wait), 200))

    def result(self, key: str) -> Optional[Result]:
        """The result, or None while the candidate is not judged yet."""
        return _calls.result_of(self._send("GET", f"/v1/results/{key}"))

    def wait(self, key: str, timeout: Optional[float] = None) -> Result:
        """Long-polls until `key` is judged, then fetches its result."""
        start = time.monotonic()
        while True:
            left = None if timeout is None else timeout - (time.monotonic() - start)
            if left is not None and left <= 0:
                raise _calls.not_finished(key, timeout or 0)
            status = self.status(key, wait=self.poll_seconds if left is None else min(self.poll_seconds, left))
            if status.finished:
                result = self.result(key)
                if result is not None:
                    return result

    def evaluate(self, candidates: Sequence[Candidate], timeout: Optional[float] = None) -> List[Result]:
        """Submits and waits for every candidate; results in the candidates' order."""
        self.submit(candidates)
        return [self.wait(c.key, timeout) for c in candidates]
