#!/usr/bin/env bash
# Builds the package from source: the WebAssembly modules (em++, CMake preset
# wasm) and the npm package's dist/ (esbuild, tsc). The native tests (preset
# native), the sanitizer and fuzz builds are built where they run
# (scripts/test.sh --all, scripts/fuzz.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=$(nproc 2>/dev/null || echo 2)

# Debian's emscripten runs its JS optimizer with the system's acorn.
export NODE_PATH="${NODE_PATH:+$NODE_PATH:}/usr/share/nodejs"
# A non-root user cannot write Debian's emscripten cache; give it one of its own.
[ -w /usr/share/emscripten/cache ] || export EM_CACHE="$root/build/em-cache"

# emcmake supplies Emscripten's toolchain file to the wasm preset.
emcmake cmake --preset wasm 2>&1 >/dev/null | { grep -v "^configure:" >&2 || true; }
cmake --build --preset wasm -j "$jobs" >/dev/null

node scripts/build.mjs
