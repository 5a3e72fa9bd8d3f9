#!/usr/bin/env bash
# The adaptation loop on a GPU host (issues 28-29), in two device calls after the inputs are staged
# (scripts/device_stage.sh: the SmolLM2-135M-Instruct GGUF and the Python packages the host lacks):
#   adapt_h200.sh records   Fixit records from a real run (scripts/fixit_h200.sh: every fix judged on
#                           the GPU), then the LoRA SFT of SmolLM2-135M for a few hundred steps on the GPU
#                           (training/, bf16) and its round trip
#   adapt_h200.sh train     the LoRA SFT and its round trip alone (no Fixit build: the runs then take their
#                           repair notes from NOTES, default the committed H200 build's records,
#                           tests/fixtures/fixit/h200_records.jsonl)
#   adapt_h200.sh runs      the base and the tuned model served (training serve-hf: transformers + PEFT)
#                           and run through the 4ops suite (GEMM held out) with every GPU stage: the base
#                           alone, with repair notes from the Fixit build, with notes and fixed kernels, and
#                           the tuned model; then one report of the four runs
# Everything goes to $OUT (default /tmp/ptxbench-adapt); the workspace and the training run live in
# /tmp/ptxbench-adapt-work, kept between the two calls while the machine stays held.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/ptxbench-adapt}
WORK=/tmp/ptxbench-adapt-work
BIN=${PTXBENCH_BIN:-build/release/bin}
export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p "$OUT" "$WORK"
PY=python3
GGUF=$(bash scripts/device_stage.sh assemble SmolLM2-135M-Instruct.Q4_1.gguf)
WS=$WORK/ws

case "${1:-}" in
  records|train)
    t0=$(date +%s)
    if [ "$1" = records ]; then
      OUT=$OUT/fixit PTXBENCH_FIXIT_WS=$WS bash scripts/fixit_h200.sh --lanes 3 2>&1 | grep -v '^\[h200.*\] items' | tail -40
      touch "$WORK/records.done"
    fi
    t1=$(date +%s)
    (cd training && $PY -m ptxbench_train train --data tests/fixtures/fixit_trl.jsonl --config configs/h200.toml \
       --out "$WORK/run" --device cuda --bf16 --model-gguf "$GGUF" --overwrite 2>&1 | grep -v Warning | tail -15)
    t2=$(date +%s)
    (cd training && $PY -m ptxbench_train verify --run "$WORK/run" --device cuda 2>&1 | tail -5)
    cp "$WORK/run/run.json" "$WORK/run/train_log.jsonl" "$OUT/" 2>/dev/null || true
    echo "fixit (run + build) $((t1 - t0)) s; training $((t2 - t1)) s" ;;
  runs)
    # The Fixit build of `records` when it ran on this machine, else the committed H200 build's records
    notes=${NOTES:-$([ -f "$WORK/records.done" ] && echo h200 || echo tests/fixtures/fixit/h200_records.jsonl)}
    echo "repair notes from: $notes"
    (cd training && $PY -m ptxbench_train serve-hf --run "$WORK/run" --port 8101 --device cuda > "$OUT/serve-tuned.log" 2>&1 &)
    (cd training && $PY -m ptxbench_train serve-hf --run "$WORK/run" --port 8102 --device cuda --no-adapter > "$OUT/serve-base.log" 2>&1 &)
    for port in 8101 8102; do
      for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 1; done
    done
    common=(--suite 4ops --trajectories 1 --turns 2 --knowledge none --service --lanes 3 --model-arg max_tokens=${MAX_TOKENS:-512} --model-arg max_concurrency=${MAX_CONCURRENCY:-5}
            --model-arg temperature=0.7 --model-arg timeout_s=300)
    base=(--model llamacpp:smollm2-135m-fixit-base --model-arg base_url=http://127.0.0.1:8102/v1)
    t0=$(date +%s)
    # One after another: each run's engine holds the GPU's timing lane for itself. RUN_TIMEOUT (seconds,
    # default none) caps each run so that one call still ends with the report; a capped run keeps the
    # turns it stored and says so in its .err.
    cap=(); [ -n "${RUN_TIMEOUT:-}" ] && cap=(timeout -k 10 "$RUN_TIMEOUT")
    run() { local name=$1; shift; local t=$(date +%s)
      "${cap[@]}" "$BIN/ptxbench" --workspace "$WS" run "$@" "${common[@]}" --run-name "$name" > /dev/null 2>"$OUT/run-$name.err"
      echo "run $name: exit $? in $(( $(date +%s) - t )) s"; }
    run base "${base[@]}"
    run tuned --model llamacpp:smollm2-135m-fixit --model-arg base_url=http://127.0.0.1:8101/v1
    run base-notes "${base[@]}" --repair-notes "$notes" --notes-k 2
    run base-notes-kernel "${base[@]}" --repair-notes "$notes" --notes-k 1 --with-fixed-kernel
    echo "four runs: $(( $(date +%s) - t0 )) s"
    for r in base tuned base-notes base-notes-kernel; do tail -2 "$OUT/run-$r.err"; done
    "$BIN/ptxbench" --workspace "$WS" report --group-by model,knowledge,split,problem --format md -o "$OUT/report.md"
    "$BIN/ptxbench" --workspace "$WS" report --group-by model,knowledge,split,problem --format json -o "$OUT/report.json"
    "$BIN/ptxbench" --workspace "$WS" report --group-by model,knowledge,split,problem --format html -o "$OUT/report.html" || true
    for r in base-notes base-notes-kernel; do
      "$BIN/ptxbench" --workspace "$WS" runs export $r --jsonl -o "$WORK/$r.jsonl"
      $PY -c "import json,sys
for l in open(sys.argv[1]):
    t=json.loads(l); n=t['context'].get('repair_notes')
    print(t['problem'], t['turn'], t['state'], 'notes:', [s['id'].split('/')[-1] for s in n['shown']] if n else None, n['excluded'] if n else '')" "$WORK/$r.jsonl"
    done
    grep -A12 'Knowledge ablation' "$OUT/report.md" | head -30 ;;
  *) echo "usage: $0 records|train|runs" >&2; exit 2 ;;
esac
