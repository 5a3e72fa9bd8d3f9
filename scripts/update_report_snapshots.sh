#!/usr/bin/env bash
# Regenerates the report printers' snapshots (tests/fixtures/report/expected) after an intended
# change; review the diff before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --build --preset release --target report_tests
PTXBENCH_UPDATE_SNAPSHOTS=1 build/release/tests/report_tests --gtest_filter='Snapshot*'
git diff --stat -- tests/fixtures/report/expected
