#!/usr/bin/env bash
# Sets up PTXBench and runs its main job on a shipped demo, with no API key and no network:
# `ptxbench run` replays a small recorded run (examples/demo-run.jsonl: every problem, 1 trajectory
# x 2 turns, a compile error then the wgmma+TMA reference; made by scripts/make_demo_run.sh)
# through the whole agent pipeline: prompts, code extraction, build, static checks, GPU stages,
# feedback, the run store. With a Hopper GPU every candidate is judged for real; without one the
# candidates are built and statically checked and the run says plainly that no GPU stage ran.
# Running it again resumes the same run (already complete: it prints the summary). Extra
# arguments go to `ptxbench run` (e.g. --json, --arch sm_100a, --no-gpu).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec build/release/bin/ptxbench run --model replay:examples/demo-run.jsonl --problems all --trajectories 1 --turns 2 \
  --workspace "${PTXBENCH_WORKSPACE:-.ptxbench}" "$@"
