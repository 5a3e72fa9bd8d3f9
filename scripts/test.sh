#!/usr/bin/env bash
# Sets up, builds and runs every test. GPU tests (label `gpu`) skip with the reason where no GPU
# is found; scripts/gpu_tests.sh runs them on a GPU host. PTXBENCH_PRESET names the CMake preset
# (default release; the CI's is `ci`, warnings as errors).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
ctest --preset "${PTXBENCH_PRESET:-release}" "$@"
