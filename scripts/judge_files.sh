#!/usr/bin/env bash
# Judges candidate files one at a time (sanitizer off) and prints one line each: verdict, the
# geomean speedup (the faster of the library alone and beside the candidate, as the record uses)
# and the speedup against the library beside it only (the rule before issue 30), the target flags
# (strict target_executed, the paper's target_seen), the tensor FLOP share and TMA byte share, the
# host seconds the tensor-map/stream accounting took, and the sandbox layers.
#   scripts/judge_files.sh gemm:problems/gemm/reference/naive.cu mha_fwd:my.cu [-- --no-timing]
# PTXBENCH_BUILD picks the build (default build/release); PTXBENCH_JUDGE_WS keeps the records
# (<problem>.<name>.json) in that folder.
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
extra=()
items=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; extra=("$@"); break; fi
  items+=("$1"); shift
done
ws=${PTXBENCH_JUDGE_WS:-$(mktemp -d)}
mkdir -p "$ws"
for item in "${items[@]}"; do
  p=${item%%:*}; f=${item#*:}
  name=$(basename "$f" .cu)
  t0=$(date +%s)
  timeout "${PTXBENCH_JUDGE_TIMEOUT:-170}" "${PTXBENCH_BUILD:-build/release}/bin/ptxbench" --workspace "$ws/w" eval --json --no-sanitize "${extra[@]}" -p "$p" "$f" \
    > "$ws/$p.$name.json" 2> "$ws/$p.$name.err"
  rc=$?
  python3 - "$ws/$p.$name.json" "$p" "$name" "$rc" "$(( $(date +%s) - t0 ))" <<'PY'
import json, math, sys
path, p, name, rc, secs = sys.argv[1:6]
try:
    r = json.loads(open(path).read().splitlines()[-1])
except Exception as e:
    print(p, name, "rc", rc, "no record", e); sys.exit()
def stage(n):
    return next((s for s in r.get("stages", []) if s["name"] == n), {})
timing = r.get("timing", [])
old = [t["baseline_interleaved_ms"] / t["median_ms"] for t in timing if t.get("median_ms") and t.get("baseline_interleaved_ms")]
old_geo = math.exp(sum(map(math.log, old)) / len(old)) if old else None
alone = sum(1 for t in timing if t.get("baseline_source") == "alone")
integ = stage("integrity").get("detail", {})
counted = [s.get("counted_sample_seconds") for s in stage("timing").get("detail", {}).get("shapes", []) if "counted_sample_seconds" in s]
tr = stage("target_run")
sb = r.get("environment", {}).get("sandbox", {}).get("worker", {}).get("process", {})
print(p, name, "rc", rc, secs + "s", r["verdict"],
      "speedup", r.get("speedup_geomean"), "interleaved-only", old_geo, "alone-baseline-shapes", f"{alone}/{len(timing)}",
      "target_executed", r.get("target_executed"), "target_seen", r.get("target_seen"),
      "tensor_share", r.get("tensor_flop_share"), "tma_share", r.get("tma_byte_share"),
      "map_stream_s", integ.get("map_and_stream_seconds"), "target_run_s", tr.get("seconds"), "counted_sample_s", counted,
      "bwrap", sb.get("bubblewrap", {}).get("used"), "landlock", sb.get("landlock", {}).get("used"),
      "|", r.get("reason", "")[:300])
tw = tr.get("detail", {}).get("timed_work")
if tw and not tw.get("counted"):
    print("    timed work not counted:", tw.get("why"))
for s in (tw or {}).get("shapes", []):
    lib = s.get("library", {})
    print("    timed", json.dumps(s.get("shape")), "calls", s.get("candidate_calls"), "target_ratio", s.get("target_flop_ratio"),
          "other_math", s.get("other_math_share"), "tma_load_share", s.get("tma_load_share"),
          "tma_x_operands", s.get("tma_byte_share"), "library target", lib.get("target_flop_ratio"),
          "library other", lib.get("other_math_share"), "seconds", s.get("seconds"))
for s in tr.get("detail", {}).get("shapes", []):
    print("   ", s.get("when"), json.dumps(s.get("shape")), "seen", s.get("targets_seen"), "work", s.get("targets_executed"),
          "tensor", s.get("tensor_flop_share"), "tma", s.get("tma_byte_share"), "copies", s.get("tma_copies"),
          "unsized", s.get("tma_copies_without_known_map"))
v = integ.get("violations", [])
if v: print("    violations:", json.dumps(v)[:600])
if integ.get("refused_entry_points"): print("    refused:", integ.get("refused_entry_points"))
PY
done
