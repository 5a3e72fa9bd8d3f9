#!/usr/bin/env bash
# Issue 45 on a GPU host, in one device call: what each hardware counter counts (bench/counter_semantics),
# then every candidate judged (timing on, sanitizer off) through scripts/judge_files.sh: the nine
# wgmma+TMA references, the honest controls and the attacks on the target flag. Parts (default all):
#   scripts/target_truth_gpu.sh semantics refs controls attacks off
#   scripts/target_truth_gpu.sh files gemm:path.cu mha_fwd:other.cu     # any list
# `off` judges the references again with the counters off (--no-probe), after the rest, and prints
# each one's speedup on and off side by side ($OUT/onoff.txt): the counters' cost, one call.
# Out: $OUT/semantics.csv, $OUT/judged.txt (one line per candidate and its shapes), $OUT/records.jsonl
# (every record in full). PTXBENCH_BUILD picks the build (default build/release).
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
export PTXBENCH_BUILD=${PTXBENCH_BUILD:-build/release}
OUT=${OUT:-/tmp/ptxbench-target-truth}
WS=$(mktemp -d)
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv,noheader 2>/dev/null

# The problem a candidate file is for: its folder's problem, else the prefix of its name.
problem_of() {
  local f=$1 b
  b=$(basename "$f" .cu)
  for p in mha_fwd_causal mha_bwd_causal mha_fwd mha_bwd gqa_fwd gqa_bwd gemm_fp8 gemm_bias_gelu gemm; do
    case "$b" in "$p"_*|"$p") echo "$p"; return ;; esac
  done
  case "$b" in attention_fwd*) echo mha_fwd ;; attention_bwd*) echo mha_bwd ;; *) echo gemm ;; esac
}

# Candidates of issue 45 (their header names it), in a folder; one that heats the GPU last (its
# cool-downs would otherwise delay every later candidate).
issue45() { grep -l "issue 45" "$1"/*.cu 2>/dev/null | sort -t_ -k2 | awk '/heats/ {h = h $0 "\n"; next} {print} END {printf "%s", h}'; }

items=()
off=0
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(semantics refs controls attacks)
i=0
while [ $i -lt ${#parts[@]} ]; do
  part=${parts[$i]}
  case "$part" in
    semantics)
      timeout 180 "$PTXBENCH_BUILD/bin/counter_semantics" > "$OUT/semantics.csv" 2> "$OUT/semantics.err"
      echo "== semantics: rc=$? $(wc -l < "$OUT/semantics.csv") rows" ;;
    refs)
      for p in gemm gemm_bias_gelu gemm_fp8 mha_fwd mha_fwd_causal mha_bwd mha_bwd_causal gqa_fwd gqa_bwd; do
        scripts/self_contained_reference.sh "problems/$p/reference/wgmma_tma.cu" > "$WS/$p.cu"
        items+=("$p:$WS/$p.cu")
      done ;;
    controls)
      for f in tests/gpu/candidates/controls/*.cu; do items+=("$(problem_of "$f"):$f"); done ;;
    attacks)
      for f in $(issue45 tests/gpu/candidates/attacks); do items+=("$(problem_of "$f"):$f"); done ;;
    off) off=1 ;;
    files)
      items+=("${parts[@]:$((i + 1))}")
      i=${#parts[@]} ;;
    *) echo "unknown part '$part' (semantics refs controls attacks off files)"; exit 2 ;;
  esac
  i=$((i + 1))
done
if [ ${#items[@]} -gt 0 ]; then
  PTXBENCH_JUDGE_WS=$WS/records scripts/judge_files.sh "${items[@]}" | tee "$OUT/judged.txt"
  cat "$WS"/records/*.json > "$OUT/records.jsonl" 2>/dev/null
fi
if [ "$off" = 1 ]; then
  refs=()
  for p in gemm gemm_bias_gelu gemm_fp8 mha_fwd mha_fwd_causal mha_bwd mha_bwd_causal gqa_fwd gqa_bwd; do
    [ -f "$WS/$p.cu" ] || scripts/self_contained_reference.sh "problems/$p/reference/wgmma_tma.cu" > "$WS/$p.cu"
    refs+=("$p:$WS/$p.cu")
  done
  PTXBENCH_JUDGE_WS=$WS/off scripts/judge_files.sh "${refs[@]}" -- --no-probe > "$OUT/judged_off.txt"
  python3 - "$WS" <<'PY' | tee "$OUT/onoff.txt"
import json, os, sys
ws = sys.argv[1]
def rec(folder, name):
    try: return json.loads(open(os.path.join(ws, folder, name)).read().splitlines()[-1])
    except Exception: return None
print(f"{'reference':16} {'verdict on/off':24} {'speedup on':>10} {'off':>8} {'on/off':>7}  target_executed on/off")
for p in "gemm gemm_bias_gelu gemm_fp8 mha_fwd mha_fwd_causal mha_bwd mha_bwd_causal gqa_fwd gqa_bwd".split():
    a, b = rec("records", f"{p}.{p}.json"), rec("off", f"{p}.{p}.json")
    if not a or not b: print(p, "missing"); continue
    sa, sb = a.get("speedup_geomean"), b.get("speedup_geomean")
    ratio = f"{sa / sb:.4f}" if sa and sb else "-"
    print(f"{p:16} {a['verdict'] + '/' + b['verdict']:24} {sa or 0:10.4f} {sb or 0:8.4f} {ratio:>7}  {a.get('target_executed')}/{b.get('target_executed')}")
PY
fi
