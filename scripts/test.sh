#!/usr/bin/env bash
# The project's tests, in two runs (both end with "tests: N passed, N failed" for all they ran):
#
#   npm test               (bash scripts/test.sh)        about five minutes on a 2-core machine, after `npm run demo`:
#     the native tests (ctest, preset native); a short fuzz of each libFuzzer target (2,000 executions); the tests'
#     types (tsc, once: Jest itself only transpiles them, tests/tsconfig.json's isolatedModules); the Jest tests on the
#     Node.js running this script: API, real data, format, CLI, npm pack, the browser tests (Chromium and Firefox) and
#     the runtime tests (workerd, Deno, Bun). Ends with a line for the Jest run, one per runtime, and the total.
#   npm run test:all       (bash scripts/test.sh --all)  what takes longer, run by .ci/run after npm test:
#     the native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang-14, preset asan); a longer fuzz
#     (50,000 executions of each target); the Jest tests but the browser and runtime ones on each other Node.js major
#     of NODE_VERSIONS (package.json "engines" accepts every Node.js from 20 on; these are the majors tested). Ends with
#     one line per Node.js version, then the total.
#
# Each is preceded by scripts/setup.sh (npm's pretest / pretest:all), which installs what is missing and builds.
# Arguments after --all (or all arguments, without it) go to Jest.
# The other Node.js versions and where their binaries come from: scripts/node-versions.sh (NODE_VERSIONS, node_binary;
# the npm registry's node-<platform>-<arch> packages, cached in ~/.cache/cuckoo-wasm/node, reused by later runs).
# The browser tests run once: they test the package inside Chromium and Firefox, where Node.js only serves the pages
# and drives the browsers. So do the runtime tests (tests/runtimes/): the scenario in workerd, Deno and Bun, whose
# binaries and versions come from scripts/runtime-versions.sh (the npm registry's packages, cached in
# ~/.cache/cuckoo-wasm/runtimes); each ends with a line "RUNTIME VERSION: scenario passed|FAILED (...)" in the summary.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

all=0
if [ "${1:-}" = --all ]; then
  all=1
  shift
fi
results=build/test-results
[ "$all" -eq 1 ] && results=build/test-results-all
rm -rf "$results" && mkdir -p "$results"

# NODE_VERSIONS (the newest release of each major, in the order run) and node_binary.
source "$root/scripts/node-versions.sh"

jobs=$(nproc 2>/dev/null || echo 2)
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
status=0

# fuzz RUNS: each libFuzzer target RUNS times (scripts/fuzz.sh builds them), its last line shown.
fuzz() {
  local target
  for target in deserialize url redis patch; do
    if ! bash scripts/fuzz.sh --target "$target" "$1" > "$results/fuzz-$target.log" 2>&1; then
      status=1
      tail -n 40 "$results/fuzz-$target.log"
    fi
    echo "$target: $(tail -n 1 "$results/fuzz-$target.log")"
  done
}

if [ "$all" -eq 0 ]; then
  echo "== native tests (ctest)"
  ctest --preset native -j "$jobs" --output-junit "$root/$results/ctest.xml" || status=1

  echo "== fuzzing the deserializers, the URL canonicalizer, the SCANDUMP readers and the patch reader (libFuzzer + ASan/UBSan, 2,000 executions each)"
  fuzz 2000

  echo "== the tests' types (tsc)"
  npx tsc --noEmit -p tests/tsconfig.json || status=1

  echo "== JavaScript tests (jest) on Node.js $(node --version)"
  start=$SECONDS
  npx jest --ci --json --outputFile="$results/jest.json" "$@" || status=1
  echo "$(node --version) $((SECONDS - start)) all" > "$results/jest-runs.txt"
else
  echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang-14)"
  { cmake --preset asan >/dev/null &&
    cmake --build --preset asan -j "$jobs" >/dev/null &&
    ctest --preset asan -j "$jobs" --output-junit "$root/$results/ctest.xml"; } || status=1

  echo "== fuzzing (libFuzzer + ASan/UBSan, 50,000 executions each)"
  fuzz 50000

  : > "$results/jest-runs.txt"
  own_major=$(node -p 'process.versions.node.split(".")[0]')
  for version in "${NODE_VERSIONS[@]}"; do
    [ "${version%%.*}" = "$own_major" ] && continue
    echo "== JavaScript tests (jest) but the browser and runtime tests, on Node.js v$version"
    start=$SECONDS
    if bin=$(node_binary "$version"); then
      # Child processes the tests start (the CLI, npm, node) run on the same version.
      # The ignore patterns last: jest takes every argument after them as one more pattern.
      PATH="$(dirname "$bin"):$PATH" "$bin" node_modules/jest/bin/jest.js --ci --json \
        --outputFile="$results/jest-node$version.json" "$@" --testPathIgnorePatterns '/tests/browser/' '/tests/runtimes/' ||
        status=1
    else
      echo "could not install Node.js v$version from the npm registry" >&2
      status=1
    fi
    echo "v$version $((SECONDS - start)) nobrowser" >> "$results/jest-runs.txt"
  done
fi

RESULTS="$results" node -e '
const fs = require("fs");
const dir = process.env.RESULTS + "/";
let passed = 0, failed = 0;
if (fs.existsSync(dir + "ctest.xml")) {
  const suite = /<testsuite\b[^>]*>/.exec(fs.readFileSync(dir + "ctest.xml", "utf8"));
  if (suite) {
    const attr = (name) => Number(new RegExp(`\\s${name}="(\\d+)"`).exec(suite[0])[1]);
    passed += attr("tests") - attr("failures"); failed += attr("failures");
    console.log(`ctest: ${attr("tests") - attr("failures")} passed, ${attr("failures")} failed`);
  } else failed += 1;
} else failed += 1;
// One line per Node.js version: its Jest run (jest.json on this Node.js, jest-nodeX.Y.Z.json on the others).
for (const run of fs.readFileSync(dir + "jest-runs.txt", "utf8").trim().split("\n").filter(Boolean)) {
  const [version, seconds, which] = run.split(" ");
  const file = which === "all" ? "jest.json" : `jest-node${version.slice(1)}.json`;
  let p = 0, f = 1;
  try {
    const j = JSON.parse(fs.readFileSync(dir + file, "utf8"));
    p = j.numPassedTests; f = j.numFailedTests + j.numRuntimeErrorTestSuites;
  } catch {}
  passed += p; failed += f;
  console.log(`node ${version}: ${p} passed, ${f} failed (Jest${which === "all" ? "" : " without the browser and runtime tests"}, ${seconds} s)`);
}
// One line per runtime of tests/runtimes/ (counted in the Jest run above), from the outcome each wrote.
for (const file of fs.readdirSync(dir).filter((f) => /^runtime-.*\.json$/.test(f)).sort()) {
  const r = JSON.parse(fs.readFileSync(dir + file, "utf8"));
  const what = r.ok
    ? `scenario passed (${r.resolved}; ${r.listed} listed URLs, ${r.falseNegatives} false negatives; ${r.seconds} s)`
    : `scenario FAILED: ${r.failures.join("; ")}`;
  console.log(`${r.name} ${r.version}: ${what}`);
}
console.log(`tests: ${passed} passed, ${failed} failed`);
'
exit "$status"
