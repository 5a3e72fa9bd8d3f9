#!/usr/bin/env bash
# GPU work for one device call (used by the developers on the lent H200): the GPU tests in groups,
# cheapest first, and optionally the expert GEMM stability bench. Name the groups to run (default:
# all of them; a device call is limited to 10 minutes, so split them over two calls):
#   scripts/device_session.sh capture sandbox integrity target_truth attention_wgmma attention_bad attention_selftest gemm
#   scripts/device_session.sh hopper_pack gqa gemm_ext attention_naive bench_expert
#   scripts/device_session.sh service          # the service with the real worker (fault injection)
#   scripts/device_session.sh bench_service    # the service throughput bench alone (one whole call)
# Logs go to ${OUT:-/tmp/ptxbench-device}.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-/tmp/ptxbench-device}
BUILD=${PTXBENCH_BUILD:-build/release}
mkdir -p "$OUT"
declare -A REGEX=(
  [capture]='LaunchedKernels'
  [hopper_pack]='HopperPack'
  [gemm]='GemmOnGpu'
  [attention_wgmma]='AttentionOnGpu\.WgmmaTma'
  [attention_bad]='AttentionOnGpu\.(OffByOne|MissingLse|HardCoded|SMultiple)'
  [attention_selftest]='AttentionSelfTest|SampledRowsOnGpu'
  [attention_naive]='AttentionOnGpu\.Naive'
  [integrity]='IntegrityOnGpu'
  [target_truth]='TargetTruthOnGpu'
  [gqa]='Gqa(OnGpu|SelfTest)'
  [gemm_ext]='GemmExt(OnGpu|SelfTest)'
  [sandbox]='WorkerSandboxOnGpu'
  [service]='ServiceOnGpu'
)
declare -A LIMIT=([capture]=60 [hopper_pack]=150 [gemm]=200 [attention_wgmma]=150 [attention_bad]=200
                  [attention_selftest]=120 [attention_naive]=300 [integrity]=330 [target_truth]=420 [gqa]=480 [gemm_ext]=300
                  [sandbox]=240 [service]=300)
groups=("$@")
[ ${#groups[@]} -eq 0 ] && groups=(capture sandbox integrity target_truth hopper_pack attention_wgmma attention_bad attention_selftest gemm gqa gemm_ext attention_naive service bench_expert bench_service)
for g in "${groups[@]}"; do
  if [ "$g" = bench_expert ]; then
    timeout 120 scripts/bench.sh --runs 3 problems/gemm/reference/expert.cu > "$OUT/bench_expert.log" 2>&1
    grep -vE '^\[ptxbench' "$OUT/bench_expert.log" | tail -8
    cp bench-results/eval_stability.json "$OUT/" 2>/dev/null || true
    continue
  fi
  if [ "$g" = bench_service ]; then
    timeout 590 scripts/bench_service.sh > "$OUT/bench_service.log" 2>&1
    echo "== bench_service: rc=$?"
    grep -vE '^  |^\[ptxbench|^service_throughput' "$OUT/bench_service.log" | tail -8
    cp bench-results/service_throughput.json "$OUT/" 2>/dev/null || true
    continue
  fi
  [ -n "${REGEX[$g]:-}" ] || { echo "unknown group '$g' (known: ${!REGEX[*]} bench_expert bench_service)"; exit 1; }
  t0=$(date +%s)
  # The test binary directly (the device gets bin/ and tests/gpu_tests, not CTest's files).
  names=$("$BUILD/tests/gpu_tests" --gtest_list_tests | awk '/^[^ ]/{suite=$1} /^  /{print suite $1}' |
          grep -E "${REGEX[$g]}" | paste -sd:)
  (cd "$BUILD/tests" && timeout "${LIMIT[$g]}" ./gpu_tests --gtest_filter="$names" --gtest_also_run_disabled_tests) > "$OUT/$g.log" 2>&1
  echo "== $g: rc=$? $(( $(date +%s) - t0 ))s $(grep -E '^\[  PASSED  \]|^\[  FAILED  \] [0-9]+ test' "$OUT/$g.log" | paste -sd' ')"
  grep -E '^\[  FAILED  \] [A-Z]|Failure|Which is|Expected' "$OUT/$g.log" | grep -v '^\[ptxbench' | head -12
done
