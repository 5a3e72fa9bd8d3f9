#!/usr/bin/env bash
# Regenerates examples/demo-run.jsonl, the recorded run that scripts/run.sh replays: every
# problem, 1 trajectory x 2 turns. Turn 0 is the problem's naive reference with a misspelled CUDA
# call (a compile error, so the demo shows compiler feedback in candidate.cu); turn 1 is the
# problem's wgmma + TMA reference (correct, target instructions executed on a Hopper GPU). The
# candidates are self-contained (a causal reference inlines its unmasked twin), then run through
# `ptxbench run --model files:DIR` (static stages only) and exported with `ptxbench runs export`.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${PTXBENCH_BIN:-build/release/bin/ptxbench}
[ -x "$BIN" ] || { echo "build first: cmake --preset release && cmake --build --preset release" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

self_contained() { scripts/self_contained_reference.sh "$1"; }

for p in $(ls problems/*/problem.toml | xargs -n1 dirname | xargs -n1 basename); do
  mkdir -p "$tmp/files/$p/0"
  self_contained "problems/$p/reference/naive.cu" | sed '0,/return cudaGetLastError();/s//return cudaGetLastErorr();/' \
    > "$tmp/files/$p/0/0.cu"
  grep -q cudaGetLastErorr "$tmp/files/$p/0/0.cu" || { echo "no call to break in $p's naive.cu" >&2; exit 1; }
  self_contained "problems/$p/reference/wgmma_tma.cu" > "$tmp/files/$p/0/1.cu"
done

repo=$PWD
bin=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
# From inside the temporary folder, so the recorded model is "files:demo" and not a temporary path.
(cd "$tmp" && mv files demo &&
  "$bin" --problems "$repo/problems" --workspace ws run --model files:demo --problems all --trajectories 1 --turns 2 \
    --no-gpu --run-name demo >/dev/null &&
  "$bin" --workspace ws runs export demo --jsonl -o "$repo/examples/demo-run.jsonl")
echo "wrote examples/demo-run.jsonl ($(wc -l < examples/demo-run.jsonl) turns)"
