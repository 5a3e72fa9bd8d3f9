#!/usr/bin/env bash
# The agent's acceptance run (issue 9's "done when"), for a GPU host (on a CPU machine the GPU stages
# are skipped and it says so): `ptxbench run --model files:DIR` over a suite's problems, killed with
# SIGKILL part-way, resumed to completion, checked for exactly the expected turns (none lost, none
# repeated); then the run is exported and replayed (`replay:`) in a fresh workspace, and the replay's
# verdicts must equal the original's turn by turn. Speedups are printed side by side.
#   scripts/agent_acceptance.sh [--suite paper] [--kill-after 45] [--out DIR] [extra `ptxbench run` flags]
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE=paper KILL_AFTER=45 OUT=${OUT:-/tmp/ptxbench-agent-acceptance}
while [ $# -gt 0 ]; do
  case "$1" in
    --suite) SUITE=$2; shift 2 ;;
    --kill-after) KILL_AFTER=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) break ;;
  esac
done
PTX=build/release/bin/ptxbench
[ -x "$PTX" ] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 1; }
rm -rf "$OUT" && mkdir -p "$OUT/files"
problems=$("$PTX" problems --suite "$SUITE" --json | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["problems"]))')
# One trajectory of three turns per problem: a compile error, the wgmma+TMA reference, and the
# reference again with one more comment line (other bytes, so it is judged again, not reused).
for p in $problems; do
  d="$OUT/files/$p/0" && mkdir -p "$d"
  ref=$(scripts/self_contained_reference.sh "problems/$p/reference/wgmma_tma.cu")
  { echo "$ref"; echo 'this line is not C++;'; } > "$d/0.cu"
  echo "$ref" > "$d/1.cu"
  { echo '// turn 2: the same kernel, resubmitted'; echo "$ref"; } > "$d/2.cu"
done
expected=$(( $(echo "$problems" | wc -w) * 3 ))
run=("$PTX" run --model "files:$OUT/files" --suite "$SUITE" --trajectories 1 --turns 3 --workspace "$OUT/ws" "$@")

t0=$(date +%s)
"${run[@]}" > "$OUT/first.out" 2> "$OUT/first.err" &
pid=$!
sleep "$KILL_AFTER"
if kill -9 "$pid" 2>/dev/null; then echo "killed the run with SIGKILL after ${KILL_AFTER}s"; else echo "the run ended before ${KILL_AFTER}s (no kill)"; fi
wait "$pid" 2>/dev/null || true
"${run[@]}" --json > "$OUT/resumed.json" 2> "$OUT/resumed.err"
echo "resumed to completion: $(( $(date +%s) - t0 ))s in all"
run_id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["run"]["id"])' "$OUT/resumed.json" 2>/dev/null ||
         "$PTX" runs list --workspace "$OUT/ws" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
"$PTX" runs export "$run_id" --jsonl --workspace "$OUT/ws" --out "$OUT/run.jsonl"

# The replay: the exported replies judged again, in a fresh workspace.
"$PTX" run --model "replay:$OUT/run.jsonl" --suite "$SUITE" --trajectories 1 --turns 3 --workspace "$OUT/ws-replay" "$@" \
  --json > "$OUT/replay.json" 2> "$OUT/replay.err"
replay_id=$("$PTX" runs list --workspace "$OUT/ws-replay" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
"$PTX" runs export "$replay_id" --jsonl --workspace "$OUT/ws-replay" --out "$OUT/replay.jsonl"

python3 - "$OUT/run.jsonl" "$OUT/replay.jsonl" "$expected" <<'EOF'
import json, sys
def turns(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    keys = [(r["problem"], r["trajectory"], r["turn"]) for r in rows]
    return rows, keys
orig, ko = turns(sys.argv[1])
rep, kr = turns(sys.argv[2])
expected = int(sys.argv[3])
problems = []
if len(set(ko)) != len(ko): problems.append(f"the run has repeated turns: {len(ko)} rows, {len(set(ko))} distinct")
if len(set(ko)) != expected: problems.append(f"the run has {len(set(ko))} turns, expected {expected}")
by = {(r["problem"], r["trajectory"], r["turn"]): r for r in rep}
print(f"{'problem':16s} turn  {'verdict':14s} {'replayed':14s} speedup  replayed")
for r in orig:
    k = (r["problem"], r["trajectory"], r["turn"])
    q = by.get(k)
    if q is None: problems.append(f"turn {k} missing from the replay"); continue
    if q["verdict"] != r["verdict"]: problems.append(f"turn {k}: {r['verdict']} but replayed {q['verdict']}")
    f = lambda v: "-" if v is None else f"{v:.3f}"
    print(f"{k[0]:16s} {k[2]:4d}  {str(r['verdict']):14s} {str(q['verdict']):14s} {f(r['speedup_geomean']):7s}  {f(q['speedup_geomean'])}")
print("\n".join(problems) if problems else f"OK: {expected} turns, none lost or repeated after SIGKILL; the replay's verdicts equal the run's")
sys.exit(1 if problems else 0)
EOF
