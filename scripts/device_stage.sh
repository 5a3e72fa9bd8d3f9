#!/usr/bin/env bash
# A device call carries at most 64 MiB. Larger inputs (a model file, wheels) travel in parts over
# several calls made while the machine stays warm:
#   here:   scripts/device_stage.sh split FILE DIR N     FILE cut into DIR/<name>.partK (K = 0..N-1) + DIR/<name>.sha256
#   device: scripts/device_stage.sh collect DIR          move DIR's files into /tmp/ptxbench-stage (kept while the
#                                                         machine is held), install any *.whl into /tmp/site, list all
#   device: scripts/device_stage.sh assemble NAME        join NAME's parts there and check the sha256; prints the path
set -euo pipefail
STAGE=/tmp/ptxbench-stage
case "${1:-}" in
  split)
    file=$2 dir=$3 n=$4
    mkdir -p "$dir"
    name=$(basename "$file")
    size=$(stat -c %s "$file")
    per=$(( (size + n - 1) / n ))
    for ((k = 0; k < n; k++)); do
      dd if="$file" of="$dir/$name.part$k" bs=1M iflag=skip_bytes,count_bytes skip=$((k * per)) count=$per status=none
    done
    sha256sum "$file" | cut -d' ' -f1 > "$dir/$name.sha256"
    ls -la "$dir" ;;
  collect)
    dir=$2
    mkdir -p "$STAGE" /tmp/site
    if [ -d "$dir" ]; then
      for f in "$dir"/*; do [ -e "$f" ] && cp -f "$f" "$STAGE/"; done
    fi
    if ls "$STAGE"/*.whl >/dev/null 2>&1; then
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$STAGE"/*.whl
      rm -f "$STAGE"/*.whl
    fi
    echo "staged:"; ls -la "$STAGE"; echo "site: $(ls /tmp/site | tr '\n' ' ')" ;;
  assemble)
    name=$2
    out="$STAGE/$name"
    cat $(ls "$STAGE/$name".part* | sort -V) > "$out"
    want=$(cat "$STAGE/$name.sha256")
    got=$(sha256sum "$out" | cut -d' ' -f1)
    [ "$want" = "$got" ] || { echo "assemble $name: sha256 $got, expected $want (a part is missing: the machine was released between calls?)" >&2; exit 1; }
    echo "$out" ;;
  *) echo "usage: $0 split FILE DIR N | collect DIR | assemble NAME" >&2; exit 2 ;;
esac
