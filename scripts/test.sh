#!/usr/bin/env bash
# The project's tests, in two runs (both end with "tests: N passed, N failed" for all they ran):
#
#   npm test               (bash scripts/test.sh)        under five minutes on a fresh clone of a 2-core machine, set-up
#     included: the tests' types (tsc, once: Jest itself only transpiles them, tests/tsconfig.json's isolatedModules)
#     and Jest's projects `quick` (tests/js/ but the long suites: the API, real data, the byte format, URLs, patches,
#     Redis, the boundary, the reader against the full entry, the bundles' sizes and exports) and `browser`
#     (Chromium, Firefox, WebKit, the MV3 extension, the example app) on the Node.js running this script.
#   npm run test:all       (bash scripts/test.sh --all)  the rest, run by .ci/run after npm test: the native tests
#     (GoogleTest, g++, preset native) and the same under AddressSanitizer + UndefinedBehaviorSanitizer (clang-14,
#     preset asan); a fuzz of each libFuzzer target (50,000 executions); Jest's projects `long` (the property,
#     adversarial, CLI, packing, bundler and Redis-differential suites) and `runtimes` (workerd, Deno, Bun) on this Node.js;
#     and Jest's `quick` and `long` on each other Node.js major of NODE_VERSIONS (package.json "engines" accepts
#     every Node.js from 20 on; these are the majors tested). Ends with a line per Jest run and per runtime, then
#     the total.
#
# jest.config.js declares the projects. Each run is preceded by scripts/setup.sh (npm's pretest / pretest:all), which
# installs what is missing and builds. Arguments after --all (or all arguments, without it) go to Jest.
# The other Node.js versions and where their binaries come from: scripts/node-versions.sh (NODE_VERSIONS, node_binary;
# the npm registry's node-<platform>-<arch> packages, cached in ~/.cache/cuckoo-wasm/node, reused by later runs).
# The browser tests run once: they test the package inside Chromium, Firefox and WebKit, where Node.js only serves the pages
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

# jest_run NODE LABEL PROJECTS... [-- JEST ARGS]: Jest's PROJECTS on the Node.js binary NODE (child processes the
# tests start, the CLI, npm, node, run on the same version), its results in $results/jest-LABEL.json and a line
# "VERSION SECONDS LABEL PROJECTS" in $results/jest-runs.txt for the summary.
jest_run() {
  local bin=$1 label=$2 projects=() start version
  shift 2
  while [ $# -gt 0 ] && [ "$1" != -- ]; do projects+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  version=$("$bin" --version)
  echo "== JavaScript tests (jest: ${projects[*]}) on Node.js $version"
  start=$SECONDS
  # --selectProjects last: Jest takes every argument after it as one more project.
  PATH="$(dirname "$bin"):$PATH" "$bin" node_modules/jest/bin/jest.js --ci --json --outputFile="$results/jest-$label.json" \
    "$@" --selectProjects "${projects[@]}" || status=1
  echo "$version $((SECONDS - start)) $label ${projects[*]}" >> "$results/jest-runs.txt"
}

# ctest_run PRESET: the native tests of PRESET (configured and built first), in $results/ctest-PRESET.xml.
ctest_run() {
  { cmake --preset "$1" >/dev/null &&
    cmake --build --preset "$1" -j "$jobs" >/dev/null &&
    ctest --preset "$1" -j "$jobs" --output-junit "$root/$results/ctest-$1.xml"; } || status=1
}

: > "$results/jest-runs.txt"
# Where the browser and runtime tests write their screenshots and outcomes.
export CUCKOO_TEST_RESULTS="$root/$results"
if [ "$all" -eq 0 ]; then
  echo "== the tests' types (tsc)"
  npx tsc --noEmit -p tests/tsconfig.json || status=1

  jest_run "$(command -v node)" own quick browser -- "$@"
else
  echo "== native tests (GoogleTest, g++)"
  ctest_run native

  echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang-14)"
  ctest_run asan

  echo "== fuzzing (libFuzzer + ASan/UBSan, 50,000 executions each)"
  fuzz 50000

  jest_run "$(command -v node)" own long runtimes -- "$@"
  own_major=$(node -p 'process.versions.node.split(".")[0]')
  for version in "${NODE_VERSIONS[@]}"; do
    [ "${version%%.*}" = "$own_major" ] && continue
    if bin=$(node_binary "$version"); then
      jest_run "$bin" "node$version" quick long -- "$@"
    else
      echo "could not install Node.js v$version from the npm registry" >&2
      status=1
    fi
  done
fi

RESULTS="$results" node -e '
const fs = require("fs");
const dir = process.env.RESULTS + "/";
let passed = 0, failed = 0;
for (const file of fs.readdirSync(dir).filter((f) => /^ctest-.*\.xml$/.test(f)).sort()) {
  const suite = /<testsuite\b[^>]*>/.exec(fs.readFileSync(dir + file, "utf8"));
  if (!suite) { failed += 1; console.log(`${file}: no results`); continue; }
  const attr = (name) => Number(new RegExp(`\\s${name}="(\\d+)"`).exec(suite[0])[1]);
  passed += attr("tests") - attr("failures"); failed += attr("failures");
  console.log(`ctest (${file.slice(6, -4)}): ${attr("tests") - attr("failures")} passed, ${attr("failures")} failed`);
}
// One line per Jest run.
for (const run of fs.readFileSync(dir + "jest-runs.txt", "utf8").trim().split("\n").filter(Boolean)) {
  const [version, seconds, label, ...projects] = run.split(" ");
  let p = 0, f = 1;
  try {
    const j = JSON.parse(fs.readFileSync(dir + `jest-${label}.json`, "utf8"));
    p = j.numPassedTests; f = j.numFailedTests + j.numRuntimeErrorTestSuites;
  } catch {}
  passed += p; failed += f;
  console.log(`node ${version}: ${p} passed, ${f} failed (Jest: ${projects.join(", ")}; ${seconds} s)`);
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
