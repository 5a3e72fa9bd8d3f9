"""The adapter as llama.cpp serves it: converted to a GGUF LoRA adapter (llama.cpp's own
convert_lora_to_gguf.py, from the sources of the llama-cpp-python that serves it) and loaded beside
the unchanged base GGUF by llama-cpp-python's OpenAI-compatible server (`--lora_path`)."""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from .errors import CheckFailed, InputError


def base_python() -> str:
    """The interpreter that has llama_cpp (the main environment's, not this venv's)."""
    if os.environ.get("PTXBENCH_PYTHON"):
        return os.environ["PTXBENCH_PYTHON"]
    recorded = Path(sys.prefix) / "ptxbench-base-python"
    if recorded.is_file():
        return recorded.read_text().strip()
    return "python3"


def converter() -> Path:
    p = Path(os.environ.get("PTXBENCH_LLAMA_CONVERT", Path(sys.prefix) / "llama.cpp-convert"))
    script = p / "convert_lora_to_gguf.py"
    if not script.is_file():
        raise InputError(f"no llama.cpp LoRA converter at {script}: run training/setup.sh (it needs llama-cpp-python "
                         "installed by scripts/setup.sh)")
    return script


def gguf_lora_tensors(path: Path) -> dict:
    """The GGUF adapter's LoRA tensor names (A/B pairs) and its general.type."""
    sys.path.insert(0, str(converter().parent / "gguf-py"))
    try:
        import gguf  # the converter's own gguf-py: the version that wrote the file
    finally:
        sys.path.pop(0)
    reader = gguf.GGUFReader(str(path))
    names = [t.name for t in reader.tensors]
    kind = reader.fields.get("general.type")
    kind = bytes(kind.parts[kind.data[0]]).decode() if kind else None
    return {"type": kind, "lora_a": sorted(n for n in names if n.endswith(".lora_a")),
            "lora_b": sorted(n for n in names if n.endswith(".lora_b")), "other": [n for n in names if not
                                                                                     n.endswith((".lora_a", ".lora_b"))]}


def to_gguf(run_dir: Path, outtype: str = "f32") -> dict:
    """Converts run_dir/adapter to run_dir/adapter.gguf and checks that every LoRA module made it."""
    run_dir = Path(run_dir)
    manifest = json.loads((run_dir / "run.json").read_text())
    out = run_dir / "adapter.gguf"
    cmd = [sys.executable, str(converter()), "--base", str(run_dir / "base_config"), "--outfile", str(out),
           "--outtype", outtype, str(run_dir / "adapter")]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - t0
    (run_dir / "convert.log").write_text(r.stdout + r.stderr)
    if r.returncode != 0 or not out.is_file():
        raise CheckFailed(f"convert_lora_to_gguf.py failed ({r.returncode}):\n{(r.stdout + r.stderr)[-3000:]}")
    info = gguf_lora_tensors(out)
    want = manifest["lora_modules"]
    if info["type"] != "adapter" or len(info["lora_a"]) != want or len(info["lora_b"]) != want:
        raise CheckFailed(f"{out} holds {len(info['lora_a'])} lora_a and {len(info['lora_b'])} lora_b tensors "
                          f"(type {info['type']}), but LoRA was trained on {want} modules: the converter dropped some")
    result = {"adapter_gguf": str(out), "outtype": outtype, "seconds": round(seconds, 2),
              "lora_pairs": len(info["lora_a"]), "bytes": out.stat().st_size}
    manifest["gguf"] = result
    (run_dir / "run.json").write_text(json.dumps(manifest, indent=2))
    print(f"[to-gguf] {out}: {result['lora_pairs']} LoRA tensor pairs, {result['bytes']} bytes, {seconds:.1f} s")
    return result


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LlamaServer:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1 (the base GGUF, plus the GGUF LoRA adapter
    when given), started in its own process group and stopped with it."""

    def __init__(self, base_gguf: str, lora_gguf: str | None, alias: str, n_ctx: int = 4096, port: int = 0,
                 host: str = "127.0.0.1", threads: int = 0, log_path: str | None = None, start_timeout: float = 120):
        self.base_gguf, self.lora_gguf, self.alias, self.n_ctx = base_gguf, lora_gguf, alias, n_ctx
        self.host, self.port, self.threads = host, port or free_port(), threads
        self.log_path = log_path or tempfile.mktemp(prefix="ptxbench-llama-", suffix=".log")
        self.start_timeout = start_timeout
        self.proc = None
        self.startup_seconds = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def command(self) -> list[str]:
        cmd = [base_python(), "-m", "llama_cpp.server", "--model", self.base_gguf, "--model_alias", self.alias,
               "--host", self.host, "--port", str(self.port), "--n_ctx", str(self.n_ctx),
               "--interrupt_requests", "False", "--verbose", "False"]
        if self.lora_gguf:
            cmd += ["--lora_path", self.lora_gguf]
        if self.threads:
            cmd += ["--n_threads", str(self.threads)]
        return cmd

    def start(self):
        t0 = time.monotonic()
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        log.close()
        deadline = t0 + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise CheckFailed(f"the llama.cpp server exited ({self.proc.returncode}):\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2) as r:
                    if r.status == 200:
                        self.startup_seconds = time.monotonic() - t0
                        return self
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise CheckFailed(f"the llama.cpp server did not answer within {self.start_timeout} s:\n{self.log_tail()}")

    def log_tail(self, n: int = 3000) -> str:
        try:
            return Path(self.log_path).read_text(errors="replace")[-n:]
        except OSError:
            return ""

    def stop(self):
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
