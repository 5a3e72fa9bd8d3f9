#!/usr/bin/env bash
# Runs the RL examples' tests (python/examples/tests: TRL's GRPOTrainer and verl's reward hooks against
# the reward API with the simulated GPU stage) in the training environment, which has torch,
# transformers, TRL and verl (training/setup.sh installs it). CTest calls it (label python).
#   python/examples/run_tests.sh BIN_DIR [pytest arguments...]
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VENV=${PTXBENCH_TRAINING_VENV:-$ROOT/training/.venv}
export PTXBENCH_BIN_DIR=$1
shift
if [ ! -x "$VENV/bin/python" ]; then
  echo "python/examples/run_tests.sh: no training environment at $VENV: run training/setup.sh (scripts/setup.sh --tests calls it)" >&2
  exit 1
fi
cd "$HERE"
# The main environment's python3 finds the SmolLM2 GGUF (scripts/smollm2_gguf.py) for the tokenizer.
export PTXBENCH_PYTHON=${PTXBENCH_PYTHON:-$(cat "$VENV/ptxbench-base-python" 2>/dev/null || command -v python3)}
exec "$VENV/bin/python" -m pytest -v -rs -p no:cacheprovider "$@"
