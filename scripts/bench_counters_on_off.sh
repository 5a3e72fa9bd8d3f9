#!/usr/bin/env bash
# The accounting's cost on speedups (issue 30): every wgmma+TMA reference and honest control judged
# with the counters on and off (--no-probe), the order alternating, one workspace each, --no-cache (the
# library re-timed in both). Prints one line per evaluation and a table of speedups on / off.
#   scripts/bench_counters_on_off.sh          # on a GPU host, after a release build; $OUT (default
#                                             # /tmp/ptxbench-onoff) gets onoff.log and onoff_table.txt
set -o pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/ptxbench-onoff}; mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PATH=/usr/local/cuda/bin:$PATH
W=$(mktemp -d); mkdir -p $W/on $W/off $W/src
items=()
for p in gemm mha_fwd mha_fwd_causal mha_bwd mha_bwd_causal gqa_fwd gqa_bwd gemm_fp8 gemm_bias_gelu; do
  scripts/self_contained_reference.sh problems/$p/reference/wgmma_tma.cu > $W/src/$p.cu; items+=("$p:$W/src/$p.cu")
done
for c in gemm_split_k_pdl_malloc_async gemm_graph_replay gemm_cluster_persistent_cached_tma; do items+=("gemm:tests/gpu/candidates/controls/$c.cu"); done
t0=$(date +%s); i=0
for it in "${items[@]}"; do
  [ $(( $(date +%s) - t0 )) -gt ${BUDGET:-520} ] && { echo "budget: skipped $it"; continue; }
  if [ $((i % 2)) -eq 0 ]; then order="on off"; else order="off on"; fi; i=$((i+1))
  for m in $order; do
    extra=(--no-cache); [ $m = off ] && extra+=(--no-probe)
    PTXBENCH_JUDGE_TIMEOUT=90 PTXBENCH_JUDGE_WS=$W/$m scripts/judge_files.sh "$it" -- "${extra[@]}" 2>&1 | sed "s/^/$m /" | cut -c1-330 | tee -a $OUT/onoff.log
  done
done
echo "total $(( $(date +%s) - t0 )) s"
python3 - $W <<'PY' | tee $OUT/onoff_table.txt
import json, sys, glob, os
W = sys.argv[1]
def rec(m, name):
    try: return json.loads(open(f"{W}/{m}/{name}").read().splitlines()[-1])
    except Exception: return None
print(f"{'candidate':45} {'on':>16} {'off':>16} {'sp_on':>7} {'sp_off':>7} {'ratio':>6} med_on/med_off per shape")
for f in sorted(os.listdir(f"{W}/on")):
    if not f.endswith(".json"): continue
    a, b = rec("on", f), rec("off", f)
    if not a or not b: print(f, "missing"); continue
    sa, sb = a.get("speedup_geomean"), b.get("speedup_geomean")
    meds = [round(x["median_ms"] / y["median_ms"], 3) for x, y in zip(a.get("timing", []), b.get("timing", [])) if x.get("median_ms") and y.get("median_ms")]
    print(f"{f[:-5]:45} {a['verdict']:>16} {b['verdict']:>16} {sa if sa is None else round(sa,3):>7} {sb if sb is None else round(sb,3):>7} {round(sa/sb,4) if sa and sb else '-':>6} {meds} target_exec={a.get('target_executed')}/{b.get('target_executed')}")
PY
