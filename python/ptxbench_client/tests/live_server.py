"""Starts the real servers of the reward API on loopback for the live tests: `ptxbench serve
--http` (the CPU path: static stages) and service_http_harness (the same API over the engine with
the simulated GPU stage). The binaries come from $PTXBENCH_BIN_DIR (ctest sets it); a test is
skipped, saying so, when it is not set."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import List, Optional

import pytest

SOURCE_DIR = Path(__file__).resolve().parents[3]


def bin_dir() -> Path:
    d = os.environ.get("PTXBENCH_BIN_DIR")
    if not d:
        pytest.skip("PTXBENCH_BIN_DIR is not set (ctest sets it to the build's bin/)")
    return Path(d)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    """A server process in `workspace`; its URL from the endpoint file it writes."""

    def __init__(self, argv: List[str], workspace: Path) -> None:
        self.argv = argv
        self.workspace = workspace
        self.proc: Optional[subprocess.Popen] = None
        self.url = ""

    def start(self, timeout: float = 120) -> "LiveServer":
        endpoint = self.workspace / "service" / "http.json"
        endpoint.unlink(missing_ok=True)
        log = open(self.workspace / "server.log", "ab")
        self.proc = subprocess.Popen(self.argv, cwd=SOURCE_DIR, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.argv[0]} exited with {self.proc.returncode}:\n{self.log()}")
            try:
                info = json.loads(endpoint.read_text())
                if info.get("pid") == self.proc.pid:
                    self.url = info["url"]
                    return self
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        raise RuntimeError(f"{self.argv[0]} wrote no endpoint file in {timeout} s:\n{self.log()}")

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.kill9()
            return -9

    def log(self) -> str:
        p = self.workspace / "server.log"
        return p.read_text(errors="replace")[-4000:] if p.exists() else ""


def real_serve(workspace: Path) -> LiveServer:
    return LiveServer([str(bin_dir() / "ptxbench"), "--workspace", str(workspace), "serve", "--http", "127.0.0.1:0",
                       "--lanes", "1", "--cpu-jobs", "2"], workspace)


def simulated_serve(workspace: Path, port: int = 0, max_queue_depth: int = 100000,
                    queue: Optional[str] = None, inline_gpu: bool = False, lease_ms: int = 2000,
                    cpu_jobs: int = 2) -> LiveServer:
    """service_http_harness; `inline_gpu`: the GPU stages simulated in-process (no fake worker
    processes: what the load tests measure is the API, the queue and the engine)."""
    exe = bin_dir() / "service_http_harness"
    if not exe.exists():
        pytest.skip(f"{exe} is not built (cmake --build --target service_http_harness)")
    argv = [str(exe), "--workspace", str(workspace), "--fake-worker", str(bin_dir() / "ptxbench-fake-gpu-worker"),
            "--problems", str(SOURCE_DIR / "problems"), "--http", f"127.0.0.1:{port}",
            "--max-queue-depth", str(max_queue_depth), "--lease-ms", str(lease_ms), "--cpu-jobs", str(cpu_jobs)]
    if queue:
        argv += ["--queue", queue]
    if inline_gpu:
        argv += ["--inline-gpu"]
    return LiveServer(argv, workspace)


def simulated_source(**spec) -> str:
    """A candidate for the simulated GPU stage (tests/service/simulated_record_executor.h)."""
    return "// simulated: " + json.dumps(spec) + "\n"
