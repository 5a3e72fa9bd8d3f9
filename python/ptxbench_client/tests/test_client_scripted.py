"""The sync and asyncio clients against a scripted server: retries through dropped connections,
429 and 503 (waiting at least Retry-After), the same body sent again each time (so the keys keep
it idempotent), typed errors for 400, 404 and 409, batching, and the long-poll loop."""
import asyncio
import random
import time

import pytest

from ptxbench_client import (AsyncPtxbenchClient, Candidate, InvalidSubmission, KeyConflict, NotFound,
                             PtxbenchClient, RetriesExhausted, RetryPolicy)
from scripted_server import DROP, ScriptedServer, accepted, refused

FAST = dict(base_delay=0.01, max_delay=0.05, rng=random.Random(7))


def cands(*keys):
    return [Candidate(k, "gemm", f"// {k}") for k in keys]


def done_status(key):
    return 200, {"key": key, "state": "done", "finished": True, "attempts": 1}, {}


def queued_status(key):
    return 200, {"key": key, "state": "queued", "finished": False, "attempts": 0}, {}


def result_body(key):
    return 200, {"key": key, "state": "done", "attempts": 1, "metadata": {"i": 1}, "record": {"verdict": "correct"},
                 "reward": {"verdict": "correct", "compiled": True, "counts": True, "speedup_geomean": 1.2}}, {}


def test_sync_retries_drops_429_and_503_honouring_retry_after_with_the_same_body():
    steps = [DROP, refused(429, "0.3"), refused(503, "0.2"), accepted("a", "b")]
    with ScriptedServer(steps) as s:
        client = PtxbenchClient(s.url, retry=RetryPolicy(**FAST))
        t0 = time.monotonic()
        acks = client.submit(cands("a", "b"))
        assert time.monotonic() - t0 >= 0.5, "Retry-After was honoured"
    assert [a.key for a in acks] == ["a", "b"]
    posts = [r for r in s.requests if r[0] == "POST"]
    assert len(posts) == 4
    assert all(body == posts[0][2] for _, _, body in posts), "every retry sends the same keys and candidates"


def test_sync_errors_are_typed_and_not_retried():
    with ScriptedServer([refused(400, errors=[{"where": "candidates[0].problem", "what": "unknown problem 'x'"}]),
                         refused(409), refused(404)]) as s:
        client = PtxbenchClient(s.url, retry=RetryPolicy(**FAST))
        with pytest.raises(InvalidSubmission) as bad:
            client.submit(cands("a"))
        assert bad.value.errors[0].where == "candidates[0].problem"
        assert "unknown problem" in str(bad.value)
        with pytest.raises(KeyConflict):
            client.submit(cands("a"))
        with pytest.raises(NotFound):
            client.result("nobody")
    assert len(s.requests) == 3


def test_sync_gives_up_after_its_attempts():
    with ScriptedServer([refused(503, "0")] * 3) as s:
        client = PtxbenchClient(s.url, retry=RetryPolicy(max_attempts=3, **FAST))
        with pytest.raises(RetriesExhausted) as e:
            client.health()
        assert e.value.attempts == 3
        assert "503" in str(e.value.last)


def test_sync_batches_and_waits_through_long_polls():
    steps = [accepted("a", "b"), accepted("c"),
             queued_status("a"), done_status("a"), result_body("a"),
             done_status("b"), result_body("b"), done_status("c"), result_body("c")]
    with ScriptedServer(steps) as s:
        client = PtxbenchClient(s.url, retry=RetryPolicy(**FAST), batch_size=2, poll_seconds=5)
        results = client.evaluate(cands("a", "b", "c"))
    assert [r.key for r in results] == ["a", "b", "c"]
    assert results[0].reward["speedup_geomean"] == 1.2
    posts = [r for r in s.requests if r[0] == "POST"]
    assert [len(p[2]["candidates"]) for p in posts] == [2, 1]
    assert s.requests[2][1] == "/v1/submissions/a?wait=5"


def test_async_retries_and_evaluates():
    steps = [DROP, refused(503, "0.1"), accepted("a"), done_status("a"), result_body("a")]

    async def main(url):
        client = AsyncPtxbenchClient(url, retry=RetryPolicy(**FAST))
        return await client.evaluate(cands("a"))

    with ScriptedServer(steps) as s:
        results = asyncio.run(main(s.url))
    assert results[0].state == "done"
    assert results[0].metadata == {"i": 1}
    assert [r[0] for r in s.requests] == ["POST", "POST", "POST", "GET", "GET"]


def test_async_raises_typed_errors():
    async def main(url):
        client = AsyncPtxbenchClient(url, retry=RetryPolicy(**FAST))
        await client.submit(cands("a"))

    with ScriptedServer([refused(409)]) as s:
        with pytest.raises(KeyConflict):
            asyncio.run(main(s.url))


def test_a_url_that_is_not_http_is_refused():
    with pytest.raises(ValueError, match="http://HOST:PORT"):
        PtxbenchClient("https://example.org").health()
