#!/usr/bin/env bash
# The wgmma+TMA references judged as candidates (timing on, sanitizer off), one line each: verdict,
# geomean speedup vs the library baseline, target flags, and whether bubblewrap and Landlock applied.
#   scripts/judge_references.sh                      # the paper's five problems
#   PROBLEMS="gqa_fwd gqa_bwd gemm_fp8 gemm_bias_gelu" scripts/judge_references.sh
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
ws=$(mktemp -d)
for p in ${PROBLEMS:-gemm mha_fwd mha_fwd_causal mha_bwd mha_bwd_causal}; do
  f=$ws/$p.cu; scripts/self_contained_reference.sh problems/$p/reference/wgmma_tma.cu > $f
  t0=$(date +%s)
  timeout 170 build/release/bin/ptxbench --workspace $ws/w eval --json --no-sanitize -p $p $f > $ws/$p.json 2> $ws/$p.err
  rc=$?
  python3 - "$ws/$p.json" "$p" "$rc" "$(( $(date +%s) - t0 ))" <<'PY'
import json,sys
try:
    r=json.loads(open(sys.argv[1]).read().splitlines()[-1])
except Exception as e:
    print(sys.argv[2], "rc", sys.argv[3], "no record", e); sys.exit()
sb=r.get("environment",{}).get("sandbox",{}).get("worker",{}).get("process",{})
print(sys.argv[2], "rc", sys.argv[3], sys.argv[4]+"s", r["verdict"], "speedup", r.get("speedup_geomean"), "flags", {k:v for k,v in r.items() if "target" in k and not isinstance(v,(dict,list))},
      "bwrap", sb.get("bubblewrap",{}).get("used"), "landlock", sb.get("landlock",{}).get("used"))
PY
done
