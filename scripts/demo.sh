#!/usr/bin/env bash
# The main job on a fresh Debian machine: install packages, build, and resolve this machine's RDMA settings
# as the plugin does at NCCL init. On a host without RDMA devices it resolves the bundled example machine
# (an 8-rail SR-IOV RoCE pod) instead, and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
cli="${BUILD_DIR:-build}/cli/nccl-roce"
if [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
  echo "== nccl-roce detect (this machine)" >&2
  exec "$cli" detect "$@"
fi
example=share/nccl-roce/examples/sriov-pod-8rail.json
echo "== This host has no RDMA devices (/sys/class/infiniband is absent or empty)." >&2
echo "== Resolving the bundled example machine instead: $example" >&2
echo "== (a vLLM pod with 8 SR-IOV ConnectX-7 VFs, other pods' GIDs in the same tables, a 25G management NIC)" >&2
exec "$cli" detect --snapshot "$example" "$@"
