#!/usr/bin/env bash
# Runs the training tests (pytest, training/tests) with the training environment that training/setup.sh
# installs. CTest calls it (training/CMakeLists.txt: training.unit, training.smoke).
#   training/run_tests.sh [--ptxbench BIN] [pytest arguments...]
# --ptxbench: the built ptxbench, for the smoke's `ptxbench run` step (else that step skips, saying so).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${PTXBENCH_TRAINING_VENV:-$HERE/.venv}
if [ "${1:-}" = "--ptxbench" ]; then
  export PTXBENCH_BIN=$2
  shift 2
fi
if [ ! -x "$VENV/bin/python" ]; then
  echo "training/run_tests.sh: no training environment at $VENV: run training/setup.sh (scripts/setup.sh --tests calls it)" >&2
  exit 1
fi
cd "$HERE"
exec "$VENV/bin/python" -m pytest -v -rs "$@"
