#!/usr/bin/env bash
# The GPU profiling service's throughput on a GPU host (the paper's Fig. 12 analog): one mixed
# queue (the references of the paper's five problems, naive and fast, plus failing candidates)
# judged under several configurations side by side, each against the sequential one (today's
# path) measured in the same run. Prints the table; results in bench-results/service_throughput.json.
# Five configurations do not fit one 10-minute device call, so the default is the headline set and
# the others go in a second call:
#   scripts/bench_service.sh                                                    # sequential, all_on, pause_off (a JSON after each)
#   scripts/bench_service.sh --configs sequential,caching_off --out bench-results/service_throughput_c.json
#   scripts/bench_service.sh --configs sequential,pipelining_off,sharing_off --out bench-results/service_throughput_b.json
#   scripts/bench_service.sh --problems gemm,mha_fwd --lanes 4
#   scripts/bench_service.sh --configs sequential,all_on,all_on:min_samples=10   # what a timing rule costs
#   scripts/bench_service.sh --library-timings bench-results/library_timings.db --warm-library-timings
#       # as a later run in the same workspace: the library's clean timings kept and re-validated
#   scripts/bench_service.sh --queue agent_mix --configs sequential,all_on --out bench-results/service_throughput_mix.json
#       # an agent's turns (bench/agent_mix.json: most fail to compile or are wrong, a few correct)
#   scripts/bench_service.sh --queue verdict_sets --configs all_on:order=first,all_on --base all_on:order=first \
#       --verdict-table --out bench-results/verdict_sets.json   # the GPU tests' candidates under both orders
# The sequential configuration is today's path (the sanitizers first); the engine's use the
# judge's default order (after_correctness); CONFIG:order=first|after_correctness|only_if_correct
# sets one (EvalOptions::sanitizer_order), start_drain is all_on without pausable timed starts.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
export CUDA_DEVICE_ORDER=PCI_BUS_ID
BUILD=${PTXBENCH_BUILD:-build/release}
if [ ! -x "$BUILD/bin/service_throughput" ] || [ ! -x "$BUILD/bin/ptxbench-health-probe" ]; then
  cmake --preset release >/dev/null && cmake --build --preset release --target service_throughput ptxbench-worker ptxbench-health-probe
fi
mkdir -p bench-results
args=("$@")
[[ " $* " == *" --configs "* ]] || args=(--configs sequential,all_on,pause_off "${args[@]}")
[[ " $* " == *" --out "* ]] || args=(--out bench-results/service_throughput.json "${args[@]}")
"$BUILD/bin/service_throughput" "${args[@]}"
