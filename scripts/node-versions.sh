#!/usr/bin/env bash
# The Node.js versions the package is tested and benchmarked on, and where their binaries come from: the npm
# registry's node-<platform>-<arch> packages (Node.js's own binaries), fetched with `npm pack` once and kept in
# $CUCKOO_NODE_CACHE (default ~/.cache/cuckoo-wasm/node/vX.Y.Z/bin/node), reused by later runs.
#
# Sourced by scripts/test.sh (NODE_VERSIONS, NODE_LTS, node_binary). Run, it prints the path of one binary:
#   bash scripts/node-versions.sh 22          # a major of NODE_VERSIONS (its release there), fetched if missing
#   bash scripts/node-versions.sh 22.23.3     # an exact release
#   bash scripts/node-versions.sh lts         # NODE_LTS, the benchmark's default
#   bash scripts/node-versions.sh --release 22   # only the release (22.23.3), nothing fetched
#   bash scripts/node-versions.sh --list      # the releases of NODE_VERSIONS, one per line
# bench/run.mjs (--node) and bench/batch.mjs run it. Exit status 1 (a message on stderr) when the version is not
# one of NODE_VERSIONS' majors or cannot be fetched.

# The newest release of each major, in the order run. Raise them as new releases come out.
NODE_VERSIONS=(20.20.2 22.23.3 24.21.0 26.10.0)
# The newest LTS major: 26 (Active LTS since October 2026; 24 is in maintenance, 20 reached end of life in April 2026).
NODE_LTS=26
node_cache=${CUCKOO_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuckoo-wasm/node}

# The release of NODE_VERSIONS for $1 (a major, X.Y.Z, or lts); prints it, or returns 1.
node_release() {
  local want=$1 version
  [ "$want" = lts ] && want=$NODE_LTS
  want=${want#v}
  for version in "${NODE_VERSIONS[@]}"; do
    if [ "$want" = "$version" ] || [ "$want" = "${version%%.*}" ]; then
      echo "$version"
      return 0
    fi
  done
  echo "node-versions: no Node.js '$1' here; known: ${NODE_VERSIONS[*]} (or lts = $NODE_LTS)" >&2
  return 1
}

# The node binary of release $1 (X.Y.Z), from the cache or else fetched into it; prints its path.
node_binary() {
  local dir="$node_cache/v$1" tmp
  if [ ! -x "$dir/bin/node" ]; then
    tmp=$(mktemp -d) || return 1
    # Unpacked beside the cache entry, then moved into place: an interrupted fetch leaves no half binary.
    if (cd "$tmp" && npm pack "node-$(node -p 'process.platform + "-" + process.arch')@$1" --loglevel=error >/dev/null) &&
      mkdir -p "$tmp/unpacked" && tar xzf "$tmp"/*.tgz -C "$tmp/unpacked" --strip-components=1 package/bin/node package/LICENSE &&
      mkdir -p "$node_cache" && rm -rf "$dir" && mv "$tmp/unpacked" "$dir"; then
      echo "(node v$1 fetched from the npm registry into $dir)" >&2
    fi
    rm -rf "$tmp"
  fi
  [ -x "$dir/bin/node" ] && echo "$dir/bin/node"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -uo pipefail
  case "${1:-}" in
    --list) printf '%s\n' "${NODE_VERSIONS[@]}" ;;
    --release) node_release "${2:-}" || exit 1 ;;
    '') echo "usage: bash scripts/node-versions.sh MAJOR|X.Y.Z|lts|--list" >&2; exit 2 ;;
    *)
      release=$(node_release "$1") || exit 1
      node_binary "$release" || { echo "node-versions: could not install Node.js v$release from the npm registry" >&2; exit 1; }
      ;;
  esac
fi
