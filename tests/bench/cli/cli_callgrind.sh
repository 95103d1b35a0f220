#!/usr/bin/env bash
# Instructions the `nccl-roce` command executes from exec to exit, counted by callgrind: the dynamic loader's
# work for every library it names (DT_NEEDED) and their relocations, static constructors, building the command
# line, the command itself. `--version` is start-up alone; `detect` and `env` resolve the busy node
# (tests/fixtures/busy_node.h: 8 HCAs x 2 ports, 2,048 populated GID entries), as in a pod. Run in an empty
# environment (the variables a command reads change its work).
# Usage: tests/bench/cli/cli_callgrind.sh [BUILD_DIR]
set -euo pipefail
build=${1:-build}
cli=$(cd "$build/cli" && pwd)/nccl-roce
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/tests/bench/cli/busy_node_tree" "$out/node"
node=(--sysfs-root "$out/node/sys" --ifaddrs "$out/node/ifaddrs")
count() {
  local label=$1 total
  shift
  env -i PATH=/usr/bin:/bin valgrind --tool=callgrind --callgrind-out-file="$out/cg" "$cli" "$@" \
    >/dev/null 2>"$out/log" || { cat "$out/log" >&2; exit 1; }
  total=$(grep -E '^(summary|totals):' "$out/cg" | head -1 | awk '{print $2}')
  printf '| %s | %s |\n' "$label" "$total"
}
printf '| command | instructions |\n|---|---|\n'
count "nccl-roce --version" --version
count "nccl-roce detect, busy node" detect "${node[@]}"
count "nccl-roce env, busy node" env "${node[@]}"
