#!/usr/bin/env bash
# Builds bench/native/core_bench.cc against the core (src/) as the CMake preset
# "bench" (CMakePresets.json): the default compiler (g++) at -O3 -DNDEBUG,
# linked with Google Benchmark (Debian: libbenchmark-dev). No -march: the same
# scalar code the wasm build gets (override with CXXFLAGS="-O3 -march=native" to
# see what the CPU could do). Build output goes to stderr; the last line on
# stdout is the binary's path (build/bench/core_bench).
#   bash bench/native/build.sh && build/bench/core_bench --n=1000000 --f=13
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
if [ ! -f /usr/include/benchmark/benchmark.h ]; then
  echo "build.sh: Google Benchmark not found: apt-get install libbenchmark-dev" >&2
  exit 1
fi
# CXXFLAGS replaces the preset's -O3 (and is not left in CMake's cache for later runs).
env -u CXXFLAGS cmake --preset bench -DCMAKE_CXX_FLAGS_RELEASE="${CXXFLAGS:--O3} -DNDEBUG" >&2
cmake --build --preset bench -j "$(nproc 2>/dev/null || echo 2)" >&2
echo "$root/build/bench/core_bench"
