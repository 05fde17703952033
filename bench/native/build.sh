#!/usr/bin/env bash
# Builds bench/native/core_bench.cc against the core (src/*.cc) with
# g++ -O3 directly (no CMake), linked with Google Benchmark (Debian: libbenchmark-dev),
# with the vendored xxHash (third_party/). No -march: the same scalar code the wasm build gets
# (override with CXXFLAGS="-O3 -march=native" to see what the CPU could do).
# Prints the binary's path (build/bench/core_bench) as its last line.
#   bash bench/native/build.sh && build/bench/core_bench --n=1000000 --f=13
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out="$root/build/bench"
if [ ! -f /usr/include/benchmark/benchmark.h ]; then
  echo "build.sh: Google Benchmark not found: apt-get install libbenchmark-dev" >&2
  exit 1
fi
mkdir -p "$out"
# shellcheck disable=SC2086
g++ -std=c++17 ${CXXFLAGS:--O3} -DNDEBUG -Wall -Wextra \
  -I"$root/src" -I"$root/third_party" \
  -DCUCKOO_BENCH_ROOT="\"$root\"" \
  "$root/src/cuckoo_filter.cc" "$root/src/format.cc" "$root/src/status.cc" \
  "$root/bench/native/core_bench.cc" \
  -o "$out/core_bench" -lbenchmark -lpthread
echo "$out/core_bench"
