#!/usr/bin/env bash
# npm test: native tests (ctest), then the Jest tests (API, real data, format,
# CLI, npm pack). `npm test` runs scripts/setup.sh first (pretest), which
# installs what is missing and builds. Ends with one line "tests: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
mkdir -p build/test-results

echo "== native tests (ctest)"
ctest --test-dir build/native --output-on-failure -j "$(nproc 2>/dev/null || echo 2)" \
  --output-junit "$root/build/test-results/ctest.xml"
native=$?

echo "== JavaScript tests (jest)"
npx jest --ci --json --outputFile=build/test-results/jest.json "$@"
js=$?

node -e '
const fs = require("fs");
let passed = 0, failed = 0;
try {
  const xml = fs.readFileSync("build/test-results/ctest.xml", "utf8");
  const m = /<testsuite[^>]*\stests="(\d+)"[^>]*\sfailures="(\d+)"/.exec(xml) || /<testsuite[^>]*\sfailures="(\d+)"[^>]*\stests="(\d+)"/.exec(xml);
  if (m) { const [t, f] = /tests="(\d+)"[^>]*failures/.test(m[0]) ? [+m[1], +m[2]] : [+m[2], +m[1]]; passed += t - f; failed += f; }
} catch { failed += 1; }
try {
  const j = JSON.parse(fs.readFileSync("build/test-results/jest.json", "utf8"));
  passed += j.numPassedTests; failed += j.numFailedTests + j.numRuntimeErrorTestSuites;
} catch { failed += 1; }
console.log(`tests: ${passed} passed, ${failed} failed`);
'
[ "$native" -eq 0 ] && [ "$js" -eq 0 ]
