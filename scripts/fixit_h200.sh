#!/usr/bin/env bash
# Fixit on a GPU host, every fix judged for real: a `files:` run of four problems whose turns fail
# in every class the harness can show (a compile error, a kernel without the target instructions, a
# wrong output, a library call, a trap, an out-of-bounds write), built into records by recipe s2
# (4ops-Extended: GEMM is held out, so its failures are refused) with the wgmma+TMA references as
# a `files:` teacher's known-good fixes (explanation + kernel, DIR/<problem>/all/0.md). Prints the
# build's outcome and stats; writes them, the exports and their cards to OUT (default
# $OUT or /tmp/ptxbench-fixit). Extra arguments go to both `run` and `fixit build` (e.g. --lanes 3).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-/tmp/ptxbench-fixit}
BIN=${PTXBENCH_BIN:-build/release/bin}
mkdir -p "$OUT_DIR"
W=$(mktemp -d /tmp/ptxbench-fixit-XXXXXX)
M=$W/model
T=$W/teacher
WS=$W/ws
ref() { scripts/self_contained_reference.sh "problems/$1/reference/$2.cu"; }
# A compile error a model makes: a helper named wrongly.
typo() { ref "$1" "$2"; printf '\nstatic __device__ void ptxbench_unused_helper() { wgmma_fence_sync_aligned(); }\n'; }
# A reply that explains its kernel: prose, then the file in one block.
explained() { printf '%s\n\n```cuda\n' "$1"; cat; printf '```\n'; }
for p in mha_fwd mha_fwd_causal mha_bwd gemm; do for t in 0 1 2 3; do mkdir -p "$M/$p/$t"; done; mkdir -p "$T/$p/all"; done

typo mha_fwd wgmma_tma > "$M/mha_fwd/0/0.cu"
ref mha_fwd wgmma_tma | explained "The helper is wgmma_fence, not wgmma_fence_sync_aligned: the stray helper calls a name \
the template functions never declared, so the front end stops before anything else is checked. Removing it leaves the \
kernel unchanged." > "$M/mha_fwd/0/1.md"
ref mha_fwd naive > "$M/mha_fwd/1/0.cu"
cp tests/gpu/candidates/attention_no_lse.cu "$M/mha_fwd/2/0.cu"
cp tests/gpu/candidates/attention_calls_cudnn.cu "$M/mha_fwd/3/0.cu"
cp tests/gpu/candidates/attention_causal_off_by_one.cu "$M/mha_fwd_causal/0/0.cu"
ref mha_fwd_causal naive > "$M/mha_fwd_causal/1/0.cu"
typo mha_fwd_causal wgmma_tma > "$M/mha_fwd_causal/2/0.cu"
typo mha_bwd wgmma_tma > "$M/mha_bwd/0/0.cu"
ref mha_bwd naive > "$M/mha_bwd/1/0.cu"
cat > "$M/mha_bwd/2/0.cu" <<'CU'
#include "interface.h"
// A first try that traps on the device (an illegal instruction at run time).
__global__ void mha_bwd_stub(float* dq) { asm volatile("trap;"); if (dq) dq[threadIdx.x] = 0.f; }
extern "C" cudaError_t ptxbench_mha_bwd(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                        const __nv_bfloat16*, const float*, __nv_bfloat16* dQ, __nv_bfloat16*, __nv_bfloat16*,
                                        int, int, int, int, void*, size_t, cudaStream_t stream) {
  mha_bwd_stub<<<1, 32, 0, stream>>>(reinterpret_cast<float*>(dQ));
  return cudaGetLastError();
}
CU
cp tests/gpu/candidates/wrong_result.cu "$M/gemm/0/0.cu"
cp tests/gpu/candidates/oob_write.cu "$M/gemm/1/0.cu"
ref gemm naive > "$M/gemm/2/0.cu"
for p in mha_fwd mha_fwd_causal mha_bwd gemm; do
  ref "$p" wgmma_tma | explained "The kernel must do the problem's work with the Hopper target instructions and be correct on \
every shape: stage the operand tiles with TMA (cp.async.bulk.tensor on mbarriers, one expect-tx per stage), multiply them \
with warpgroup MMA (wgmma.mma_async with fences and commit/wait groups), keep the softmax or the accumulation in fp32, and \
write every output (and the row log-sum-exp where the problem has one) on the given stream. This is such a kernel." \
    > "$T/$p/all/0.md"
done

t0=$(date +%s)
"$BIN/ptxbench" --workspace "$WS" run --model "files:$M" --problems mha_fwd,mha_fwd_causal,mha_bwd,gemm --trajectories 4 \
  --turns 2 --run-name h200-src --no-timing --service "$@" --json > "$OUT_DIR/source_run.json" || true
t1=$(date +%s)
"$BIN/ptxbench" --workspace "$WS" runs show h200-src | tee "$OUT_DIR/source_run.txt" | tail -25
set +e
"$BIN/ptxbench" --workspace "$WS" fixit build --runs h200-src --recipe s2 --teacher "files:$T" --build-name h200 "$@" --json \
  > "$OUT_DIR/fixit_build.json"
echo "fixit build: exit $?"
set -e
t2=$(date +%s)
cat "$OUT_DIR/fixit_build.json"
"$BIN/ptxbench" --workspace "$WS" fixit stats --build h200 --items | tee "$OUT_DIR/fixit_stats.txt"
"$BIN/ptxbench" --workspace "$WS" fixit stats --build h200 --items --format json > "$OUT_DIR/fixit_stats.json"
for f in trl records; do "$BIN/ptxbench" --workspace "$WS" fixit export --build h200 --format $f -o "$OUT_DIR/h200.$f.jsonl"; done
"$BIN/ptxbench" --workspace "$WS" report --format html -o "$OUT_DIR/report.html" || true
echo "source run: $((t1 - t0)) s; fixit build: $((t2 - t1)) s"
