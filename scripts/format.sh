#!/usr/bin/env bash
# Formats the C++/CUDA sources with clang-format (the style: .clang-format at the root).
#   scripts/format.sh            formats every covered file in place
#   scripts/format.sh --check    changes nothing; lists the files that differ and exits 1 if any does
#   scripts/format.sh [--check] FILE...   only those files
# Covers *.h, *.cpp, *.cu, *.cuh under src/, tests/, bench/ and problems/. Skipped: the candidate
# sources that tests feed to the judge as data (tests/gpu/candidates/, tests/fixtures/: their exact
# text, line numbers included, is the test's input) and anything under build/. scripts/setup.sh
# --tests installs clang-format (Debian's).
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
files=()
for arg in "$@"; do
  case "$arg" in
    --check) check=1 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "format.sh: unknown option '$arg' (known: --check)" >&2; exit 2 ;;
    *) files+=("$arg") ;;
  esac
done

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null; then
  echo "format.sh: $CLANG_FORMAT not found (scripts/setup.sh --tests installs it)" >&2
  exit 2
fi

if [ ${#files[@]} -eq 0 ]; then
  while IFS= read -r -d '' f; do files+=("$f"); done < <(
    find src tests bench problems \( -path tests/gpu/candidates -o -path tests/fixtures -o -name build \) -prune -o \
      -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \) -print0 | sort -z)
fi

if [ "$check" = 0 ]; then
  "$CLANG_FORMAT" -i --style=file "${files[@]}"
  echo "format.sh: formatted ${#files[@]} files"
  exit 0
fi
unformatted=()
for f in "${files[@]}"; do
  "$CLANG_FORMAT" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if [ ${#unformatted[@]} -gt 0 ]; then
  printf '%s\n' "${unformatted[@]}"
  echo "format.sh: ${#unformatted[@]} of ${#files[@]} files are not formatted (run scripts/format.sh)" >&2
  exit 1
fi
echo "format.sh: all ${#files[@]} files formatted"
