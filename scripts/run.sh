#!/usr/bin/env bash
# Sets up PTXBench and runs its main job on a shipped demo, with no API key and no network:
# `ptxbench run` replays a small recorded run (examples/demo-run.jsonl: every problem, 1 trajectory
# x 2 turns, a compile error then the wgmma+TMA reference; made by scripts/make_demo_run.sh)
# through the whole agent pipeline: prompts, code extraction, build, static checks, GPU stages,
# feedback, the run store. With a Hopper GPU every candidate is judged for real; without one the
# candidates are built and statically checked and the run says plainly that no GPU stage ran.
# Running it again resumes the same run (already complete: it prints the summary). Where no GPU
# stage can run, `ptxbench doctor` follows: what this machine can do and how to fix what is
# missing. Extra arguments go to `ptxbench run` (e.g. --json, --arch sm_100a, --no-gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ws=${PTXBENCH_WORKSPACE:-.ptxbench}
status=0
build/release/bin/ptxbench run --model replay:examples/demo-run.jsonl --problems all --trajectories 1 --turns 2 \
  --workspace "$ws" "$@" || status=$?
doctor_rc=0
report=$(build/release/bin/ptxbench --workspace "$ws" doctor) || doctor_rc=$?
if [ "$doctor_rc" -ne 0 ]; then
  echo
  echo "[run] no GPU stage ran here; what this machine can do, and how to fix the rest (ptxbench doctor):"
  echo "$report"
fi
exit "$status"
