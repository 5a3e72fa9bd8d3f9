#!/usr/bin/env bash
# One device call's worth of GPU work (used by the developers on the lent H200): Hopper pack tests,
# GEMM GPU tests, attention GPU tests in order of cost, then the expert GEMM stability bench.
# Logs go to ${OUT:-/tmp/ptxbench-device}.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/ptxbench-device}
mkdir -p "$OUT"
run() {  # name, timeout, ctest regex
  timeout "$2" scripts/gpu_tests.sh -V -R "$3" > "$OUT/$1.log" 2>&1
  echo "== $1: rc=$? $(grep -E 'tests passed' "$OUT/$1.log")"
  grep -E '\*\*\*Failed|Failure|Which is|Expected' "$OUT/$1.log" | grep -v '^\[ptxbench' | head -12
}
run hopper_pack 150 'HopperPack'
run gemm 200 'GemmOnGpu'
run attention_selftest 120 'AttentionSelfTest'
run attention_bad 200 'AttentionOnGpu\.(OffByOne|MissingLse|HardCoded|SMultiple)'
run attention_naive 300 'AttentionOnGpu\.Naive'
timeout 120 scripts/bench.sh --runs 3 problems/gemm/reference/expert.cu > "$OUT/bench_expert.log" 2>&1
grep -vE '^\[ptxbench' "$OUT/bench_expert.log" | tail -8
cp bench-results/eval_stability.json "$OUT/" 2>/dev/null || true
