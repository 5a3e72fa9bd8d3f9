#!/usr/bin/env bash
# Harness benchmarks on a GPU host: the stability of the speedup over repeated evaluations and
# the harness's own time per candidate. Results: bench-results/eval_stability.json.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${PTXBENCH_BUILD:-build/release}
[ -x "$BUILD/bin/eval_stability" ] || { cmake --preset release && cmake --build --preset release; }
mkdir -p bench-results
"$BUILD/bin/eval_stability" --runs "${RUNS:-5}" --out bench-results/eval_stability.json "$@"
