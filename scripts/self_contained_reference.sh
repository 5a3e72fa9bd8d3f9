#!/usr/bin/env bash
# Prints a reference candidate as one self-contained file: a causal reference's
# '#include "../../<twin>/reference/X.cu"' is replaced by the twin's text (a candidate is one file).
#   scripts/self_contained_reference.sh problems/mha_fwd_causal/reference/wgmma_tma.cu
set -euo pipefail
cd "$(dirname "$0")/.."
file=$1
twin=$(sed -n 's|^#include "\.\./\.\./\([a-z_]*\)/reference/\([a-z_]*\.cu\)"$|problems/\1/reference/\2|p' "$file")
if [ -n "$twin" ]; then
  grep -v '^#include "\.\./\.\./' "$file"
  cat "$twin"
else
  cat "$file"
fi
