#!/usr/bin/env bash
# npm test: native tests (ctest), then the Jest tests (API, real data, format,
# CLI, npm pack). `npm test` runs scripts/setup.sh first (pretest), which
# installs what is missing and builds.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

echo "== native tests (ctest)"
ctest --test-dir build/native --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"

echo "== JavaScript tests (jest)"
npx jest --ci "$@"
