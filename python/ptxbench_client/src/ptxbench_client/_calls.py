"""What the sync and the asyncio clients share: the routes, the answers read into models or
errors, and the retry decisions. Only sending and sleeping differ between the two."""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from .errors import ApiError, error_for
from .models import Accepted, Candidate, Result, Status
from .retry import RetryPolicy, parse_retry_after
from .transport import Response

# An attempt's outcome: a response to return, or (exception, seconds to wait) to retry.
Attempt = Tuple[Optional[Response], Optional[BaseException], float]


def batches(candidates: Sequence[Candidate], size: int) -> Iterator[List[Candidate]]:
    if size < 1:
        raise ValueError(f"batch size must be >= 1, got {size}")
    for i in range(0, len(candidates), size):
        yield list(candidates[i:i + size])


def submission_body(batch: Sequence[Candidate]) -> Dict[str, Any]:
    return {"candidates": [c.to_json() for c in batch]}


def judge_attempt(policy: RetryPolicy, attempt: int, response: Optional[Response],
                  error: Optional[BaseException]) -> Attempt:
    """Whether to retry this attempt, and after how long."""
    if error is not None:
        return None, error, policy.delay(attempt)
    assert response is not None
    if policy.retryable(response.status):
        retry_after = parse_retry_after(response.header("Retry-After"))
        return None, error_for(response.status, response.body, retry_after), policy.delay(attempt, retry_after)
    return response, None, 0.0


def expect(response: Response, *ok: int) -> Any:
    if response.status not in ok:
        raise error_for(response.status, response.body, parse_retry_after(response.header("Retry-After")))
    return response.body


def accepted(body: Any) -> List[Accepted]:
    return [Accepted(str(s["key"]), bool(s["duplicate"])) for s in body["submissions"]]


def status_of(body: Any) -> Status:
    return Status.from_json(body)


def result_of(response: Response) -> Optional[Result]:
    if response.status == 202:
        return None  # not judged yet
    return Result.from_json(expect(response, 200))


def not_finished(key: str, waited: float) -> ApiError:
    return ApiError(408, f"'{key}' was not judged within {waited:.0f} s")


RETRYABLE_ERRORS = (OSError, TimeoutError, ConnectionError)
