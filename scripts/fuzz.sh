#!/usr/bin/env bash
# Fuzzes the core's parsers of untrusted bytes with libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer, built by Debian's clang-14 as the CMake preset "fuzz"
# (CMakePresets.json, build/fuzz/). Three targets:
#   deserialize  the deserializers: CuckooFilter, ScalableCuckooFilter,
#                ScalableBloomFilter, the Redis families and BinaryFuseFilter
#                (tests/fuzz/deserialize_fuzz.cc), the default
#   url          URL canonicalization and expressions (tests/fuzz/url_fuzz.cc)
#   redis        the SCANDUMP / LOADCHUNK readers of the Redis families
#                (tests/fuzz/redis_dump_fuzz.cc; binary build/fuzz/redis_fuzz)
#   patch        ApplyPatch / ReadPatchInfo on real bases of every family
#                (tests/fuzz/patch_fuzz.cc; binary build/fuzz/patch_fuzz)
#
#   bash scripts/fuzz.sh [--target deserialize|url|redis|patch] [RUNS]
#                                   run RUNS executions (default 10,000,000; CI: 50000)
#   bash scripts/fuzz.sh --corpus   regenerate the seed corpus tests/fuzz/corpus/
#                                   (deserialize; url's tests/fuzz/url_corpus/ and patch's
#                                   tests/fuzz/patch_corpus/ are kept by hand,
#                                   redis's tests/fuzz/redis_corpus/ by make_redis_seeds.py)
#   build/fuzz/deserialize_fuzz FILE...   replay inputs (e.g. a crash file); likewise url_fuzz, redis_fuzz,
#                                   patch_fuzz
#
# Builds build/fuzz/deserialize_fuzz, url_fuzz, redis_fuzz, patch_fuzz and build/fuzz/make_corpus
# (cmake --build --preset fuzz: only what changed), copies the target's seed corpus
# into a scratch corpus (build/fuzz/corpus/ for deserialize, build/fuzz/corpus-url/
# for url; recreated on every run; the committed seeds are never written while
# fuzzing) and runs libFuzzer there. Crash, timeout and out-of-memory inputs go to
# build/fuzz/artifacts/; the full log is build/fuzz/fuzz.log (fuzz-url.log, fuzz-redis.log, fuzz-patch.log
# for the others).
# Prints libFuzzer's final stats line and ends with "fuzz: N executions, K crashes";
# exits non-zero if K > 0.
#
# Environment: FUZZ_CXX (default clang++-14, else clang++), FUZZ_SEED (libFuzzer
# -seed; default 0 = random, the seed used is printed), FUZZ_ARGS (extra flags).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

out=build/fuzz
gen=$out/make_corpus

mode=fuzz
runs=10000000
target=deserialize
while [ $# -gt 0 ]; do
  case "$1" in
    --corpus) mode=corpus ;;
    --target)
      [ $# -ge 2 ] || { echo "fuzz: --target needs deserialize, url, redis or patch" >&2; exit 2; }
      target=$2
      shift
      ;;
    -h|--help) sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *[!0-9]*) echo "fuzz: RUNS must be a positive integer, got '$1'" >&2; exit 2 ;;
    *) runs=$1 ;;
  esac
  shift
done
[ "$runs" -gt 0 ] || { echo "fuzz: RUNS must be > 0" >&2; exit 2; }
case "$target" in
  deserialize) seeds=tests/fuzz/corpus; dict=tests/fuzz/deserialize.dict; work=$out/corpus; logname=fuzz.log ;;
  url) seeds=tests/fuzz/url_corpus; dict=tests/fuzz/url.dict; work=$out/corpus-url; logname=fuzz-url.log ;;
  redis) seeds=tests/fuzz/redis_corpus; dict=""; work=$out/corpus-redis; logname=fuzz-redis.log ;;
  patch) seeds=tests/fuzz/patch_corpus; dict=""; work=$out/corpus-patch; logname=fuzz-patch.log ;;
  *) echo "fuzz: --target must be deserialize, url, redis or patch, got '$target'" >&2; exit 2 ;;
esac
if [ "$mode" = corpus ] && [ "$target" != deserialize ]; then
  echo "fuzz: --corpus regenerates the deserialize seeds only; $seeds is kept by hand" >&2
  exit 2
fi
bin=$out/${target}_fuzz
# Redis dumps hold whole tables: longer inputs than the other targets.
max_len=4096
[ "$target" = redis ] && max_len=16384

