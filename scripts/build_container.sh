#!/usr/bin/env bash
# Builds docker/Dockerfile (the GPU hosts' image) and checks it without a GPU: the programs start,
# the problems are found, a candidate builds and passes the static stages inside the container, and
# doctor sees the Triton toolchain. Prints the image's size. CI runs it (.ci/run).
#   scripts/build_container.sh [--base IMAGE] [--tag TAG]
#   --base IMAGE  the CUDA 13 base to build on (default: NVIDIA's, as docker/Dockerfile names it, where
#                 it can be pulled; else a stand-in made from this host's toolkit, docker/local_base.sh)
#   --tag TAG     the image's name (default ptxbench:local)
# Where no Docker daemon runs, root starts Debian's (installing docker.io first if needed) and stops it
# at the end. Exit status: 0 built and checked; 77 skipped because no container runtime can run here
# (the reason is printed); anything else a failure.
set -euo pipefail
cd "$(dirname "$0")/.."

BASE=""
TAG=ptxbench:local
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE=${2:?--base needs an image}; shift 2 ;;
    --tag) TAG=${2:?--tag needs a name}; shift 2 ;;
    *) echo "[container] unknown argument '$1' (known: --base IMAGE, --tag TAG)" >&2; exit 1 ;;
  esac
done
LOCAL_BASE=ptxbench-base:cuda13-debian12
LOGS=$(mktemp -d /tmp/ptxbench-container.XXXXXX)
started=$(date +%s)
say() { echo "[container $(( $(date +%s) - started ))s] $*"; }
skip() { echo "[container] SKIPPED: $* (no image was built)" >&2; exit 77; }

apt_install() {  # $@: Debian packages, installed when missing (root only)
  local missing=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || return 1
  say "installing Debian packages: ${missing[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# The runtime: a Docker daemon this user can talk to, or one this script starts (root only).
DOCKERD_PID=""
stop_daemon() {
  if [ -n "$DOCKERD_PID" ] && kill -0 "$DOCKERD_PID" 2>/dev/null; then
    kill "$DOCKERD_PID"
    wait "$DOCKERD_PID" 2>/dev/null || true
  fi
}
trap stop_daemon EXIT
if ! docker info >/dev/null 2>&1; then
  command -v dockerd >/dev/null || apt_install docker.io ||
    skip "no Docker daemon and no dockerd to start (install docker.io as root)"
  [ "$(id -u)" -eq 0 ] || skip "the Docker daemon is not running and only root can start it ($(docker info 2>&1 | tail -1))"
  say "starting dockerd (log: $LOGS/dockerd.log)"
  dockerd >"$LOGS/dockerd.log" 2>&1 &
  DOCKERD_PID=$!
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$DOCKERD_PID" 2>/dev/null || break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    tail -5 "$LOGS/dockerd.log" >&2
    skip "dockerd does not start here (its last lines above)"
  fi
fi
# A container must run, not only the daemon (cgroups, the storage driver, namespaces).
say "Docker $(docker version -f '{{.Server.Version}}'), storage driver $(docker info -f '{{.Driver}}')"

if [ -z "$BASE" ]; then
  BASE=$(sed -n 's/^ARG BASE=//p' docker/Dockerfile)
  if docker image inspect "$BASE" >/dev/null 2>&1 || timeout 120 docker pull -q "$BASE" >/dev/null 2>&1; then
    say "base: $BASE"
  else
    say "base: $BASE cannot be pulled here; a stand-in from this host's toolkit: $LOCAL_BASE"
    apt_install debootstrap || { echo "[container] error: debootstrap is needed for the stand-in base (apt-get install debootstrap)" >&2; exit 1; }
    bash docker/local_base.sh "$LOCAL_BASE"
    BASE=$LOCAL_BASE
  fi
fi

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
dirty=false
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] && dirty=true
say "docker build -f docker/Dockerfile --build-arg BASE=$BASE -t $TAG . (log: $LOGS/build.log)"
# The classic builder: Debian's docker.io has no BuildKit (buildx); the Dockerfile needs none. Its
# steps and setup.sh's lines are shown as they come; the whole log stays in $LOGS.
: >"$LOGS/build.log"  # before tail opens it
DOCKER_BUILDKIT=0 docker build -f docker/Dockerfile --build-arg "BASE=$BASE" \
  --build-arg "PTXBENCH_GIT_COMMIT=$commit" --build-arg "PTXBENCH_GIT_DIRTY=$dirty" -t "$TAG" . >"$LOGS/build.log" 2>&1 &
build_pid=$!
tail -n +1 -f --pid="$build_pid" "$LOGS/build.log" | sed -u 's/\x1b\[[0-9;]*m//g' |
  grep --line-buffered -E '^Step [0-9]+/[0-9]+|^\[setup\]|^\[triton_track' || true
build_rc=0
wait "$build_pid" || build_rc=$?
if [ "$build_rc" -ne 0 ]; then
  tail -40 "$LOGS/build.log" >&2
  echo "[container] error: docker build exited $build_rc (the log's end above; all of it: $LOGS/build.log)" >&2
  exit 1
fi

# The checks: each runs the image as a user would, without a GPU.
check() {  # $1: what; rest: docker run arguments
  local what=$1; shift
  if ! docker run --rm "$@" >"$LOGS/check.log" 2>&1; then
    cat "$LOGS/check.log" >&2
    echo "[container] error: in the image, $what failed: docker run --rm $*" >&2
    exit 1
  fi
  say "ok: $what"
}
check "ptxbench --version names the commit $commit" --entrypoint sh "$TAG" -c "ptxbench --version | grep -q $commit"
check "the problems are found" "$TAG" problems
# eval --no-gpu exits 2 (not run: no GPU) once the build and the static checks pass; 10 and up name a
# failed stage.
check "a candidate (gemm's reference) builds with nvcc and passes the static stages" --entrypoint sh "$TAG" -c \
  'rc=0; ptxbench eval --no-gpu --no-store -p gemm || rc=$?; [ "$rc" -eq 2 ] || { echo "eval exited $rc"; exit 1; }'
# doctor exits 2 where the GPU stages cannot run (here, no GPU); the tools it reports must be there.
check "doctor finds nvcc, cuobjdump and the Triton toolchain" --entrypoint sh "$TAG" -c '
  rc=0; ptxbench doctor --json >/tmp/doctor.json || rc=$?
  [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ] || { echo "doctor exited $rc"; exit 1; }
  python3 - /tmp/doctor.json <<"PY"
import json, sys
status = {c["name"].split(" (")[0]: c for c in json.load(open(sys.argv[1]))["checks"]}
bad = [n for n in ("nvcc", "cuobjdump", "Triton toolchain") if status.get(n, {}).get("status") != "ok"]
for n in bad: print("doctor:", n, status.get(n, "not reported"))
sys.exit(1 if bad else 0)
PY'

size=$(docker image inspect -f '{{.Size}}' "$TAG")
say "built $TAG on $BASE: $(( size / 1000000 )) MB"
