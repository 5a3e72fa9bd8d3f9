#!/usr/bin/env bash
# The range profiler's work counters on this GPU (bench/work_counters_probe.cu): the figures they
# read for a cuBLASLt GEMM against its FLOPs and bytes, the time a range around each sample costs,
# and the launch latency a candidate sees inside and outside a range. JSON to stdout and to $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${PTXBENCH_BIN:-build/release/bin}
OUT=${OUT:-/tmp/ptxbench-work-counters}
mkdir -p "$OUT"
"$BIN/work_counters_probe" | tee "$OUT/work_counters.json"
