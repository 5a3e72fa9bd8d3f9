#!/usr/bin/env bash
# Runs the Triton track's tests (tests/test_*.py, stdlib unittest) with the track's environment
# (setup.sh makes it; $PTXBENCH_TRITON_PYTHON overrides the interpreter). No GPU needed: the
# compile tests build for sm_90a and sm_100a on the CPU. Extra arguments go to unittest
# (e.g. -k attacks, -v).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PTXBENCH_TRITON_PYTHON:-${PTXBENCH_TRITON_VENV:-$HERE/.venv}/bin/python}
if [ ! -x "$PY" ]; then
  echo "SKIPPED: no $PY: run triton_track/setup.sh first (scripts/setup.sh --tests does)"
  exit 77
fi
cd "$HERE"
started=$(date +%s)
"$PY" -B -m unittest discover -s tests -t . "$@"
echo "[triton_track/tests] done in $(( $(date +%s) - started )) s"
