#!/bin/sh
# Runs one libFuzzer target for a bounded time on a fresh corpus seeded from SEEDS (a folder or
# files). Exit 77 (ctest: skipped) with the reason when the target was not built (no clang/libFuzzer).
#   run_fuzzer.sh BINARY SECONDS SEED...
set -eu
bin=$1; secs=$2; shift 2
if [ ! -x "$bin" ]; then
  echo "SKIPPED: $bin was not built: clang++ with libFuzzer (Debian clang, libfuzzer-*-dev) not found at configure time"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ptxbench-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus"
for s in "$@"; do
  if [ -d "$s" ]; then find "$s" -maxdepth 3 -type f \( -name '*.toml' -o -name '*.json' -o -name '*.txt' -o -name '*.jsonl' \) \
      -exec cp {} "$work/corpus/" \; 2>/dev/null || true
  elif [ -f "$s" ]; then cp "$s" "$work/corpus/$(basename "$s").$(date +%s%N)"; fi
done
cd "$work"
"$bin" -error_exitcode=1 -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "$work/corpus"
