#!/usr/bin/env bash
# Copies Debian's redis-server and the two libraries it needs that a bare GPU host may lack
# (liblzf, jemalloc) into build/redis-tools/, so a device call can carry them
# (scripts/redis_acceptance.sh finds them there). ptxbench itself links hiredis statically.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/redis-tools
cp -L "$(command -v redis-server)" build/redis-tools/redis-server
for lib in liblzf.so.1 libjemalloc.so.2; do
  cp -L "$(ldd "$(command -v redis-server)" | awk -v l="$lib" '$1 == l {print $3}')" build/redis-tools/
done
ls -la build/redis-tools
