#!/usr/bin/env bash
# Installs the Triton track's tools (idempotent; about a second when already installed): a virtual
# environment, triton_track/.venv (or $PTXBENCH_TRITON_VENV), with the pinned requirements.txt (Triton
# only, ~170 MB; no torch, no GPU: candidates are compiled for sm_90a / sm_100a without one, see
# README.md). A stamp of requirements.txt's hash in the venv says what is installed; a changed
# file or a venv that no longer imports triton reinstalls.
# --numerics also installs requirements-numerics.txt (numpy, for the references' CPU-interpreter
# check in tests/test_reference_numerics.py, which skips without it).
# Environment: PTXBENCH_PYTHON (the base interpreter; default python3), PTXBENCH_TRITON_VENV.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=${PTXBENCH_TRITON_VENV:-$HERE/.venv}
BASE_PY=${PTXBENCH_PYTHON:-$(command -v python3)}
started=$(date +%s)
requirements=("$HERE/requirements.txt")
[ "${1:-}" = "--numerics" ] && requirements+=("$HERE/requirements-numerics.txt")
want=$(cat "${requirements[@]}" | sha256sum | cut -c1-16)
stamp="$VENV/.ptxbench-triton-stamp"

if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ] || ! "$VENV/bin/python" -c "import triton" 2>/dev/null; then
  echo "[triton_track/setup] installing $(basename -a "${requirements[@]}" | tr '\n' ' ')into $VENV (from $BASE_PY)"
  [ -x "$VENV/bin/python" ] || "$BASE_PY" -m venv "$VENV"
  pip_args=()
  for r in "${requirements[@]}"; do pip_args+=(-r "$r"); done
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${pip_args[@]}"
  # Its bundled ptxas and cuobjdump are what the compile and the tests use.
  "$VENV/bin/python" -c "import os, triton; b = os.path.join(os.path.dirname(triton.__file__), 'backends/nvidia/bin')
assert all(os.access(os.path.join(b, t), os.X_OK) for t in ('ptxas', 'ptxas-blackwell', 'cuobjdump')), b" ||
    { echo "[triton_track/setup] error: Triton is installed without its ptxas/cuobjdump" >&2; exit 1; }
  echo "$want" > "$stamp"
  echo "[triton_track/setup] installed"
else
  echo "[triton_track/setup] $VENV is up to date"
fi
echo "[triton_track/setup] ready ($(( $(date +%s) - started )) s): $("$VENV/bin/python" -c 'import triton; print("triton", triton.__version__)') in $VENV"
