#!/usr/bin/env bash
# Makes a fresh clone ready to test, demo and pack: installs the toolchain from
# Debian's packages if it is missing (emscripten, cmake, make; xxHash is
# vendored in third_party/), runs `npm ci` when node_modules is missing or
# older than package-lock.json, then builds the package (scripts/build.sh).
# With --browser (npm test) also the browsers the browser tests drive:
# chromium, firefox-esr, and webkit2gtk-driver (WebKitWebDriver, which pulls in
# libwebkit2gtk-4.1-0 and its MiniBrowser) with xvfb (MiniBrowser has no
# headless mode); with --all (npm run test:all) those and g++ and GoogleTest
# (the native tests), clang-14 with its sanitizer and fuzzer runtimes (ASan,
# libFuzzer). Safe to run again: each step skips what is done.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

need=()
command -v em++ >/dev/null || need+=(emscripten)
command -v cmake >/dev/null || need+=(cmake)
command -v make >/dev/null || need+=(make)
mode=${1:-}
if [ "$mode" = --all ]; then
  command -v g++ >/dev/null || need+=(g++)
  [ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
  command -v clang++-14 >/dev/null || need+=(clang-14)
  ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
fi
if [ "$mode" = --all ] || [ "$mode" = --browser ]; then
  [ -x /usr/bin/chromium ] || need+=(chromium)
  [ -x /usr/bin/firefox-esr ] || need+=(firefox-esr)
  [ -x /usr/bin/WebKitWebDriver ] || need+=(webkit2gtk-driver)
  [ -x /usr/bin/Xvfb ] || need+=(xvfb)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} (Debian packages)"
  if [ "$(id -u)" = 0 ]; then sudo=(); elif command -v sudo >/dev/null; then sudo=(sudo -n); else
    echo "setup: need root to install ${need[*]}: run 'apt-get install -y ${need[*]}' as root" >&2
    exit 1
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi

bash scripts/build.sh
