"""The backoff (full jitter under a doubling cap, never under Retry-After) and the token bucket."""
import random

import pytest

from ptxbench_client import RetryPolicy, TokenBucket
from ptxbench_client.retry import parse_retry_after


def test_backoff_doubles_under_its_cap_with_jitter_and_honours_retry_after():
    p = RetryPolicy(base_delay=0.5, max_delay=4.0, rng=random.Random(1))
    for attempt, cap in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (9, 4.0)]:
        delays = [p.delay(attempt) for _ in range(200)]
        assert all(0 <= d <= cap for d in delays)
        assert max(delays) > cap * 0.8, "jitter spreads over the whole interval"
    assert all(p.delay(1, retry_after=7.0) >= 7.0 for _ in range(50))
    assert p.delay(1, retry_after=10_000) == p.max_retry_after
    assert p.retryable(429) and p.retryable(503) and not p.retryable(409) and not p.retryable(400)


def test_retry_after_parsing():
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(" 0.5 ") == 0.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") is None
    assert parse_retry_after("-1") is None


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_token_bucket_allows_a_burst_then_the_rate():
    clock = FakeClock()
    b = TokenBucket(rate=10, capacity=3, clock=clock)
    assert [b.try_take() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert b.try_take() == pytest.approx(0.1)
    clock.now = 0.25  # 2.5 tokens back
    assert b.try_take(2) == 0.0
    assert b.try_take() == pytest.approx(0.05)
    clock.now = 100  # never more than the capacity
    assert [b.try_take() for _ in range(4)][-1] > 0
    with pytest.raises(ValueError):
        b.try_take(4)
    with pytest.raises(ValueError):
        TokenBucket(rate=0, capacity=1)
