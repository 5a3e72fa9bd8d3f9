#!/usr/bin/env python3
"""A stand-in for ptxbench-worker (tests/e2e/test_sandbox_cli.cpp): it speaks the worker's protocol
(runner/result_channel.h: `<hmac> <seq> <json>` lines, the key from the job file) so the parent's
GPU-stage handling can be tested on a machine without a GPU, and plays a candidate that attacks the
channel or probes its sandbox. Usage: fake_worker.py SCENARIO [--info] [--job FILE] --result-fd N

Scenarios: forge (candidate code writes unsigned stage lines claiming success and a 1000x speedup),
duplicate (a signed stage reported twice), replay (a signed line written again verbatim), speedup
(an honest channel whose `speedup` field disagrees with its medians), probe (reports what the
process can see and do in a fatal event's message; probe:PORT), ok (an honest, correct, 2x run),
marker (the candidate says what to play: the string PTXBENCH_FAKE:<what> in its shared object, what
being correct:<speedup>, incorrect or runtime_error; none: correct at 2x; tests/e2e/test_fixit_cli.cpp),
triton (a Triton candidate's job: its "triton" block is checked as the real worker would need it, every
file read through this sandbox; any shortfall is a fatal event naming it, else ok is played),
libcache (the library's clean timings as scripted in libcache.json beside this file, read at each start:
the GPU's timing environment, the library and plan, what a full clean timing and a short check measure;
a stored timing offered in the job is matched and re-validated as runner/stages/clean_baseline_stage.cpp does; a correct 2x
candidate otherwise; tests/e2e/test_library_timing_cache.cpp).
Without a key in the job (an older parent) every line is written as bare JSON."""
import hashlib
import hmac
import json
import os
import socket
import sys

# The worker protocol this stand-in speaks (src/core/worker_protocol.h, kWorkerProtocolVersion).
WORKER_PROTOCOL = 4


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

    hello = {"type": "hello", "gpu": "Fake H200", "cc": "9.0", "sm_count": 132, "memory_bytes": 1 << 37,
             "l2_bytes": 50 << 20, "cuda_runtime": 13000, "cuda_driver": 13000, "device": 0,
             "protocol": WORKER_PROTOCOL}
    script = libcache_script() if scenario == "libcache" else None
    if script is not None:
        hello["timing_environment"] = script["env"]
    emit(hello)
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

    if scenario == "marker":
        return play_marker(job, emit)
    if scenario == "libcache":
        return play_libcache(job, script, emit)
    if scenario == "triton":
        wrong = triton_block_shortfall(job)
        if wrong:
            emit({"type": "fatal", "verdict": "runtime_error", "message": "triton block: " + wrong})
            return 4

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


def libcache_script():
    """libcache.json beside this file: env {gpu_uuid, driver, clocks}, library {library, version, plan},
    alone_ms (a full clean timing's median), check_ms (a short check's median), interleaved_ms (the
    library beside the candidate), candidate_ms, full_samples, median_error."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libcache.json")) as f:
        return json.load(f)


def check_tolerance(stored_error, stored_samples, check_samples, against_lead=False):
    """runner/library_timing_check.cpp's library_check_tolerance (library_lead_check_tolerance)."""
    ratio = max(stored_samples, 1) / max(check_samples, 1)
    t = 3 * max(stored_error, 0.0) * ((2 * ratio) if against_lead else (1 + ratio)) ** 0.5
    return min(max(t, 0.005), 0.02)


