#!/usr/bin/env bash
# Makes a stand-in for docker/Dockerfile's base image where NVIDIA's registry is out of reach (CI):
# Debian 12 from debootstrap with this host's CUDA toolkit (/usr/local/cuda: nvcc, headers, cudart,
# cuBLASLt, CUPTI; cuDNN's headers) copied in, imported into Docker as IMAGE. The math libraries
# no PTXBench program links (cuFFT, cuRAND, cuSOLVER, cuSPARSE, NCCL, cuDNN's engines) are left
# out. This host's extra CA certificates and pip's use of them come along, so that the image's apt
# and pip reach the same mirrors through the same proxy as the host does.
#   docker/local_base.sh IMAGE [MIRROR]     (root; needs debootstrap and a running Docker daemon)
# Reuses IMAGE when its label says it was made from the same toolkit by the same recipe.
set -euo pipefail
IMAGE=${1:?usage: docker/local_base.sh IMAGE [MIRROR]}
MIRROR=${2:-http://deb.debian.org/debian}
CUDA=$(readlink -f /usr/local/cuda)
[ -x "$CUDA/bin/nvcc" ] || { echo "[local_base] error: no CUDA toolkit at /usr/local/cuda (nvcc missing)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "[local_base] error: debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }

# What the image is made from: this recipe, the toolkit's version, the host's CA certificates.
recipe=$( { cat "$0"; "$CUDA/bin/nvcc" --version; cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true; } |
  sha256sum | cut -c1-16)
have=$(docker image inspect -f '{{index .Config.Labels "ptxbench.base-recipe"}}' "$IMAGE" 2>/dev/null || true)
if [ "$have" = "$recipe" ]; then
  echo "[local_base] $IMAGE is up to date (recipe $recipe)"
  exit 0
fi

work=$(mktemp -d /var/tmp/ptxbench-base.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
echo "[local_base] debootstrap Debian 12 (bookworm, minbase) from $MIRROR"
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$MIRROR" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log" >&2; echo "[local_base] error: debootstrap failed (log above)" >&2; exit 1; }

echo "[local_base] copying the CUDA toolkit from $CUDA"
mkdir -p "$root/usr/local"
tar -C "$(dirname "$CUDA")" -c \
  --exclude='libcufft*' --exclude='libcurand*' --exclude='libcusolver*' --exclude='libcusparse*' \
  --exclude='libnccl*' --exclude='libnvblas*' --exclude='*.alt.so*' --exclude='libcudnn_*' \
  "$(basename "$CUDA")" | tar -C "$root/usr/local" -x
ln -sfn "$(basename "$CUDA")" "$root/usr/local/cuda"

if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  echo "[local_base] adding this host's CA certificates: $(cd /usr/local/share/ca-certificates && echo *.crt)"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1 || { echo "[local_base] error: update-ca-certificates failed in the image" >&2; exit 1; }
  # pip trusts its own CA bundle unless told to use the system's.
  printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$root/etc/pip.conf"
fi
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/archives/*.deb

echo "[local_base] importing into Docker as $IMAGE"
# The environment NVIDIA's CUDA images set, so that the Dockerfile sees the same.
tar -C "$root" -c . | docker import \
  --change "ENV PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64" \
  --change "ENV NVIDIA_VISIBLE_DEVICES=all" \
  --change "ENV NVIDIA_DRIVER_CAPABILITIES=compute,utility" \
  --change "LABEL ptxbench.base-recipe=$recipe" \
  --change 'CMD ["bash"]' - "$IMAGE" >/dev/null
echo "[local_base] $IMAGE: $(( $(docker image inspect -f '{{.Size}}' "$IMAGE") / 1000000 )) MB"
