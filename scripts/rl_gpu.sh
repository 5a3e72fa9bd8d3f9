#!/usr/bin/env bash
# TRL's GRPOTrainer with the real judge as its reward, on a GPU host, in one device call (< 9 minutes):
#   1. starts `ptxbench serve --http` (the real GPU worker, every stage) on a fresh workspace;
#   2. runs GRPO steps of python/examples/trl_grpo.py on the GPU, every completion judged by the
#      server (a policy of SmolLM2-135M's size and tokenizer with random weights: its kernels do not
#      build, so this times the loop and the judge's build stage, not the GPU stages);
#   3. judges the references of the problems (every GPU stage: correctness, target counts, timing)
#      through the same API with the same client, as a trainer's reward function would;
#   and prints evaluations per minute for each. Logs and results under $OUT (default /tmp/ptxbench-rl-gpu).
#
# Here, once (CPU; needs the training environment, training/setup.sh):
#   scripts/rl_gpu.sh --prepare     # .rl-gpu/: wheels of what the device lacks (trl, datasets, dill,
#                                   # multiprocess; Python 3.12) and SmolLM2-135M's config and tokenizer
# On the device (carry build/ci/bin and .rl-gpu; PTXBENCH_BUILD=build/ci):
#   PTXBENCH_BUILD=build/ci scripts/rl_gpu.sh [--steps 3] [--problems gemm,mha_fwd]
# Environment: RL_GPU_STEPS (3), RL_GPU_PROBLEMS (gemm), RL_GPU_REF_PROBLEMS (gemm mha_fwd),
# RL_GPU_MODEL (config:.rl-gpu/smollm2; trl_grpo.py's --model), RL_GPU_MAX_LEN (256 tokens a completion),
# RL_GPU_SERVE_FLAGS (extra `serve` flags), PTXBENCH_PYTHON (the device's python3), RL_GPU_DEVICE (cuda;
# cpu: a dry run of the script's steps on a machine without a GPU, where the judge says not_run).
set -uo pipefail
cd "$(dirname "$0")/.."
HERE=$PWD
PREP=$HERE/.rl-gpu

if [ "${1:-}" = "--prepare" ]; then
  set -e
  mkdir -p "$PREP/wheels"
  VENV=${PTXBENCH_TRAINING_VENV:-training/.venv}
  pins=$(grep -iE '^(trl|datasets|dill|multiprocess)==' training/requirements.txt)
  # The device's python3 is 3.12 (KINDS.md); these are pure Python or have a py312 build.
  python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
    -d "$PREP/wheels" $pins
  # SmolLM2-135M-Instruct's config and tokenizer, from the GGUF scripts/setup.sh installs (the weights,
  # 98 MB, do not travel: the device builds the model from the config with random weights).
  "$VENV/bin/python" - "$PREP/smollm2" <<'PY'
import os, subprocess, sys
from transformers import AutoConfig, AutoTokenizer
path = subprocess.run(["python3", "scripts/smollm2_gguf.py"], capture_output=True, text=True, check=True).stdout.split()[0]
d, f = os.path.split(path)
cfg = AutoConfig.from_pretrained(d, gguf_file=f)
tok = AutoTokenizer.from_pretrained(d, gguf_file=f)
cfg.save_pretrained(sys.argv[1])
tok.save_pretrained(sys.argv[1])
print("saved", sys.argv[1], cfg.model_type, cfg.num_hidden_layers, "layers")
PY
  ls -la "$PREP/wheels" "$PREP/smollm2"
  du -sh "$PREP"
  exit 0
fi

STEPS=${RL_GPU_STEPS:-3}
PROBLEMS=${RL_GPU_PROBLEMS:-gemm}
REF_PROBLEMS=${RL_GPU_REF_PROBLEMS:-gemm mha_fwd}
MODEL=${RL_GPU_MODEL:-config:.rl-gpu/smollm2}
MAX_LEN=${RL_GPU_MAX_LEN:-256}
DEVICE=${RL_GPU_DEVICE:-cuda}
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) STEPS=$2; shift 2 ;;
    --problems) PROBLEMS=$2; shift 2 ;;
    *) echo "rl_gpu.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
