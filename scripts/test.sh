#!/usr/bin/env bash
# npm test: native tests (ctest), the same under ASan+UBSan, a short fuzz run of each target, then the Jest tests (API, real data, format,
# CLI, npm pack, browser, runtimes) on the Node.js running this script, then the Jest tests but the browser and runtime ones on each other Node.js
# major of NODE_VERSIONS (package.json "engines" accepts every Node.js from 20 on; these are the majors tested). The C++ runs are the CMake presets native, asan and
# fuzz (CMakePresets.json). `npm test` runs scripts/setup.sh first (pretest), which installs what is missing and builds.
# Ends with one line per Node.js version, "node vX.Y.Z: N passed, N failed (...)", then "tests: N passed, N failed" for all.
#
# The other Node.js versions and where their binaries come from: scripts/node-versions.sh (NODE_VERSIONS, node_binary;
# the npm registry's node-<platform>-<arch> packages, cached in ~/.cache/cuckoo-wasm/node, reused by later runs).
# The browser tests run once: they test the package inside Chromium and Firefox, where Node.js only serves the pages and drives the browsers.
# So do the runtime tests (tests/runtimes/): the scenario in workerd, Deno and Bun, whose binaries and versions come from
# scripts/runtime-versions.sh (the npm registry's packages, cached in ~/.cache/cuckoo-wasm/runtimes); each ends with a
# line "RUNTIME VERSION: scenario passed|FAILED (...)" in the summary.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
rm -rf build/test-results && mkdir -p build/test-results

# NODE_VERSIONS (the newest release of each major, in the order run) and node_binary.
source "$root/scripts/node-versions.sh"

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

echo "== fuzzing the C++ deserializer, URL canonicalizer, SCANDUMP reader and patch reader (libFuzzer + ASan/UBSan, 50,000 executions each)"
bash scripts/fuzz.sh 50000 > build/test-results/fuzz.log 2>&1
fuzz=$?
tail -n 1 build/test-results/fuzz.log
[ "$fuzz" -eq 0 ] || tail -n 40 build/test-results/fuzz.log
bash scripts/fuzz.sh --target url 50000 > build/test-results/fuzz-url.log 2>&1
fuzz_url=$?
tail -n 1 build/test-results/fuzz-url.log
[ "$fuzz_url" -eq 0 ] || tail -n 40 build/test-results/fuzz-url.log
bash scripts/fuzz.sh --target redis 50000 > build/test-results/fuzz-redis.log 2>&1
fuzz_redis=$?
tail -n 1 build/test-results/fuzz-redis.log
[ "$fuzz_redis" -eq 0 ] || tail -n 40 build/test-results/fuzz-redis.log
bash scripts/fuzz.sh --target patch 50000 > build/test-results/fuzz-patch.log 2>&1
fuzz_patch=$?
tail -n 1 build/test-results/fuzz-patch.log
[ "$fuzz_patch" -eq 0 ] || tail -n 40 build/test-results/fuzz-patch.log

echo "== JavaScript tests (jest) on Node.js $(node --version)"
js_start=$SECONDS
npx jest --ci --json --outputFile=build/test-results/jest.json "$@"
js=$?
echo "$(node --version) $((SECONDS - js_start)) all" > build/test-results/jest-runs.txt

own_major=$(node -p 'process.versions.node.split(".")[0]')
for version in "${NODE_VERSIONS[@]}"; do
  [ "${version%%.*}" = "$own_major" ] && continue
  echo "== JavaScript tests (jest) but the browser and runtime tests, on Node.js v$version"
  start=$SECONDS
  if bin=$(node_binary "$version"); then
    # Child processes the tests start (the CLI, npm, node) run on the same version.
    # The ignore patterns last: jest takes every argument after them as one more pattern.
    PATH="$(dirname "$bin"):$PATH" "$bin" node_modules/jest/bin/jest.js --ci --json \
      --outputFile="build/test-results/jest-node$version.json" "$@" --testPathIgnorePatterns '/tests/browser/' '/tests/runtimes/' || js=1
  else
    echo "could not install Node.js v$version from the npm registry" >&2
    js=1
  fi
  echo "v$version $((SECONDS - start)) nobrowser" >> build/test-results/jest-runs.txt
done

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
// One line per Node.js version: its Jest run (jest.json on this Node.js, jest-nodeX.Y.Z.json on the others).
for (const run of fs.readFileSync("build/test-results/jest-runs.txt", "utf8").trim().split("\n")) {
  const [version, seconds, which] = run.split(" ");
  const file = which === "all" ? "jest.json" : `jest-node${version.slice(1)}.json`;
  let p = 0, f = 1;
  try {
    const j = JSON.parse(fs.readFileSync("build/test-results/" + file, "utf8"));
    p = j.numPassedTests; f = j.numFailedTests + j.numRuntimeErrorTestSuites;
  } catch {}
  passed += p; failed += f;
  console.log(`node ${version}: ${p} passed, ${f} failed (Jest${which === "all" ? "" : " without the browser and runtime tests"}, ${seconds} s)`);
}
// One line per runtime of tests/runtimes/ (counted in the Jest run above), from the outcome each wrote.
for (const file of fs.readdirSync("build/test-results").filter((f) => /^runtime-.*\.json$/.test(f)).sort()) {
  const r = JSON.parse(fs.readFileSync("build/test-results/" + file, "utf8"));
  const what = r.ok
    ? `scenario passed (${r.resolved}; ${r.listed} listed URLs, ${r.falseNegatives} false negatives; ${r.seconds} s)`
    : `scenario FAILED: ${r.failures.join("; ")}`;
  console.log(`${r.name} ${r.version}: ${what}`);
}
console.log(`tests: ${passed} passed, ${failed} failed`);
'
[ "$native" -eq 0 ] && [ "$asan" -eq 0 ] && [ "$fuzz" -eq 0 ] && [ "$fuzz_url" -eq 0 ] && [ "$fuzz_redis" -eq 0 ] && [ "$fuzz_patch" -eq 0 ] && [ "$js" -eq 0 ]
