#!/usr/bin/env bash
# Triton candidates judged on a GPU host with every GPU stage (issue 32), one step per argument:
#   triton_h200.sh probe     the Triton toolchain the judge finds (Python, its shared library, Triton)
#   triton_h200.sh smoke     the tuned gemm reference through eval --sequential, every stage
#   triton_h200.sh refs      every Triton reference (plain and tuned, nine problems) through eval
#   triton_h200.sh tuned     the tuned references only, sanitizers off (a short call)
#   triton_h200.sh plain     the plain references only, sanitizers off (compare times the tuned ones)
#   triton_h200.sh attacks   the attack files the CPU stages leave to the GPU judge ("gpu" in expected.json)
#   triton_h200.sh compare   a files: run per language (CUDA wgmma_tma.cu vs Triton tuned.py, one
#                            trajectory each, timing on, sanitizers off: the refs step runs them) and
#                            the report comparing them per problem
# The Triton toolchain is $PTXBENCH_TRITON_PYTHON (default: the first python3 with triton). Records and
# tables go to $OUT (default /tmp/ptxbench-triton); the workspace is $OUT/ws.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/ptxbench-triton}
BIN=${PTXBENCH_BIN:-build/release/bin}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT"
if [ -z "${PTXBENCH_TRITON_PYTHON:-}" ]; then
  for py in /opt/torch/.venv/bin/python3 triton_track/.venv/bin/python python3; do
    if command -v "$py" >/dev/null && "$py" -c "import triton" 2>/dev/null; then py=$(command -v "$py"); PTXBENCH_TRITON_PYTHON=$(cd "$(dirname "$py")" && pwd)/$(basename "$py"); break; fi
  done
fi
export PTXBENCH_TRITON_PYTHON
WS=$OUT/ws
PROBLEMS="gemm gemm_bias_gelu gemm_fp8 mha_fwd mha_fwd_causal mha_bwd mha_bwd_causal gqa_fwd gqa_bwd"

# One line per record: problem, file, verdict, speedup, target flags, the first failing stage's message.
summarize() {
  python3 - "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    if "verdict" not in r:
        continue
    failed = next((s for s in r.get("stages", []) if s["status"] == "failed"), None)
    sp = r.get("speedup_geomean")
    why = (failed["name"] + ": " + failed.get("message", "")[:400]) if failed else ""
    print(f"{r['problem']:15} {r['candidate']['path'].split('/')[-1]:22} {r['verdict']:16} "
          f"speedup={sp if sp is None else round(sp, 3)} target_exec={r.get('target_executed')} "
          f"tensor={r.get('tensor_flop_share')} tma={r.get('tma_byte_share')} {why}")
PY
}

case "${1:-}" in
  probe)
    echo "python: $PTXBENCH_TRITON_PYTHON"
    "$PTXBENCH_TRITON_PYTHON" -c "import sys, sysconfig as s, triton; print(sys.version.split()[0], 'shared', s.get_config_var('Py_ENABLE_SHARED'), s.get_config_var('LDLIBRARY'), s.get_config_var('LIBDIR'), 'triton', triton.__version__, 'base', sys.base_prefix)"
    ls /usr/lib/x86_64-linux-gnu | grep -i libpython || echo "no libpython in /usr/lib/x86_64-linux-gnu"
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader ;;
  smoke)
    "$BIN/ptxbench" --workspace "$WS" eval --sequential --json problems/gemm/triton/tuned.py > "$OUT/smoke.jsonl"
    echo "exit $?"; summarize "$OUT/smoke.jsonl" ;;
  refs)
    files=()
    for p in $PROBLEMS; do files+=(problems/$p/triton/tuned.py problems/$p/triton/plain.py); done
    "$BIN/ptxbench" --workspace "$WS" eval --json "${files[@]}" > "$OUT/refs.jsonl"
    echo "exit $?"; summarize "$OUT/refs.jsonl" ;;
  tuned)
    files=()
    for p in $PROBLEMS; do files+=(problems/$p/triton/tuned.py); done
    "$BIN/ptxbench" --workspace "$WS" eval --json --no-sanitize "${files[@]}" > "$OUT/tuned.jsonl"
    echo "exit $?"; summarize "$OUT/tuned.jsonl" ;;
  plain)
    files=()
    for p in $PROBLEMS; do files+=(problems/$p/triton/plain.py); done
    "$BIN/ptxbench" --workspace "$WS" eval --json --no-sanitize "${files[@]}" > "$OUT/plain.jsonl"
    echo "exit $?"; summarize "$OUT/plain.jsonl" ;;
  attacks)
    files=$(python3 -c 'import json; d = json.load(open("triton_track/attacks/expected.json")); print(" ".join("triton_track/attacks/" + k for k, v in d.items() if v == "gpu"))')
    "$BIN/ptxbench" --workspace "$WS" eval --json --problem gemm $files > "$OUT/attacks.jsonl"
    echo "exit $?"; summarize "$OUT/attacks.jsonl" ;;
  compare)
    F=$OUT/files
    rm -rf "$F"
    for p in $PROBLEMS; do
      mkdir -p "$F/cuda/$p/0" "$F/triton/$p/0"
      scripts/self_contained_reference.sh problems/$p/reference/wgmma_tma.cu > "$F/cuda/$p/0/0.cu"
      cp problems/$p/triton/tuned.py "$F/triton/$p/0/0.py"
    done
    list=$(echo $PROBLEMS | tr ' ' ',')
    for lang in cuda triton; do
      "$BIN/ptxbench" --workspace "$WS" run --model "files:$F/$lang" --language $lang --problems "$list" --trajectories 1 \
        --turns 1 --no-sanitize --service --run-name "refs-$lang" || echo "run $lang: exit $?"
    done
    "$BIN/ptxbench" --workspace "$WS" report --budgets 1 --compare language=cuda..language=triton --format md \
      > "$OUT/compare.md" 2> "$OUT/compare.err"; echo "report exit $?"
    "$BIN/ptxbench" --workspace "$WS" report --budgets 1 --group-by arch,language,problem --format md > "$OUT/by_language.md" 2>>"$OUT/compare.err"
    # The paper's Fig. 3: fast_p curves per language (and arch) in the HTML report
    "$BIN/ptxbench" --workspace "$WS" report --budgets 1 --group-by arch,language --format html > "$OUT/fig3.html" 2>>"$OUT/compare.err"
    "$BIN/ptxbench" --workspace "$WS" report --budgets 1 --compare language=cuda..language=triton --format json > "$OUT/compare.json" 2>>"$OUT/compare.err"
    for lang in cuda triton; do "$BIN/ptxbench" --workspace "$WS" runs export "refs-$lang" --jsonl -o "$OUT/refs-$lang.jsonl" 2>>"$OUT/compare.err"; done
    cat "$OUT/compare.md" "$OUT/by_language.md"; tail -5 "$OUT/compare.err" ;;
  *) echo "usage: $0 probe|smoke|refs|tuned|plain|attacks|compare" >&2; exit 2 ;;
esac