def play_libcache(job, script, emit):
    """The real worker's run_clean_baseline with the scripted library, then a correct candidate."""
    if job.get("mode") != "eval":
        emit({"type": "done"})
        return 0
    lib = script["library"]
    key = dict(script["env"], library=lib["library"], library_version=str(lib["version"]), plan=lib["plan"])
    offered = job.get("library_timing_cache")
    check_samples = job.get("library_timing_check_samples", 5)
    accepted = {}
    for item in job.get("timing", []):
        shape = item["shape"]
        event = {"type": "baseline_alone", "shape": shape}
        in_memory = next((v for k, v in job.get("baseline_alone_cache", {}).items() if json.loads(k) == shape), None)
        if in_memory is not None:  # the service's in-memory cache (judge/caches/baseline_cache.h): used as it is
            event.update(median_ms=in_memory["median_ms"], median_error=in_memory["median_error"],
                         samples=in_memory["samples"], sm_clock_mhz=in_memory["sm_clock_mhz"], cached=True,
                         when=in_memory.get("when", "cached"))
            accepted[json.dumps(shape, sort_keys=True)] = in_memory["median_ms"]
            emit(event)
            continue
        if offered is None:  # the cache is off: the library timed in full, as always
            ms = script["alone_ms"]
            event.update(median_ms=ms, median_error=script.get("median_error", 0.001), samples=script["full_samples"],
                         sm_clock_mhz=1980, seconds=0.5, when="before the candidate was loaded")
            accepted[json.dumps(shape, sort_keys=True)] = ms
            emit(event)
            continue
        rows = next((v for k, v in offered.items() if json.loads(k) == shape), [])
        outcome, why, check, total = "miss", "no stored timing for this GPU, driver, clocks and shape", None, 0.0
        if rows:
            total += 0.1
            match = next((r for r in rows if all(r.get(f) == key[f] for f in key)), None)
            if match is None:
                why = "a stored timing's key differs"
            else:
                # Against the stored first samples' median when it has one of as many samples.
                lead = match.get("lead_median_ms", 0) > 0 and match.get("lead_samples", 0) == check_samples
                tol = check_tolerance(match["median_error"], match["samples"], check_samples, lead)
                dev = script["check_ms"] / (match["lead_median_ms"] if lead else match["median_ms"]) - 1
                check = {"samples": check_samples, "median_ms": script["check_ms"], "stored_median_ms": match["median_ms"],
                         "stored_lead_median_ms": match.get("lead_median_ms", 0),
                         "compared_with": "the stored timing's first samples" if lead else "the stored median",
                         "deviation": dev, "tolerance": tol, "seconds": 0.1}
                if abs(dev) <= tol:
                    outcome, why = "hit-validated", ""
                    event.update(median_ms=match["median_ms"], median_error=match["median_error"], samples=match["samples"],
                                 sm_clock_mhz=match["sm_clock_mhz"], cached=True, when="stored; re-validated")
                else:
                    outcome, why = "revalidation-failed", "the check's median is %+.2f%% off" % (dev * 100)
        if outcome != "hit-validated":
            total += 0.5
            event.update(median_ms=script["alone_ms"], median_error=script.get("median_error", 0.001),
                         samples=script["full_samples"], sm_clock_mhz=1980, when="before the candidate was loaded")
            if check is not None:  # the check came first: its median is the first samples'
                event.update(lead_median_ms=script["check_ms"], lead_samples=check_samples)
            elif "lead_ms" in script:  # the full timing's first check_samples samples
                event.update(lead_median_ms=script["lead_ms"], lead_samples=check_samples)
        event.update(seconds=total, library_cache=outcome, library_key=key)
        if check is not None:
            event["check"] = check
        if why:
            event["library_cache_reason"] = why
        accepted[json.dumps(shape, sort_keys=True)] = event["median_ms"]
        emit(event)
    emit({"type": "progress", "stage": "candidate_load"})
    if script.get("forge_after_load"):
        # Candidate code that found the channel's key: a "clean timing" of its own, after the load.
        for item in job.get("timing", []):
            emit({"type": "baseline_alone", "shape": item["shape"], "median_ms": 0.1, "median_error": 0.001, "samples": 20,
                  "sm_clock_mhz": 1980, "seconds": 0.5, "library_cache": "miss", "library_key": key,
                  "when": "before the candidate was loaded"})
    if job.get("correctness"):  # none in the timed part of a split job (judge/stages/timed_split.h)
        item = job["correctness"][0]
        emit({"type": "stage", "name": "stream_discipline", "status": "ok", "message": "all output produced on the given stream"})
        emit({"type": "check", "shape": item["shape"], "seed_index": 0, "hidden": False, "passed": True,
              "summary": "max error 0", "detail": {}})
        emit({"type": "stage", "name": "correctness", "status": "ok", "checks": 1, "failed": 0, "message": "1 checks passed"})
    gate = job.get("exclusive_gpu_fd", -1)
    if job.get("timing") and isinstance(gate, int) and gate >= 0:
        # The timed worker under the service's lane gate asks for the GPU alone before its samples
        # (core/exclusive_grant.h: 'x', answered 'g', a 32-character token and two digits: the shared
        # workers paused for it) and reports the token.
        os.write(gate, b"x")
        answer = b""
        while len(answer) < 35:
            chunk = os.read(gate, 35 - len(answer))
            if not chunk:
                break
            answer += chunk
        os.close(gate)
        if answer[:1] != b"g":
            emit({"type": "fatal", "verdict": "infra_error", "message": "the service refused exclusive use of the GPU for timing"})
            return 6
        emit({"type": "exclusive_gpu", "waited_seconds": 0.0, "grant": answer[1:33].decode()})
    cand, beside = script.get("candidate_ms", 0.5), script.get("interleaved_ms", 1.0)
    for t in job.get("timing", []):
        alone = accepted[json.dumps(t["shape"], sort_keys=True)]
        emit({"type": "timing", "shape": t["shape"], "flops": t["flops"],
              "candidate": {"median_ms": cand, "p10_ms": cand, "p90_ms": cand, "spread": 0.0, "samples": 30},
              "baseline": {"median_ms": beside, "p10_ms": beside, "p90_ms": beside, "spread": 0.0, "samples": 30},
              "baseline_alone": {"before_ms": alone, "drift": beside / alone - 1},
              "throttled": False, "below_floor": False, "floor_ms": 0.0, "timed_check_failures": []})
    if job.get("timing"):
        emit({"type": "stage", "name": "timing", "status": "ok", "message": "every timed output checked", "baseline": {}})
    emit({"type": "done"})
    return 0


