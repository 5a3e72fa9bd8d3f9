"""Shared paths and helpers for the training tests (run with the training venv's python: training/run_tests.sh)."""
import os
import pathlib
import subprocess
import sys

import pytest

TRAINING = pathlib.Path(__file__).resolve().parents[1]
REPO = TRAINING.parent
FIXTURE = TRAINING / "tests" / "fixtures" / "fixit_trl.jsonl"
TINY = TRAINING / "configs" / "tiny.toml"
sys.path.insert(0, str(TRAINING))


def cli(*args, timeout=1800, check=None):
    """Runs `python -m ptxbench_train ARGS` as a user would; returns the CompletedProcess."""
    env = dict(os.environ, PYTHONPATH=str(TRAINING), PYTHONUNBUFFERED="1")
    r = subprocess.run([sys.executable, "-m", "ptxbench_train", *map(str, args)], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=TRAINING)
    if check is not None and r.returncode != check:
        raise AssertionError(f"exit {r.returncode}, expected {check}\n--- stdout\n{r.stdout[-4000:]}\n--- stderr\n"
                             f"{r.stderr[-4000:]}")
    return r


@pytest.fixture
def fixture_lines():
    return FIXTURE.read_text().splitlines()
