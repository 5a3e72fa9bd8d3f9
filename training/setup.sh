#!/usr/bin/env bash
# Installs the LoRA SFT tools of training/ (idempotent; about a second when already installed):
#   - a virtual environment, training/.venv (or $PTXBENCH_TRAINING_VENV), with the pinned
#     requirements.txt and requirements-torch-libs.txt installed --no-deps (see their headers: PyPI's
#     torch wheel, and only the CUDA libraries it links at import, ~2 GB instead of ~2.5 GB), and
#     requirements-rl.txt (verl and what its reward managers import, for python/examples; ~0.3 GB);
#   - llama.cpp's LoRA-to-GGUF converter (convert_lora_to_gguf.py with convert_hf_to_gguf.py, its
#     conversion/ package and gguf-py/), taken from the llama-cpp-python sdist of the version that the
#     main setup installed, so the adapter GGUF matches the llama.cpp that serves it; cached in
#     ~/.cache/ptxbench (the sdist is 77 MB: ~25 s, once).
# Serving uses the main environment's llama-cpp-python[server] (scripts/setup.sh builds it); where it
# is missing the converter is skipped, saying so, and the serving tests skip.
# Environment: PTXBENCH_PYTHON (the interpreter with llama_cpp; default python3),
# PTXBENCH_TRAINING_VENV, PTXBENCH_LLAMA_VERSION, XDG_CACHE_HOME.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${PTXBENCH_TRAINING_VENV:-$HERE/.venv}
BASE_PY=${PTXBENCH_PYTHON:-$(command -v python3)}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/ptxbench
started=$(date +%s)

# PTXBENCH_LLAMA_VERSION: the version scripts/setup.sh is installing (it may still be building).
llama_version=${PTXBENCH_LLAMA_VERSION:-$("$BASE_PY" -c "import importlib.metadata as m, importlib.util as u
assert u.find_spec('llama_cpp'); print(m.version('llama_cpp_python'))" 2>/dev/null || true)}
want=$(cat "$HERE/requirements.txt" "$HERE/requirements-torch-libs.txt" "$HERE/requirements-rl.txt" | sha256sum | cut -c1-16)
stamp="$VENV/.ptxbench-training-stamp"
have_stamp=$(cat "$stamp" 2>/dev/null || true)

if [ "$have_stamp" != "$want" ] || ! "$VENV/bin/python" -c "import importlib.util as u, sys
sys.exit(any(u.find_spec(m) is None for m in ('torch', 'transformers', 'peft', 'trl', 'datasets', 'pytest', 'verl', 'ray')))" 2>/dev/null; then
  echo "[training/setup] installing the training environment into $VENV (torch, transformers, peft, trl, verl; ~2.3 GB)"
  [ -x "$VENV/bin/python" ] || "$BASE_PY" -m venv "$VENV"
  t0=$(date +%s)
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps \
    -r "$HERE/requirements.txt" -r "$HERE/requirements-torch-libs.txt" -r "$HERE/requirements-rl.txt"
  "$VENV/bin/python" -c "import torch, transformers, peft, trl, datasets, gguf, pytest, verl, ray" ||
    { echo "[training/setup] error: the training environment does not import" >&2; exit 1; }
  echo "$want" > "$stamp"
  echo "[training/setup] training environment installed in $(( $(date +%s) - t0 )) s"
fi

# The converter, matching the serving llama.cpp.
if [ -z "$llama_version" ]; then
  echo "[training/setup] llama-cpp-python is not installed for $BASE_PY (scripts/setup.sh installs it):" \
       "no adapter conversion or serving; those tests skip"
else
  conv="$CACHE/llama.cpp-convert-$llama_version"
  if [ ! -f "$conv/convert_lora_to_gguf.py" ]; then
    echo "[training/setup] fetching llama.cpp's LoRA converter from the llama-cpp-python $llama_version sdist"
    t0=$(date +%s)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # --no-binary names the one package: ':all:' would also build its build backend's own build
    # dependencies from source, recursively (seen: 12 minutes instead of 20 seconds).
    "$BASE_PY" -m pip download -q --disable-pip-version-check --no-deps --no-binary llama-cpp-python \
      "llama-cpp-python==$llama_version" -d "$tmp"
    sdist=$(ls "$tmp"/llama_cpp_python-*.tar.gz)
    top="llama_cpp_python-$llama_version/vendor/llama.cpp"
    tar -xzf "$sdist" -C "$tmp" "$top/convert_lora_to_gguf.py" "$top/convert_hf_to_gguf.py" "$top/conversion" \
      "$top/gguf-py" "$top/LICENSE"
    mkdir -p "$CACHE"
    rm -rf "$conv.partial"
    mv "$tmp/$top" "$conv.partial"
    mv "$conv.partial" "$conv"
    echo "[training/setup] converter in $conv ($(( $(date +%s) - t0 )) s)"
  fi
  ln -sfn "$conv" "$VENV/llama.cpp-convert"
fi
echo "$BASE_PY" > "$VENV/ptxbench-base-python"  # the interpreter with llama_cpp, for serving
echo "[training/setup] ready ($(( $(date +%s) - started )) s): $VENV/bin/python"
