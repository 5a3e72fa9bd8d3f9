#!/usr/bin/env bash
# Runs every GPU test (ctest label `gpu`) in one go on a GPU host, building first if needed.
# On a machine without a GPU the tests report themselves skipped, with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${PTXBENCH_BUILD:-build/release}
if [ ! -x "$BUILD/bin/ptxbench" ] || [ ! -x "$BUILD/tests/gpu_tests" ]; then
  cmake --preset release
  cmake --build --preset release
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>/dev/null || true
ctest --test-dir "$BUILD" -L gpu --output-on-failure -j1 "$@"