def triton_block_shortfall(job):
    """What the real worker would miss in the job's "triton" block ("" when nothing)."""
    t = job.get("triton")
    if not isinstance(t, dict):
        return "no triton block"
    py, session = t.get("python", {}), t.get("session", {})
    try:
        with open(py["library"], "rb") as f:
            if f.read(4) != b"\x7fELF":
                return "the Python library is not an ELF file"
        if not os.path.isdir(py["home"]) or not py["path"]:
            return "no Python home or path"
        for image in t["images"]:
            with open(image, "rb") as f:
                if f.read(4) != b"\x7fELF":
                    return "image " + image + " is not a cubin"
        if not t["images"]:
            return "no kernel images"
        cache = session["cache_dir"]
        built = [f for d in os.listdir(cache) for f in os.listdir(os.path.join(cache, d)) if f.endswith(".so")]
        if not any(f.startswith("cuda_utils") for f in built) or not any(f.startswith("__triton_launcher") for f in built):
            return "no cuda_utils and kernel launcher in the cache " + cache + ": " + " ".join(built)
        with open(session["module"]) as f:
            if "def " + session["entry"] not in f.read():
                return "the module does not define the entry"
        with open(job["candidate"], "rb") as f:
            if session["entry"].encode() not in f.read():
                return "the shim does not define the entry"
        if not os.path.exists(os.path.join(session["libcuda_dir"], "libcuda.so.1")):
            return "no libcuda.so.1 in " + session["libcuda_dir"]
        if len(session["calls"]) < len(job.get("checks", job.get("shapes", []))):
            return "fewer warm-up calls than shapes"
        if not session.get("ptxas_version") or len(session.get("capability", [])) != 2:
            return "no ptxas version or capability"
    except (OSError, KeyError, TypeError) as e:
        return f"{type(e).__name__}: {e}"
    return ""


def candidate_marker(job):
    """What the candidate's shared object asks to be played: PTXBENCH_FAKE:<what>, else correct:2."""
    try:
        with open(job["candidate"], "rb") as f:
            data = f.read()
    except OSError:
        return "correct:2"
    at = data.find(b"PTXBENCH_FAKE:")
    if at < 0:
        return "correct:2"
    end = at + len(b"PTXBENCH_FAKE:")
    while end < len(data) and 32 < data[end] < 127:
        end += 1
    return data[at + len(b"PTXBENCH_FAKE:"):end].decode()


def play_marker(job, emit):
    what = candidate_marker(job)
    mode = job.get("mode")
    if what == "runtime_error":
        emit({"type": "fatal", "verdict": "cuda_error", "message": "an illegal memory access was encountered (simulated)"})
        return 5
    if mode == "single_call":
        emit({"type": "stage", "name": "single_call", "status": "ok", "shape": job.get("shape", {})})
        emit({"type": "done"})
        return 0
    item = job["correctness"][0] if job.get("correctness") else {"shape": {}, "flops": 1.0}
    shape = item["shape"]
    emit({"type": "stage", "name": "stream_discipline", "status": "ok", "message": "all output produced on the given stream"})
    if what == "incorrect":
        detail = {"outputs": [{"output": "O", "elements": 4096, "mismatches": 17, "nonfinite": 0, "max_abs_err": 0.5,
                               "rel_l2_err": 0.2, "tolerance": {"max_rel_l2": 0.01}}]}
        check = {"type": "check", "shape": shape, "seed_index": 0, "hidden": False, "passed": False,
                 "summary": "O: 17 of 4096 elements out of tolerance (simulated)", "detail": detail}
        emit(check)
        emit({"type": "stage", "name": "correctness", "status": "failed", "verdict": "incorrect", "checks": 1, "failed": 1,
              "message": "wrong on the first shape: " + check["summary"], "failures": [check]})
        emit({"type": "done"})
        return 0
    speedup = float(what.split(":")[1]) if what.startswith("correct:") else 2.0
    emit({"type": "check", "shape": shape, "seed_index": 0, "hidden": False, "passed": True, "summary": "max error 0", "detail": {}})
    emit({"type": "stage", "name": "correctness", "status": "ok", "checks": 1, "failed": 0, "message": "1 checks passed"})
    for t in job.get("timing", []):
        cand = 1.0 / speedup
        emit({"type": "timing", "shape": t["shape"], "flops": t["flops"],
              "candidate": {"median_ms": cand, "p10_ms": cand, "p90_ms": cand, "spread": 0.0, "samples": 30},
              "baseline": {"median_ms": 1.0, "p10_ms": 1.0, "p90_ms": 1.0, "spread": 0.0, "samples": 30},
              "speedup": speedup, "throttled": False, "below_floor": False, "floor_ms": 0.0, "timed_check_failures": []})
    if job.get("timing"):
        emit({"type": "stage", "name": "timing", "status": "ok", "message": "every timed output checked", "baseline": {}})
    emit({"type": "done"})
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
