#!/usr/bin/env bash
# `cmake --install` (building from source) produces the layout of docs/contracts.md and the installed tree works
# on its own. Usage: install_layout_test.sh SOURCE_DIR BUILD_DIR LOAD_FROM_C DRIVER_BUILT(0|1)
set -euo pipefail
source_dir=$1 build=$2 load_from_c=$3 driver_built=$4
# shellcheck source=installed_tree.sh
source "$(dirname "${BASH_SOURCE[0]}")/installed_tree.sh"
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
expected=$(base_files "$source_dir")
if [ "$driver_built" = 1 ]; then expected=$(printf '%s\nbin/nccl-roce-allreduce-driver' "$expected" | LC_ALL=C sort); fi
expect_tree "$prefix" "$expected" "cmake --install"
check_base_works "$prefix" "$load_from_c"
echo "install layout ok: $(tree_files "$prefix" | tr '\n' ' ')"
