#!/usr/bin/env bash
# On a GPU host: the same candidates judged twice, once in process (`eval` through the service's
# engine) and once submitted by a process without an engine (`eval --submit-only`) to a
# `ptxbench serve` worker through Redis Streams. Passes when every verdict matches and every
# speedup (geomean and per shape) agrees within 1%. Default candidates: every problem's
# reference/*.cu. Logs and both JSON outputs go to ${OUT:-/tmp/ptxbench-redis-acceptance}.
#   scripts/redis_acceptance.sh [problem ...]
# redis-server: $REDIS_SERVER, else build/redis-tools/redis-server (with the libraries
# scripts/bundle_redis_server.sh copies beside it, for a GPU host without Debian's package), else PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/cuda/bin:$PATH
BIN=${PTXBENCH:-build/release/bin/ptxbench}
OUT=${OUT:-/tmp/ptxbench-redis-acceptance}
mkdir -p "$OUT"
WS=$(mktemp -d)
if [ -n "${REDIS_SERVER:-}" ]; then :;
elif [ -x build/redis-tools/redis-server ]; then REDIS_SERVER=build/redis-tools/redis-server; export LD_LIBRARY_PATH=$PWD/build/redis-tools${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH};
else REDIS_SERVER=$(command -v redis-server || true); fi
[ -n "$REDIS_SERVER" ] || { echo "no redis-server (apt-get install redis-server, or scripts/bundle_redis_server.sh)" >&2; exit 2; }
PORT=${PORT:-6391}
"$REDIS_SERVER" --port "$PORT" --bind 127.0.0.1 --dir "$WS" --appendonly yes --appendfsync always --save '' \
  --daemonize yes --pidfile "$WS/redis.pid" --logfile "$OUT/redis.log"
URL="redis://127.0.0.1:$PORT/0?stream=acceptance"
SERVE_PID=
cleanup() {
  [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null && wait "$SERVE_PID" 2>/dev/null
  [ -f "$WS/redis.pid" ] && kill "$(cat "$WS/redis.pid")" 2>/dev/null
  rm -rf "$WS"
}
trap cleanup EXIT
for _ in $(seq 50); do "$BIN" service status --queue "$URL" >/dev/null 2>&1 && break; sleep 0.1; done

"$BIN" --workspace "$WS/serve" serve --queue "$URL" > "$OUT/serve.log" 2>&1 &
SERVE_PID=$!

problems=("$@")
[ ${#problems[@]} -eq 0 ] && problems=($(ls problems | grep -v common))
status=0
: > "$OUT/compared.txt"
for p in "${problems[@]}"; do
  files=(problems/$p/reference/*.cu)
  [ -e "${files[0]}" ] || continue
  echo "== $p: ${#files[@]} candidates"
  "$BIN" --workspace "$WS/local" eval -p "$p" "${files[@]}" --json > "$OUT/$p.local.json" 2> "$OUT/$p.local.log" || true
  "$BIN" --workspace "$WS/submitter" eval -p "$p" "${files[@]}" --queue "$URL" --submit-only --json \
    > "$OUT/$p.redis.json" 2> "$OUT/$p.redis.log" || true
  python3 - "$OUT/$p.local.json" "$OUT/$p.redis.json" "$OUT/compared.txt" <<'PY' || status=1
import json, sys
def load(p):  # `eval --json` prints one record per line (JSON lines)
    return [json.loads(line) for line in open(p) if line.strip()]
local, redis = load(sys.argv[1]), load(sys.argv[2])
assert len(local) == len(redis), f"{len(local)} local records, {len(redis)} through Redis"
bad = compared = 0
for a, b in zip(local, redis):
    name = a.get("candidate", {}).get("path", "?")
    va, vb = a.get("verdict"), b.get("verdict")
    sa, sb = a.get("speedup_geomean"), b.get("speedup_geomean")
    rel = abs(sa - sb) / sa if sa and sb else (0.0 if sa == sb else 1.0)  # one side timed, the other not: bad
    shapes = {json.dumps(t.get("shape")): t.get("speedup") for t in a.get("timing", [])}
    worst_shape = 0.0
    for t in b.get("timing", []):
        s = shapes.get(json.dumps(t.get("shape")))
        if s and t.get("speedup"): worst_shape = max(worst_shape, abs(s - t["speedup"]) / s)
    compared += bool(sa and sb)
    ok = va == vb and rel <= 0.01 and worst_shape <= 0.01
    bad += not ok
    print(f"  {'ok ' if ok else 'BAD'} {name}: verdict {va} / {vb}; speedup {sa} / {sb} ({100*rel:.2f}%); worst shape {100*worst_shape:.2f}%")
print(f"  {compared} speedup(s) compared")
open(sys.argv[3], "a").write(f"{compared}\n")
sys.exit(1 if bad else 0)
PY
done
compared=$(awk '{n += $1} END {print n + 0}' "$OUT/compared.txt")
if [ "$compared" -eq 0 ] && [ "${ALLOW_NO_GPU:-0}" != 1 ]; then
  echo "no speedup was measured on either side (no GPU?): nothing to compare (ALLOW_NO_GPU=1 to accept)"
  status=1
fi
"$BIN" service status --queue "$URL" > "$OUT/status.txt" 2>&1 || true
cat "$OUT/status.txt"
echo "== $([ $status -eq 0 ] && echo PASS || echo FAIL): in process vs through Redis"
exit $status
