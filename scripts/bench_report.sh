#!/usr/bin/env bash
# Report benchmark (CPU): a synthetic workspace of 10,000 turns (bench/report_synthetic_workspace),
# the wall time of `ptxbench report` per format, and how long the HTML takes to open in headless
# Chromium: the page's own times from navigation start to every plot drawn and to its load event
# (performance.now() in its #render-check summary), and the wall time of a whole headless Chromium
# process that starts, opens the page and takes a screenshot (browser start included). The
# --dump-dom process is not a measure of opening: it serializes the whole 40 MB DOM afterwards.
# Goals (issue 10): report < 10 s; HTML open < 3 s. Numbers printed and in bench-results/report_bench.json.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${PTXBENCH_BUILD:-build/release}
TURNS=${TURNS:-10000}
[ -x "$BUILD/bin/report_synthetic_workspace" ] && [ -x "$BUILD/bin/ptxbench" ] ||
  cmake --build --preset release --target ptxbench report_synthetic_workspace
WS=$(mktemp -d /tmp/ptxbench-report-bench.XXXXXX)
trap 'rm -rf "$WS"' EXIT
"$BUILD/bin/report_synthetic_workspace" --out "$WS" --turns "$TURNS"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
declare -A secs
for fmt in table json csv md html; do
  t0=$(now)
  "$BUILD/bin/ptxbench" report "$WS" --format "$fmt" --out "$WS/report.$fmt" 2>/dev/null
  secs[$fmt]=$(since "$t0")
  printf 'report --format %-5s %6.2f s  (%s bytes)\n' "$fmt" "${secs[$fmt]}" "$(stat -c %s "$WS/report.$fmt")"
done
CHROMIUM=$(command -v chromium || command -v chromium-browser)
t0=$(now)
"$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WS/profile" \
  --dump-dom "file://$WS/report.html#render-check" > "$WS/dom.html" 2>/dev/null
open_wall=$(since "$t0")
read -r render_ms load_ms < <(python3 -c "
import html, json, re, sys
m = re.search(r'<pre id=\"render-check\"[^>]*>(.*?)</pre>', open('$WS/dom.html').read(), re.S)
c = json.loads(html.unescape(m.group(1)))
assert not c['errors'], c['errors']
print(round(c['render_ms']), round(c['load_ms']))")
t0=$(now)
"$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$WS/profile2" \
  --screenshot="$WS/shot.png" --window-size=1400,1200 "file://$WS/report.html" >/dev/null 2>&1
shot_wall=$(since "$t0")
printf 'html (%s bytes) in chromium: all plots drawn %s ms, load event %s ms after navigation start;\n' "$(stat -c %s "$WS/report.html")" "$render_ms" "$load_ms"
printf '  a whole chromium process (start, open, screenshot) %s s; --dump-dom process %s s (mostly serializing the DOM)\n' "$shot_wall" "$open_wall"
mkdir -p bench-results
cat > bench-results/report_bench.json <<JSON
{"turns": $TURNS, "report_seconds": {"table": ${secs[table]}, "json": ${secs[json]}, "csv": ${secs[csv]}, "md": ${secs[md]}, "html": ${secs[html]}},
 "html_bytes": $(stat -c %s "$WS/report.html"), "html_plots_drawn_ms": $render_ms, "html_load_event_ms": $load_ms,
 "chromium_open_and_screenshot_seconds": $shot_wall, "chromium_dump_dom_seconds": $open_wall, "host_cpus": $(nproc)}
JSON
echo "bench-results/report_bench.json"
