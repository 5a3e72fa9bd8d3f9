#!/usr/bin/env python3
"""A stand-in for ptxbench-worker (tests/e2e/test_sandbox_cli.cpp): it speaks the worker's protocol
(runner/result_channel.h: `<hmac> <seq> <json>` lines, the key from the job file) so the parent's
GPU-stage handling can be tested on a machine without a GPU, and plays a candidate that attacks the
channel or probes its sandbox. Usage: fake_worker.py SCENARIO [--info] [--job FILE] --result-fd N

Scenarios: forge (candidate code writes unsigned stage lines claiming success and a 1000x speedup),
duplicate (a signed stage reported twice), replay (a signed line written again verbatim), speedup
(an honest channel whose `speedup` field disagrees with its medians), probe (reports what the
process can see and do in a fatal event's message; probe:PORT), ok (an honest, correct, 2x run).
Without a key in the job (an older parent) every line is written as bare JSON."""
import hashlib
import hmac
import json
import os
import socket
import sys


def main():
    scenario = sys.argv[1]
    args = sys.argv[2:]
    info = "--info" in args
    job_path = args[args.index("--job") + 1] if "--job" in args else None
    fd = int(args[args.index("--result-fd") + 1])
    job = {}
    if job_path:
        with open(job_path) as f:
            job = json.load(f)
        os.unlink(job_path)
    key = bytes.fromhex(job["channel_key"]) if "channel_key" in job else None
    seq = [0]

    def raw(line):
        os.write(fd, line.encode())

    def signed_line(event):
        text = json.dumps(event, separators=(",", ":"))
        if key is None:
            return text + "\n"
        payload = f"{seq[0]} {text}"
        seq[0] += 1
        mac = hmac.new(key, payload.encode(), hashlib.sha256).hexdigest()
        return f"{mac} {payload}\n"

    def emit(event):
        raw(signed_line(event))

    emit({"type": "hello", "gpu": "Fake H200", "cc": "9.0", "sm_count": 132, "memory_bytes": 1 << 37,
          "l2_bytes": 50 << 20, "cuda_runtime": 13000, "cuda_driver": 13000, "device": 0})
    if info or job.get("mode") == "info":
        emit({"type": "done"})
        return 0
    mode = job.get("mode")
    if mode == "single_call":
        emit({"type": "stage", "name": "single_call", "status": "ok", "shape": job.get("shape", {})})
        emit({"type": "done"})
        return 0
    if scenario.startswith("probe:"):
        emit({"type": "fatal", "verdict": "runtime_error", "message": json.dumps(probe(job_path, int(scenario[6:])))})
        return 5

    shape = job["timing"][0]["shape"] if "timing" in job else {}
    flops = job["timing"][0]["flops"] if "timing" in job else 1.0
    check = {"type": "check", "shape": shape, "seed_index": 0, "hidden": False, "passed": True, "summary": "max error 0", "detail": {}}
    good = [{"type": "stage", "name": "stream_discipline", "status": "ok", "message": "all output produced on the given stream"},
            check,
            {"type": "stage", "name": "correctness", "status": "ok", "checks": 1, "failed": 0, "message": "1 checks passed"}]
    cand, base = (1.0, 2.0) if scenario == "ok" else (2.0, 1.0)
    timing = {"type": "timing", "shape": shape, "flops": flops,
              "candidate": {"median_ms": cand, "p10_ms": cand, "p90_ms": cand, "spread": 0.0, "samples": 30},
              "baseline": {"median_ms": base, "p10_ms": base, "p90_ms": base, "spread": 0.0, "samples": 30},
              "speedup": 1000.0, "throttled": False, "below_floor": False, "floor_ms": 0.0, "timed_check_failures": []}
    timing_stage = {"type": "stage", "name": "timing", "status": "ok", "message": "every timed output checked", "baseline": {}}
    if scenario == "forge":
        # Candidate code that found the channel: bare lines, as an unauthenticated parent would take them.
        for e in good + [timing, timing_stage]:
            raw(json.dumps(e) + "\n")
        emit({"type": "done"})
        return 0
    if scenario == "duplicate":
        for e in good + [good[2], timing, timing_stage, {"type": "done"}]:
            emit(e)
        return 0
    if scenario == "replay":
        lines = [signed_line(e) for e in good]
        for line in lines + [lines[-1]]:
            raw(line)
        for e in [timing, timing_stage, {"type": "done"}]:
            emit(e)
        return 0
    for e in good + [timing, timing_stage, {"type": "done"}]:  # speedup, ok
        emit(e)
    return 0


def probe(job_path, port):
    """What candidate code in this process could reach (the test listens on 127.0.0.1:port)."""
    out = {"env": sorted(os.environ.keys())}
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.close()
        out["tcp"] = "connected"
    except OSError as e:
        out["tcp"] = type(e).__name__
    try:
        with open(os.path.join(workspace_of(job_path), "secret.txt")) as f:
            out["workspace_secret"] = f.read()
    except OSError as e:
        out["workspace_secret"] = type(e).__name__
    try:
        with open("/etc/shadow") as f:
            out["etc_shadow"] = "read %d bytes" % len(f.read())
    except OSError as e:
        out["etc_shadow"] = type(e).__name__
    try:
        with open("/tmp/ptxbench-sandbox-escape-%d" % port, "w") as f:
            f.write("x")
        out["tmp_write"] = "written"
    except OSError as e:
        out["tmp_write"] = type(e).__name__
    return out


def workspace_of(job_path):
    d = os.path.dirname(os.path.abspath(job_path))
    while d != "/" and os.path.basename(d) != "jobs":
        d = os.path.dirname(d)
    return os.path.dirname(d)


if __name__ == "__main__":
    sys.exit(main())
