#!/usr/bin/env bash
# The wgmma+TMA references judged as candidates (timing on, sanitizer off), one line each
# (scripts/judge_files.sh: verdict, speedups, target flags and shares, sandbox layers).
#   scripts/judge_references.sh                      # the paper's five problems
#   PROBLEMS="gqa_fwd gqa_bwd gemm_fp8 gemm_bias_gelu" scripts/judge_references.sh
cd "$(dirname "$0")/.."
ws=${PTXBENCH_JUDGE_WS:-$(mktemp -d)}
items=()
for p in ${PROBLEMS:-gemm mha_fwd mha_fwd_causal mha_bwd mha_bwd_causal}; do
  scripts/self_contained_reference.sh problems/$p/reference/wgmma_tma.cu > $ws/$p.cu
  items+=("$p:$ws/$p.cu")
done
PTXBENCH_JUDGE_WS=$ws scripts/judge_files.sh "${items[@]}"
