#!/usr/bin/env bash
# The JavaScript runtimes besides Node.js that the package is tested on (tests/runtimes/), and where their binaries
# come from: each runtime's own build as the npm registry publishes it, fetched with `npm pack` once and kept in
# $CUCKOO_RUNTIME_CACHE (default ~/.cache/cuckoo-wasm/runtimes/NAME-VERSION/NAME), reused by later runs.
#
#   workerd  the open-source Cloudflare Workers runtime: @cloudflare/workerd-linux-64, the binary the npm package
#            `workerd` installs for Linux x64 (its optionalDependency of the same version)
#   deno     @deno/linux-x64-glibc, the binary the npm package `deno` installs
#   bun      @oven/bun-linux-x64, the binary the npm package `bun` installs
#
# Run, it prints the path of one binary, fetched if missing (exit status 1 and a message on stderr when it cannot be):
#   bash scripts/runtime-versions.sh workerd
#   bash scripts/runtime-versions.sh --version deno     # only the pinned version (2.9.6), nothing fetched
#   bash scripts/runtime-versions.sh --list             # NAME VERSION, one per line
# Sourced, it defines RUNTIME_VERSIONS and runtime_binary.

# Pinned versions, the newest releases when last raised. Raise them as new releases come out.
declare -A RUNTIME_VERSIONS=([workerd]=1.20261117.1 [deno]=2.9.6 [bun]=1.4.5)
# The npm package of each runtime's Linux x64 binary, and the binary's path inside the package.
declare -A RUNTIME_PACKAGES=([workerd]=@cloudflare/workerd-linux-64 [deno]=@deno/linux-x64-glibc [bun]=@oven/bun-linux-x64)
declare -A RUNTIME_PATHS=([workerd]=package/bin/workerd [deno]=package/deno [bun]=package/bin/bun)
runtime_cache=${CUCKOO_RUNTIME_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuckoo-wasm/runtimes}

# The binary of runtime $1 at its pinned version, from the cache or else fetched into it; prints its path.
runtime_binary() {
  local name=$1 version package inner dir tmp
  version=${RUNTIME_VERSIONS[$name]:-}
  if [ -z "$version" ]; then
    echo "runtime-versions: no runtime '$name' here; known: ${!RUNTIME_VERSIONS[*]}" >&2
    return 1
  fi
  if [ "$(uname -s)-$(uname -m)" != Linux-x86_64 ]; then
    echo "runtime-versions: only Linux x64 binaries are pinned, this is $(uname -s)-$(uname -m)" >&2
    return 1
  fi
  package=${RUNTIME_PACKAGES[$name]}
  inner=${RUNTIME_PATHS[$name]}
  dir="$runtime_cache/$name-$version"
  if [ ! -x "$dir/$name" ]; then
    tmp=$(mktemp -d) || return 1
    # Unpacked beside the cache entry, then moved into place: an interrupted fetch leaves no half binary.
    if (cd "$tmp" && npm pack "$package@$version" --loglevel=error >/dev/null) &&
      mkdir -p "$tmp/unpacked" && tar xzf "$tmp"/*.tgz -C "$tmp" "$inner" &&
      mv "$tmp/$inner" "$tmp/unpacked/$name" && mkdir -p "$runtime_cache" && rm -rf "$dir" && mv "$tmp/unpacked" "$dir"; then
      echo "($name $version fetched from the npm registry ($package) into $dir)" >&2
    fi
    rm -rf "$tmp"
  fi
  if [ ! -x "$dir/$name" ]; then
    echo "runtime-versions: could not fetch $name $version ($package) from the npm registry" >&2
    return 1
  fi
  echo "$dir/$name"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  case "${1:-}" in
    --list) for name in workerd deno bun; do echo "$name ${RUNTIME_VERSIONS[$name]}"; done ;;
    --version) [ -n "${RUNTIME_VERSIONS[${2:-}]:-}" ] && echo "${RUNTIME_VERSIONS[$2]}" || { echo "runtime-versions: no runtime '${2:-}'" >&2; exit 1; } ;;
    '') echo "usage: bash scripts/runtime-versions.sh workerd|deno|bun|--version NAME|--list" >&2; exit 2 ;;
    *) runtime_binary "$1" || exit 1 ;;
  esac
fi