cxx=${FUZZ_CXX:-}
if [ -z "$cxx" ]; then
  if command -v clang++-14 >/dev/null; then cxx=clang++-14
  elif command -v clang++ >/dev/null; then cxx=clang++
  else
    echo "fuzz: clang++ not found: apt-get install clang-14 libclang-rt-14-dev" >&2
    exit 1
  fi
fi

# The preset names clang++-14; another compiler is passed over it.
configure=(cmake --preset fuzz)
[ "$cxx" = clang++-14 ] || configure+=("-DCMAKE_CXX_COMPILER=$cxx")
if ! log=$("${configure[@]}" 2>&1 && cmake --build --preset fuzz -j "$(nproc 2>/dev/null || echo 2)" 2>&1); then
  echo "$log" >&2
  echo "fuzz: building the fuzz preset failed" >&2
  exit 1
fi
echo "fuzz: $bin, $gen up to date ($("$cxx" --version | head -n 1))"
mkdir -p "$out/artifacts"

if [ "$mode" = corpus ]; then
  rm -rf "$seeds"
  mkdir -p "$seeds"
  "$gen" "$seeds"
  echo "fuzz: wrote $(find "$seeds" -type f | wc -l) seed files to $seeds"
  exit 0
fi

# Scratch corpus: the committed seeds; for deserialize, plus freshly generated ones
# if the format has moved on since they were committed (then say so: they should be
# regenerated).
rm -rf "$work"
mkdir -p "$work"
if [ "$target" = deserialize ]; then
  rm -rf "$out/seeds"
  mkdir -p "$out/seeds"
  "$gen" "$out/seeds" >/dev/null
  if [ -d "$seeds" ] && [ -n "$(ls -A "$seeds")" ]; then
    cp "$seeds"/* "$work"/
    if ! diff -rq "$seeds" "$out/seeds" >/dev/null; then
      echo "fuzz: warning: $seeds differs from what make_corpus writes now;" \
           "run 'bash scripts/fuzz.sh --corpus' and commit it" >&2
      for f in "$out/seeds"/*; do cp "$f" "$work/fresh-$(basename "$f")"; done
    fi
  else
    cp "$out/seeds"/* "$work"/
  fi
else
  cp "$seeds"/* "$work"/
fi
# Inputs that once failed (tests/fuzz/regressions/<target>-*), replayed with the seeds.
for f in tests/fuzz/regressions/"$target"-*; do
  [ -e "$f" ] && cp "$f" "$work/"
done

marker=$out/run-start-$target
touch "$marker"
log=$out/$logname
echo "fuzz: $runs executions from $(find "$work" -type f | wc -l) seeds; log: $log"
start=$(date +%s%N)
set +e
# shellcheck disable=SC2086  # FUZZ_ARGS is a list of flags
"$bin" -runs="$runs" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  -seed="${FUZZ_SEED:-0}" ${dict:+-dict="$dict"} -print_final_stats=1 \
  -artifact_prefix="$out/artifacts/" ${FUZZ_ARGS:-} "$work" </dev/null 2>&1 |
  tee "$log" | grep --line-buffered -E '^INFO: Seed|^#[0-9]+[[:space:]]+(INITED|pulse)'
status=("${PIPESTATUS[@]}")
set -e
rc=${status[0]}
ms=$(( ($(date +%s%N) - start) / 1000000 ))

crashes=$(find "$out/artifacts" -type f -newer "$marker" | wc -l)
if [ "$rc" -ne 0 ]; then
  [ "$crashes" -gt 0 ] || crashes=1
  echo "fuzz: libFuzzer exited with status $rc; the report:"
  # From the first error report (sanitizer, failed check, deadly signal, timeout, oom) on.
  awk '/^==[0-9]+==|FUZZ_CHECK failed|runtime error:|deadly signal|ALARM|out-of-memory/ {p=1} p' \
    "$log" | head -n 120
  find "$out/artifacts" -type f -newer "$marker" -printf "fuzz: input saved as %p; replay: $bin %p\n"
fi

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
[ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
[ -n "$execs" ] || execs=0
grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true
grep -E '^Done [0-9]+ runs' "$log" | tail -n 1 || true
echo "fuzz: wall time $((ms / 1000)).$(printf '%03d' $((ms % 1000)))s," \
     "$(( execs * 1000 / (ms > 0 ? ms : 1) )) exec/s"
echo "fuzz: $execs executions, $crashes crashes"
[ "$crashes" -eq 0 ]