export PATH=/usr/local/cuda/bin:$PATH
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/ptxbench-rl-gpu}
BUILD=${PTXBENCH_BUILD:-build/release}
PY=${PTXBENCH_PYTHON:-python3}
mkdir -p "$OUT"
WS=$(mktemp -d /tmp/ptxbench-rl-gpu-ws.XXXXXX)
t_all=$(date +%s)
SERVE_PID=
cleanup() {
  if [ -n "$SERVE_PID" ] && kill -0 "$SERVE_PID" 2>/dev/null; then
    kill -TERM "$SERVE_PID" 2>/dev/null
    for _ in $(seq 60); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$SERVE_PID" 2>/dev/null
  fi
}
trap cleanup EXIT

echo "== setup"
{
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || [ "$DEVICE" = cpu ]
  "$PY" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.cuda.is_available())'
  if ! "$PY" -c 'import trl, datasets' 2>/dev/null; then
    [ -d .rl-gpu/wheels ] || { echo "no .rl-gpu/wheels: run scripts/rl_gpu.sh --prepare here and carry .rl-gpu"; exit 3; }
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/rl-site .rl-gpu/wheels/*.whl
    export PYTHONPATH=/tmp/rl-site${PYTHONPATH:+:$PYTHONPATH}
  fi
  "$PY" -c 'import trl, datasets, transformers; print("trl", trl.__version__, "datasets", datasets.__version__, "transformers", transformers.__version__)'
} > "$OUT/setup.log" 2>&1
rc=$?
cat "$OUT/setup.log"
[ $rc -eq 0 ] || { echo "setup failed (rc=$rc)"; exit 1; }
[ -d /tmp/rl-site ] && export PYTHONPATH=/tmp/rl-site${PYTHONPATH:+:$PYTHONPATH}
for exe in ptxbench $([ "$DEVICE" = cuda ] && echo ptxbench-worker); do
  [ -x "$BUILD/bin/$exe" ] || { echo "no $BUILD/bin/$exe (PTXBENCH_BUILD names the build; carry its bin/)"; exit 1; }
done

echo "== serve --http"
t0=$(date +%s)
"$BUILD/bin/ptxbench" --workspace "$WS" serve --http 127.0.0.1:0 --devices 0 --lanes 3 ${RL_GPU_SERVE_FLAGS:-} \
  > "$OUT/serve.log" 2>&1 &
SERVE_PID=$!
URL=
for _ in $(seq 600); do
  if [ -f "$WS/service/http.json" ]; then
    URL=$("$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))["url"])' "$WS/service/http.json" 2>/dev/null)
    [ -n "$URL" ] && break
  fi
  kill -0 "$SERVE_PID" 2>/dev/null || break
  sleep 0.2
done
if [ -z "$URL" ]; then
  echo "serve did not start:"; tail -30 "$OUT/serve.log"; exit 1
fi
"$PY" - "$URL" <<'PY'
import sys
sys.path.insert(0, "python/ptxbench_client/src")
from ptxbench_client import PtxbenchClient
h = PtxbenchClient(sys.argv[1]).health()
print("health:", h["status"], h["arch"], "problems", len(h["problems"]), "queue", h["queue"])
PY
echo "serve up in $(( $(date +%s) - t0 )) s at $URL"

echo "== GRPO: $STEPS steps, problems $PROBLEMS, $MODEL on $DEVICE"
t0=$(date +%s)
timeout 240 "$PY" python/examples/trl_grpo.py --url "$URL" --model "$MODEL" --device "$DEVICE" \
  --problems "$PROBLEMS" --steps "$STEPS" --batch 8 --generations 4 --max-completion-length "$MAX_LEN" \
  --run-id "rlgpu$(date +%s)" --out "$WS/grpo" > "$OUT/grpo.log" 2>&1
grpo_rc=$?
cp "$WS/grpo/summary.json" "$OUT/grpo_summary.json" 2>/dev/null
cp "$WS/grpo/rewards.jsonl" "$OUT/grpo_rewards.jsonl" 2>/dev/null
tail -3 "$OUT/grpo.log"
echo "GRPO rc=$grpo_rc in $(( $(date +%s) - t0 )) s"
"$PY" - "$OUT/grpo_rewards.jsonl" <<'PY' || true
import collections, json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
print("GRPO completions judged:", len(lines), dict(collections.Counter(l["verdict"] for l in lines)))
PY

echo "== references through the API: $REF_PROBLEMS"
t0=$(date +%s)
timeout 270 "$PY" - "$URL" "$OUT/refs.jsonl" $REF_PROBLEMS <<'PY'
import json, pathlib, sys, time
sys.path.insert(0, "python/ptxbench_client/src")
from ptxbench_client import PtxbenchClient, Candidate, tiered_reward, TARGET_REQUIRED
url, out, problems = sys.argv[1], sys.argv[2], sys.argv[3:]
stamp = int(time.time())
cands = []
for p in problems:
    for f in sorted(pathlib.Path("problems", p, "reference").glob("*.cu")):
        cands.append(Candidate(f"ref-{stamp}-{p}-{f.stem}", p, f.read_text(), metadata={"file": str(f)}))
cands.append(Candidate(f"ref-{stamp}-broken", problems[0], "this is not CUDA\n", metadata={"file": "(not CUDA)"}))
client = PtxbenchClient(url, poll_seconds=20)
t0 = time.monotonic()
client.submit(cands)
done = 0
with open(out, "w") as f:
    for c in cands:  # each as it ends; what is not judged within the budget is said so
        left = 240 - (time.monotonic() - t0)
        try:
            r = client.wait(c.key, timeout=max(left, 1))
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  {c.metadata['file']:48s} not judged in time ({type(e).__name__})", flush=True)
            continue
        done += 1
        v = r.reward
        row = {"key": c.key, "file": c.metadata["file"], "verdict": v["verdict"], "speedup": v["speedup_geomean"],
               "target_executed": v["target_executed"], "reward": tiered_reward(v),
               "reward_target_required": tiered_reward(v, TARGET_REQUIRED), "service_seconds": v.get("service_seconds"),
               "at_seconds": round(time.monotonic() - t0, 1)}
        f.write(json.dumps(row) + "\n")
        print(f"  {row['file']:48s} {row['verdict']:15s} speedup {row['speedup']} target {row['target_executed']} "
              f"reward {row['reward']} / {row['reward_target_required']} (t={row['at_seconds']} s)", flush=True)
secs = time.monotonic() - t0
print(f"references: {done}/{len(cands)} evaluations in {secs:.1f} s = {60 * done / secs:.1f} per minute")
sys.exit(0 if done == len(cands) else 1)
PY
refs_rc=$?
echo "references rc=$refs_rc in $(( $(date +%s) - t0 )) s"

"$BUILD/bin/ptxbench" --workspace "$WS" service status > "$OUT/status.txt" 2>&1 || true
[ -f "$OUT/grpo_summary.json" ] && "$PY" - "$OUT/grpo_summary.json" <<'PY' || echo "GRPO: no summary (rc=$grpo_rc: see grpo.log)"
import json, sys
s = json.load(open(sys.argv[1]))
print(f"GRPO: {s['steps']} steps, {s['evaluations']} evaluations, {s['judge_seconds']} s in the reward function "
      f"({s['evaluations_per_minute']} per minute), {s['train_seconds']} s training, {s['total_seconds']} s in all; "
      f"mean reward per step {s['reward_mean_per_step']}")
PY
cleanup
SERVE_PID=
echo "== done in $(( $(date +%s) - t_all )) s: GRPO rc=$grpo_rc, references rc=$refs_rc; logs in $OUT"
[ $grpo_rc -eq 0 ] && [ $refs_rc -eq 0 ]
