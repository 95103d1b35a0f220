#!/usr/bin/env bash
# `cmake --install` produces the layout of DESIGN.md section 1, and the installed library is found by NCCL's
# naming rule for each plugin type. Usage: install_layout_test.sh BUILD_DIR
set -euo pipefail
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$prefix/lib/libnccl-roce.so" ] || fail "lib/libnccl-roce.so missing"
for kind in net tuner env; do
  link="$prefix/lib/libnccl-$kind-roce.so"
  [ -L "$link" ] || fail "$link is not a symlink"
  [ "$(readlink "$link")" = libnccl-roce.so ] || fail "$link does not point at libnccl-roce.so"
done
[ -x "$prefix/bin/nccl-roce" ] || fail "bin/nccl-roce missing"
for f in policies/inference.toml policies/nccl.toml examples/sriov-pod-8rail.json; do
  [ -f "$prefix/share/nccl-roce/$f" ] || fail "share/nccl-roce/$f missing"
done
"$prefix/bin/nccl-roce" policy lint "$prefix/share/nccl-roce/policies/inference.toml" >/dev/null || fail "installed policy does not lint"
"$prefix/bin/nccl-roce" detect --snapshot "$prefix/share/nccl-roce/examples/sriov-pod-8rail.json" --format json >/dev/null \
  || fail "installed example does not resolve"
echo "install layout ok: $(cd "$prefix" && find . -type f -o -type l | sort | tr '\n' ' ')"
