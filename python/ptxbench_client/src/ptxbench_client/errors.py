"""Errors of the reward API client: an HTTP refusal keeps its status, message and field errors."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional


class PtxbenchError(Exception):
    """Base of every error this client raises."""


@dataclass
class FieldError:
    where: str  # a JSON path in the request body, e.g. "candidates[2].problem"
    what: str


class ApiError(PtxbenchError):
    """The server answered with an error status (its JSON error body, parsed)."""

    def __init__(self, status: int, message: str, errors: Optional[List[FieldError]] = None,
                 retry_after: Optional[float] = None, body: Any = None) -> None:
        self.status = status
        self.message = message
        self.errors = errors or []
        self.retry_after = retry_after
        self.body = body
        detail = "; ".join(f"{e.where or '(body)'}: {e.what}" for e in self.errors)
        super().__init__(f"HTTP {status}: {message}" + (f" ({detail})" if detail else ""))

    @classmethod
    def from_response(cls, status: int, body: Any, retry_after: Optional[float]) -> "ApiError":
        err: Dict[str, Any] = body.get("error", {}) if isinstance(body, dict) else {}
        errors = [FieldError(str(e.get("where", "")), str(e.get("what", ""))) for e in err.get("errors", [])]
        return cls(status, str(err.get("message", f"HTTP {status}")), errors, retry_after, body)


class InvalidSubmission(ApiError):
    """400: the request is invalid; `errors` says where and what."""


class KeyConflict(ApiError):
    """409: an idempotency key was sent before with a different candidate."""


class NotFound(ApiError):
    """404: no submission has this key (or no such route)."""


class RetriesExhausted(PtxbenchError):
    """Every attempt failed with a retryable error; `last` is the last one."""

    def __init__(self, attempts: int, last: BaseException) -> None:
        self.attempts = attempts
        self.last = last
        super().__init__(f"gave up after {attempts} attempt(s): {last}")


def error_for(status: int, body: Any, retry_after: Optional[float]) -> ApiError:
    kinds = {400: InvalidSubmission, 404: NotFound, 409: KeyConflict}
    return kinds.get(status, ApiError).from_response(status, body, retry_after)
