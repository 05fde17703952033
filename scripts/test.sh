#!/usr/bin/env bash
# npm test: native tests (ctest), the same under ASan+UBSan, a short fuzz run of each target, then the Jest tests (API, real data, format,
# CLI, npm pack). The C++ runs are the CMake presets native, asan and fuzz (CMakePresets.json). `npm test` runs
# scripts/setup.sh first (pretest), which installs what is missing and builds. Ends with one line
# "tests: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
rm -rf build/test-results && mkdir -p build/test-results

jobs=$(nproc 2>/dev/null || echo 2)

echo "== native tests (ctest)"
ctest --preset native -j "$jobs" --output-junit "$root/build/test-results/ctest.xml"
native=$?

echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang-14)"
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
cmake --preset asan >/dev/null &&
  cmake --build --preset asan -j "$jobs" >/dev/null &&
  ctest --preset asan -j "$jobs" --output-junit "$root/build/test-results/ctest-asan.xml"
asan=$?

echo "== fuzzing the C++ deserializer and URL canonicalizer (libFuzzer + ASan/UBSan, 50,000 executions each)"
bash scripts/fuzz.sh 50000 > build/test-results/fuzz.log 2>&1
fuzz=$?
tail -n 1 build/test-results/fuzz.log
[ "$fuzz" -eq 0 ] || tail -n 40 build/test-results/fuzz.log
bash scripts/fuzz.sh --target url 50000 > build/test-results/fuzz-url.log 2>&1
fuzz_url=$?
tail -n 1 build/test-results/fuzz-url.log
[ "$fuzz_url" -eq 0 ] || tail -n 40 build/test-results/fuzz-url.log

echo "== JavaScript tests (jest)"
npx jest --ci --json --outputFile=build/test-results/jest.json "$@"
js=$?

node -e '
const fs = require("fs");
let passed = 0, failed = 0;
for (const file of ["ctest.xml", "ctest-asan.xml"]) {
  try {
    const suite = /<testsuite\b[^>]*>/.exec(fs.readFileSync("build/test-results/" + file, "utf8"))[0];
    const attr = (name) => Number(new RegExp(`\\s${name}="(\\d+)"`).exec(suite)[1]);
    passed += attr("tests") - attr("failures"); failed += attr("failures");
  } catch { failed += 1; }
}
try {
  const j = JSON.parse(fs.readFileSync("build/test-results/jest.json", "utf8"));
  passed += j.numPassedTests; failed += j.numFailedTests + j.numRuntimeErrorTestSuites;
} catch { failed += 1; }
console.log(`tests: ${passed} passed, ${failed} failed`);
'
[ "$native" -eq 0 ] && [ "$asan" -eq 0 ] && [ "$fuzz" -eq 0 ] && [ "$fuzz_url" -eq 0 ] && [ "$js" -eq 0 ]
